"""Rewrites of tests and branches: the branch that runs, one test for nested or chained ``if``s.

- ``fixed-condition``: a version test the declared lowest Python decides, and ``if``/``x if c
  else y``/``and``/``or``/``not`` on a fixed value, keep the branch that runs (``fixed``,
  ``Fold``).
- ``merged-if``: ``if a: if b: X`` is ``if a and b: X`` (``merged_if``).
- ``merged-elif``: ``if a: X`` / ``elif b: X`` is ``if a or b: X`` (``joined_elif``).
- ``affix-tuple``: ``s.startswith(("a", "b"))`` is ``s.startswith("a") or s.startswith("b")``
  for a ``str`` ``s`` (``Fold``).
- ``match-chain``: a ``match`` on literal values is an ``if``/``elif`` chain of ``==``
  (``match_chain``).
- ``loop-invariant-if``: ``for t in xs: if a and b: X`` is ``if a: for t in xs: if b: X``
  (``hoisted_test``).

The conditions each relies on are in the docstring of ``prreport.equivalence.rewrites``.
"""

from __future__ import annotations

import ast
import copy

from prreport.equivalence.constants import fold_boolop, fold_ifexp, fold_not
from prreport.equivalence.rewrites.rewrite import Rewrite, Trace
from prreport.python.definitions import same_tree
from prreport.python.versions import fixed_by_version

_VERSION = "@sys.version_info"  # how ``sys.version_info`` reads in a canonical tree


def fixed(trace: Trace, test: ast.expr) -> bool | None:
    """``test``'s fixed value: a ``True``/``False`` literal, or a version test the declared
    lowest Python decides (``fixed-condition``, recorded in ``trace``); None when it varies."""
    if isinstance(test, ast.Constant) and test.value in (True, False) and type(test.value) is bool:
        return bool(test.value)
    found = fixed_by_version(test, trace.low, _VERSION)
    if found is None:
        return None
    value, low = found
    trace.done.append(Rewrite("fixed-condition", ast.unparse(test), f"{str(value).lower()} {low}"))
    return value


class Fold(ast.NodeTransformer):
    """Expressions on fixed values: ``x if True else y`` -> x, ``True and x`` -> x, ``not False``."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        value = fixed(self.trace, node) if isinstance(node, ast.Compare) else None
        if value is None:
            return node
        return ast.copy_location(ast.Constant(value=value), node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr in ("startswith", "endswith")
            and isinstance(func.value, ast.Name)
            and len(node.args) == 1
            and not node.keywords
            and isinstance(node.args[0], ast.Tuple)
            and len(node.args[0].elts) > 1
            and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.args[0].elts
            )
        ):
            # s.startswith(("a", "b")) is s.startswith("a") or s.startswith("b") for a str s.
            name = func.value.id
            self.trace.done.append(Rewrite("affix-tuple", f"{name}.{func.attr}(…)", name))
            calls: list[ast.expr] = [
                ast.Call(func=func, args=[e], keywords=[]) for e in node.args[0].elts
            ]
            return ast.copy_location(ast.BoolOp(op=ast.Or(), values=calls), node)
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        return fold_ifexp(node) or node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        return fold_not(node) or node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        return fold_boolop(node) or node


def merged_if(st: ast.If) -> ast.If | None:
    """``if a: if b: X`` (no ``else`` on either) as ``if a and b: X``; ``and`` chains flattened."""
    if st.orelse or len(st.body) != 1:
        return None
    inner = st.body[0]
    if not isinstance(inner, ast.If) or inner.orelse:
        return None
    parts = [*_and_parts(st.test), *_and_parts(inner.test)]
    test = ast.BoolOp(op=ast.And(), values=parts)
    return ast.If(test=test, body=inner.body, orelse=[])


def joined_elif(st: ast.If) -> ast.If | None:
    """``if a: X`` / ``elif b: X`` (the same body) as ``if a or b: X``, the rest of the chain
    kept: ``or`` tests ``b`` only when ``a`` is false, as the ``elif`` did."""
    if len(st.orelse) != 1 or not isinstance(st.orelse[0], ast.If):
        return None
    inner = st.orelse[0]
    if not same_tree(st.body, inner.body):
        return None
    parts = [*_or_parts(st.test), *_or_parts(inner.test)]
    return ast.If(test=ast.BoolOp(op=ast.Or(), values=parts), body=st.body, orelse=inner.orelse)


def match_chain(st: ast.Match) -> ast.If | None:
    """``match s: case A | B: X / case C: Y / case _: Z`` as ``if s == A or s == B: X elif
    s == C: Y else: Z``, or None when a case captures, has a guard or is not a value."""
    branches: list[tuple[ast.expr, list[ast.stmt]]] = []
    default: list[ast.stmt] = []
    for i, case in enumerate(st.cases):
        if case.guard is not None:
            return None
        pat = case.pattern
        if isinstance(pat, ast.MatchAs) and pat.pattern is None and pat.name is None:
            if i != len(st.cases) - 1:
                return None
            default = case.body
            continue
        alts = pat.patterns if isinstance(pat, ast.MatchOr) else [pat]
        if not all(isinstance(a, ast.MatchValue) for a in alts):
            return None
        tests: list[ast.expr] = [
            ast.Compare(left=copy.deepcopy(st.subject), ops=[ast.Eq()], comparators=[a.value])  # type: ignore[attr-defined]
            for a in alts
        ]
        branches.append((tests[0] if len(tests) == 1 else ast.BoolOp(ast.Or(), tests), case.body))
    if not branches:
        return None
    chain: list[ast.stmt] = default
    for test, body in reversed(branches):
        chain = [ast.If(test=test, body=body, orelse=chain)]
    out = chain[0]
    assert isinstance(out, ast.If)
    return ast.copy_location(out, st)


def _or_parts(test: ast.expr) -> list[ast.expr]:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return list(test.values)
    return [test]


def _and_parts(test: ast.expr) -> list[ast.expr]:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return list(test.values)
    return [test]


def hoisted_test(loop: ast.For | ast.AsyncFor) -> tuple[ast.expr, ast.If] | None:
    """``for t in xs: if a and b: X`` as (a, ``if a: for t in xs: if b: X``), or None.

    ``a`` is a leading run of plain names the loop never assigns; ``xs`` a name or attribute
    chain (evaluating it again or not at all cannot act, bar a property).
    """
    if loop.orelse or len(loop.body) != 1 or not isinstance(loop.body[0], ast.If):
        return None
    inner = loop.body[0]
    if inner.orelse or not _plain_ref(loop.iter):
        return None
    assigned = {
        n.id for n in ast.walk(loop) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    }
    parts = _and_parts(inner.test)
    lead = 0
    while lead < len(parts) and _name_not_in(parts[lead], assigned):
        lead += 1
    if lead == 0:
        return None
    test = parts[0] if lead == 1 else ast.BoolOp(op=ast.And(), values=parts[:lead])
    rest = parts[lead:]
    body: list[ast.stmt]
    if not rest:
        body = inner.body
    else:
        cond = rest[0] if len(rest) == 1 else ast.BoolOp(op=ast.And(), values=rest)
        body = [ast.If(test=cond, body=inner.body, orelse=[])]
    cls = type(loop)
    new_loop = cls(target=loop.target, iter=loop.iter, body=body, orelse=[], type_comment=None)
    return test, ast.If(test=test, body=[new_loop], orelse=[])


def _name_not_in(node: ast.expr, assigned: set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id not in assigned


def _plain_ref(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)
