"""Statements executed over a path in continuation-passing style: assignments bind names,
``if`` forks the path (or, when neither side makes an effect or leaves, joins the two sides'
names into conditional values), ``return``/``raise`` end it.

Loops, ``with`` and ``try`` are in ``blocks``; how names read and which helpers are inlined,
in ``scope``.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable
from functools import partial

from prreport.equivalence.effects.expressions import Expressions, effect_free
from prreport.equivalence.effects.terms import (
    NONE,
    Path,
    Term,
    Unsupported,
    is_value,
    ite,
    tag,
)
from prreport.equivalence.effects.tree import Conts, leaf, merge

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SIMPLE = (
    *_DEFS,
    ast.Expr,
    ast.Assign,
    ast.AugAssign,
    ast.AnnAssign,
    ast.Pass,
    ast.Import,
    ast.ImportFrom,
    ast.Delete,
)


def _split_choice(st: ast.stmt) -> ast.If | None:
    """``x = a if c else f()`` (a statement whose whole value chooses between operands with
    effects) as the ``if`` statement it evaluates like; ``x = a or f()`` / ``x = a and f()``
    too when ``a`` only reads. None for any other statement."""
    value = getattr(st, "value", None)
    if not isinstance(st, (ast.Assign, ast.AnnAssign, ast.Return, ast.Expr)) or value is None:
        return None
    if effect_free(value):
        return None
    if isinstance(value, ast.IfExp):
        test, yes, no = value.test, value.body, value.orelse
    elif isinstance(value, ast.BoolOp) and effect_free(value.values[0]):
        first, rest = value.values[0], value.values[1:]
        later = rest[0] if len(rest) == 1 else ast.BoolOp(op=value.op, values=rest)
        test = first
        yes, no = (first, later) if isinstance(value.op, ast.Or) else (later, first)
    else:
        return None

    def with_value(v: ast.expr) -> ast.stmt:
        new = copy.copy(st)
        new.value = v  # type: ignore[attr-defined]
        return new

    return ast.If(test=test, body=[with_value(yes)], orelse=[with_value(no)])


class Statements(Expressions):
    """The statement half of the machine (blocks and scope are mixed in by ``Machine``).

    Inside a ``try`` or ``with`` body (``watching``), any evaluation may raise into a handler
    or an ``__exit__`` that goes on with the locals as they were at that point, so there each
    binding of a local and each expression statement is recorded in order too.
    """

    watching = 0
    slots: dict[str, int] = {}

    def slot(self, name: str) -> int | str:
        """A local's rank among the function's names (a renamed local keeps its rank)."""
        return self.slots.get(name, name)

    def block(self, stmts: list[ast.stmt], path: Path, k: Conts) -> Term:
        """The tree of running ``stmts`` on ``path``, then ``k``."""
        for i, st in enumerate(stmts):
            split = _split_choice(st)
            if split is not None:
                st = split
            elif isinstance(st, _SIMPLE):
                self.simple(st, path)
                continue
            rest = stmts[i + 1 :]
            nk = Conts(partial(self._rest, rest, k), k.brk, k.cont)
            return self.compound(st, path, k, nk)
        return k.after(path)

    def _rest(self, rest: list[ast.stmt], k: Conts, path: Path) -> Term:
        return self.block(rest, path, k)

    def compound(self, st: ast.stmt, path: Path, k: Conts, nk: Conts) -> Term:
        method: Callable[[ast.stmt, Path, Conts, Conts], Term] | None = getattr(
            self, "_st_" + type(st).__name__, None
        )
        if method is None:
            raise Unsupported(type(st).__name__)
        return method(st, path, k, nk)

    # -- simple statements -----------------------------------------------------------------
    def simple(self, st: ast.stmt, path: Path) -> None:
        """Run one statement that neither branches nor leaves."""
        if isinstance(st, ast.Expr):
            value = self.eval(st.value, path)
            if self.watching:
                self.emit(path, ("eval", value))
        elif isinstance(st, ast.Assign):
            value = self.eval(st.value, path)
            for target in st.targets:
                self.assign(target, value, path)
        elif isinstance(st, ast.AnnAssign):
            if st.value is not None:
                self.assign(st.target, self.eval(st.value, path), path)
        elif isinstance(st, ast.AugAssign):
            self._augassign(st, path)
        elif isinstance(st, (ast.Import, ast.ImportFrom)):
            self._import(st, path)
        elif isinstance(st, ast.Delete):
            for t in st.targets:
                self._delete(t, path)
        elif isinstance(st, _DEFS):
            self._define(st, path)

    def _define(self, st: ast.FunctionDef | ast.AsyncFunctionDef, path: Path) -> None:
        """A nested ``def``: its decorators and defaults evaluated, then a closure made (over
        locals nothing rebinds) and passed through the decorators, bottom first."""
        decorators = [self.eval(d, path) for d in st.decorator_list]
        defaults = [
            self.eval(d, path)
            for d in [*st.args.defaults, *(d for d in st.args.kw_defaults if d is not None)]
        ]
        shape = copy.copy(st)
        shape.decorator_list = []
        value: Term = (
            "obj",
            "def",
            self.code(shape, path, closure=True),
            tuple(defaults),
            path.fresh(),
        )
        for d in reversed(decorators):
            value = self.emit(path, ("call", d, (value,), ()))
        self.bind(st.name, value, path)

    def assign(self, target: ast.expr, value: Term, path: Path) -> None:
        """Bind ``target`` to ``value`` (an unpacking of an unknown value iterates it: an effect)."""
        if isinstance(target, ast.Name):
            self.bind(target.id, value, path)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if any(isinstance(e, ast.Starred) for e in target.elts):
                raise Unsupported("starred target")
            n = len(target.elts)
            if (
                value[0] == "tuple"
                and len(value[1]) == n
                and not any(v[0] == "star" for v in value[1])
            ):
                parts = list(value[1])
            else:
                got = self.emit(path, ("unpack", value, n))
                parts = [("part", got, i) for i in range(n)]
            for t, v in zip(target.elts, parts, strict=True):
                self.assign(t, v, path)
        elif isinstance(target, ast.Attribute):
            obj = self.eval(target.value, path)
            self.emit(path, ("setattr", obj, target.attr, value))
        elif isinstance(target, ast.Subscript):
            obj = self.eval(target.value, path)
            key = self.eval(target.slice, path)
            if path.private.get(obj) in ("list", "dict") and not self.watching:
                self.mutate(path, obj, ("setitem", key, value))  # only that container changes
            else:
                self.emit(path, ("setitem", obj, key, value))
        else:
            raise Unsupported("assignment target")

    def bind(self, name: str, value: Term, path: Path) -> None:
        """Bind a local (recorded as an effect where a handler could see it: ``watching``)."""
        path.env[name] = value
        if self.watching:
            self.emit(path, ("bind", self.slot(name), value))

    def _augassign(self, st: ast.AugAssign, path: Path) -> None:
        op = type(st.op).__name__
        target = st.target
        if isinstance(target, ast.Name):
            current = self.read(target.id, path)
            self.bind(target.id, self._inplace(op, current, self.eval(st.value, path), path), path)
        elif isinstance(target, ast.Attribute):
            obj = self.eval(target.value, path)
            current = ("attr", obj, target.attr, tag(path.state, obj))
            new = self._inplace(op, current, self.eval(st.value, path), path)
            self.emit(path, ("setattr", obj, target.attr, new))
        elif isinstance(target, ast.Subscript):
            obj, key = self.eval(target.value, path), self.eval(target.slice, path)
            current = ("item", obj, key, path.state)
            new = self._inplace(op, current, self.eval(st.value, path), path)
            self.emit(path, ("setitem", obj, key, new))
        else:
            raise Unsupported("augmented target")

    def _inplace(self, op: str, current: Term, value: Term, path: Path) -> Term:
        # An immutable value has no in-place method: ``x += y`` is ``x = x + y``.
        if is_value(current):
            return ("bin", op, current, value, tag(path.state, current, value))
        return self.emit(path, ("inplace", op, current, value))

    def _import(self, st: ast.Import | ast.ImportFrom, path: Path) -> None:
        # Where an import is written is the import analyzers' business: it binds the object.
        for alias in st.names:
            if isinstance(st, ast.Import):
                bound = alias.asname or alias.name.partition(".")[0]
                obj = alias.name if alias.asname else bound
            else:
                bound = alias.asname or alias.name
                obj = f"{'.' * st.level}{st.module or ''}.{alias.name}"
            self.bind(bound, ("imp", "@" + obj), path)

    def _delete(self, target: ast.expr, path: Path) -> None:
        if isinstance(target, ast.Name):
            if target.id not in path.env:
                raise Unsupported("del of an unbound name")
            del path.env[target.id]
            if self.watching:
                self.emit(path, ("unbind", self.slot(target.id)))
        elif isinstance(target, ast.Attribute):
            self.emit(path, ("delattr", self.eval(target.value, path), target.attr))
        elif isinstance(target, ast.Subscript):
            obj = self.eval(target.value, path)
            self.emit(path, ("delitem", obj, self.eval(target.slice, path)))
        else:
            raise Unsupported("del target")

    # -- branching -------------------------------------------------------------------------
    def branch(
        self, cond: Term, path: Path, yes: Callable[[Path], Term], no: Callable[[Path], Term]
    ) -> Term:
        """Fork ``path`` on ``cond`` (a condition the path already decided is not tested again)."""
        while cond[0] == "not":
            cond, yes, no = cond[1], no, yes
        if cond[0] == "c":
            return (yes if cond[2] else no)(path)
        decided = path.facts.get(cond)
        if decided is not None:
            return (yes if decided else no)(path)
        self.interner.count()
        a, b = path.fork(), path.fork()
        a.facts[cond], b.facts[cond] = True, False
        return leaf(path, merge(cond, yes(a), no(b)))

    def branch_on(
        self, test: ast.expr, path: Path, yes: Callable[[Path], Term], no: Callable[[Path], Term]
    ) -> Term:
        """Fork on a test as Python evaluates it: ``not``, ``and``, ``or`` short-circuit."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self.branch_on(test.operand, path, no, yes)
        if isinstance(test, ast.BoolOp):
            first, rest = test.values[0], test.values[1:]
            later = rest[0] if len(rest) == 1 else ast.BoolOp(op=test.op, values=rest)
            if isinstance(test.op, ast.And):
                return self.branch_on(first, path, lambda p: self.branch_on(later, p, yes, no), no)
            return self.branch_on(first, path, yes, lambda p: self.branch_on(later, p, yes, no))
        return self.branch(self.truthy(self.eval(test, path), path), path, yes, no)

    # -- compound statements -----------------------------------------------------------------
    def _st_If(self, st: ast.If, path: Path, k: Conts, nk: Conts) -> Term:
        joined = self._join(st, path)
        if joined is not None:
            return nk.after(joined)
        return self.branch_on(
            st.test,
            path,
            lambda p: self.block(st.body, p, nk),
            lambda p: self.block(st.orelse, p, nk),
        )

    def _join(self, st: ast.If, path: Path) -> Path | None:
        """Both sides of an ``if`` only bind names to effect-free values: one path on which each
        such name holds ``a if test else b`` (as a conditional expression would)."""
        plain = [*st.body, *st.orelse]
        if (
            self.watching
            or not effect_free(st.test)
            or not all(
                isinstance(s, (ast.Assign, ast.AnnAssign, ast.Pass))
                and all(
                    isinstance(t, ast.Name)
                    for t in getattr(s, "targets", [getattr(s, "target", None)])
                    if t is not None
                )
                and effect_free(s)
                for s in plain
            )
        ):
            return None
        cond = self.truthy(self.eval(st.test, path), path)
        if cond[0] in ("c", "not") or cond in path.facts:
            return None  # decided or negated: the fork handles it the same way
        sides = []
        for body in (st.body, st.orelse):
            side = Path(dict(path.env), path.state, [], path.facts, path.made, dict(path.private))
            for s in body:
                self.simple(s, side)
            sides.append(side)
        yes, no = sides
        if yes.env.keys() != no.env.keys():
            return None
        out = Path(
            {n: ite(cond, yes.env[n], no.env[n]) for n in yes.env},
            path.state,
            path.effects,
            path.facts,
            max(yes.made, no.made),
            path.private,
        )
        return out

    def _st_Return(self, st: ast.Return, path: Path, k: Conts, nk: Conts) -> Term:
        value = self.eval(st.value, path) if st.value is not None else NONE
        return leaf(path, ("ret", value))

    def _st_Raise(self, st: ast.Raise, path: Path, k: Conts, nk: Conts) -> Term:
        exc = self.eval(st.exc, path) if st.exc is not None else ("reraise",)
        cause = self.eval(st.cause, path) if st.cause is not None else ("nocause",)
        return leaf(path, ("raise", exc, cause))

    def _st_Break(self, st: ast.Break, path: Path, k: Conts, nk: Conts) -> Term:
        if k.brk is None:
            raise Unsupported("break outside a loop")
        return k.brk(path)

    def _st_Continue(self, st: ast.Continue, path: Path, k: Conts, nk: Conts) -> Term:
        if k.cont is None:
            raise Unsupported("continue outside a loop")
        return k.cont(path)

    def _st_Assert(self, st: ast.Assert, path: Path, k: Conts, nk: Conts) -> Term:
        def failed(p: Path) -> Term:
            msg = self.eval(st.msg, p) if st.msg is not None else NONE
            return leaf(p, ("raise", ("assert", msg), ("nocause",)))

        return self.branch_on(st.test, path, nk.after, failed)


__all__ = ["Statements"]
