"""Splicing a helper's body in place of one call of it, or saying why that would not run the
same code.

The parameters are replaced by the arguments (pure ones substituted, others assigned first, in
call order); the helper's result is bound the way the call statement used it (``return f()``,
``x = f()``, ``f()``, ``yield from f()``); a tuple returned on several paths becomes an ``if``
tree (``multiret``); a helper that is one ``return E`` may be spliced inside a larger
expression (:func:`substitute_calls`).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Sequence

from prreport.equivalence.expansion import multiret
from prreport.equivalence.expansion.binding import Helper, Subst, bind, pure
from prreport.equivalence.expansion.normal import ret_value, terminates
from prreport.equivalence.rereads import quiet_until_last_read
from prreport.python.localnames import locals_of, name_in, params_of, returns_in, yields_in

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
# Why an attribute argument is the same object wherever the expanded body reads it (or None).
Stable = Callable[[ast.expr], "str | None"]


def site_form(st: ast.stmt, call: ast.Call, is_async: bool) -> str | None:
    """How statement ``st`` uses the call: return | assign | expr | yield-from (None: elsewhere)."""
    value = getattr(st, "value", None)
    inner = value
    if is_async:
        if not isinstance(value, ast.Await):
            return None
        inner = value.value
    if isinstance(st, ast.Expr) and isinstance(value, ast.YieldFrom) and not is_async:
        return "yield-from" if value.value is call else None
    if inner is not call:
        return None
    if isinstance(st, ast.Return):
        return "return"
    if isinstance(st, ast.Assign) or (isinstance(st, ast.AnnAssign) and st.simple):
        return "assign"
    if isinstance(st, ast.Expr):
        return "expr"
    return None


def splice_call(
    helper: Helper,
    body: list[ast.stmt],
    st: ast.stmt,
    call: ast.Call,
    tail: bool,
    guarded: bool = False,
    stable: Stable | None = None,
    notes: list[dict[str, str]] | None = None,
    caller: ast.FunctionDef | ast.AsyncFunctionDef | None = None,
) -> tuple[list[ast.stmt], set[str], bool] | str:
    """Statements replacing ``st`` and the helper-local names they bring, or why not.

    ``guarded``: ``st`` sits in a ``try`` or ``with`` of the caller (an exception raised
    half-way through the helper may be caught or suppressed there, so which names were
    already assigned is observable).
    ``stable``/``notes``: an attribute argument substituted at each use is either proven the
    same object (``stable`` says why) or assumed a plain attribute (``rereads``); each is
    told in ``notes``.
    """
    fn = helper.node
    is_async = isinstance(fn, ast.AsyncFunctionDef)
    form = site_form(st, call, is_async)
    if form is None:
        return "call used inside a larger expression"
    gen = yields_in(body)
    if gen != (form == "yield-from"):
        return "generator helper not consumed by yield from"
    bound = bind(helper, call)
    if bound is None:
        return "arguments do not bind to parameters"
    rebound = locals_of(body)
    subst, prefix = _arguments(bound, body, rebound, stable, notes)
    introduced = rebound | {p for p, _ in bound if p not in subst}
    same_args = all(isinstance(x, ast.Name) and x.id == p for p, x in bound)
    late = multiret.late_bound(body, subst, caller) if caller is not None else ""
    if late:
        return late
    new = [Subst(subst).visit(copy.deepcopy(s)) for s in body]
    if form != "assign":
        out = _result_unused(form, new, tail)
        if isinstance(out, str):
            return out
        return [*prefix, *out], introduced, same_args
    helper_locals = rebound - {p for p, _ in bound}
    got = _assigned(st, new, helper_locals, introduced, prefix, caller, guarded)
    if isinstance(got, str):
        return got
    return [*prefix, *got[0]], got[1], same_args


def _arguments(
    bound: list[tuple[str, ast.expr]],
    body: list[ast.stmt],
    rebound: set[str],
    stable: Stable | None,
    notes: list[dict[str, str]] | None,
) -> tuple[dict[str, ast.expr], list[ast.stmt]]:
    """Which arguments are written where their parameter is read, and the assignments (in call
    order) of the others: an argument that is not pure, whose parameter the helper rebinds, that
    reads a name the helper rebinds, or an attribute that may change between its reads."""
    subst: dict[str, ast.expr] = {}
    prefix: list[ast.stmt] = []
    for i, (p, arg) in enumerate(bound):
        arg_names = {n.id for n in ast.walk(arg) if isinstance(n, ast.Name)}
        ok = pure(arg) and p not in rebound and not (arg_names & rebound)
        if ok and isinstance(arg, ast.Attribute):
            later = [x for _, x in bound[i + 1 :]]
            ok = _reread(arg, p, body, later, stable, notes if notes is not None else [])
        if ok:
            subst[p] = arg
        else:
            prefix.append(
                ast.Assign(targets=[ast.Name(id=p, ctx=ast.Store())], value=arg, lineno=0)
            )
    return subst, prefix


def _result_unused(form: str, new: list[ast.stmt], tail: bool) -> list[ast.stmt] | str:
    """The spliced body where the call was ``return f()``, ``yield from f()`` or ``f()``."""
    rets = returns_in(new)
    if form == "return":
        return new if tail or terminates(new) else [*new, ast.Return(value=None)]
    if form == "yield-from":
        if rets and not (len(rets) == 1 and new[-1] is rets[0] and rets[0].value is None):
            return "generator helper returns a value"
        return new[:-1] if rets else new
    if not rets:
        return new
    if len(rets) == 1 and new[-1] is rets[0]:
        v = rets[0].value
        return new[:-1] + ([] if v is None or pure(v) else [ast.Expr(value=v)])
    return "helper returns from several places"


def _assigned(
    st: ast.stmt,
    new: list[ast.stmt],
    helper_locals: set[str],
    introduced: set[str],
    prefix: list[ast.stmt],
    caller: ast.FunctionDef | ast.AsyncFunctionDef | None,
    guarded: bool,
) -> tuple[list[ast.stmt], set[str]] | str:
    """The spliced body where the call was ``x = f()`` (after the argument ``prefix``), and the
    helper-local names it brings; or why not."""
    rets = returns_in(new)
    targets = st.targets if isinstance(st, ast.Assign) else [st.target]  # type: ignore[attr-defined]
    if not rets:
        if terminates(new):
            return "helper never returns"
        value: ast.expr = ast.Constant(value=None)
        out = list(new)
    elif len(rets) == 1 and new[-1] is rets[0]:
        value = ret_value(rets[0])
        out = new[:-1]
    elif len(targets) == 1 and caller is not None:
        # A tuple returned on several paths: the same if tree, the targets at each leaf.
        tree = multiret.spliced(new, targets[0], helper_locals, caller, guarded)
        if isinstance(tree, str):
            return tree
        return tree[0], introduced - tree[1]
    else:
        return "helper returns from several places"
    out = [*out, ast.Assign(targets=copy.deepcopy(targets), value=value, lineno=0)]
    if not guarded:
        out, introduced = _forwarded(out, helper_locals, introduced, prefix)
    return out, introduced


def _reread(
    arg: ast.Attribute,
    p: str,
    body: list[ast.stmt],
    later: list[ast.expr],
    stable: Stable | None,
    notes: list[dict[str, str]],
) -> bool:
    """Whether ``arg`` may be read at each use of ``p`` instead of once (``rereads``)."""
    fact = stable(arg) if stable is not None else None
    if fact is None and not quiet_until_last_read(body, p, later):
        return False
    detail = fact or "assumed"  # a plain attribute, unchanged by the code between its reads
    note = {"kind": "reread-argument", "text": ast.unparse(arg), "detail": detail}
    if note not in notes:
        notes.append(note)
    return True


def _forwarded(
    out: list[ast.stmt], helper_locals: set[str], introduced: set[str], prefix: list[ast.stmt]
) -> tuple[list[ast.stmt], set[str]]:
    """``...; a = e1; b = e2; x, y = a, b`` (a helper returning a tuple the caller unpacks, or
    one local it returns) as ``...; x = e1; y = e2``: the helper's locals renamed to the
    caller's targets when nothing else in the spliced code uses either name.

    Unsafe only if an exception half-way through could be caught in the caller (the caller's
    names would then be assigned earlier): the call must not sit in a ``try`` (``guarded``).
    """
    last = out[-1]
    assert isinstance(last, ast.Assign)
    if len(last.targets) != 1:
        return out, introduced
    t, v = last.targets[0], last.value
    targets = t.elts if isinstance(t, ast.Tuple) else [t]
    values = v.elts if isinstance(v, ast.Tuple) else [v]
    if len(targets) != len(values) or not all(isinstance(x, ast.Name) for x in targets + values):
        return out, introduced
    want = [x.id for x in targets]  # type: ignore[attr-defined]
    have = [x.id for x in values]  # type: ignore[attr-defined]
    if len(set(want)) != len(want) or len(set(have)) != len(have) or not set(have) <= helper_locals:
        return out, introduced
    mapping = {h: w for h, w in zip(have, want, strict=True) if h != w}
    rest = [*prefix, *out[:-1]]
    used = {n.id for s in rest for n in ast.walk(s) if isinstance(n, ast.Name)}
    if used & set(mapping.values()) or any(
        isinstance(n, (*_SCOPES, ast.Global, ast.Nonlocal)) for s in rest for n in ast.walk(s)
    ):
        return out, introduced  # a closure or class could capture the name under either spelling
    if not all(_assigned_first(out[:-1], h) for h in have):
        return out, introduced  # a path reading the name before the helper assigned it
    renamed = [_Rename(mapping).visit(s) for s in out[:-1]]
    # The names are the caller's targets now: the call statement assigned them anyway.
    return renamed, introduced - set(have)


# What an inlined expression must not hold: code that runs later (lambdas, generators), its own
# scopes (comprehensions) or bindings (``:=``), suspension points.
_NOT_SPLICED = (
    ast.Lambda,
    ast.GeneratorExp,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.NamedExpr,
    ast.Yield,
    ast.YieldFrom,
    ast.Await,
)


def substitute_calls(
    helper: Helper,
    body: list[ast.stmt],
    st: ast.stmt,
    calls: list[ast.Call],
    caller: ast.FunctionDef | ast.AsyncFunctionDef,
    stable: Stable | None = None,
    notes: list[dict[str, str]] | None = None,
) -> bool | str:
    """Replace, inside ``st``, each call of a helper whose body is one ``return E`` by ``E`` with
    its parameters replaced by the arguments; whether every argument was its parameter's name,
    or why that would not compute the same.

    The arguments were evaluated once, before the body; spliced in, they are evaluated where
    the parameters are read. That is the same value only for a constant or a name of the
    caller's own scope that nothing in between can rebind (no ``:=``, not ``nonlocal`` in an
    inner function, not ``global``), and bound for sure when ``E`` does not read it (a parameter);
    or for an attribute read that may be read where the parameter is (``_reread``: a stated
    fact, such as an attribute of an imported module, or nothing that acts before the last read).
    """
    why = "call used inside a larger expression"
    if isinstance(helper.node, ast.AsyncFunctionDef) or len(body) != 1:
        return why
    ret = body[0]
    if not isinstance(ret, ast.Return) or ret.value is None:
        return why
    if any(isinstance(n, _NOT_SPLICED) for n in (*ast.walk(ret.value), *ast.walk(st))):
        return why
    params = {a.arg for a in params_of(caller)}
    declared = {
        x for n in ast.walk(caller) if isinstance(n, (ast.Global, ast.Nonlocal)) for x in n.names
    }
    here = (locals_of(caller.body) | params) - declared
    free = _globals(caller)  # walked once, not per argument
    same = True
    for call in calls:
        bound = bind(helper, call)
        if bound is None:
            return "arguments do not bind to parameters"
        for i, (p, x) in enumerate(bound):
            read = name_in(ret.value, p)
            if isinstance(x, ast.Name) and x.id in (here if read else params):
                continue
            later = [e for _, e in bound[i + 1 :]]
            if _read_in_place(x, p, read, (body, later, here, free), stable, notes):
                continue
            if not isinstance(x, ast.Constant):
                return f"argument for {p!r} is not a constant or a local name of the caller"
        same = same and all(isinstance(x, ast.Name) and x.id == p for p, x in bound)
        value = Subst(dict(bound)).visit(copy.deepcopy(ret.value))
        for parent in ast.walk(st):
            for field, child in ast.iter_fields(parent):
                if child is call:
                    setattr(parent, field, value)
                elif isinstance(child, list) and any(c is call for c in child):
                    setattr(parent, field, [value if c is call else c for c in child])
    return same


def _read_in_place(
    x: ast.expr,
    p: str,
    read: bool,
    where: tuple[list[ast.stmt], list[ast.expr], set[str], set[str]],
    stable: Stable | None,
    notes: list[dict[str, str]] | None,
) -> bool:
    """Whether argument ``x`` may be evaluated where parameter ``p`` is read: an attribute chain
    ``_reread`` allows (from a stable or global name), or a tuple, read, of constants, stable
    names and such attributes (``isinstance(v, (A, m.B))``). ``where``: the helper's body, the
    arguments the call evaluated after ``x``, the caller's stable names, its global names."""
    body, later, here, names = where

    def reread(e: ast.expr) -> bool:
        return (
            isinstance(e, ast.Attribute)
            and pure(e)
            and _root_in(e, here | names)
            and _reread(e, p, body, later, stable, notes if notes is not None else [])
        )

    if reread(x):
        return True
    return (
        isinstance(x, ast.Tuple)
        and read
        and bool(x.elts)
        and all(
            isinstance(e, ast.Constant) or (isinstance(e, ast.Name) and e.id in here) or reread(e)
            for e in x.elts
        )
    )


def _root_in(x: ast.expr, names: set[str]) -> bool:
    """Whether the name an attribute chain starts from is one of ``names``."""
    while isinstance(x, ast.Attribute):
        x = x.value
    return isinstance(x, ast.Name) and x.id in names


def _globals(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Names ``fn`` reads and never binds (module-level or builtin names)."""
    bound = locals_of(fn.body) | {a.arg for a in params_of(fn)}
    return {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id not in bound}


def _assigned_first(stmts: Sequence[ast.stmt], name: str) -> bool:
    """Every path through ``stmts`` assigns ``name`` (``name = ...``, or in both branches of an
    ``if``) before anything reads it."""
    for st in stmts:
        if not name_in(st, name):
            continue
        if isinstance(st, ast.Assign) and len(st.targets) == 1:
            t = st.targets[0]
            return isinstance(t, ast.Name) and t.id == name and not name_in(st.value, name)
        if isinstance(st, ast.If) and st.orelse and not name_in(st.test, name):
            return _assigned_first(st.body, name) and _assigned_first(st.orelse, name)
        return False
    return False


class _Rename(ast.NodeTransformer):
    def __init__(self, mapping: dict[str, str]) -> None:
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self.mapping.get(node.id, node.id)
        return node
