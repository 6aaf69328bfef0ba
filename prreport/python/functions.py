"""Every function and method of a tree by qualified name, with its span and the import spans of the
file (statements only are walked: the behaviour comparison's index of what to compare)."""

from __future__ import annotations

import ast
import bisect
from collections.abc import Iterator
from dataclasses import dataclass

from prreport.python.scopes import COMPOUND_STATEMENTS

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


# The fields of a node that hold statement lists (match cases and except handlers included).
BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


# Statements that hold other statements; everything else is a leaf for the statement walk.
_COMPOUND = COMPOUND_STATEMENTS - {ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef}


@dataclass(frozen=True)
class Function:
    """A function or method of one file side with its line span (decorators included)."""

    qualname: str
    start: int
    end: int
    node: ast.FunctionDef | ast.AsyncFunctionDef
    parent: str  # key of the enclosing function ("" when none)
    key: str = ""  # the qualname, with "#2", "#3"... for redefinitions (property setters)


def _children(stmt: ast.AST) -> Iterator[ast.stmt]:
    """Statements nested directly in a compound statement (bodies, handlers, match cases)."""
    for name in BLOCK_FIELDS:
        for sub in getattr(stmt, name, ()) or ():
            if isinstance(sub, (ast.ExceptHandler, ast.match_case)):
                yield from sub.body
            else:
                yield sub


@dataclass(frozen=True)
class FunctionIndex:
    """Functions of a file side, and the line spans of every import statement in it."""

    functions: dict[str, Function]
    import_starts: tuple[int, ...]
    import_spans: tuple[tuple[int, int], ...]

    def import_lines(self, start: int, end: int) -> set[int]:
        """Lines covered by import statements within ``start..end`` (multi-line blocks included)."""
        out: set[int] = set()
        for a, b in self.import_spans[bisect.bisect_left(self.import_starts, start) :]:
            if a > end:
                break
            out.update(range(a, b + 1))
        return out

    def imports_within(self, d: Function) -> int:
        """Import statements within a function's lines."""
        lo = bisect.bisect_left(self.import_starts, d.start)
        hi = bisect.bisect_right(self.import_starts, d.end)
        return hi - lo


def functions(tree: ast.Module) -> FunctionIndex:
    """Every function and method by qualname (``Cls.meth``, ``f.<locals>.g``); statements only are walked."""
    out: dict[str, Function] = {}
    spans: list[tuple[int, int]] = []
    stack: list[tuple[ast.stmt, str, str]] = [(st, "", "") for st in reversed(tree.body)]
    while stack:
        st, prefix, parent = stack.pop()
        if isinstance(st, _FUNCTIONS):
            qual = prefix + st.name
            key, n = qual, 1
            while key in out:
                n += 1
                key = f"{qual}#{n}"
            start = min([st.lineno, *(d.lineno for d in st.decorator_list)])
            out[key] = Function(qual, start, st.end_lineno or st.lineno, st, parent, key)
            stack.extend((s, f"{key}.<locals>.", key) for s in reversed(st.body))
        elif isinstance(st, ast.ClassDef):
            qual = prefix + st.name
            stack.extend((s, f"{qual}.", parent) for s in reversed(st.body))
        elif isinstance(st, (ast.Import, ast.ImportFrom)):
            spans.append((st.lineno, st.end_lineno or st.lineno))
        elif type(st) in _COMPOUND:
            stack.extend((s, prefix, parent) for s in reversed(list(_children(st))))
    spans.sort()
    return FunctionIndex(out, tuple(s for s, _ in spans), tuple(spans))
