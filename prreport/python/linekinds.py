"""What a source line holds: code, only a comment, nothing, part of an import statement (or of
the blank run around one), or part of a string statement; line spans merged for fast lookups.

Lines are 1-based, as syntax trees number them; ``lines`` is a file side split into lines.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Iterable


def merge_spans(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, non-overlapping line spans."""
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def inside(spans: list[tuple[int, int]], n: int) -> bool:
    """Whether line ``n`` lies in one of the merged ``spans``."""
    i = bisect.bisect_right(spans, (n, float("inf"))) - 1
    return i >= 0 and spans[i][0] <= n <= spans[i][1]


def has_text(lines: list[str], n: int) -> bool:
    """Whether line ``n`` (1-based) holds more than whitespace."""
    return 1 <= n <= len(lines) and bool(lines[n - 1].strip())


def is_code(lines: list[str], n: int) -> bool:
    """Whether line ``n`` holds code (not blank, not only a comment)."""
    return has_text(lines, n) and not lines[n - 1].lstrip().startswith("#")


def beyond_imports(imports: list[tuple[int, int]], lines: list[str], n: int) -> bool:
    """Whether line ``n`` is code other than an import, or a blank line not next to an import
    (``imports``: the merged spans of the import statements)."""
    if has_text(lines, n):
        return not inside(imports, n)
    for step in (-1, 1):  # a run of blank lines touching an import belongs to the import block
        k = n + step
        while 1 <= k <= len(lines) and not has_text(lines, k):
            k += step
        if 1 <= k <= len(lines) and inside(imports, k):
            return False
    return True


def string_lines(node: ast.AST) -> set[int]:
    """Lines of the string statements (docstrings, attribute docstrings) inside ``node``."""
    out: set[int] = set()
    for sub in ast.walk(node):
        if (
            isinstance(sub, ast.Expr)
            and isinstance(sub.value, ast.Constant)
            and isinstance(sub.value.value, str)
        ):
            out.update(range(sub.lineno, (sub.end_lineno or sub.lineno) + 1))
    return out


def element_lines(tree: ast.Module) -> frozenset[int]:
    """Lines of function bodies that hold whole elements of a value being built, alone on their
    line (a dict entry, a list/tuple/set item, a call's argument or keyword): adding or removing
    such a line changes the value or the call although the line is no statement of its own.
    Module-level tables are left out: what an entry of a registry does is its readers' to say."""
    out: set[int] = set()
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    for node in (x for fn in functions for st in fn.body for x in ast.walk(st)):
        parts: list[tuple[ast.expr | ast.keyword, ast.expr | ast.keyword]]
        if isinstance(node, ast.Dict):
            parts = [
                (v if k is None else k, v) for k, v in zip(node.keys, node.values, strict=True)
            ]
        elif isinstance(node, ast.List | ast.Tuple | ast.Set):
            parts = [(e, e) for e in node.elts]
        elif isinstance(node, ast.Call):
            parts = [(e, e) for e in node.args] + [(k, k) for k in node.keywords]
        else:
            continue
        if len(parts) < 2 and node.lineno == node.end_lineno:
            continue
        for first, last in parts:
            start, end = first.lineno, last.end_lineno
            if start == end and start not in (node.lineno, node.end_lineno):
                out.add(start)
    return frozenset(out)
