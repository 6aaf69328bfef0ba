"""Part 1 of ``list-to-generator``: the old body read as the generator it builds, then compared.

``L = [a]`` at the top of the body becomes ``yield a`` there, ``L.append(x)`` ``yield x``,
``L.extend([a, b])`` ``yield a; yield b``, ``return L`` ``return``; without such a local,
``return [a, b]`` becomes ``yield a; yield b; return`` and ``return _g(...)`` of another proven
function ``yield from _g(...); return``. Anything else and nothing is claimed; the conditions
are in the docstring of ``prreport.equivalence.generators``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from prreport.equivalence.canonical import module_of
from prreport.equivalence.generators.bindings import (
    binds_without_name,
    bound_in,
    mentions,
    own,
    yields,
)
from prreport.equivalence.generators.candidates import Candidate
from prreport.equivalence.generators.prepend import (
    assigned_at_top,
    binds,
    inert_names,
    split_elif,
    str_names,
)
from prreport.equivalence.rewrites import Rewrite, see_through
from prreport.python.definitions import same_tree
from prreport.python.parse import copy_tree
from prreport.python.scopes import bound_anywhere

_IMPORTS = (ast.Import, ast.ImportFrom)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_DYNAMIC = frozenset({"locals", "vars", "eval", "exec"})
# ``try`` (``try``/``except*`` too) and ``with``: an exception of the body may be caught there.
_GUARDS = (ast.Try, getattr(ast, "TryStar", ast.Try), ast.With, ast.AsyncWith)


def refs(cands: list[Candidate], path: str) -> Callable[[ast.expr, set[str]], bool]:
    """Whether an expression names one of ``cands`` (canonical spelling) in file ``path``."""
    local = {c.name for c in cands if path in (c.path, c.before_path)}
    dotted = {f"@{module_of(p)}.{c.name}" for c in cands for p in (c.path, c.before_path)}

    def names(node: ast.expr, shadowed: set[str]) -> bool:
        if not isinstance(node, ast.Name):
            return False
        return node.id in dotted or (node.id in local and node.id not in shadowed)

    return names


def _is_list_method(st: ast.stmt, acc: str, method: str, nargs: int) -> ast.Call | None:
    if (
        isinstance(st, ast.Expr)
        and isinstance(st.value, ast.Call)
        and isinstance(st.value.func, ast.Attribute)
        and st.value.func.attr == method
        and isinstance(st.value.func.value, ast.Name)
        and st.value.func.value.id == acc
        and len(st.value.args) == nargs
        and not st.value.keywords
        and not any(isinstance(a, ast.Starred) for a in st.value.args)
    ):
        return st.value
    return None


def yield_of(value: ast.expr, from_: bool = False) -> ast.stmt:
    return ast.Expr(ast.YieldFrom(value) if from_ else ast.Yield(value))


class _AsGenerator:
    """Rewrite an old list-building body into the generator it stands for."""

    def __init__(self, acc: str | None, is_ref: Callable[[ast.expr], bool]) -> None:
        self.acc = acc
        self.is_ref = is_ref
        self.guarded = 0  # inside a ``try``/``with`` of the body: an exception may be caught

    def split(self, elts: list[ast.expr]) -> list[ast.stmt] | None:
        """``yield e`` for each element of a display, which was built whole before anything
        saw it: when an element after the first can fail, the generator has already yielded
        the ones before, which a ``try``/``with`` of the body could then keep."""
        if self.guarded and not all(isinstance(e, ast.Constant) for e in elts[1:]):
            return None
        return [yield_of(e) for e in elts]

    def block(self, stmts: list[ast.stmt]) -> list[ast.stmt] | None:
        out: list[ast.stmt] = []
        for st in stmts:
            got = self.stmt(st)
            if got is None:
                return None
            out.extend(got)
        return out

    def stmt(self, st: ast.stmt) -> list[ast.stmt] | None:
        acc = self.acc
        if acc is not None:
            call = _is_list_method(st, acc, "append", 1)
            if call is not None:
                return [yield_of(call.args[0])]
            call = _is_list_method(st, acc, "extend", 1)
            if call is not None:
                arg = call.args[0]
                if isinstance(arg, ast.List) and not any(
                    isinstance(e, ast.Starred) for e in arg.elts
                ):
                    return self.split(arg.elts)
                return None
        if isinstance(st, ast.Return):
            v = st.value
            if acc is not None and isinstance(v, ast.Name) and v.id == acc:
                return [ast.Return(None)]
            if acc is not None:
                # ``return [x]`` dropped what the local held; a generator cannot take back
                # what it has yielded.
                return None
            if isinstance(v, ast.List) and not any(isinstance(e, ast.Starred) for e in v.elts):
                yields = self.split(v.elts)
                return None if yields is None else [*yields, ast.Return(None)]
            if isinstance(v, ast.Call) and self.is_ref(v.func) and not self.guarded:
                # (in a ``try``/``with``, what ``_g`` yielded before failing would be kept)
                return [yield_of(v, from_=True), ast.Return(None)]
            return None  # another value (or None) is not a new list
        if isinstance(st, _SCOPES):
            return [st]
        guard = isinstance(st, _GUARDS)
        self.guarded += guard
        try:
            return self.inner(st)
        finally:
            self.guarded -= guard

    def inner(self, st: ast.stmt) -> list[ast.stmt] | None:
        for field in ("body", "orelse", "finalbody"):
            block = getattr(st, field, None)
            if isinstance(block, list):
                new = self.block(block)
                if new is None:
                    return None
                setattr(st, field, new)
        for holder in [*getattr(st, "handlers", ()), *getattr(st, "cases", ())]:
            new = self.block(holder.body)
            if new is None:
                return None
            holder.body = new
        return [st]


def _accumulator(body: list[ast.stmt]) -> tuple[str, int] | None:
    """The local the body ends by returning and where, at the top of the body, it is first
    bound to a list display (``out = []``, ``out = [a]``)."""
    last = body[-1]
    if not (isinstance(last, ast.Return) and isinstance(last.value, ast.Name)):
        return None
    name = last.value.id
    for i, st in enumerate(body):
        if (
            isinstance(st, ast.Assign)
            and len(st.targets) == 1
            and isinstance(st.targets[0], ast.Name)
            and st.targets[0].id == name
            and isinstance(st.value, ast.List)
            and not any(isinstance(e, ast.Starred) for e in st.value.elts)
        ):
            return name, i
    return None


def _old_as_generator(
    old: ast.FunctionDef,
    module: ast.Module,
    is_ref: Callable[[ast.expr, set[str]], bool],
    tuple_free: bool,
) -> tuple[ast.FunctionDef, list[Rewrite]] | None:
    """The old (canonical) function rewritten as the generator it stands for."""
    fn = copy_tree(old)
    body = list(fn.body)
    if not body or not isinstance(body[-1], ast.Return):
        return None  # it may fall off its end: None is not a list
    if any(isinstance(n, ast.Name) and n.id in _DYNAMIC for n in ast.walk(fn)):
        return None
    shadowed = bound_in(fn)
    found = _accumulator(body)
    acc = found[0] if found else None
    prepend: ast.expr | None = None
    if found is not None:
        name, at = found
        if (
            any(mentions(st, name) for st in body[:at])
            or any(
                isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names for n in ast.walk(fn)
            )
            or binds_without_name(fn, name)
        ):
            return None
        init = body[at]
        assert isinstance(init, ast.Assign) and isinstance(init.value, ast.List)
        body[at : at + 1] = [yield_of(e) for e in init.value.elts]  # evaluated where they were
        ins = _is_list_method(body[-2], name, "insert", 2) if len(body) >= 2 else None
        last = body[-1]
        returns_acc = isinstance(last, ast.Return) and isinstance(last.value, ast.Name)
        if (
            ins is not None
            and returns_acc
            and last.value.id == name  # type: ignore[union-attr]
            and isinstance(ins.args[0], ast.Constant)
            and ins.args[0].value == 0
            and type(ins.args[0].value) is int
        ):
            prepend = ins.args[1]
            del body[-2]
    conv = _AsGenerator(acc, lambda e: is_ref(e, shadowed))
    new_body = conv.block(body)
    if new_body is None or (acc is not None and any(mentions(st, acc) for st in new_body)):
        return None
    rewrites: list[Rewrite] = []
    if prepend is not None:
        names = inert_names(prepend, str_names(fn, module, shadowed))
        if names is None or mentions(prepend, acc or ""):
            return None
        tail = new_body[:-1]  # the final ``return``
        i = next((k for k, st in enumerate(tail) if yields(st)), len(tail))
        if i < len(tail):
            split = split_elif(tail[i], fn, tail, i, tuple_free)
            if split is not None:
                tail[i : i + 1] = split[0]
                rewrites.append(split[1])
                i += 1
        rest = tail[i:]
        if binds(rest, names) or any(
            isinstance(st, ast.Return) or any(isinstance(n, ast.Return) for n in own(st))
            for st in rest
        ):
            return None  # an early return skipped the prepended element
        if not all(assigned_at_top(tail[:i], n) for n in names):
            return None
        new_body = [*tail[:i], yield_of(prepend), *rest, new_body[-1]]
    fn.body = _strip_return(new_body)
    return fn, rewrites


def _strip_return(body: list[ast.stmt]) -> list[ast.stmt]:
    """A bare ``return`` ending a body is falling off its end."""
    if body and isinstance(body[-1], ast.Return) and body[-1].value is None and len(body) > 1:
        return body[:-1]
    return body


def same_generator(
    old_canon: ast.FunctionDef,
    new_canon: ast.FunctionDef,
    cand: Candidate,
    cands: list[Candidate],
    low: tuple[int, ...] | None,
) -> list[Rewrite] | None:
    """Part 1 for one candidate (assuming the others hold): the rewrites that made it equal."""
    tuple_free = "tuple" not in bound_anywhere(cand.before)
    got = _old_as_generator(old_canon, cand.before, refs(cands, cand.path), tuple_free)
    if got is None:
        return None
    gen, rewrites = got
    new = copy_tree(new_canon)
    new.body = _strip_return(list(new.body))
    if same_tree(gen, new, _IMPORTS):
        return rewrites
    more = see_through(gen, new, low)
    return None if more is None else [*rewrites, *more]
