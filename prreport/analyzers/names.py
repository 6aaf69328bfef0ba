"""Name resolution on the after side of changed files: unresolved names (F821), unused added
imports (F401); the scope tree is ``python.bindings``, what resolves ``python.resolution``."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable

from prreport.analyzers import Analyzer, register
from prreport.bundle import FileChange, PullRequestBundle
from prreport.findings import Finding
from prreport.python.bindings import Scope, scope_tree, walk
from prreport.python.resolution import Unresolved, dunder_all, unresolved, used_below
from prreport.python.sources import SourceFiles


def _before_scopes(sources: SourceFiles, path: str, tree: ast.Module) -> Scope:
    scope: Scope = sources.memo(path, "before", "scopes", lambda: scope_tree(tree))
    return scope


def _unresolved_before(sources: SourceFiles) -> set[str]:
    """Names unbound in the before version of any changed Python file (memoised)."""

    def build() -> set[str]:
        out: set[str] = set()
        for f in sources.python_files():
            tree = sources.tree(f.before_path, "before") if f.before is not None else None
            if tree is not None:
                out |= {u.name for u in unresolved(_before_scopes(sources, f.before_path, tree))[0]}
        return out

    result: set[str] = sources.memo("", "before", "unresolved-names", build)
    return result


@register
class NameAnalyzer(Analyzer):
    """Names the change leaves unbound, and imports it adds that nothing uses.

    before: ``def f(): from m import g; g()`` · after: ``def f(): g()`` (no module-level
    import) → ``names.unresolved`` for ``g``; after: ``import os`` never read → ``names.unused-import``.
    """

    name = "names"

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``names.unresolved``, ``names.not-checkable`` and ``names.unused-import`` per changed file."""
        findings: list[Finding] = []
        for f in sources.python_files():
            if f.after is None:
                continue
            tree = sources.tree(f.path, "after")
            if tree is None:
                continue
            module: Scope = sources.memo(
                f.path, "after", "scopes", functools.partial(scope_tree, tree)
            )
            findings.extend(self._unresolved(f, sources, module))
            findings.extend(self._unused(f, sources, tree, module))
        return sorted(findings, key=Finding.sort_key)

    def _unresolved(self, f: FileChange, sources: SourceFiles, module: Scope) -> list[Finding]:
        """Unbound names the PR introduced (or kept while moving them: then ``preexisting``)."""
        missing, stars = unresolved(module)
        if not missing:
            return []
        added = set(sources.changed(f).added)
        before_missing: set[str] | None = None
        if f.before is not None:
            before_tree = sources.tree(f.before_path, "before")
            if before_tree is not None:
                before_scope = sources.memo(
                    f.before_path, "before", "scopes", lambda: scope_tree(before_tree)
                )
                before_missing = {u.name for u in unresolved(before_scope)[0]}
        # Report what the PR broke: reads on added lines, or names that resolved before.
        by_name: dict[str, list[Unresolved]] = {}
        for u in missing:
            new_read = u.line in added
            was_bound = before_missing is not None and u.name not in before_missing
            if new_read or was_bound or before_missing is None:
                by_name.setdefault(u.name, []).append(u)
        out = []
        for name, uses in sorted(by_name.items()):
            uses.sort(key=lambda u: u.line)
            details: dict[str, object] = {
                "scope": uses[0].scope,
                "lines": [u.line for u in uses],
                "scopes": sorted({u.scope for u in uses}),
            }
            if name in _unresolved_before(sources):
                # Already unbound before the PR (in this file or where the code came from):
                # moving such code along changes nothing; the finding says so.
                details["preexisting"] = True
            if stars:
                details["star_imports"] = [{"line": ln, "module": m} for ln, m in stars]
                out.append(
                    Finding(
                        "names.not-checkable",
                        f.path,
                        uses[0].line,
                        name,
                        f"{name} may come from a star import",
                        details,
                    )
                )
            else:
                out.append(
                    Finding(
                        "names.unresolved",
                        f.path,
                        uses[0].line,
                        name,
                        f"{name} is not bound",
                        details,
                    )
                )
        return out

    def _unused(
        self, f: FileChange, sources: SourceFiles, tree: ast.Module, module: Scope
    ) -> list[Finding]:
        added = set(sources.changed(f).added) if f.before is not None else None
        reexport = f.path.endswith("__init__.py")
        exported = dunder_all(tree)
        rows = (sources.text(f.path, "after") or "").splitlines()
        out = []
        for s in walk(module):
            if not s.imports:
                continue
            used = used_below(s)
            for bound, mod, name, line in s.imports:
                if added is not None and line not in added:
                    continue
                if bound in used:
                    continue
                if s is module and (reexport or bound in exported):
                    continue
                if _for_its_effect(rows[line - 1] if 0 < line <= len(rows) else "", bound, mod):
                    continue
                out.append(
                    Finding(
                        "names.unused-import",
                        f.path,
                        line,
                        bound,
                        f"{bound} is imported but never used",
                        {"module": mod, "name": name if name != mod else "", "scope": s.qualname},
                    )
                )
        return out


_EFFECT_WORDS = (
    "noqa",
    "side effect",
    "side-effect",
    "register",
    "for its effect",
    "patch",
    "monkeypatch",
    "needed",
    "required",
    "import for",
)


def _for_its_effect(row: str, bound: str, module: str) -> bool:
    """An import made for what importing does (registration, patching, configuration), not
    for its name: the line says so in a comment (``# noqa: F401``, ``# registers the
    handlers``...), or it is ``import a.b``, which loads ``a.b`` and binds only ``a``."""
    comment = row.partition("#")[2].lower() if "#" in row else ""
    if any(w in comment for w in _EFFECT_WORDS):
        return True
    return "." in module and bound == module.split(".")[0] and f"import {module}" in row
