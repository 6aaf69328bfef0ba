"""The statement walk: every statement of a tree with its scope's qualname and its guard chain.

A guard is one enclosing construct (``if``/``else``, loop, ``try``/``except``, ``with``, a
``match`` case) with its normalised text; texts are computed only when asked for. One
statement-level pass (expressions are only visited when a walker asks), so walking a file
costs a fraction of ``ast.parse``.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from prreport.python.scopes import MODULE_SCOPE, SIMPLE_STATEMENTS, TRY_STATEMENTS, SourceText


@dataclass(frozen=True)
class Guard:
    """One enclosing construct: kind ``if|else|loop|try|except|with`` and its normalised text."""

    kind: str
    text: str
    line: int
    node: ast.AST | None = field(default=None, compare=False, repr=False)

    def key(self) -> tuple[str, str]:
        """Formatting-independent identity (the construct's AST) for before/after comparison."""
        cached: tuple[str, str] | None = self.__dict__.get("_key")
        if cached is None:
            if isinstance(self.node, ast.expr):
                cached = (self.kind, ast.dump(self.node))
            else:
                # Loops, try, except, with and match cases: the header, not the (changing) body.
                cached = (self.kind, _squash(self.text))
            object.__setattr__(self, "_key", cached)  # compared many times: dump once
        return cached

    def as_dict(self) -> dict[str, Any]:
        """JSON form ``{kind, text, line}``."""
        return {"kind": self.kind, "text": self.text, "line": self.line}


def _squash(text: str) -> str:
    return "".join(text.split())


def _handler_types(src: SourceText, handler: ast.ExceptHandler) -> str:
    return src.segment(handler.type) if handler.type is not None else ""


class _Pending:
    """A guard whose normalised text is only computed when a finding needs it."""

    __slots__ = ("kind", "line", "node", "make", "_guard")

    def __init__(self, kind: str, line: int, node: ast.AST, make: Callable[[], str]) -> None:
        self.kind = kind
        self.line = line
        self.node = node
        self.make = make
        self._guard: Guard | None = None

    def guard(self) -> Guard:
        if self._guard is None:
            self._guard = Guard(self.kind, self.make(), self.line, self.node)
        return self._guard


Pending = tuple[_Pending, ...]


def realise(ctx: Pending) -> tuple[Guard, ...]:
    """The guard chain of a statement, texts computed (once per guard)."""
    return tuple(p.guard() for p in ctx)


class Walker:
    """Statement walk tracking scope qualname and the guard chain (reset at def/class).

    Guard texts are computed lazily: most statements never need theirs, and slicing source
    for every ``if``/loop/``with`` of a large file costs a sizeable share of ``ast.parse``.
    """

    prunes = False  # True when ``skip`` is overridden
    # Statement types ``on_stmt`` wants (None: all); the rest are walked without a call.
    wanted: frozenset[type[ast.stmt]] | None = None

    def __init__(self, src: SourceText) -> None:
        self.src = src

    def skip(self, st: ast.stmt) -> bool:
        """Hook: True to leave a statement (and everything inside it) unvisited."""
        return False

    def on_stmt(self, st: ast.stmt, scope: str, ctx: Pending) -> None:
        """Hook: called for every statement before its bodies are walked."""

    def on_scope(self, qualname: str, st: ast.stmt) -> None:
        """Hook: called for every def/class with its qualname."""

    def enter(self, qualname: str) -> bool:
        """Hook: False to leave the body of a def/class unvisited (its header is visited)."""
        return True

    def walk(self, tree: ast.Module) -> None:
        self._block(tree.body, MODULE_SCOPE, False, ())

    def _block(self, body: Sequence[ast.stmt], scope: str, in_func: bool, ctx: Pending) -> None:
        seg = self.src.segment
        src = self.src
        skip = self.skip if self.prunes else None
        on_stmt = self.on_stmt
        wanted = self.wanted
        for st in body:
            if skip is not None and skip(st):
                continue
            t = type(st)
            if wanted is None or t in wanted:
                on_stmt(st, scope, ctx)
            if t in SIMPLE_STATEMENTS:
                continue
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if scope == MODULE_SCOPE:
                    q = st.name
                elif in_func:
                    q = f"{scope}.<locals>.{st.name}"
                else:
                    q = f"{scope}.{st.name}"
                self.on_scope(q, st)
                if self.enter(q):
                    self._block(st.body, q, not isinstance(st, ast.ClassDef), ())
            elif isinstance(st, ast.If):
                test = st.test
                make = functools.partial(seg, test)
                self._block(st.body, scope, in_func, (*ctx, _Pending("if", st.lineno, test, make)))
                if st.orelse:
                    guard = _Pending("else", st.lineno, test, make)
                    self._block(st.orelse, scope, in_func, (*ctx, guard))
            elif isinstance(st, (ast.For, ast.AsyncFor, ast.While)):
                make = functools.partial(loop_header, src, st)
                self._block(st.body, scope, in_func, (*ctx, _Pending("loop", st.lineno, st, make)))
                if st.orelse:
                    guard = _Pending("else", st.lineno, st, make)
                    self._block(st.orelse, scope, in_func, (*ctx, guard))
            elif isinstance(st, TRY_STATEMENTS):
                tr: Any = st  # ast.Try or ast.TryStar (3.11+): same fields
                make = functools.partial(_try_text, src, tr)
                self._block(tr.body, scope, in_func, (*ctx, _Pending("try", st.lineno, st, make)))
                for h in tr.handlers:
                    guard = _Pending("except", h.lineno, h, functools.partial(_except_text, src, h))
                    self._block(h.body, scope, in_func, (*ctx, guard))
                if tr.orelse:
                    guard = _Pending("try", st.lineno, st, _const("try-else"))
                    self._block(tr.orelse, scope, in_func, (*ctx, guard))
                if tr.finalbody:
                    guard = _Pending("try", st.lineno, st, _const("finally"))
                    self._block(tr.finalbody, scope, in_func, (*ctx, guard))
            elif isinstance(st, (ast.With, ast.AsyncWith)):
                make = functools.partial(_with_text, src, st)
                self._block(st.body, scope, in_func, (*ctx, _Pending("with", st.lineno, st, make)))
            elif isinstance(st, ast.Match):
                for case in st.cases:
                    make = functools.partial(_case_text, src, st, case)
                    guard = _Pending("if", case.pattern.lineno, case, make)
                    self._block(case.body, scope, in_func, (*ctx, guard))


def _const(text: str) -> Callable[[], str]:
    return lambda: text


def _try_text(src: SourceText, tr: Any) -> str:
    types = [_handler_types(src, h) for h in tr.handlers]
    return "try" + (f" / except {', '.join(t or '*' for t in types)}" if types else "")


def _except_text(src: SourceText, h: ast.ExceptHandler) -> str:
    return f"except {_handler_types(src, h)}".strip()


def _with_text(src: SourceText, st: ast.With | ast.AsyncWith) -> str:
    seg = src.segment
    return "with " + ", ".join(
        seg(i.context_expr) + (f" as {seg(i.optional_vars)}" if i.optional_vars else "")
        for i in st.items
    )


def _case_text(src: SourceText, st: ast.Match, case: ast.match_case) -> str:
    text = f"match {src.segment(st.subject)}: case {src.segment(case.pattern)}"
    if case.guard is not None:
        text += f" if {src.segment(case.guard)}"
    return text


def loop_header(src: SourceText, st: ast.For | ast.AsyncFor | ast.While) -> str:
    """Normalised loop header: ``while True`` / ``for x in xs``."""
    if isinstance(st, ast.While):
        return f"while {src.segment(st.test)}"
    prefix = "async for" if isinstance(st, ast.AsyncFor) else "for"
    return f"{prefix} {src.segment(st.target)} in {src.segment(st.iter)}"
