"""Behaviour equivalence per changed function: equal once import statements and formatting are
ignored (the comparison itself is ``equivalence.compare``; module-level code, ``equivalence.modulecode``)."""

from __future__ import annotations

import ast
import bisect
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial

from prreport.analyzers import Analyzer, register
from prreport.bundle import FileChange, PullRequestBundle
from prreport.equivalence.compare import (
    Comparison,
    compare_functions,
    nested,
    normalised,
    residual,
    same_through_nested,
)
from prreport.equivalence.generators import generator_requests
from prreport.equivalence.modulecode import module_code_same, reordered_imports
from prreport.equivalence.plainclass import moved_constructions
from prreport.findings import ContextRequest, Finding
from prreport.python.functions import Function, FunctionIndex, functions
from prreport.python.lazyimports import laziness_changed
from prreport.python.linekinds import beyond_imports, inside, is_code, merge_spans, string_lines
from prreport.python.sources import SourceFiles
from prreport.python.versions import PACKAGING
from prreport.textlines import split_lines


@dataclass(frozen=True)
class _Pair:
    """One modified file: its change, both trees, both function indexes and both line lists."""

    f: FileChange
    trees: tuple[ast.Module, ast.Module]
    old: FunctionIndex
    new: FunctionIndex
    lines: tuple[list[str], list[str]]


