"""Behaviour equivalence per changed function: equal once import statements and formatting are ignored."""

from __future__ import annotations

import ast
import bisect
import copy
import difflib
from collections.abc import Iterable
from functools import partial

from prreport.analyzers import Analyzer, register
from prreport.bundle import FileChange, PullRequestBundle
from prreport.equivalence.canonical import (
    bindings,
    canonical,
    imports_in,
    locally_bound,
    module_bindings,
    rebound_builtins,
)
from prreport.equivalence.generators import generator_requests, generator_rewrites
from prreport.equivalence.plainclass import constructions, moved_constructions
from prreport.equivalence.rewrites import Rewrite, see_through
from prreport.findings import ContextRequest, Finding
from prreport.python.definitions import same_tree
from prreport.python.functions import _BLOCK_FIELDS, _Def, _Index, functions
from prreport.python.parse import copy_tree
from prreport.python.scopes import single_binding
from prreport.python.sources import SourceFiles
from prreport.python.versions import declared_min_python
from prreport.textlines import split_lines


class _DropImports(ast.NodeTransformer):
    """Remove import statements from every statement list (their placement is the refactor)."""

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for name in _BLOCK_FIELDS:
            block = getattr(node, name, None)
            if isinstance(block, list):
                setattr(
                    node,
                    name,
                    [s for s in block if not isinstance(s, (ast.Import, ast.ImportFrom))],
                )
        return super().generic_visit(node)


def normalised(fn: ast.AST) -> ast.AST:
    """A copy of a function without import statements (docstrings and everything else kept)."""
    return _DropImports().visit(copy_tree(fn))


_IMPORTS = (ast.Import, ast.ImportFrom)


def _canonical_def(
    fn: ast.FunctionDef | ast.AsyncFunctionDef,
    path: str,
    tree: ast.Module,
    sources: SourceFiles,
    side: str,
) -> ast.AST:
    """The function with docstrings and annotations dropped and imported objects spelled canonically."""
    module = sources.memo(path, side, "module-bindings", lambda: module_bindings(tree, path))
    own = imports_in(fn)
    names = {**module, **bindings(own, path)}
    own_names = set(bindings(own, path))
    rebound = sources.memo(path, side, "rebound-builtins", lambda: rebound_builtins(tree))
    return canonical(fn, names, locally_bound(fn) - own_names, rebound, _method_of(fn, tree))


def _generator_rewrites(
    f: FileChange,
    key: str,
    old: ast.FunctionDef | ast.AsyncFunctionDef,
    new: ast.FunctionDef | ast.AsyncFunctionDef,
    before: ast.Module,
    after: ast.Module,
    sources: SourceFiles,
) -> list[Rewrite] | None:
    """``_generators.generator_rewrites`` on fresh canonical copies (``see_through`` changed
    the first ones)."""

    def canon(fn: ast.FunctionDef, path: str, tree: ast.Module, side: str) -> ast.AST:
        return _canonical_def(fn, path, tree, sources, side)

    def pair() -> tuple[ast.AST, ast.AST]:
        return (
            _canonical_def(old, f.before_path, before, sources, "before"),
            _canonical_def(new, f.path, after, sources, "after"),
        )

    return generator_rewrites(sources, f.path, key, canon, pair, declared_min_python(sources))


def _method_of(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, tree: ast.Module
) -> tuple[str, str] | None:
    """(class, first parameter) when ``fn`` is a method, not static, of an undecorated class
    at module level whose name nothing else in the module binds: there ``super(C, p)`` is
    ``super()`` (a class decorator may return another class, e.g. a slots dataclass)."""
    params = [*fn.args.posonlyargs, *fn.args.args]
    if not params or any(
        isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list
    ):
        return None
    owner = next(
        (st for st in tree.body if isinstance(st, ast.ClassDef) and any(x is fn for x in st.body)),
        None,
    )
    if owner is None or owner.decorator_list:
        return None
    return (owner.name, params[0].arg) if single_binding(tree, owner.name) is owner else None


def _import_lines(index: _Index, start: int, end: int) -> set[int]:
    """Lines covered by import statements within ``start..end`` (multi-line blocks included)."""
    out: set[int] = set()
    for a, b in index.import_spans[bisect.bisect_left(index.import_starts, start) :]:
        if a > end:
            break
        out.update(range(a, b + 1))
    return out


