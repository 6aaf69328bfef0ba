"""Imports left on a module the PR deleted: they fail with ``ModuleNotFoundError`` at head."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from prreport.analyzers import Analyzer, register
from prreport.bundle import PullRequestBundle
from prreport.findings import ContextRequest, Finding
from prreport.python.modules import ModuleIndex, module_index, parents
from prreport.python.sources import SourceFiles

# Files read to look for imports of a deleted module (a common word must not fetch the repository).
_MAX_FILES = 60
_CATCHES = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


def _removed_modules(bundle: PullRequestBundle, head: ModuleIndex) -> dict[str, str]:
    """Dotted module -> its file, for every Python file the PR deleted or renamed away whose
    module no longer has a source at head."""
    gone = [
        f.before_path
        for f in bundle.files
        if f.before_path.endswith(".py")
        and (f.status == "deleted" or (f.status == "renamed" and f.before_path != f.path))
    ]
    if not gone:
        return {}
    added = {f.path for f in bundle.files if f.status in ("added", "renamed", "copied")}
    before_paths = (set(bundle.head_paths) | {f.path for f in bundle.files}) - added | set(gone)
    before = ModuleIndex(before_paths)
    out: dict[str, str] = {}
    for path in gone:
        mod = before.module_of(path)
        if mod and head.path_of(mod) is None and not head.runs_nothing(mod):
            out[mod] = path
    return out


def _guarded(node: ast.AST, parents_of: dict[ast.AST, ast.AST]) -> bool:
    """Inside a ``try`` whose handlers catch a failed import (a fallback, not a broken import)."""
    cur = parents_of.get(node)
    while cur is not None:
        if isinstance(cur, ast.Try) and any(_catches(h) for h in cur.handlers):
            return True
        cur = parents_of.get(cur)
    return False


def _catches(h: ast.ExceptHandler) -> bool:
    if h.type is None:
        return True
    types = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
    return any(
        (t.id if isinstance(t, ast.Name) else t.attr if isinstance(t, ast.Attribute) else "")
        in _CATCHES
        for t in types
    )


def _absolute(node: ast.ImportFrom, importer: str | None, path: str) -> str | None:
    if not node.level:
        return node.module
    if importer is None:
        return None
    parts = importer.split(".")
    if not path.endswith("__init__.py"):
        parts = parts[:-1]
    if node.level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _binds(tree: ast.Module | None, name: str) -> bool:
    """Whether a package ``__init__`` binds ``name`` at module level (unknown counts as bound)."""
    if tree is None:
        return True
    for n in ast.walk(tree):
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            if any((a.asname or a.name.split(".")[0]) == name or a.name == "*" for a in n.names):
                return True
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if n.name in (name, "__getattr__"):
                return True
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id == name:
            return True
    return False


@register
class RemovedModulesAnalyzer(Analyzer):
    """Imports of a first-party module the PR deleted, left in code that stays.

    before: ``pkg/a.py: def helper(): ...`` and ``pkg/b.py: from pkg.a import helper`` · after:
    ``pkg/a.py`` deleted, ``pkg/b.py`` unchanged → ``names.unresolved`` for ``pkg.a.helper``
    at ``pkg/b.py:1`` (``reason: module-removed``).
    """

    name = "removed-modules"

    def requests(self, bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
        """Search the repository for the deleted modules' names, then read the files found."""
        removed = self._removed(bundle, sources)
        if not removed:
            return ContextRequest()
        words = {w for m in removed for w in (m, m.rsplit(".", 1)[-1])}
        changed = {f.path for f in bundle.files}
        exact = sorted({h.rsplit(":", 1)[0] for m in removed for h in bundle.references.get(m, ())})
        loose = sorted({h.rsplit(":", 1)[0] for w in words for h in bundle.references.get(w, ())})
        head = module_index(sources, self.config.first_party)
        inits = [head.path_of(m.rsplit(".", 1)[0]) for m in removed if "." in m]
        files = [p for p in dict.fromkeys([*exact, *loose]) if p not in changed]
        files = [*(p for p in inits if p and p not in changed), *files]
        return ContextRequest(files=frozenset(files[:_MAX_FILES]), references=frozenset(words))

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``names.unresolved`` (``details.reason: module-removed``) per import left on a
        deleted module, in the changed files at head and in the files the search found."""
        head = module_index(sources, self.config.first_party)
        removed = self._removed(bundle, sources)
        if not removed:
            return []
        trees: dict[str, ast.Module] = {}
        for f in sources.python_files():
            tree = sources.tree(f.path, "after") if f.after is not None else None
            if tree is not None:
                trees[f.path] = tree
        for path in sorted(bundle.context_files):
            if path.endswith(".py") and path not in trees and head.module_of(path) is not None:
                tree = sources.tree(path, "head")
                if tree is not None:
                    trees[path] = tree
        out: list[Finding] = []
        for path, tree in sorted(trees.items()):
            out.extend(self._broken(sources, head, removed, path, tree))
        return sorted(out, key=Finding.sort_key)

    def _removed(self, bundle: PullRequestBundle, sources: SourceFiles) -> dict[str, str]:
        head = module_index(sources, self.config.first_party)
        found: dict[str, str] = sources.memo(
            "", "", "removed-modules", lambda: _removed_modules(bundle, head)
        )
        return found

    def _broken(
        self,
        sources: SourceFiles,
        head: ModuleIndex,
        removed: dict[str, str],
        path: str,
        tree: ast.Module,
    ) -> Iterator[Finding]:
        importer = head.module_of(path)
        parents_of = {c: p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)) or _guarded(node, parents_of):
                continue
            for target, gone in self._targets(sources, head, removed, node, importer, path):
                spelled = ast.get_source_segment(sources.text(path, "head") or "", node) or ""
                was = removed[gone]
                moved = next((f.path for f in sources.bundle.files if f.before_path == was), was)
                how = f"renames {was} to {moved}" if moved != was else f"deletes {was}"
                yield Finding(
                    "names.unresolved",
                    path,
                    node.lineno,
                    target,
                    f"{target} is imported, but this PR {how} ({gone})",
                    {
                        "reason": "module-removed",
                        "module": gone,
                        "removed_path": was,
                        "renamed_to": moved if moved != was else "",
                        "statement": " ".join(spelled.split())[:200],
                        "lines": [node.lineno],
                        "scope": "",
                        "scopes": [],
                        "behavior_change": True,
                    },
                )

    def _targets(
        self,
        sources: SourceFiles,
        head: ModuleIndex,
        removed: dict[str, str],
        node: ast.Import | ast.ImportFrom,
        importer: str | None,
        path: str,
    ) -> Iterator[tuple[str, str]]:
        """(what the import names, the deleted module it needs) for each name that now fails."""

        def hit(mod: str) -> str | None:
            return next((m for m in [*parents(mod), mod] if m in removed), None)

        if isinstance(node, ast.Import):
            for a in node.names:
                gone = hit(a.name)
                if gone:
                    yield a.name, gone
            return
        base = _absolute(node, importer, path)
        if not base:
            return
        gone = hit(base)
        for a in node.names:
            if gone:
                yield (f"{base}.{a.name}" if a.name != "*" else base), gone
            elif f"{base}.{a.name}" in removed:
                init = head.path_of(base)
                tree = sources.tree(init, "head") if init and init.endswith("__init__.py") else None
                if init is None or not _binds(tree, a.name):
                    yield f"{base}.{a.name}", f"{base}.{a.name}"
