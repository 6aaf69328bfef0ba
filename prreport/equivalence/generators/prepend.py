"""``L.insert(0, x)`` before the final ``return L``: ``yield x`` before the first statement that yields.

That evaluates ``x`` earlier than before, so it is claimed only when ``x`` cannot act or fail (a
``str`` literal, or an f-string of plain names each bound only to ``str`` values at the top of
the body before that point) and nothing from that point on rebinds those names or returns
early. When that first statement is ``if A: S elif B: T`` with the yields only in ``T``, it is
read as ``if A: S`` / ``if not A and B: T`` (``split-elif``, under ``ASSUME_ORDER``).
"""

from __future__ import annotations

import ast

from prreport.equivalence.generators.bindings import binds_without_name, yields
from prreport.equivalence.rewrites import Rewrite
from prreport.python.scopes import is_string_statement, single_binding

_FLIP = {ast.Lt: ast.GtE, ast.LtE: ast.Gt, ast.Gt: ast.LtE, ast.GtE: ast.Lt}
ASSUME_ORDER = "the items of {v} compare with ints as numbers do: no side effect, a total order"


def _str_call(call: ast.expr, module: ast.Module, depth: int = 0) -> bool:
    """Whether an expression always makes an exact ``str`` (or fails): literals, f-strings,
    ``"sep".join(...)``, a module function whose body is ``return`` of one of those."""
    if isinstance(call, ast.Constant):
        return isinstance(call.value, str)
    if isinstance(call, ast.JoinedStr):
        return True
    if not isinstance(call, ast.Call):
        return False
    func = call.func
    if isinstance(func, ast.Attribute):
        return (
            func.attr == "join"
            and isinstance(func.value, ast.Constant)
            and isinstance(func.value.value, str)
        )
    if depth or not isinstance(func, ast.Name):
        return False
    target = single_binding(module, func.id)
    if not isinstance(target, ast.FunctionDef) or target.decorator_list:
        return False
    body = [s for s in target.body if not is_string_statement(s)]
    return (
        len(body) == 1
        and isinstance(body[0], ast.Return)
        and body[0].value is not None
        and _str_call(body[0].value, module, depth + 1)
    )


def str_names(fn: ast.FunctionDef, module: ast.Module, shadowed: set[str]) -> set[str]:
    """Local names every binding of which in ``fn`` is ``name = <str value>`` (``shadowed``:
    the names ``fn`` binds, so a call of one of them is not the module function)."""
    declared = {
        x for n in ast.walk(fn) if isinstance(n, (ast.Global, ast.Nonlocal)) for x in n.names
    }
    stores: dict[str, list[ast.AST]] = {}
    assigns: dict[int, ast.Assign] = {}
    params = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                assigns[id(t)] = n
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            stores.setdefault(n.id, []).append(n)
    out = set()
    for name, nodes in stores.items():
        if name in params or name in declared or binds_without_name(fn, name):
            continue  # (``except E as name`` binds an exception, then deletes it)
        ok = True
        for n in nodes:
            st = assigns.get(id(n))
            if st is None or not _str_call(st.value, module):
                ok = False
                break
            if isinstance(st.value, ast.Call) and isinstance(st.value.func, ast.Name):
                if st.value.func.id in shadowed:
                    ok = False  # a local of that name, not the module function
                    break
        if ok:
            out.add(name)
    return out


def inert_names(x: ast.expr, str_names: set[str]) -> set[str] | None:
    """The names an expression reads when evaluating it cannot act or fail given those names
    are bound (a ``str`` literal, an f-string of plain ``str`` names), else None."""
    if isinstance(x, ast.Constant) and isinstance(x.value, str):
        return set()
    if isinstance(x, ast.Name) and x.id in str_names:
        return {x.id}
    if not isinstance(x, ast.JoinedStr):
        return None
    names: set[str] = set()
    for v in x.values:
        if isinstance(v, ast.Constant) and isinstance(v.value, str):
            continue
        if (
            isinstance(v, ast.FormattedValue)
            and v.conversion == -1
            and v.format_spec is None
            and isinstance(v.value, ast.Name)
            and v.value.id in str_names
        ):
            names.add(v.value.id)
            continue
        return None
    return names


def assigned_at_top(body: list[ast.stmt], name: str) -> bool:
    return any(
        isinstance(st, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == name for t in st.targets)
        for st in body
    )


def binds(stmts: list[ast.stmt], names: set[str]) -> bool:
    block = ast.Module(body=stmts, type_ignores=[])
    return any(
        isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) and n.id in names
        for st in stmts
        for n in ast.walk(st)
    ) or any(binds_without_name(block, name) for name in names)


def _tuple_local(
    fn: ast.FunctionDef, body: list[ast.stmt], upto: int, v: str, tuple_free: bool
) -> bool:
    """``v`` is bound by ``v = tuple(...)`` at the top of ``body`` before ``upto`` and nowhere
    else in ``fn`` (a parameter of that name is rebound so before any test reads it)."""
    if not tuple_free:
        return False
    tops = [
        st
        for st in body[:upto]
        if isinstance(st, ast.Assign)
        and len(st.targets) == 1
        and isinstance(st.targets[0], ast.Name)
        and st.targets[0].id == v
        and isinstance(st.value, ast.Call)
        and isinstance(st.value.func, ast.Name)
        and st.value.func.id == "tuple"
    ]
    stores = [
        n
        for n in ast.walk(fn)
        if isinstance(n, ast.Name) and n.id == v and not isinstance(n.ctx, ast.Load)
    ]
    declared = any(isinstance(n, (ast.Global, ast.Nonlocal)) and v in n.names for n in ast.walk(fn))
    return (
        len(tops) == 1
        and len(stores) == 1
        and stores[0] is tops[0].targets[0]
        and not declared
        and not binds_without_name(fn, v)  # ``except E as v`` rebinds, then deletes, ``v``
    )


def split_elif(
    st: ast.stmt, fn: ast.FunctionDef, body: list[ast.stmt], at: int, tuple_free: bool
) -> tuple[list[ast.stmt], Rewrite] | None:
    """``if A: S elif B: T`` (yields only in ``T``) as ``if A: S`` / ``if <not A> and B: T``."""
    if not (
        isinstance(st, ast.If)
        and len(st.orelse) == 1
        and isinstance(st.orelse[0], ast.If)
        and not st.orelse[0].orelse
        and not yields(st.test)
        and not any(yields(s) for s in st.body)
    ):
        return None
    test = st.test
    if not (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and type(test.ops[0]) in _FLIP
        and isinstance(test.left, ast.Name)
        and isinstance(test.comparators[0], ast.Tuple)
        and all(
            isinstance(e, ast.Constant) and type(e.value) is int for e in test.comparators[0].elts
        )
        and _tuple_local(fn, body, at, test.left.id, tuple_free)
    ):
        return None
    flipped = ast.Compare(test.left, [_FLIP[type(test.ops[0])]()], test.comparators)
    inner = st.orelse[0]
    second = ast.If(ast.BoolOp(ast.And(), [flipped, inner.test]), inner.body, [])
    first = ast.If(st.test, st.body, [])
    why = Rewrite("split-elif", ast.unparse(second.test), ASSUME_ORDER.format(v=test.left.id))
    return [first, second], why
