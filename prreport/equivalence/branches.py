"""Two versions of an ``if/elif`` chain that do the same: consecutive branches with equal
bodies merged by ``or`` (``structural``), a merge checked by enumerating the one subject every
test compares with constants (``enumerate_values``), and a statement common to every branch
moved once before or after the chain (``hoisted``); and, for a merge that is none of these, the
branches whose code is gone (``rerouted``: their inputs now run another branch's code).

The early return carved out of a chain is ``equivalence.earlyreturn``; an ``else`` after an
exiting branch, ``equivalence.flatten``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence

from prreport.python.chains import Chain
from prreport.python.definitions import bound_names, dump, same_tree

_OTHER = object()  # a value equal to none of the constants a chain compares with


# The comparisons ``_evaluate`` can decide (``x < 1`` is not simple).
_EVALUATED = (ast.Eq, ast.Is, ast.NotEq, ast.IsNot, ast.In, ast.NotIn)


def _subject_and_constants(test: ast.expr, out: dict[str, list]) -> bool:
    """Collect (subject dump -> constants) of a simple test; False when the test is not simple."""
    if isinstance(test, ast.BoolOp):
        return all(_subject_and_constants(v, out) for v in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _subject_and_constants(test.operand, out)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], _EVALUATED):
        left, right = test.left, test.comparators[0]
        if isinstance(left, ast.Constant) and not isinstance(right, ast.Constant):
            left, right = right, left
        if isinstance(left, (ast.Name, ast.Attribute)) and not any(
            isinstance(n, ast.Call) for n in ast.walk(left)
        ):
            consts = _constants(right)
            if consts is None:
                return False
            out.setdefault(dump(left), []).extend(consts)
            return True
    return False


def _constants(node: ast.expr) -> list | None:
    if isinstance(node, ast.Constant):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and all(
        isinstance(e, ast.Constant) for e in node.elts
    ):
        return [e.value for e in node.elts]  # type: ignore[attr-defined]
    return None


def _evaluate(test: ast.expr, value: object) -> bool:
    if isinstance(test, ast.BoolOp):
        results = [_evaluate(v, value) for v in test.values]
        return any(results) if isinstance(test.op, ast.Or) else all(results)
    if isinstance(test, ast.UnaryOp):
        return not _evaluate(test.operand, value)
    assert isinstance(test, ast.Compare)
    left, right = test.left, test.comparators[0]
    if isinstance(left, ast.Constant) and not isinstance(right, ast.Constant):
        right = left
    consts = _constants(right) or []
    op = test.ops[0]
    if isinstance(op, (ast.Eq, ast.Is)):
        return value is not _OTHER and value == consts[0] and type(value) is type(consts[0])
    if isinstance(op, (ast.NotEq, ast.IsNot)):
        return not (value is not _OTHER and value == consts[0] and type(value) is type(consts[0]))
    inside = value is not _OTHER and any(value == c and type(value) is type(c) for c in consts)
    if isinstance(op, ast.In):
        return inside
    if isinstance(op, ast.NotIn):
        return not inside
    raise ValueError("unsupported comparison")


def _outcome(chain: Chain, value: object) -> str:
    for test, body in zip(chain.tests, chain.bodies, strict=True):
        if test is None or _evaluate(test, value):
            return dump(body)
    return ""


def enumerate_values(before: Chain, after: Chain) -> tuple[bool | None, str, list, object]:
    """(equal for every value?, subject, values, first counterexample); None when not simple."""
    subjects: dict[str, list] = {}
    tests = [t for t in (*before.tests, *after.tests) if t is not None]
    if not all(_subject_and_constants(t, subjects) for t in tests) or len(subjects) != 1:
        return None, "", [], None
    ((subject, consts),) = subjects.items()
    values: list = []
    for c in consts:
        if not any(c == v and type(c) is type(v) for v in values):
            values.append(c)
    for v in [*values, _OTHER]:
        if _outcome(before, v) != _outcome(after, v):
            return False, subject, values, v
    return True, subject, values, None


def _flat_or(test: ast.expr | None) -> list[str]:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return [d for v in test.values for d in _flat_or(v)]
    return [dump(test)] if test is not None else []


def structural(before: Chain, after: Chain) -> bool:
    """True when after merges consecutive before branches with equal bodies by ``or``, in order."""
    i = 0
    for test, body in zip(after.tests, after.bodies, strict=True):
        parts = _flat_or(test) if test is not None else []
        if test is None:
            if (
                i != len(before.tests) - 1
                or before.tests[i] is not None
                or not same_tree(before.bodies[i], body)
            ):
                return False
            i += 1
            continue
        for p in parts:
            prior = before.tests[i] if i < len(before.tests) else None
            if prior is None or dump(prior) != p or not same_tree(before.bodies[i], body):
                return False
            i += 1
    return i == len(before.tests)


def same_test(x: ast.expr | None, y: ast.expr | None) -> bool:
    """Equal tests (``None`` = ``else``); dumps are only compared for nodes of one type."""
    if x is None or y is None:
        return x is y
    return same_tree(x, y)


def same_set(xs: Sequence[list[ast.stmt]], ys: Sequence[list[ast.stmt]]) -> bool:
    """The same bodies on both sides, as sets (each equal to one on the other side): compared
    tree by tree, stopping at the first difference, instead of dumping every body."""
    return all(any(same_tree(x, y) for y in ys) for x in xs) and all(
        any(same_tree(y, x) for x in xs) for y in ys
    )


def _has_call(nodes: Iterable[ast.AST | None]) -> bool:
    return any(isinstance(n, ast.Call) for top in nodes if top is not None for n in ast.walk(top))


_EXITS = (ast.Return, ast.Raise)


def _branches(c: Chain) -> list[tuple[ast.expr | None, list[ast.stmt]]]:
    """(test, body) of a chain; with no ``else``, the statements after a chain whose every
    branch returns or raises are its else (``if c: return x`` then ``return y``)."""
    out = list(zip(c.tests, c.bodies, strict=True))
    rest = c.stmts[c.index + 1 :]
    if not c.has_else and rest and all(body and isinstance(body[-1], _EXITS) for body in c.bodies):
        out.append((None, rest))
    return out


def _test_names(tests: Iterable[ast.expr | None]) -> set[str]:
    return {n.id for t in tests if t is not None for n in ast.walk(t) if isinstance(n, ast.Name)}


def rerouted(b: Chain, a: Chain, added: set[int]) -> list[tuple[ast.expr | None, str]] | None:
    """Before branches whose code is gone from a chain that merged branches, or None.

    A merge: the after chain changed, has fewer branches, tests only what the before tests
    did, every after body is a before body, and some after test now guards another body.
    """
    if not any(n in added for n in range(a.span[0], a.span[1] + 1)):
        return None
    bb, ab = _branches(b), _branches(a)
    if len(ab) >= len(bb) or not _test_names(t for t, _ in ab) <= _test_names(b.tests):
        return None
    if not all(any(same_tree(x, y) for _, y in bb) for _, x in ab):
        return None
    if all(any(same_test(t, u) and same_tree(x, y) for u, y in bb) for t, x in ab):
        return None  # surviving branches kept their tests: a branch was deleted, not merged
    lost = [(t, y) for t, y in bb if not any(same_tree(x, y) for _, x in ab)]
    return [(t, ast.unparse(ast.Module(body=y, type_ignores=[]))) for t, y in lost] or None


def subject_text(b: Chain, a: Chain) -> str:
    """Source text of the one variable every test compares."""
    for t in (*b.tests, *a.tests):
        for n in ast.walk(t) if t is not None else ():
            if isinstance(n, ast.Compare):
                left = n.left if not isinstance(n.left, ast.Constant) else n.comparators[0]
                return ast.unparse(left)
    return ""


def hoisted(b: Chain, a: Chain) -> tuple[str, ast.stmt, int] | None:
    """('first'|'last', statement, after line) when a statement common to every branch moved out."""
    # Equal dumps need equal node types: compare types first, dump only candidates.
    prev = a.stmts[a.index - 1] if a.index > 0 else None
    after = a.stmts[a.index + 1] if a.index + 1 < len(a.stmts) else None
    firsts = (
        {dump(body[0]) for body in b.bodies}
        if prev is not None and all(type(body[0]) is type(prev) for body in b.bodies)
        else set()
    )
    lasts = (
        {dump(body[-1]) for body in b.bodies}
        if after is not None and all(type(body[-1]) is type(after) for body in b.bodies)
        else set()
    )

    def same(rest: list[list[ast.stmt]]) -> bool:
        # An else left empty by the hoist disappears from the after chain.
        if len(rest) == len(a.bodies) + 1 and b.has_else and not rest[-1]:
            rest = rest[:-1]
        return len(rest) == len(a.bodies) and all(
            same_tree(x, y) for x, y in zip(rest, a.bodies, strict=True)
        )

    if len(firsts) == 1 and prev is not None and dump(prev) in firsts:
        if same([x[1:] for x in b.bodies]):
            st = a.stmts[a.index - 1]
            return "first", st, st.lineno
    if len(lasts) == 1 and after is not None and dump(after) in lasts:
        if same([x[:-1] for x in b.bodies]):
            st = a.stmts[a.index + 1]
            return "last", st, st.end_lineno or st.lineno
    return None


def first_hoist_proven(b: Chain, stmt: ast.stmt) -> bool:
    """Whether running ``stmt`` before the chain's tests, instead of first in each branch, leaves
    every test's value alone: the tests call nothing, read nothing it binds, and when it calls
    something they read no attribute or item that call could change."""
    tests = [t for t in b.tests if t is not None]
    names = {n.id for t in tests for n in ast.walk(t) if isinstance(n, ast.Name)}
    writes = bound_names([stmt])
    return (
        not _has_call(tests)
        and not (writes & names)
        and not (
            _has_call([stmt])
            and any(
                isinstance(n, (ast.Attribute, ast.Subscript)) for t in tests for n in ast.walk(t)
            )
        )
    )