@register
class BehaviorAnalyzer(Analyzer):
    """Whether each changed function still does the same thing.

    before: ``def f():\\n    import json\\n    return json.dumps(x)`` · after: ``import json`` at the
    top, ``def f():\\n    return json.dumps(x)`` → ``behavior.unchanged``; any other difference → ``behavior.changed``.
    """

    name = "behavior"

    def requests(self, bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
        """The modules defining classes whose construction the change moves, and every
        reference to a private function the PR made a generator (all must consume it)."""
        files = set(moved_constructions(sources))
        # The declared Python decides spellings (``typing.Dict[...]`` as ``dict[...]`` from 3.9).
        heads = set(bundle.head_paths)
        if any("typing" in (f.before or "") for f in sources.python_files()):
            files |= {p for p in PACKAGING if p in heads and bundle.file(p) is None}
        return ContextRequest(files=frozenset(files)) | generator_requests(bundle, sources)

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``behavior.unchanged``/``behavior.changed`` for functions whose lines the PR touched."""
        findings: list[Finding] = []
        for f, before, after in sources.modified():
            findings.extend(_file(f, sources, before, after))
        return sorted(findings, key=Finding.sort_key)


def _file(
    f: FileChange, sources: SourceFiles, before: ast.Module, after: ast.Module
) -> list[Finding]:
    """The findings of one modified file: one per changed function, and one for module-level code."""
    changed = sources.changed(f)
    removed, added = sorted(changed.removed), sorted(changed.added)
    if not removed and not added:
        return []
    old = sources.memo(f.before_path, "before", "functions", lambda: functions(before))
    new = sources.memo(f.path, "after", "functions", lambda: functions(after))
    pair = _Pair(f, (before, after), old, new, _lines(sources, f))
    out = []
    common = old.functions.keys() & new.functions.keys()
    kids = (nested(old, common), nested(new, common))
    same_of: dict[str, bool] = {}
    # Innermost first, so an enclosing function can reuse its nested functions' results.
    for key in sorted(common, key=lambda q: (-q.count("."), q)):
        a, b = old.functions[key], new.functions[key]
        gone = removed[bisect.bisect_left(removed, a.start) : bisect.bisect_right(removed, a.end)]
        came = added[bisect.bisect_left(added, b.start) : bisect.bisect_right(added, b.end)]
        if not gone and not came:
            continue
        if same_through_nested(key, (gone, came), kids, same_of):
            result = Comparison(True, False, None)
        else:
            result = compare_functions(sources, f, key, a.node, b.node, pair.trees)
        same_of[key] = result.same
        out.append(_function_finding(pair, (a, b), (gone, came), result))
    module = _module_level(pair, sources, removed, added)
    if module is not None:
        out.append(module)
    return sorted(out, key=Finding.sort_key)


def _function_finding(
    pair: _Pair,
    versions: tuple[Function, Function],
    changed: tuple[list[int], list[int]],
    result: Comparison,
) -> Finding:
    """``behavior.unchanged`` or ``behavior.changed`` for one function (``versions``: before and
    after; ``changed``: its removed and added lines)."""
    f, (a, b), (gone, came) = pair.f, versions, changed
    qual, same = b.qualname, result.same
    details: dict[str, object] = {
        "before_line": a.start,
        "after_line": b.start,
        "before_end": a.end,
        "before_path": f.before_path,
        "after_end": b.end,
        "residual": [] if same else residual(normalised(a.node), normalised(b.node)),
    }
    if same and result.canonical:
        details["equal_modulo"] = "docstrings, annotations, import spelling"
    if result.rewrites:
        details["rewrites"] = [r.as_dict() for r in result.rewrites]
    if same:
        # Equal syntax trees apart from imports: every changed line is an import (which
        # the import analyzers describe), formatting, a comment or a blank line.
        exp = [(f.before_path, "-", n) for n in gone]
        exp += [(f.path, "+", n) for n in came]
        details["imports_removed"] = pair.old.imports_within(a) - pair.new.imports_within(b)
        return Finding(
            "behavior.unchanged",
            f.path,
            b.start,
            qual,
            f"{qual} is unchanged",
            details,
            tuple(sorted(exp)),
        )
    # The changed lines the residual comes from, so the model can tell whether a refactor
    # finding that proved equivalence accounts for every one of them. Imports, docstrings and
    # comments are not the residual (never compared).
    old_doc, new_doc = string_lines(a.node), string_lines(b.node)
    old_quiet = pair.old.import_lines(a.start, a.end) | old_doc
    new_quiet = pair.new.import_lines(b.start, b.end) | new_doc
    old_lines, new_lines = pair.lines
    details["residual_lines"] = [
        ("-", n) for n in gone if n not in old_quiet and is_code(old_lines, n)
    ] + [("+", n) for n in came if n not in new_quiet and is_code(new_lines, n)]
    # Its docstring lines say nothing about behaviour: this finding explains them.
    doc_lines = [(f.before_path, "-", n) for n in gone if n in old_doc]
    doc_lines += [(f.path, "+", n) for n in came if n in new_doc]
    return Finding(
        "behavior.changed",
        f.path,
        b.start,
        qual,
        f"{qual} changed",
        details,
        tuple(sorted(doc_lines)),
    )


def _module_level(
    pair: _Pair, sources: SourceFiles, removed: list[int], added: list[int]
) -> Finding | None:
    """``behavior.unchanged`` for ``<module>`` when the changed module- and class-level lines are
    formatting only: the trees are equal once imports and functions (compared one by one) are left out.
    """
    f, old, new = pair.f, pair.old, pair.new
    old_defs = merge_spans((d.start, d.end) for d in old.functions.values())
    new_defs = merge_spans((d.start, d.end) for d in new.functions.values())
    gone = [n for n in removed if not inside(old_defs, n)]
    came = [n for n in added if not inside(new_defs, n)]
    if not gone and not came:
        return None
    old_text, new_text = pair.lines
    old_imp, new_imp = merge_spans(old.import_spans), merge_spans(new.import_spans)
    if not any(beyond_imports(old_imp, old_text, n) for n in gone) and not any(
        beyond_imports(new_imp, new_text, n) for n in came
    ):
        # Only imports and the blank lines around them: the import analyzers tell what moved;
        # an import statement that binds the same names in another order is formatting.
        return _reordered_imports(pair, gone, came)
    if not module_code_same(sources, (f.before_path, f.path), pair.trees):
        return None
    details = {
        "before_line": 1,
        "after_line": 1,
        "before_path": f.before_path,
        "residual": [],
        "scope": "module and class level, outside functions",
    }
    # ``import m`` -> ``lazy import m`` lowers alike: the import analyzer says what that does.
    lazy_old, lazy_new = laziness_changed(*pair.trees)
    exp = [(f.before_path, "-", n) for n in gone if n not in lazy_old]
    exp += [(f.path, "+", n) for n in came if n not in lazy_new]
    return Finding(
        "behavior.unchanged",
        f.path,
        None,
        "<module>",
        f"module-level code of {f.path} is unchanged apart from imports and formatting",
        details,
        tuple(sorted(exp)),
    )


def _reordered_imports(pair: _Pair, gone: list[int], came: list[int]) -> Finding | None:
    """``behavior.unchanged`` for the changed lines of module-level import statements that bind
    the same names from the same module on both sides, in another order."""
    f = pair.f
    kept_old, kept_new = reordered_imports(*pair.trees)
    lazy_old, lazy_new = laziness_changed(*pair.trees)
    exp = [(f.before_path, "-", n) for n in gone if n in kept_old and n not in lazy_old]
    exp += [(f.path, "+", n) for n in came if n in kept_new and n not in lazy_new]
    if not exp:
        return None
    details = {"before_line": 1, "after_line": 1, "before_path": f.before_path, "residual": []}
    details["scope"] = "module-level imports, listed in another order"
    return Finding(
        "behavior.unchanged",
        f.path,
        None,
        "<module>",
        f"module-level imports of {f.path} bind the same names in another order",
        details,
        tuple(sorted(exp)),
    )


def _lines(sources: SourceFiles, f: FileChange) -> tuple[list[str], list[str]]:
    """The before and after lines of a changed file (split once per side, shared)."""
    before = sources.memo(f.before_path, "before", "lines", partial(split_lines, f.before or ""))
    after = sources.memo(f.path, "after", "lines", partial(split_lines, f.after or ""))
    return before, after
