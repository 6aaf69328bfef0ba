"""The ``if/elif/else`` chains of a tree: each chain head with its tests and bodies, the
statement list that holds it and the qualified name of the scope it is in; and the pruning
predicates that keep a search to the statements a change touched.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Callable
from dataclasses import dataclass

from prreport.python.scopes import SIMPLE_STATEMENTS


@dataclass(frozen=True)
class Chain:
    """An ``if/elif/else`` chain: tests and bodies (``None`` test = ``else``), with its position."""

    scope: str
    node: ast.If
    stmts: list[ast.stmt]
    index: int
    tests: tuple[ast.expr | None, ...]
    bodies: tuple[list[ast.stmt], ...]

    @property
    def has_else(self) -> bool:
        """Whether the chain ends in an ``else``."""
        return self.tests[-1] is None

    @property
    def span(self) -> tuple[int, int]:
        """First and last line of the chain."""
        return self.node.lineno, self.node.end_lineno or self.node.lineno

    @property
    def block_end(self) -> int:
        """Last line of the block that holds the chain."""
        last = self.stmts[-1]
        return last.end_lineno or last.lineno


def chain(scope: str, stmts: list[ast.stmt], i: int) -> Chain:
    """The chain whose head is ``stmts[i]`` (an ``if``)."""
    node = stmts[i]
    assert isinstance(node, ast.If)
    tests: list[ast.expr | None] = []
    bodies: list[list[ast.stmt]] = []
    cur: ast.If = node
    while True:
        tests.append(cur.test)
        bodies.append(cur.body)
        if len(cur.orelse) == 1 and isinstance(cur.orelse[0], ast.If):
            cur = cur.orelse[0]
            continue
        if cur.orelse:
            tests.append(None)
            bodies.append(cur.orelse)
        break
    return Chain(scope, node, stmts, i, tuple(tests), tuple(bodies))


def chains(
    node: ast.AST, scope: str, keep: Callable[[ast.AST, str], bool] | None = None
) -> list[Chain]:
    """Every chain head in a tree (elif parts are not heads), with the enclosing qualname.

    ``keep(statement, qualname)`` prunes: a statement it rejects is not looked into at all.
    """
    out: list[Chain] = []
    _collect(node, scope, keep, out)
    return out


def _collect(
    node: ast.AST, scope: str, keep: Callable[[ast.AST, str], bool] | None, out: list[Chain]
) -> None:
    is_def = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    for field in ("body", "orelse", "finalbody", "handlers"):
        stmts = getattr(node, field, None)
        if not isinstance(stmts, list):
            continue
        for i, st in enumerate(stmts):
            if type(st) in SIMPLE_STATEMENTS:
                continue  # no bodies, so no chains
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = (
                    f"{scope}.<locals>.{st.name}"
                    if is_def
                    else (f"{scope}.{st.name}" if scope else st.name)
                )
            elif isinstance(st, ast.ClassDef):
                inner = f"{scope}.{st.name}" if scope else st.name
            else:
                inner = scope
            if keep is not None and not keep(st, inner):
                continue
            if (
                isinstance(st, ast.If)
                and isinstance(node, ast.If)
                and field == "orelse"
                and len(stmts) == 1
            ):
                # an elif: part of the parent's chain, but its bodies may hold chains
                _collect(st, scope, keep, out)
                continue
            if isinstance(st, ast.If):
                out.append(chain(scope, stmts, i))
            if isinstance(st, ast.AST):
                _collect(st, inner, keep, out)


def touches(lines: list[int]) -> Callable[[ast.AST, str], bool]:
    """A ``keep`` predicate: the statement's span holds one of the (sorted) lines."""

    def keep(st: ast.AST, _scope: str) -> bool:
        first = st.lineno  # type: ignore[attr-defined]
        i = bisect.bisect_left(lines, first)
        return i < len(lines) and lines[i] <= (st.end_lineno or first)  # type: ignore[attr-defined]

    return keep


def within(scopes: set[str]) -> Callable[[ast.AST, str], bool]:
    """A ``keep`` predicate: definitions whose qualname is or encloses one of the scopes."""
    prefixes = {s[:i] for s in scopes for i in range(len(s) + 1) if i == len(s) or s[i] == "."}

    def keep(st: ast.AST, scope: str) -> bool:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return scope in prefixes
        return True

    return keep
