"""A statement list aligned with its after version allowing only removed guards: which ``if``
(or part of an ``if a and b`` test) and which ``try`` went, the statements they guarded kept in
place; and whether the imports a guard held are made unguarded in the same scope.

Whether a removed guard ever mattered (its condition could never be false, its imports could
never fail) is ``equivalence.guards``.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

from prreport.python.definitions import dump, same_tree
from prreport.python.scopes import COMPOUND_STATEMENTS, is_string_statement

_IMPORTS = (ast.Import, ast.ImportFrom)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_BLOCKS = ("body", "orelse", "finalbody")
# Compound statements whose every field the aligner compares (header, blocks, handlers): for
# them a whole-tree comparison first would only repeat it (``match`` cases it does not walk).
_WALKED = COMPOUND_STATEMENTS - {
    ast.Match,
    *(getattr(ast, n) for n in ("TryStar",) if hasattr(ast, n)),
}


@dataclass(frozen=True)
class Drop:
    """One guard removed, the statements it guarded kept in place."""

    node: ast.If | ast.Try
    kept: str  # "body" (the condition held / the try succeeded) or "orelse" (the condition failed)
    after_line: int = 0  # where the kept statements start after the change (0: none kept)
    # The after statement that follows the kept ones: the guard's imports must come before it.
    next_after: ast.stmt | None = None


def _stmts(block: Sequence[ast.stmt]) -> list[ast.stmt]:
    """The statements that act: imports (the import analyzers follow them) and string
    statements (docstrings, attribute docstrings: documentation) left out."""
    return [s for s in block if not isinstance(s, _IMPORTS) and not is_string_statement(s)]


def _tried(st: ast.Try) -> list[str]:
    """The imports a ``try`` body makes (``_stmts`` leaves them out of the comparison)."""
    return [dump(s) for s in st.body if isinstance(s, _IMPORTS)]


def _conjuncts(test: ast.expr) -> list[ast.expr]:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [p for v in test.values for p in _conjuncts(v)]
    return [test]


def _flattened(st: ast.If) -> tuple[list[ast.expr], list[ast.stmt]]:
    """``if a: if b and c: X`` (no ``else`` anywhere) as ([a, b, c], X)."""
    tests, body = _conjuncts(st.test), st.body
    while not st.orelse and len(body) == 1 and isinstance(body[0], ast.If) and not body[0].orelse:
        st = body[0]
        tests, body = tests + _conjuncts(st.test), st.body
    return tests, body


def header_equal(a: ast.stmt, b: ast.stmt) -> bool:
    """Same statement type and the same fields outside its statement blocks."""
    if type(a) is not type(b):
        return False
    for name in a._fields:
        if name in (*_BLOCKS, "handlers", "cases"):
            continue
        if not same_tree(getattr(a, name), getattr(b, name)):  # type: ignore[arg-type]
            return False
    return True


def span(node: ast.stmt) -> tuple[int, int]:
    """First (decorators included) and last line of a statement."""
    start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return start, node.end_lineno or node.lineno


class Aligner:
    """Aligns a before statement list with an after one, allowing only removed guards.

    ``lines``: the before and after source lines; a statement spelled on the same lines, from
    the same columns, is the same statement without comparing trees (most of a file is).
    """

    def __init__(self, module_level: bool, lines: tuple[list[str], list[str]]) -> None:
        # At module level functions are compared one by one elsewhere: a def matches by name.
        self.module_level = module_level
        self.lines = lines
        self.drops: list[Drop] = []
        self.changed_ok = False

    def _same_text(self, b: ast.stmt, a: ast.stmt) -> bool:
        (b0, b1), (a0, a1) = span(b), span(a)
        return (
            b1 - b0 == a1 - a0
            and (b.col_offset, b.end_col_offset) == (a.col_offset, a.end_col_offset)
            and self.lines[0][b0 - 1 : b1] == self.lines[1][a0 - 1 : a1]
        )

    def block(
        self, before: Sequence[ast.stmt], after: Sequence[ast.stmt], changed_ok: bool = False
    ) -> bool:
        """Whether ``after`` is ``before`` with guards removed. ``changed_ok`` (this block
        only, not the blocks inside it): a statement may also be replaced by another of the
        same type, a change that is no dropped guard, when both lists keep their length."""
        b, a = _stmts(before), _stmts(after)
        i = j = 0
        while i < len(b):
            s = b[i]
            if j < len(a) and self.stmt(s, a[j]):
                i, j = i + 1, j + 1
                continue
            self.changed_ok, outer = changed_ok, self.changed_ok
            took = self._unwrap(s, a, j)
            self.changed_ok = outer
            if took is None:
                if not (changed_ok and j < len(a) and type(s) is type(a[j])):
                    return False
                took = 1
            i, j = i + 1, j + took
        return j == len(a)

    def stmt(self, b: ast.stmt, a: ast.stmt) -> bool:
        """Whether after statement ``a`` is before statement ``b`` with guards removed inside."""
        if self.module_level and isinstance(b, _DEFS) and isinstance(a, _DEFS):
            return b.name == a.name
        if self._same_text(b, a):
            return True
        if type(b) not in _WALKED and same_tree(b, a, _IMPORTS):
            return True  # (the statements below compare a compound statement field by field)
        if isinstance(b, ast.If) and isinstance(a, ast.If) and not b.orelse and not a.orelse:
            weakened = self._weakened(b, a)
            if weakened is not None:
                return weakened
        if not header_equal(b, a):
            return False
        if isinstance(b, ast.Try) and isinstance(a, ast.Try) and _tried(b) != _tried(a):
            return False  # two ``try`` fallbacks of different imports are not one statement
        mark = len(self.drops)
        ok = all(
            self.block(getattr(b, f, None) or [], getattr(a, f, None) or [])
            for f in _BLOCKS
            if hasattr(b, f)
        )
        handlers_b, handlers_a = getattr(b, "handlers", None), getattr(a, "handlers", None)
        if ok and handlers_b is not None:
            ok = len(handlers_b) == len(handlers_a or []) and all(
                same_tree(hb.type, ha.type) and hb.name == ha.name and self.block(hb.body, ha.body)  # type: ignore[arg-type]
                for hb, ha in zip(handlers_b, handlers_a or [], strict=False)
            )
        if not ok:
            del self.drops[mark:]
        return ok

    def _weakened(self, b: ast.If, a: ast.If) -> bool | None:
        """``if a and b: X`` (or nested ``if a: if b: X``) now ``if a: X``: the test ``b`` is
        dropped, the rest kept in order. None when the tests are not such a pair."""
        tests_b, body_b = _flattened(b)
        tests_a, body_a = _flattened(a)
        if len(tests_a) >= len(tests_b) or not tests_a:
            return None
        dropped: list[ast.expr] = []
        k = 0
        for t in tests_b:
            if k < len(tests_a) and same_tree(t, tests_a[k]):
                k += 1
            else:
                dropped.append(t)
        if k != len(tests_a):
            return None
        mark = len(self.drops)
        if not self.block(body_b, body_a):
            del self.drops[mark:]
            return False
        test = dropped[0] if len(dropped) == 1 else ast.BoolOp(ast.And(), dropped)
        guard = ast.copy_location(ast.If(test=test, body=body_b, orelse=[]), b)
        guard.end_lineno = b.end_lineno
        self.drops.append(Drop(guard, "body", a.lineno))
        return True

    def _unwrap(self, s: ast.stmt, after: list[ast.stmt], j: int) -> int | None:
        """How many after statements the guarded statements of ``s`` became, or None."""
        options: list[tuple[str, list[ast.stmt]]] = []
        if isinstance(s, ast.If):
            options = [("body", s.body)]
            # A branch of an ``elif`` chain removed: the tests after it still guard theirs.
            if not (s.body and len(s.orelse) == 1 and isinstance(s.orelse[0], ast.If)):
                options.append(("orelse", s.orelse))
        elif isinstance(s, ast.Try) and not s.finalbody:
            options = [("body", s.body + s.orelse)]
        for kept, stmts in options:
            inner = _stmts(stmts)
            n = len(inner)
            if (self.changed_ok and not stmts) or j + n > len(after):
                # With other changes around, a statement removed whole is one of them.
                continue
            mark = len(self.drops)
            if self.block(inner, after[j : j + n]):
                at = after[j].lineno if n else 0
                following = after[j + n] if j + n < len(after) else None
                self.drops.append(Drop(s, kept, at, following))  # type: ignore[arg-type]
                return n
            del self.drops[mark:]
        return None


def imports_kept(
    block: Sequence[ast.stmt], after: ast.AST, following: ast.stmt | None
) -> list[int] | None:
    """After lines of the unguarded copies of the imports in ``block`` (None when one is missing,
    or comes after ``following``, the statement the guard came before: code there may use it).

    An import merged into another import statement of the same scope (``from contextlib import
    asynccontextmanager, contextmanager``) is kept too; that statement's line is not listed: it
    also imports other names, which the import analyzers account for.
    """
    wanted = [s for s in block if isinstance(s, _IMPORTS)]
    if not wanted:
        return []
    body = after.body if isinstance(after, (ast.Module, *_DEFS)) else []
    limit = following.lineno if following is not None else None
    imports = [s for s in body if isinstance(s, _IMPORTS) and (limit is None or s.lineno < limit)]
    have = {dump(s): s for s in imports}
    bound = {_binding(s, a) for s in imports for a in s.names}
    lines: list[int] = []
    for w in wanted:
        st = have.get(dump(w))
        if st is not None:
            lines += range(st.lineno, (st.end_lineno or st.lineno) + 1)
        elif not all(_binding(w, a) in bound for a in w.names):
            return None
    return lines


def _binding(st: ast.Import | ast.ImportFrom, alias: ast.alias) -> tuple[object, ...]:
    """What one name of an import statement binds, whatever else the statement imports."""
    if isinstance(st, ast.ImportFrom):
        return ("from", st.module, st.level, alias.name, alias.asname)
    return ("import", alias.name, alias.asname)
