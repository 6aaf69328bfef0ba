"""Retained lazy imports: function-local imports left in place, and why they are still lazy."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterable
from typing import Any

from prreport.analyzers import Analyzer, register
from prreport.bundle import PullRequestBundle
from prreport.findings import ContextRequest, Finding
from prreport.python.deps import OPTIONAL_BACKENDS, metadata_files, required_imports
from prreport.python.description import named_files, named_in, stated_reasons
from prreport.python.lazyreasons import LazyContext, hoist_walk, reason_for
from prreport.python.modules import module_index
from prreport.python.scopeindex import ImportBinding, ScopeIndex, head_scope_index, scope_index
from prreport.python.sources import SourceFiles
from prreport.python.versions import PACKAGING, head_python_floor

# Reasons a function-local import may become a module-level ``lazy`` one (PEP 810, Python 3.15):
# kept for weight, kept for no reason, or kept to break a cycle (which returns when lazy imports
# are disabled, ``-X lazy_imports=none``: the offer says so).
_LAZY_REASONS = ("hoistable", "heavy-dependency", "cycle-avoidance")


def _scanned(bundle: PullRequestBundle, sources: SourceFiles) -> list[tuple[str, bool]]:
    """(path, is_changed) of the files whose lazy imports are reported."""
    changed = [(f.path, True) for f in sources.python_files() if f.after is not None]
    paths = {p for p, _ in changed}
    named = [
        (p, False) for p in named_files(bundle) if p not in paths and bundle.context_files.get(p)
    ]
    return sorted(changed + named)


def _lazy(ix: ScopeIndex) -> list[ImportBinding]:
    """Imports run when a function is called: one in a class body runs with the module and
    binds a class attribute (``from email.iterators import walk`` makes ``Message.walk``)."""
    return [b for b in ix.imports if not b.at_module_level and b.scope not in ix.classes]


def _followup(path: str, text: str, line: int, parsed: list[Any], tree: ast.Module | None) -> str:
    """The codemod diff hoisting the import at ``line``; ``parsed`` keeps the file prepared once
    for all its codemods. The codemod module (and libcst, for the shapes not edited on the text) is imported
    only here: for a follow-up the report shows."""
    from prreport.codemods.hoist import hoist_diff, parse_for_hoist

    if not parsed:
        parsed.append(parse_for_hoist(text, tree))
    return hoist_diff(path, text, line, parsed[0]) if parsed[0] else ""


def _lazy_candidate(b: ImportBinding, reason: str, extra: dict[str, Any]) -> bool:
    """An import a module-level ``lazy`` one could replace: kept for weight or for no reason
    (not when the module is loaded at import anyway), or to break a cycle the walk found; run
    under no guard but an ``if`` or a loop (a ``with`` or ``try`` around it means it must run
    there and then)."""
    if reason not in _LAZY_REASONS or b.type_checking or extra.get("already_imported_line"):
        return False
    if reason == "cycle-avoidance" and not extra.get("cycle_chain"):
        return False  # "inside an except handler": a fallback, not a cycle seen
    return all(g.kind in ("if", "loop") for g in b.context)


def _lazy_offer(
    path: str,
    text: str,
    b: ImportBinding,
    parsed: list[Any],
    tree: ast.Module | None,
    floor: tuple[str, tuple[int, ...]] | None,
) -> dict[str, Any]:
    """The PEP 810 offer for one candidate: ``lazy_followup_diff`` when the project requires
    Python 3.15 or later, else only that ``lazy`` would need it (nothing that changes behaviour
    on the Pythons it supports)."""
    supported = ".".join(map(str, floor[1])) if floor else ""
    if floor is None or floor[1] < (3, 15):
        return {"lazy_offer": "needs-3.15", "requires_python": supported}
    from prreport.codemods.hoist import parse_for_hoist
    from prreport.codemods.lazyoffer import lazy_hoist_diff

    if not parsed:
        parsed.append(parse_for_hoist(text, tree))
    diff = lazy_hoist_diff(path, parsed[0], b.stmt_line, (b.bound,)) if parsed[0] else ""
    return {
        "lazy_offer": "offered" if diff else "no-codemod",
        "requires_python": supported,
        "lazy_followup_diff": diff,
    }


@register
class LazyImportsAnalyzer(Analyzer):
    """Function-local imports kept lazy, with the reason (or ``hoistable`` and a follow-up diff).

    after: ``except ValueError:\\n    from m import X`` → ``lazy-import.retained``
    (reason ``cycle-avoidance``).
    """

    name = "lazy-imports"

    def _retained(
        self, bundle: PullRequestBundle, sources: SourceFiles
    ) -> list[tuple[str, bool, list[ImportBinding]]]:
        """(path, is_changed, lazy imports already lazy before) per scanned file."""
        out = []
        for path, is_changed in _scanned(bundle, sources):
            ix = head_scope_index(sources, path)
            if ix is None:
                continue
            before_keys: set[tuple[Any, ...]] | None = None
            if is_changed:
                f = bundle.file(path)
                bx = (
                    scope_index(sources, f.before_path, "before")
                    if f and f.before is not None
                    else None
                )
                # only imports that were already lazy before count as "retained"
                before_keys = {(b.key, b.scope) for b in bx.imports} if bx else set()
            kept = [b for b in _lazy(ix) if before_keys is None or (b.key, b.scope) in before_keys]
            out.append((path, is_changed, kept))
        return out

    def _context(self, bundle: PullRequestBundle, sources: SourceFiles) -> LazyContext:
        texts = {p: t for p in metadata_files(bundle.head_paths) if (t := sources.text(p, "head"))}
        return LazyContext(
            sources,
            module_index(sources, self.config.first_party),
            max(1, self.config.cycle_depth),
            frozenset(self.config.heavy_packages),
            required_imports(texts),
            {},
        )

    def requests(self, bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
        """Files named in the PR description, project metadata when an optional backend is
        imported lazily, and the files the cycle walk of each lazy import needs next."""
        changed = {f.path for f in bundle.files}
        wanted = {p for p in named_files(bundle) if p not in changed}
        cx = self._context(bundle, sources)
        for path, _changed, kept in self._retained(bundle, sources):
            for b in kept:
                if b.module.lstrip(".").split(".")[0] in OPTIONAL_BACKENDS:
                    wanted.update(metadata_files(bundle.head_paths))
                _target, ex = hoist_walk(b, path, cx)
                if ex is not None:
                    wanted |= ex.missing
            if _changed and any(
                not b.type_checking and all(g.kind in ("if", "loop") for g in b.context)
                for b in kept
            ):
                # which Pythons the project supports decides whether ``lazy`` is offered
                heads = set(bundle.head_paths)
                wanted |= {p for p in PACKAGING if p in heads}
        return ContextRequest(files=frozenset(wanted - changed))

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``lazy-import.retained`` per function-local import in scanned files."""
        body = bundle.pr.body or ""
        findings = []
        budget = self.config.max_followups  # each codemod diffs a whole file: keep it bounded
        cx = self._context(bundle, sources)
        retained = self._retained(bundle, sources)
        lazies = [
            (b, hoist_walk(b, p, cx)[0] or b.module) for p, _c, kept in retained for b in kept
        ]
        cx = dataclasses.replace(cx, stated=stated_reasons(body, lazies))
        floor = head_python_floor(sources)
        for path, is_changed, kept in retained:
            side = "after" if is_changed else "head"
            text = sources.text(path, side) or ""
            diffs: dict[int, str] = {}
            wrapper: list[Any] = []  # ``text`` prepared for codemods, on first use only
            for b in kept:
                reason, guard, evidence, extra = reason_for(b, path, cx)
                target = (
                    cx.index.path_of(extra["target_module"]) if extra["target_module"] else None
                )
                chain = extra.get("cycle_chain") or []
                back = len(chain) == 3  # the target itself imports the importer back
                followup = ""
                skipped = False
                if reason == "hoistable" and b.stmt_line not in diffs and budget <= 0:
                    skipped = True
                elif reason == "hoistable":
                    if b.stmt_line not in diffs:
                        budget -= 1
                        diffs[b.stmt_line] = _followup(
                            path, text, b.stmt_line, wrapper, sources.tree(path, side)
                        )
                    followup = diffs[b.stmt_line]
                details = {
                    "module": b.module,
                    "name": b.name,
                    "alias": b.alias,
                    "scope": b.scope,
                    "reason": reason,
                    "guard": guard,
                    "evidence": evidence,
                    "context": [g.as_dict() for g in b.context],
                    "target_path": target,
                    "target_imports_importer": back,
                    "named_in_description": named_in(body, b),
                    "changed_file": is_changed,
                    "followup_diff": followup,
                    **extra,
                }
                if skipped:
                    details["followup_skipped"] = True  # over analysis.max_followups
                if is_changed and _lazy_candidate(b, reason, extra):
                    if budget > 0 or floor is None or floor[1] < (3, 15):
                        details |= _lazy_offer(
                            path, text, b, wrapper, sources.tree(path, side), floor
                        )
                        budget -= "lazy_followup_diff" in details
                findings.append(
                    Finding(
                        "lazy-import.retained",
                        path,
                        b.line,
                        b.bound,
                        f"{b.bound} stays imported inside {b.scope} ({reason})",
                        details,
                    )
                )
        return sorted(findings, key=Finding.sort_key)
