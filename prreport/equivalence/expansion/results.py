"""One spelling, on both sides, of what a caller does with the results of a spliced helper.

Once a helper returning a tuple from several places is spliced as an ``if`` tree
(``multiret``), the caller's use of the results is brought to one spelling by
:func:`normal_form`. Each step, named in the finding (``details.rewrites``), holds for every
input:

- ``split-tuple``: ``a, b = x, y`` is ``a = x; b = y`` when the targets are distinct names, the
  values are names, constants or displays of those (evaluating them cannot act) and no value
  names another target; a ``try`` or ``with`` around it (``contextlib.suppress``) or a closure
  over a target could tell an exception half-way, so none may be there. ``x = x`` then goes (self-assignment).
- ``pushed-into-if``: a statement right after an ``if`` runs after whichever branch fell
  through; written at the end of each branch (an ``else`` added if needed) it runs at the same
  moments. Done for ``L.extend(X)`` where the ``if`` binds ``X``.
- ``inlined-list``: ``X = [c1, ...]`` (constants) followed in the same block by ``L.extend(X)``
  with nothing between mentioning ``X``, ``L`` a list as for ``extend-as-append`` below (a
  list's ``extend`` copies the elements: another object's could keep ``X`` itself, or change
  it, and ``X`` may be read later): the display is written at the extend (building a list of
  constants cannot act), and ``X`` if now read nowhere else goes (a local
  bound and never read is no behaviour; the function has no nested scope reading ``X``, no
  ``del X`` and no ``locals()``/``vars()``/``eval``/``exec``).
- ``extend-as-append``: ``L.extend([e1, ...])`` is ``L.append(e1)`` ... and ``L.extend([])`` is
  nothing, where ``L`` is bound exactly once in the function, by a statement of its top level
  that builds a list display and precedes the extend (so ``L`` is a bound ``list`` there; no
  ``global``/``nonlocal`` or nested scope rebinds it). Several elements only when all are
  constants (nothing can fail between two appends); one element may be any expression.
- ``append-before-def``: ``L.append(<constant>)`` (``L`` a list as above) moves up across a
  ``def`` without decorators or default values: that statement only makes a function object
  and binds its name (not ``L``), which the append cannot read. Annotations are not
  behaviour anywhere in prreport (see ``prreport.equivalence.canonical``).

Exceptions keep their order: nothing above reorders two things that can raise, except where
stated that the value cannot. Where a name is bound later than before (``split-tuple``), only
an exception caught in the same function, a closure or ``locals()`` could tell, and each is
ruled out. Aliasing: the lists involved are fresh displays bound to one local.
"""

from __future__ import annotations

import ast
import copy

from prreport.python.localnames import inner_scopes, name_in, opaque, params_of
from prreport.python.scopes import own_nodes

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_BLOCKS = ("body", "orelse", "finalbody")