def residual(before: ast.AST, after: ast.AST) -> list[str]:
    """Unparsed statement lines that differ, ``-``/``+`` prefixed."""
    a = ast.unparse(before).splitlines()
    b = ast.unparse(after).splitlines()
    return [
        ln
        for ln in difflib.unified_diff(a, b, lineterm="", n=0)
        if ln[:1] in "+-" and not ln.startswith(("+++", "---"))
    ]


def _blank_or(lines: list[str], wanted: set[int], candidates: Iterable[int]) -> list[int]:
    return sorted(
        n for n in candidates if n in wanted or (1 <= n <= len(lines) and not lines[n - 1].strip())
    )


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
        return ContextRequest(files=frozenset(moved_constructions(sources))) | generator_requests(
            bundle, sources
        )

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``behavior.unchanged``/``behavior.changed`` for functions whose lines the PR touched."""
        findings: list[Finding] = []
        for f, before, after in sources.modified():
            findings.extend(self._file(f, sources, before, after))
        return sorted(findings, key=Finding.sort_key)

    def _file(
        self, f: FileChange, sources: SourceFiles, before: ast.Module, after: ast.Module
    ) -> list[Finding]:
        changed = sources.changed(f)
        removed, added = sorted(changed.removed), sorted(changed.added)
        if not removed and not added:
            return []
        old = sources.memo(f.before_path, "before", "functions", lambda: functions(before))
        new = sources.memo(f.path, "after", "functions", lambda: functions(after))
        old_lines, new_lines = _lines(sources, f)
        out = []
        common = old.functions.keys() & new.functions.keys()
        kids_old = _nested(old, common)
        kids_new = _nested(new, common)
        same_of: dict[str, bool] = {}
        # Innermost first, so an enclosing function can reuse its nested functions' results.
        for key in sorted(common, key=lambda q: (-q.count("."), q)):
            a, b = old.functions[key], new.functions[key]
            qual = b.qualname
            gone = removed[
                bisect.bisect_left(removed, a.start) : bisect.bisect_right(removed, a.end)
            ]
            came = added[bisect.bisect_left(added, b.start) : bisect.bisect_right(added, b.end)]
            if not gone and not came:
                continue
            same = _same_through_nested(key, gone, came, old, new, kids_old, kids_new, same_of)
            if same is None:
                same = same_tree(a.node, b.node, _IMPORTS)
            canon: tuple[ast.AST, ast.AST] | None = None
            if not same:
                # Docstrings, annotations and the spelling of imported objects change nothing.
                canon = (
                    _canonical_def(a.node, f.before_path, before, sources, "before"),
                    _canonical_def(b.node, f.path, after, sources, "after"),
                )
                same = same_tree(canon[0], canon[1], _IMPORTS)
            rewrites: list[Rewrite] | None = None
            if not same and canon is not None:
                # Rewrites that keep what the code does (a local inlined, nested ifs merged...).
                inert = (
                    constructions(sources, f.before_path, "before"),
                    constructions(sources, f.path, "after"),
                )
                rewrites = see_through(*canon, declared_min_python(sources), inert)
                same = rewrites is not None
                if not same:
                    # Last resort, it needs the whole change: a list builder made a generator
                    # that every caller consumes at once, or a caller now wrapping it in list().
                    rewrites = _generator_rewrites(f, key, a.node, b.node, before, after, sources)
                    same = rewrites is not None
            same_of[key] = same
            details = {
                "before_line": a.start,
                "after_line": b.start,
                "before_end": a.end,
                "before_path": f.before_path,
                "after_end": b.end,
                "residual": [] if same else residual(normalised(a.node), normalised(b.node)),
            }
            if same and canon is not None:
                details["equal_modulo"] = "docstrings, annotations, import spelling"
            if rewrites:
                details["rewrites"] = [r.as_dict() for r in rewrites]
            if not same:
                # The changed lines the residual comes from, so the model can tell whether a
                # refactor finding that proved equivalence accounts for every one of them.
                # Imports, docstrings and comments are not the residual (never compared).
                old_doc, new_doc = _string_lines(a.node), _string_lines(b.node)
                old_quiet = _import_lines(old, a.start, a.end) | old_doc
                new_quiet = _import_lines(new, b.start, b.end) | new_doc
                # Its docstring lines say nothing about behaviour: this finding explains them.
                doc_lines = [(f.before_path, "-", n) for n in gone if n in old_doc]
                doc_lines += [(f.path, "+", n) for n in came if n in new_doc]
                details["residual_lines"] = [
                    ("-", n) for n in gone if n not in old_quiet and _code(old_lines, n)
                ] + [("+", n) for n in came if n not in new_quiet and _code(new_lines, n)]
            if same:
                # Equal syntax trees apart from imports: every changed line is an import (which
                # the import analyzers describe), formatting, a comment or a blank line.
                exp = [(f.before_path, "-", n) for n in gone]
                exp += [(f.path, "+", n) for n in came]
                details["imports_removed"] = _count(old, a) - _count(new, b)
                out.append(
                    Finding(
                        "behavior.unchanged",
                        f.path,
                        b.start,
                        qual,
                        f"{qual} is unchanged",
                        details,
                        tuple(sorted(exp)),
                    )
                )
            else:
                out.append(
                    Finding(
                        "behavior.changed",
                        f.path,
                        b.start,
                        qual,
                        f"{qual} changed",
                        details,
                        tuple(sorted(doc_lines)),
                    )
                )
        module = _module_level(f, sources, old, new, before, after, removed, added)
        if module is not None:
            out.append(module)
        return sorted(out, key=Finding.sort_key)


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _merge(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, non-overlapping line spans."""
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def _inside(spans: list[tuple[int, int]], n: int) -> bool:
    i = bisect.bisect_right(spans, (n, float("inf"))) - 1
    return i >= 0 and spans[i][0] <= n <= spans[i][1]


