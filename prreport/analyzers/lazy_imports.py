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