class _Form:
    """The passes of :func:`normal_form` over one function's own blocks."""

    def __init__(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.fn = fn
        self.done: list[tuple[str, str]] = []
        self.opaque = opaque(fn)
        scopes = inner_scopes(fn)
        # Names a nested scope mentions (a closure could read them at any time); the name a
        # nested ``def`` binds is the function's own store, not a closure.
        self.closed = {n.id for s in scopes for n in ast.walk(s) if isinstance(n, ast.Name)} | {
            n.name
            for s in scopes
            for n in ast.walk(s)
            if isinstance(n, (*_FUNCS, ast.ClassDef)) and n is not s
        }

    # Every statement list of the function's own scope, whether a ``try``/``with`` encloses it.
    def blocks(self) -> list[tuple[ast.AST, str, bool]]:
        out: list[tuple[ast.AST, str, bool]] = []

        def visit(owner: ast.AST, guarded: bool) -> None:
            # A ``with`` may suppress the exception (``contextlib.suppress``): like a ``try``.
            tried = guarded or isinstance(
                owner, (ast.Try, getattr(ast, "TryStar", ast.Try), ast.With, ast.AsyncWith)
            )
            for name in _BLOCKS:
                block = getattr(owner, name, None)
                if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                    out.append((owner, name, tried if owner is not self.fn else guarded))
                    for st in block:
                        if not isinstance(st, _SCOPES):
                            visit(st, tried if owner is not self.fn else guarded)
            for h in getattr(owner, "handlers", None) or []:
                out.append((h, "body", True))
                for st in h.body:
                    if not isinstance(st, _SCOPES):
                        visit(st, True)
            for c in getattr(owner, "cases", None) or []:
                out.append((c, "body", guarded))
                for st in c.body:
                    if not isinstance(st, _SCOPES):
                        visit(st, guarded)

        visit(self.fn, False)
        return out

    def run(self) -> list[tuple[str, str]]:
        if self.opaque:
            return []
        for owner, name, guarded in self.blocks():
            setattr(owner, name, self.split(getattr(owner, name), guarded))
        for owner, name, _ in self.blocks():
            setattr(owner, name, self.push(getattr(owner, name)))
        for owner, name, _ in self.blocks():
            setattr(owner, name, self.inline(getattr(owner, name)))
        self.drop_unread()
        for owner, name, _ in self.blocks():
            setattr(owner, name, self.appends(getattr(owner, name)) or [ast.Pass()])
        for owner, name, _ in self.blocks():
            setattr(owner, name, self.before_defs(getattr(owner, name)))
        return self.done

    # -- split-tuple
    def split(self, block: list[ast.stmt], guarded: bool) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for st in block:
            parts = None if guarded else self._split(st)
            if parts is None:
                out.append(st)
                continue
            self.done.append(("split-tuple", ast.unparse(st)))
            out.extend(p for p in parts if not _self_assign(p))
        return out

    def _split(self, st: ast.stmt) -> list[ast.Assign] | None:
        if not isinstance(st, ast.Assign) or len(st.targets) != 1:
            return None
        t, v = st.targets[0], st.value
        if not isinstance(t, ast.Tuple | ast.List) or not isinstance(v, ast.Tuple | ast.List):
            return None
        names = [x.id if isinstance(x, ast.Name) else "" for x in t.elts]
        if "" in names or len(set(names)) != len(names) or len(v.elts) != len(names):
            return None
        if set(names) & self.closed:
            return None
        for k, e in enumerate(v.elts):
            if not _inert(e):
                return None
            if any(name_in(e, n) for j, n in enumerate(names) if j != k):
                return None
        return [
            ast.Assign(targets=[ast.Name(id=n, ctx=ast.Store())], value=e, lineno=0)
            for n, e in zip(names, v.elts, strict=True)
        ]

    # -- pushed-into-if
    def push(self, block: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for st in block:
            x = _extend_of(st)
            prev = out[-1] if out else None
            if (
                x is not None
                and isinstance(x[1], ast.Name)
                and isinstance(prev, ast.If)
                and _stores(prev, x[1].id)
            ):
                _push_into(prev, st, x[1].id)
                self.done.append(("pushed-into-if", ast.unparse(st)))
                continue
            out.append(st)
        return out

    # -- inlined-list
    def inline(self, block: list[ast.stmt]) -> list[ast.stmt]:
        for k, st in enumerate(block):
            x = _extend_of(st)
            if x is None or not isinstance(x[1], ast.Name) or x[1].id in self.closed:
                continue
            if not self.is_list(x[0], st):
                continue  # another object's ``extend`` may keep (or change) the list it gets
            name = x[1].id
            for j in range(k - 1, -1, -1):
                prior = block[j]
                if not name_in(prior, name):
                    continue
                if (
                    isinstance(prior, ast.Assign)
                    and len(prior.targets) == 1
                    and isinstance(prior.targets[0], ast.Name)
                    and prior.targets[0].id == name
                    and _constant_list(prior.value)
                ):
                    call = st.value  # type: ignore[attr-defined]
                    call.args = [copy.deepcopy(prior.value)]
                    self.done.append(("inlined-list", name))
                break
        return block

    def drop_unread(self) -> None:
        """``X = [constants]`` whose ``X`` nothing reads any more goes (no behaviour)."""
        # A ``del X`` would fail once the assignment is gone: it counts as a read.
        loads = {
            n.id
            for n in ast.walk(self.fn)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load | ast.Del)
        }
        told = {t for k, t in self.done if k == "inlined-list"}
        for owner, name, _ in self.blocks():
            block = getattr(owner, name)
            kept = [
                st
                for st in block
                if not (
                    isinstance(st, ast.Assign)
                    and len(st.targets) == 1
                    and isinstance(st.targets[0], ast.Name)
                    and st.targets[0].id in told
                    and st.targets[0].id not in loads
                    and st.targets[0].id not in self.closed
                    and _constant_list(st.value)
                )
            ]
            setattr(owner, name, kept or [ast.Pass()])

    # -- extend-as-append
    def appends(self, block: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for st in block:
            x = _extend_of(st)
            if x is None or not isinstance(x[1], ast.List) or not self.is_list(x[0], st):
                out.append(st)
                continue
            elts = x[1].elts
            if len(elts) > 1 and not all(isinstance(e, ast.Constant) for e in elts):
                out.append(st)
                continue
            if any(isinstance(e, ast.Starred) for e in elts):
                out.append(st)
                continue
            self.done.append(("extend-as-append", ast.unparse(st)))
            out.extend(_append(x[0], e) for e in elts)
        return out

    def is_list(self, name: str, st: ast.stmt) -> bool:
        """``name`` is bound exactly once in the function, by a top-level ``name = [...]``
        that comes before the top-level statement holding ``st``."""
        fn = self.fn
        if name in self.closed or name in {a.arg for a in params_of(fn)}:
            return False
        stores = [
            n
            for n in ast.walk(fn)
            if (isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) and n.id == name)
            or (isinstance(n, (*_FUNCS, ast.ClassDef)) and n.name == name and n is not fn)
            or (isinstance(n, ast.ExceptHandler) and n.name == name)
            or (
                isinstance(n, (ast.Import, ast.ImportFrom))
                and any((a.asname or a.name.split(".")[0]) == name for a in n.names)
            )
            or (isinstance(n, ast.arg) and n.arg == name)
            or isinstance(n, ast.MatchAs | ast.MatchStar | ast.MatchMapping)
        ]
        if len(stores) != 1:
            return False
        where = next(
            (i for i, top in enumerate(fn.body) if any(x is st for x in ast.walk(top))), -1
        )
        binder = next(
            (
                i
                for i, top in enumerate(fn.body)
                if isinstance(top, ast.Assign)
                and len(top.targets) == 1
                and top.targets[0] is stores[0]
                and isinstance(top.value, ast.List)
            ),
            None,
        )
        return binder is not None and binder < where

    # -- append-before-def
    def before_defs(self, block: list[ast.stmt]) -> list[ast.stmt]:
        out = list(block)
        for i in range(len(out)):
            st = out[i]
            name = _append_of(st)
            if name is None or not self.is_list(name, st):
                continue
            k = i
            while k > 0 and _plain_def(out[k - 1]) and out[k - 1].name != name:  # type: ignore[attr-defined]
                k -= 1
            if k < i:
                out.insert(k, out.pop(i))
                self.done.append(("append-before-def", ast.unparse(st)))
        return out


def normal_form(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, str]]:
    """Rewrite ``fn`` in place to the one spelling of the module docstring; the rewrites made."""
    return _Form(fn).run()