def _module_level(
    f: FileChange,
    sources: SourceFiles,
    old: _Index,
    new: _Index,
    before: ast.Module,
    after: ast.Module,
    removed: list[int],
    added: list[int],
) -> Finding | None:
    """``behavior.unchanged`` for ``<module>`` when the changed module- and class-level lines are
    formatting only: the trees are equal once imports and functions (compared one by one) are left out.
    """
    old_defs = _merge((d.start, d.end) for d in old.functions.values())
    new_defs = _merge((d.start, d.end) for d in new.functions.values())
    gone = [n for n in removed if not _inside(old_defs, n)]
    came = [n for n in added if not _inside(new_defs, n)]
    if not gone and not came:
        return None
    old_text, new_text = _lines(sources, f)
    old_imp, new_imp = _merge(old.import_spans), _merge(new.import_spans)
    if not any(_formatting_line(old_imp, old_text, n) for n in gone) and not any(
        _formatting_line(new_imp, new_text, n) for n in came
    ):
        # Only imports and the blank lines around them: the import analyzers tell what moved;
        # an import statement that binds the same names in another order is formatting.
        return _reordered_imports(f, before, after, gone, came)
    drop = (ast.Import, ast.ImportFrom, *_DEFS)
    if not same_tree(before, after, drop):
        # Docstrings, class-field annotation spelling and imported-object spelling change nothing.
        a = canonical(
            _without_defs(before),
            module_bindings(before, f.before_path),
            rebound=sources.memo(
                f.before_path, "before", "rebound-builtins", lambda: rebound_builtins(before)
            ),
        )
        b = canonical(
            _without_defs(after),
            module_bindings(after, f.path),
            rebound=sources.memo(
                f.path, "after", "rebound-builtins", lambda: rebound_builtins(after)
            ),
        )
        if not same_tree(a, b, drop):
            return None
    details = {
        "before_line": 1,
        "after_line": 1,
        "before_path": f.before_path,
        "residual": [],
        "scope": "module and class level, outside functions",
    }
    exp = [(f.before_path, "-", n) for n in gone] + [(f.path, "+", n) for n in came]
    return Finding(
        "behavior.unchanged",
        f.path,
        None,
        "<module>",
        f"module-level code of {f.path} is unchanged apart from imports and formatting",
        details,
        tuple(sorted(exp)),
    )


def _without_defs(tree: ast.Module) -> ast.Module:
    """A copy of the module without function definitions (they are compared one by one); the
    functions are never copied (a deep copy of a large module costs more than the comparison)."""
    out = _copy_without_defs(tree)
    assert isinstance(out, ast.Module)
    return out


def _copy_without_defs(node: ast.AST) -> ast.AST:
    new = copy.copy(node)
    for name, value in ast.iter_fields(node):
        if isinstance(value, list):
            block = name in _BLOCK_FIELDS
            setattr(
                new,
                name,
                [
                    _copy_without_defs(v) if isinstance(v, ast.AST) else v
                    for v in value
                    if not (block and isinstance(v, _DEFS))
                ],
            )
        elif isinstance(value, ast.AST):
            setattr(new, name, _copy_without_defs(value))
    return new


