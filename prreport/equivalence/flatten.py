"""An ``else`` after an exiting branch: ``if a: return x`` ``else: y`` is ``if a: return x``
then ``y`` (the else ran exactly when the body did not, and the body never reached what
follows), so two blocks that differ only so are equal once both are ``flat``.
"""

from __future__ import annotations

import ast
import copy

_JUMPS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
_BLOCKS = ("body", "orelse", "finalbody")


def _always_exits(stmts: list[ast.stmt]) -> bool:
    """The block never runs on into the statement after it (its last statement jumps)."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.If):
        return _always_exits(last.body) and _always_exits(last.orelse)
    return isinstance(last, _JUMPS)


def flat(stmts: list[ast.stmt]) -> list[ast.stmt]:
    """A copy of a block with every ``else`` of an ``if`` whose body always exits moved after
    the ``if`` (the same code runs for every input: the else ran exactly when the body did not,
    and the body never reached what follows). Nested blocks are flattened too; functions and
    classes inside are left as they are."""
    out: list[ast.stmt] = []
    for st in stmts:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(st)
            continue
        node = copy.copy(st)
        for field in _BLOCKS:
            block = getattr(st, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                setattr(node, field, flat(block))
        if isinstance(st, ast.Try):
            node.handlers = [_flat_handler(h) for h in st.handlers]  # type: ignore[attr-defined]
        if isinstance(node, ast.If) and node.orelse and _always_exits(node.body):
            rest = node.orelse
            node.orelse = []
            out.append(node)
            out.extend(rest)
            continue
        out.append(node)
    return out


def _flat_handler(h: ast.ExceptHandler) -> ast.ExceptHandler:
    node = copy.copy(h)
    node.body = flat(h.body)
    return node


def flattens(stmts: list[ast.stmt]) -> bool:
    """Whether ``flat`` changes the block: some ``if`` in it (functions and classes left out, as
    ``flat`` leaves them) has an ``else`` and a body that always exits. A statement walk only,
    no copies: ``flat`` of a block it does not change is that block, so two different bodies
    neither of which it changes need no ``flat`` to be told apart."""
    for st in stmts:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in _BLOCKS:
            block = getattr(st, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                if flattens(block):
                    return True
        if isinstance(st, ast.Try) and any(flattens(h.body) for h in st.handlers):
            return True
        if isinstance(st, ast.If) and st.orelse and _always_exits(st.body):
            return True
    return False
