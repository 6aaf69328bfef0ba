"""Expanding every call of a helper in one caller, and checking the spliced names are safe.

Each call statement of the helper (at any depth of the caller's blocks) is replaced by the
helper's body (``splice``); a call inside a larger expression is spliced when the helper is one
``return E``. Then the helper's own names must not capture or clobber the caller's: no helper
global that the caller shadows, no inlined name that the caller reads where the inlined
assignment could have replaced its value.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Sequence

from prreport.equivalence.expansion.binding import Helper
from prreport.equivalence.expansion.normal import normalised
from prreport.equivalence.expansion.splice import (
    Stable,
    site_form,
    splice_call,
    substitute_calls,
)
from prreport.python.localnames import free_names, locals_of, names_in, params_of
from prreport.python.scopes import own_nodes

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_BLOCKS = ("body", "orelse", "finalbody")


def expand(
    caller: ast.FunctionDef | ast.AsyncFunctionDef,
    helper: Helper,
    matches: Callable[[ast.Call], bool],
    nested: bool = False,
    stable: Stable | None = None,
    notes: list[dict[str, str]] | None = None,
) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, int, bool] | str:
    """The caller with every matching call statement replaced by the helper body, or why not.

    ``nested``: the helper is defined inside the caller (its ``def`` goes with the inlining).
    ``stable``/``notes``: see ``splice_call``.
    """
    norm = normalised(helper.node)
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(norm)):
        return "helper declares global/nonlocal names"
    fn = copy.deepcopy(caller)
    helper_node = None
    if nested:
        for n in ast.walk(fn):
            if isinstance(n, _FUNCS) and n is not fn and n.name == helper.node.name:
                helper_node = n
    run = _Splicer(helper, norm.body, matches, caller, stable, notes, helper_node, _guarded(fn))
    fn.body = run.block(fn.body, True)
    if run.failure:
        return run.failure
    if not run.sites:
        return "no call to expand"
    clash = _clash(caller, helper, norm, matches, nested, run.introduced)
    if clash:
        return clash
    return fn, run.sites, run.same_names


def _guarded(fn: ast.AST) -> set[int]:
    """Statements inside a ``try`` of the caller (at any depth), or a ``with`` (its exit may
    suppress the exception, as ``contextlib.suppress`` does, and the caller goes on)."""
    guards = (ast.Try, getattr(ast, "TryStar", ast.Try), ast.With, ast.AsyncWith)
    return {
        id(x)
        for t in ast.walk(fn)
        if isinstance(t, guards)
        for block in (
            t.body,
            getattr(t, "orelse", []),
            getattr(t, "finalbody", []),
            *(h.body for h in getattr(t, "handlers", [])),
        )
        for top_st in block
        for x in ast.walk(top_st)
    }


class _Splicer:
    """One pass over a caller's blocks, splicing the helper at each matching call."""

    def __init__(
        self,
        helper: Helper,
        body: list[ast.stmt],
        matches: Callable[[ast.Call], bool],
        caller: ast.FunctionDef | ast.AsyncFunctionDef,
        stable: Stable | None,
        notes: list[dict[str, str]] | None,
        helper_node: ast.AST | None,
        tried: set[int],
    ) -> None:
        self.helper, self.body, self.matches, self.caller = helper, body, matches, caller
        self.stable, self.notes, self.helper_node, self.tried = stable, notes, helper_node, tried
        self.is_async = isinstance(helper.node, ast.AsyncFunctionDef)
        self.introduced: set[str] = set()
        self.sites = 0
        self.failure = ""
        self.same_names = True

    def block(self, stmts: list[ast.stmt], top: bool) -> list[ast.stmt]:
        """``stmts`` with the helper spliced in (``top``: the caller's own body)."""
        out: list[ast.stmt] = []
        for i, st in enumerate(stmts):
            if st is self.helper_node:
                continue
            found = [c for c in ast.walk(st) if isinstance(c, ast.Call) and self.matches(c)]
            if not found:
                out.append(st)
                continue
            direct = [c for c in found if site_form(st, c, self.is_async) is not None]
            if len(direct) == 1 and len(found) == 1:
                out.extend(self.statement(st, direct[0], top and i == len(stmts) - 1))
                continue
            self.deeper(st, top)
            out.append(st)
        return out

    def statement(self, st: ast.stmt, call: ast.Call, tail: bool) -> list[ast.stmt]:
        """What replaces a statement that is one call of the helper (itself when it cannot be)."""
        got = splice_call(
            self.helper,
            self.body,
            st,
            call,
            tail,
            id(st) in self.tried,
            self.stable,
            self.notes,
            self.caller,
        )
        if isinstance(got, str):
            self.failure = self.failure or got
            return [st]
        self.sites += 1
        self.same_names = self.same_names and got[2]
        self.introduced.update(got[1])
        return got[0]

    def deeper(self, st: ast.stmt, top: bool) -> None:
        """The call sits deeper: expand inside the statement's own blocks, then in its
        expressions."""
        for name in _BLOCKS:
            block = getattr(st, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                setattr(st, name, self.block(block, top and isinstance(st, _FUNCS)))
        for h in getattr(st, "handlers", None) or []:
            h.body = self.block(h.body, False)
        for c in getattr(st, "cases", None) or []:
            c.body = self.block(c.body, False)
        left = [c for c in ast.walk(st) if isinstance(c, ast.Call) and self.matches(c)]
        if left:
            spliced = substitute_calls(
                self.helper, self.body, st, left, self.caller, self.stable, self.notes
            )
            if isinstance(spliced, str):
                self.failure = self.failure or spliced
            else:
                self.sites += len(left)
                self.same_names = self.same_names and spliced


def _clash(
    caller: ast.FunctionDef | ast.AsyncFunctionDef,
    helper: Helper,
    norm: ast.FunctionDef | ast.AsyncFunctionDef,
    matches: Callable[[ast.Call], bool],
    nested: bool,
    introduced: set[str],
) -> str:
    """Why the helper's own names clash with the caller's ("" when they do not): a caller name
    read where an inlined assignment could have replaced its value, or a helper global the
    caller shadows."""
    caller_locals = locals_of(caller.body) | {a.arg for a in params_of(caller)}
    if not nested:
        free = free_names(norm) - {a.arg for a in params_of(norm)}
        clash = free & caller_locals
        if clash:
            return f"helper reads {sorted(clash)[0]!r}, a local name of the caller"
    caller_names = names_in(caller) - (names_in(helper.node) if nested else set())
    for name in sorted(introduced):
        if name not in caller_locals and name in caller_names:
            return f"inlined name {name!r} is a global the caller reads"
        if not _safe_to_introduce(caller, name, matches, helper.node.name if nested else ""):
            return f"inlined name {name!r} is also used by the caller"
    return ""


def _safe_to_introduce(
    caller: ast.AST, name: str, matches: Callable[[ast.Call], bool], helper_name: str
) -> bool:
    """Whether every read of ``name`` in the caller sees an assignment made after the last call site."""

    def has_site(node: ast.AST) -> bool:
        return any(isinstance(c, ast.Call) and matches(c) for c in ast.walk(node))

    def reads(node: ast.AST) -> bool:
        return any(
            isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
            for n in own_nodes([node])
        )

    def binds_here(st: ast.stmt) -> bool:
        targets: list[ast.expr] = []
        if isinstance(st, ast.Assign):
            targets = st.targets
        elif isinstance(st, ast.AnnAssign) and st.value is not None:
            targets = [st.target]
        elif isinstance(st, (ast.For, ast.AsyncFor)):
            return False  # the body may not run
        return any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t))

    def walk(stmts: Sequence[ast.stmt], defined: bool) -> tuple[bool, bool]:
        for st in stmts:
            if isinstance(st, (*_FUNCS, ast.ClassDef)):
                if st.name == helper_name:
                    continue
                inner_reads = any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(st))
                own = locals_of(getattr(st, "body", []))
                if not isinstance(st, ast.ClassDef):
                    own |= {a.arg for a in params_of(st)}  # a parameter of that name is its own
                    # ...but defaults and decorators run here, when the def runs.
                    here = [*st.args.defaults, *st.args.kw_defaults, *st.decorator_list]
                    if any(
                        isinstance(n, ast.Name) and n.id == name
                        for h in here
                        if h is not None
                        for n in ast.walk(h)
                    ):
                        return False, defined
                if inner_reads and name not in own:
                    return False, defined  # a closure reads it at an unknown time
                continue
            header = [
                c
                for f, v in ast.iter_fields(st)
                if f not in (*_BLOCKS, "handlers", "cases")
                for c in (v if isinstance(v, list) else [v])
                if isinstance(c, ast.AST)
            ]
            if not defined and any(reads(h) for h in header):
                return False, defined
            loop = isinstance(st, (ast.For, ast.AsyncFor, ast.While))
            inner_defined = defined and not (loop and has_site(st))
            for fname in _BLOCKS:
                block = getattr(st, fname, None)
                if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                    ok, _ = walk(block, inner_defined)
                    if not ok:
                        return False, defined
            for h in getattr(st, "handlers", None) or []:
                ok, _ = walk(h.body, inner_defined)
                if not ok:
                    return False, defined
            for c in getattr(st, "cases", None) or []:
                ok, _ = walk(c.body, inner_defined)
                if not ok:
                    return False, defined
            if has_site(st):
                defined = False
            elif binds_here(st):
                defined = True
        return True, defined

    body = caller.body  # type: ignore[attr-defined]
    # Before any call site, the caller's own uses are untouched: start "defined".
    return walk(body, True)[0]