def _formatting_line(imports: list[tuple[int, int]], lines: list[str], n: int) -> bool:
    """Whether line ``n`` is code other than an import, or a blank line not next to an import."""
    if _text(lines, n):
        return not _inside(imports, n)
    for step in (-1, 1):  # a run of blank lines touching an import belongs to the import block
        k = n + step
        while 1 <= k <= len(lines) and not _text(lines, k):
            k += step
        if 1 <= k <= len(lines) and _inside(imports, k):
            return False
    return True


def _code(lines: list[str], n: int) -> bool:
    """Whether line ``n`` holds code (not blank, not only a comment)."""
    return _text(lines, n) and not lines[n - 1].lstrip().startswith("#")


def _string_lines(fn: ast.AST) -> set[int]:
    """Lines of the string statements (docstrings, attribute docstrings) inside ``fn``."""
    out: set[int] = set()
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            out.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return out


def _text(lines: list[str], n: int) -> bool:
    """Whether line ``n`` (1-based) holds more than whitespace."""
    return 1 <= n <= len(lines) and bool(lines[n - 1].strip())


def _nested(index: _Index, common: set[str]) -> dict[str, list[_Def]]:
    """Directly nested functions (present on both sides) of each function, in source order."""
    out: dict[str, list[_Def]] = {}
    for d in index.functions.values():
        if d.parent and d.key in common:
            out.setdefault(d.parent, []).append(d)
    for kids in out.values():
        kids.sort(key=lambda d: d.start)
    return out


def _same_through_nested(
    qual: str,
    gone: list[int],
    came: list[int],
    old: _Index,
    new: _Index,
    kids_old: dict[str, list[_Def]],
    kids_new: dict[str, list[_Def]],
    same_of: dict[str, bool],
) -> bool | None:
    """Decide from nested results when every changed line lies inside nested functions, else None.

    Lines outside those nested functions are then untouched text, so the enclosing function is
    equal exactly when each nested function that changed is equal (and their order is kept).
    """
    ko, kn = kids_old.get(qual, []), kids_new.get(qual, [])
    if not ko or [d.key for d in ko] != [d.key for d in kn]:
        return None
    if not all(any(d.start <= n <= d.end for d in ko) for n in gone):
        return None
    if not all(any(d.start <= n <= d.end for d in kn) for n in came):
        return None
    touched = [d.key for d in ko if d.key in same_of]
    if not all(same_of[q] for q in touched):
        return None  # let the full comparison compute the residual
    return True


def _count(index: _Index, d: _Def) -> int:
    """Import statements within a function's lines."""
    lo = bisect.bisect_left(index.import_starts, d.start)
    hi = bisect.bisect_right(index.import_starts, d.end)
    return hi - lo


def _lines(sources: SourceFiles, f: FileChange) -> tuple[list[str], list[str]]:
    """The before and after lines of a changed file (split once per side, shared)."""
    before = sources.memo(f.before_path, "before", "lines", partial(split_lines, f.before or ""))
    after = sources.memo(f.path, "after", "lines", partial(split_lines, f.after or ""))
    return before, after


def _reordered_imports(
    f: FileChange, before: ast.Module, after: ast.Module, gone: list[int], came: list[int]
) -> Finding | None:
    """``behavior.unchanged`` for the changed lines of module-level import statements that bind
    the same names from the same module on both sides (``from typing import Dict, IO`` /
    ``from typing import IO, Dict``); a statement that moved scope is an import move instead."""

    def statements(tree: ast.Module) -> dict[tuple[object, ...], list[range]]:
        out: dict[tuple[object, ...], list[range]] = {}
        for node in tree.body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = tuple(sorted((a.name, a.asname or "") for a in node.names))
                module = (node.module, node.level) if isinstance(node, ast.ImportFrom) else None
                out.setdefault((module, names), []).append(
                    range(node.lineno, (node.end_lineno or node.lineno) + 1)
                )
        return out

    old, new = statements(before), statements(after)
    kept_old = {
        n for k in old.keys() & new.keys() if len(old[k]) == len(new[k]) == 1 for n in old[k][0]
    }
    kept_new = {
        n for k in old.keys() & new.keys() if len(old[k]) == len(new[k]) == 1 for n in new[k][0]
    }
    exp = [(f.before_path, "-", n) for n in gone if n in kept_old]
    exp += [(f.path, "+", n) for n in came if n in kept_new]
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
