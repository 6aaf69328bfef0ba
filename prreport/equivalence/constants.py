"""Tests on constants have one outcome: ``not False`` is ``True``, ``True and x`` is ``x``,
``False or x`` is ``x``, ``if False: ... else: b`` is ``b`` (and ``a if True else b`` is ``a``).

With ``typing.TYPE_CHECKING`` read as the ``False`` it is whenever code runs (``idioms``),
``if not TYPE_CHECKING and platform.system() == "Windows":`` is the test without it. Each fold
holds for every input: a constant's truth is fixed, and ``and``/``or`` return the first
operand that decides the result (or the last), so a constant is dropped only where it cannot
be the result. ``rewrites.conditions`` folds the constants a version test leaves the same way."""

from __future__ import annotations

import ast


def _constant(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant)


def fold_not(node: ast.UnaryOp) -> ast.expr | None:
    """``not <constant>`` as the constant it is; None when the operand is not a constant."""
    if isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Constant):
        return ast.copy_location(ast.Constant(value=not node.operand.value), node)
    return None


def fold_boolop(node: ast.BoolOp) -> ast.expr | None:
    """``True and x`` as ``x``, ``x and True and y`` as ``x and y``, ``False and x`` as ``False``,
    ``x and False and y`` as ``x and False`` (``or`` mirrored); None when no operand is a
    constant that can go. A constant that does not end the evaluation is dropped unless it is
    the last operand (``x and True`` is ``True`` when ``x`` is truthy, not ``x``)."""
    ends = isinstance(node.op, ast.Or)  # the truth that ends the evaluation
    values: list[ast.expr] = []
    for i, v in enumerate(node.values):
        if isinstance(v, ast.Constant) and bool(v.value) is not ends and i < len(node.values) - 1:
            continue  # evaluation goes on to the next operand: this one is not the result
        values.append(v)
        if isinstance(v, ast.Constant) and bool(v.value) is ends:
            break  # the result when reached; the operands after it never run
    if len(values) == len(node.values):
        return None
    if len(values) == 1:
        return values[0]
    return ast.copy_location(ast.BoolOp(op=node.op, values=values), node)


def fold_if(node: ast.If) -> list[ast.stmt] | None:
    """The branch an ``if`` on a constant runs (possibly no statement); None when the test is
    not a constant."""
    if not isinstance(node.test, ast.Constant):
        return None
    return list(node.body if node.test.value else node.orelse)


def fold_ifexp(node: ast.IfExp) -> ast.expr | None:
    """The value a conditional expression on a constant gives; None when the test is not one."""
    if not isinstance(node.test, ast.Constant):
        return None
    return node.body if node.test.value else node.orelse
