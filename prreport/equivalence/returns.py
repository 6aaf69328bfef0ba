"""Returns of a ``bool`` written two ways (an idiom of ``prreport.equivalence.idioms``):
``if c: return True`` then ``return False`` is ``return bool(c)``, and a loop returning ``True``
on the first item that passes a test, then ``False``, is ``return any(test for ...)``."""

from __future__ import annotations

import ast
from collections.abc import Callable


class BoolReturns:
    """The statement half of ``Idioms``: it supplies ``builtin``, ``is_bool`` and ``_did``."""

    builtin: Callable[[str], bool]

    def is_bool(self, node: ast.expr) -> bool:
        raise NotImplementedError

    def _did(self, idiom: str) -> None:
        raise NotImplementedError

    def _returns(self, block: list[ast.stmt]) -> list[ast.stmt]:
        """``if c: return True`` / ``return False`` as ``return bool(c)``; a first-match loop
        returning a ``bool`` as ``any``/``all``."""
        out: list[ast.stmt] = []
        i = 0
        while i < len(block):
            st, nxt = block[i], block[i + 1] if i + 1 < len(block) else None
            made = self._bool_return(st, nxt) or self._first_match(st, nxt)
            if made is not None:
                new, used = made
                out.append(ast.copy_location(new, st))
                i += used
                continue
            out.append(st)
            i += 1
        return out

    def _bool_return(self, st: ast.stmt, nxt: ast.stmt | None) -> tuple[ast.stmt, int] | None:
        if not (isinstance(st, ast.If) and len(st.body) == 1 and self.builtin("bool")):
            return None
        first = _returned_bool(st.body[0])
        if st.orelse:
            second, used = (_returned_bool(st.orelse[0]) if len(st.orelse) == 1 else None), 1
        else:
            second, used = (_returned_bool(nxt) if nxt is not None else None), 2
        if first is None or second is None or first == second:
            return None
        if first:
            value: ast.expr = st.test if self.is_bool(st.test) else _bool_call(st.test)
        else:
            value = ast.UnaryOp(op=ast.Not(), operand=st.test)
        self._did("bool-return")
        return ast.Return(value=value), used

    def _first_match(self, st: ast.stmt, nxt: ast.stmt | None) -> tuple[ast.stmt, int] | None:
        if not (
            isinstance(st, ast.For)
            and not st.orelse
            and len(st.body) == 1
            and isinstance(st.body[0], ast.If)
            and not st.body[0].orelse
            and len(st.body[0].body) == 1
            and nxt is not None
        ):
            return None
        hit, miss = _returned_bool(st.body[0].body[0]), _returned_bool(nxt)
        test = st.body[0].test
        if hit is None or miss is None or hit == miss or awaits(test):
            return None
        if hit:
            func, negate = "any", False
        elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            func, negate, test = "all", False, test.operand
        else:
            func, negate = "any", True
        if not self.builtin(func):
            return None
        gen = ast.GeneratorExp(
            elt=test,
            generators=[ast.comprehension(target=st.target, iter=st.iter, ifs=[], is_async=0)],
        )
        value: ast.expr = ast.Call(func=ast.Name(id=func, ctx=ast.Load()), args=[gen], keywords=[])
        if negate:
            value = ast.UnaryOp(op=ast.Not(), operand=value)
        self._did("any-all")
        return ast.Return(value=value), 2


def _returned_bool(st: ast.stmt) -> bool | None:
    if isinstance(st, ast.Return) and isinstance(st.value, ast.Constant):
        if isinstance(st.value.value, bool):
            return st.value.value
    return None


def _bool_call(test: ast.expr) -> ast.expr:
    return ast.Call(func=ast.Name(id="bool", ctx=ast.Load()), args=[test], keywords=[])


def awaits(node: ast.AST) -> bool:
    """``node`` awaits or yields (no comprehension may hold it in a function's place)."""
    return any(isinstance(n, ast.Await | ast.Yield | ast.YieldFrom) for n in ast.walk(node))
