"""Loops, ``with`` and ``try`` as blocks: each is one effect whose term holds the summary of its
body, so two blocks compare equal when their bodies do, however differently spelled.

A ``for`` over a literal tuple or list of at most ``UNROLL`` items is unrolled instead (the
same statements repeated once per item, as a loop folded out of repeated code is). In any
other loop body the names the loop assigns are symbols carried from the previous iteration;
after a block, each name it assigns is a symbol of the block's outcome, and a ``return``,
``break`` or ``continue`` inside it is a branch on how the block was left.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from functools import partial

from prreport.equivalence.effects.expressions import UNROLL_ITEMS
from prreport.equivalence.effects.statements import Statements
from prreport.equivalence.effects.terms import Path, Term, Unsupported
from prreport.equivalence.effects.tree import Conts, exits, leaf

UNROLL = UNROLL_ITEMS
_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def assigned_names(nodes: Sequence[ast.AST]) -> list[str]:
    """Names bound inside ``nodes`` (not in nested scopes), in a fixed order of first binding."""
    seen: dict[str, None] = {}
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            seen.setdefault(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            seen.setdefault(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                seen.setdefault(a.asname or a.name.partition(".")[0])
        if isinstance(node, _SCOPES):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
    return list(seen)


class Blocks(Statements):
    """The compound statements that are blocks (``Machine`` is this plus ``scope``)."""

    def _values(self, names: list[str], path: Path) -> Term:
        return tuple(path.env.get(n, ("unbound",)) for n in names)

    def _leaves(self, names: list[str], loop: bool) -> Conts:
        """Leaves saying how a block's body was left (a loop's ``continue`` is its ``next``)."""

        def end(kind: str):
            return lambda p: leaf(p, (kind, self._values(names, p)))

        if loop:
            return Conts(end("next"), end("break"), end("next"))
        return Conts(end("fall"), end("break"), end("continue"))

    def _inner(self, path: Path, key: Term, names: list[str], carried: bool) -> Path:
        env = dict(path.env)
        for i, n in enumerate(names):
            if carried:
                env[n] = ("carried", key, i)
        return Path(env, self.interner.intern(("in", key)))

    def _after(
        self,
        term: Term,
        how: set[str],
        names: list[str],
        path: Path,
        k: Conts,
        nk: Conts,
        loop: bool,
        orelse: list[ast.stmt],
    ) -> Term:
        """Continue after a block: its names are symbols of its outcome; branch on how it ended."""
        self.emit(path, term)
        for i, n in enumerate(names):
            path.env[n] = ("out", path.state, i)
        if "raise" in how and len(how) == 1:
            return leaf(path, ("raise", ("block", path.state), ("nocause",)))

        def rest(p: Path) -> Term:
            if loop:
                if orelse and "break" in how:
                    return self.branch(
                        ("left", p.state, "break"), p, nk.after, lambda q: self.block(orelse, q, nk)
                    )
                return self.block(orelse, p, nk) if orelse else nk.after(p)
            out = nk.after
            for kind, go in (("continue", k.cont), ("break", k.brk)):
                if kind in how:
                    if go is None:
                        raise Unsupported(kind + " outside a loop")
                    out = partial(self._exit_branch, kind, go, out)
            return out(p)

        if "ret" in how:
            return self.branch(
                ("left", path.state, "ret"),
                path,
                lambda p: leaf(p, ("ret", ("retval", p.state))),
                rest,
            )
        return rest(path)

    def _exit_branch(self, kind: str, go, otherwise, p: Path) -> Term:
        return self.branch(("left", p.state, kind), p, go, otherwise)

    # -- for and while -----------------------------------------------------------------------
    def _st_For(self, st: ast.For, path: Path, k: Conts, nk: Conts) -> Term:
        it = self.eval(st.iter, path)
        seq = st.iter
        literal = isinstance(seq, (ast.Tuple, ast.List)) and not any(
            isinstance(e, ast.Starred) for e in seq.elts
        )
        if literal and isinstance(seq, (ast.Tuple, ast.List)) and len(seq.elts) <= UNROLL:
            items = list(it[1] if it[0] == "tuple" else it[2])
            return self._unrolled(st, items, 0, path, nk)
        names = assigned_names([st.target, *st.body])
        key = path.fresh()
        inner = self._inner(path, key, names, carried=True)
        self.assign(st.target, ("elem", key), inner)
        body = self.block(st.body, inner, self._leaves(names, loop=True))
        term = ("for", type(st).__name__, it, self._values(names, path), body)
        return self._after(term, exits(body), names, path, k, nk, loop=True, orelse=st.orelse)

    _st_AsyncFor = _st_For

    def _unrolled(self, st: ast.For, items: list[Term], i: int, path: Path, nk: Conts) -> Term:
        if i == len(items):
            return self.block(st.orelse, path, nk) if st.orelse else nk.after(path)
        self.assign(st.target, items[i], path)

        def step(p: Path) -> Term:
            return self._unrolled(st, items, i + 1, p, nk)

        return self.block(st.body, path, Conts(step, nk.after, step))

    def _st_While(self, st: ast.While, path: Path, k: Conts, nk: Conts) -> Term:
        names = assigned_names([st.test, *st.body])
        key = path.fresh()
        inner = self._inner(path, key, names, carried=True)
        ends = self._leaves(names, loop=True)
        done = lambda p: leaf(p, ("done", self._values(names, p)))  # noqa: E731
        body = self.branch_on(st.test, inner, lambda p: self.block(st.body, p, ends), done)
        term = ("while", self._values(names, path), body)
        return self._after(term, exits(body), names, path, k, nk, loop=True, orelse=st.orelse)

    # -- with and try ------------------------------------------------------------------------
    def _st_With(self, st: ast.With, path: Path, k: Conts, nk: Conts) -> Term:
        first, *more = st.items
        body_stmts: list[ast.stmt] = [type(st)(items=more, body=st.body)] if more else st.body
        manager = self.eval(first.context_expr, path)
        names = assigned_names(
            [*([first.optional_vars] if first.optional_vars else []), *body_stmts]
        )
        key = path.fresh()
        inner = self._inner(path, key, names, carried=False)
        if first.optional_vars is not None:
            self.assign(first.optional_vars, ("entered", key), inner)
        self.watching += 1  # ``__exit__`` may suppress what the body raises
        try:
            body = self.block(body_stmts, inner, self._leaves(names, loop=False))
        finally:
            self.watching -= 1
        term = ("with", type(st).__name__, manager, self._values(names, path), body)
        return self._after(term, exits(body), names, path, k, nk, loop=False, orelse=[])

    _st_AsyncWith = _st_With

    def _st_Try(self, st: ast.Try, path: Path, k: Conts, nk: Conts) -> Term:
        names = assigned_names([st])
        key = path.fresh()
        ends = self._leaves(names, loop=False)
        inner = self._inner(path, key, names, carried=False)

        def orelse(p: Path) -> Term:
            self.emit(p, ("else",))  # what runs here is outside the handlers' reach
            return self.block(st.orelse, p, ends)

        self.watching += 1  # a handler goes on with the locals as they were when it raised
        try:
            body = self.block(
                st.body, inner, Conts(orelse if st.orelse else ends.after, ends.brk, ends.cont)
            )
        finally:
            self.watching -= 1
        handlers = []
        for i, h in enumerate(st.handlers):
            hp = self._inner(path, (key, "except", i), names, carried=True)
            typ = self.eval(h.type, hp) if h.type is not None else ("bare",)
            if h.name:
                hp.env[h.name] = ("caught", key, i)
            watch = 1 if st.finalbody else 0  # ``finally`` sees where a handler raised
            self.watching += watch
            try:
                handlers.append((typ, self.block(h.body, hp, ends)))
            finally:
                self.watching -= watch
        final: Term = ("nofinally",)
        if st.finalbody:
            fp = self._inner(path, (key, "finally"), names, carried=True)
            final = self.block(st.finalbody, fp, ends)
            if exits(final) - {"fall", "raise"}:
                raise Unsupported("finally that leaves")
        term = ("try", body, tuple(handlers), final, self._values(names, path))
        how = exits(body) | {e for _, h in handlers for e in exits(h)}
        return self._after(term, how or {"fall"}, names, path, k, nk, loop=False, orelse=[])