def _inert(e: ast.expr) -> bool:
    if isinstance(e, ast.Name | ast.Constant):
        return True
    if isinstance(e, ast.List | ast.Tuple):
        return all(isinstance(x, ast.Name | ast.Constant) for x in e.elts)
    return False


def _constant_list(e: ast.expr) -> bool:
    return isinstance(e, ast.List) and all(isinstance(x, ast.Constant) for x in e.elts)


def _self_assign(st: ast.Assign) -> bool:
    t, v = st.targets[0], st.value
    return isinstance(t, ast.Name) and isinstance(v, ast.Name) and t.id == v.id


def _extend_of(st: ast.stmt) -> tuple[str, ast.expr] | None:
    """``L.extend(arg)`` as a statement: (L, arg)."""
    if not isinstance(st, ast.Expr) or not isinstance(st.value, ast.Call):
        return None
    c = st.value
    f = c.func
    if (
        isinstance(f, ast.Attribute)
        and f.attr == "extend"
        and isinstance(f.value, ast.Name)
        and len(c.args) == 1
        and not c.keywords
        and not isinstance(c.args[0], ast.Starred)
    ):
        return f.value.id, c.args[0]
    return None


def _append_of(st: ast.stmt) -> str | None:
    """``L`` of a statement ``L.append(<constant>)``."""
    if not isinstance(st, ast.Expr) or not isinstance(st.value, ast.Call):
        return None
    c = st.value
    f = c.func
    if (
        isinstance(f, ast.Attribute)
        and f.attr == "append"
        and isinstance(f.value, ast.Name)
        and len(c.args) == 1
        and not c.keywords
        and isinstance(c.args[0], ast.Constant)
    ):
        return f.value.id
    return None


def _append(name: str, e: ast.expr) -> ast.stmt:
    func = ast.Attribute(value=ast.Name(id=name, ctx=ast.Load()), attr="append", ctx=ast.Load())
    return ast.Expr(value=ast.Call(func=func, args=[copy.deepcopy(e)], keywords=[]))


def _plain_def(st: ast.stmt) -> bool:
    return (
        isinstance(st, _FUNCS)
        and not st.decorator_list
        and not st.args.defaults
        and not any(d is not None for d in st.args.kw_defaults)
    )


def _stores(node: ast.AST, name: str) -> bool:
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
        for n in own_nodes([node])
    )


def _push_into(st: ast.If, moved: ast.stmt, name: str) -> None:
    """``moved`` written at the end of each branch of ``st`` (deeper into a final ``if``
    that binds ``name``)."""
    for field in ("body", "orelse"):
        block = getattr(st, field)
        if block and isinstance(block[-1], ast.If) and _stores(block[-1], name):
            _push_into(block[-1], moved, name)
        else:
            setattr(st, field, [*block, copy.deepcopy(moved)])
