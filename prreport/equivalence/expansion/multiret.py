"""A helper returning a tuple from several places, expanded at ``a, b, c = helper(...)``.

Call-site expansion (``splice``) splices a helper that returns once, at its end. A helper
that picks its results on several paths (``if frozen: ... return [], f, g`` / ``return
lines, f2, g2``) expands into the same ``if`` tree with ``a, b, c = <tuple>`` at each return
point (:func:`spliced`); what the caller then does with the results is brought to one
spelling on both sides by ``results``. Each step, named in the finding
(``details.rewrites``), holds for every input:

- ``multi-return``: a helper body whose every path ends in ``return (e1, ..., en)`` (or
  ``raise``), returns sitting only at the tail of a branch or of the body, runs as the ``if``
  tree whose leaves are those returns (an ``if`` whose body always returns, followed by more
  statements, is that ``if`` with the rest as its ``else``; ``return x if c else y`` is
  ``if c: return x`` / ``else: return y``). ``a, b, c = helper(...)`` then assigns at each
  leaf what that path returned. A return inside a loop, ``try``, ``with`` or ``match``, or a
  path that falls off the end, is not expanded.
- ``forwarded-local``: a helper local ``h`` (a nested ``def`` or an assignment) returned at
  position ``k`` into a caller target that is also named ``h`` is the caller's ``h`` once
  spliced, when the helper reads ``h`` nowhere else (no nested scope, no other position, no
  other statement): on every path the caller's ``h`` ends with the value the tuple gives it,
  and nothing in between can see the earlier binding. Not when the call sits in a ``try`` or
  ``with`` of the caller (an exception half-way could be caught, or suppressed by
  ``contextlib.suppress``, and the name seen bound early) or the
  caller can see its locals (``locals()``, ``vars()``, ``eval``, ``exec``).
- closures and late binding (:func:`late_bound`, checked for every call form): a nested
  ``def`` of the helper that reads a parameter reads the value the helper got; spliced, it
  reads the caller's variable whenever it is called. So a parameter read inside a nested
  scope (function, lambda, class, comprehension: a generator's body runs when consumed) must
  be passed as a constant or as a parameter of the caller that the caller never rebinds (no
  assignment, ``del``, ``for``/``with``/``except``/``import``/``match`` binding, ``global``,
  ``nonlocal``, nested ``def`` of that name).

Where a name is bound earlier than before (``forwarded-local``), only an exception caught in
the same function, a closure or ``locals()`` could tell, and each is ruled out (a frame's
locals read through a traceback after it raised are not behaviour). Generators: a helper that
yields is never expanded this way.
"""

from __future__ import annotations

import ast
import copy

from prreport.python.localnames import inner_scopes, name_in, opaque, params_of
from prreport.python.scopes import own_nodes

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _read_in_scopes(node: ast.AST, name: str) -> bool:
    """Whether a nested scope of ``node`` mentions ``name`` (a closure could read it)."""
    return any(name_in(s, name) for s in inner_scopes(node))


def _has_return(st: ast.stmt) -> bool:
    return any(isinstance(n, ast.Return) for n in own_nodes([st]))


def _leaf(value: ast.expr | None, targets: list[str]) -> list[ast.stmt] | None:
    """``t1, ..., tn = e1, ..., en`` for ``return (e1, ..., en)``; an ``if`` for ``x if c else y``."""
    if isinstance(value, ast.IfExp):
        body, orelse = _leaf(value.body, targets), _leaf(value.orelse, targets)
        if body is None or orelse is None:
            return None
        return [ast.If(test=value.test, body=body, orelse=orelse)]
    if not isinstance(value, ast.Tuple) or len(value.elts) != len(targets):
        return None
    if any(isinstance(e, ast.Starred) for e in value.elts):
        return None
    target = ast.Tuple(elts=[ast.Name(id=t, ctx=ast.Store()) for t in targets], ctx=ast.Store())
    leaf = ast.Assign(targets=[target], value=value, lineno=0)
    leaf.prreport_leaf = True  # type: ignore[attr-defined]
    return [leaf]


def _nest(stmts: list[ast.stmt], targets: list[str]) -> list[ast.stmt] | None:
    """``stmts`` (every path ending in a return of an n-tuple, or a raise) as an ``if`` tree
    with the tuple assigned at each leaf; None when a return sits elsewhere or a path falls
    off the end."""
    out: list[ast.stmt] = []
    for i, st in enumerate(stmts):
        last = i == len(stmts) - 1
        if isinstance(st, ast.Return):
            leaf = _leaf(st.value, targets)
            return None if leaf is None or not last else [*out, *leaf]
        if isinstance(st, ast.Raise):
            return [*out, st] if last else None
        if not _has_return(st):
            out.append(st)
            continue
        if not isinstance(st, ast.If):
            return None  # a return inside a loop, try, with or match
        body = _nest(st.body, targets)
        if body is None:
            return None
        rest = st.orelse if st.orelse else stmts[i + 1 :]
        if st.orelse and not last:
            return None  # both branches end the helper: what follows is dead code
        orelse = _nest(rest, targets)
        if orelse is None:
            return None
        return [*out, ast.If(test=st.test, body=body, orelse=orelse)]
    return None  # fell off the end: returns None, not a tuple


def late_bound(
    body: list[ast.stmt], subst: dict[str, ast.expr], caller: ast.FunctionDef | ast.AsyncFunctionDef
) -> str:
    """Why substituting the arguments would change what a closure of the helper reads ("" when
    nothing would).

    A nested function, lambda, class or comprehension of the helper that reads parameter ``p``
    reads the value the call passed; with the argument written in place of ``p`` it reads the
    caller's expression whenever it runs (late binding). That is the same
    only for a constant, or a parameter of the caller that the caller never rebinds.
    """
    caller_params = {a.arg for a in params_of(caller)}
    rebound: set[str] = set()
    for n in ast.walk(caller):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            rebound.add(n.id)
        elif isinstance(n, (ast.Nonlocal, ast.Global)):
            rebound.update(n.names)
        elif isinstance(n, (*_FUNCS, ast.ClassDef)) and n is not caller:
            rebound.add(n.name)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            rebound.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            rebound.update(a.asname or a.name.split(".")[0] for a in n.names)
        elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
            rebound.add(n.name)
        elif isinstance(n, ast.MatchMapping) and n.rest:
            rebound.add(n.rest)
    scopes = inner_scopes(ast.Module(body=body, type_ignores=[]))
    for p, arg in subst.items():
        if isinstance(arg, ast.Constant) or not any(name_in(sc, p) for sc in scopes):
            continue
        if isinstance(arg, ast.Name) and arg.id in caller_params and arg.id not in rebound:
            continue
        return f"a nested function of the helper reads {p!r}, passed as something the caller may rebind"
    return ""


def spliced(
    body: list[ast.stmt],
    targets: ast.expr,
    helper_locals: set[str],
    caller: ast.FunctionDef | ast.AsyncFunctionDef,
    guarded: bool,
) -> tuple[list[ast.stmt], set[str]] | str:
    """The helper ``body`` (parameters already replaced by the arguments) as the
    statements running in place of ``targets = helper(...)``, and the helper locals that
    became the caller's own targets (``forwarded-local``); or why not.
    """
    if not isinstance(targets, ast.Tuple | ast.List):
        return "helper returns from several places"
    names = [t.id if isinstance(t, ast.Name) else "" for t in targets.elts]
    if "" in names or len(set(names)) != len(names):
        return "helper returns from several places"
    tree = _nest(copy.deepcopy(body), names)
    if tree is None:
        return "helper returns from several places"
    # The leaves made by ``_leaf`` (the helper's own ``a, b = ...`` may use the same names).
    leaves = [n for n in own_nodes(tree) if getattr(n, "prreport_leaf", False)]
    forwarded: set[str] = set()
    if not guarded and not opaque(caller):
        values: list[list[ast.expr]] = [leaf.value.elts for leaf in leaves]  # type: ignore[attr-defined]
        spliced_scopes = inner_scopes(ast.Module(body=tree, type_ignores=[]))
        for k, h in enumerate(names):
            if h not in helper_locals or _read_in_scopes(caller, h):
                continue  # a closure of the caller could read the caller's ``h`` early
            reads = [
                n
                for n in own_nodes(tree)
                if isinstance(n, ast.Name) and n.id == h and isinstance(n.ctx, ast.Load)
            ]
            if any(not any(r is v[k] for v in values) for r in reads):
                continue  # read elsewhere in the helper
            if any(name_in(v[j], h) for v in values for j in range(len(names)) if j != k):
                continue
            if any(name_in(sc, h) for sc in spliced_scopes):
                continue
            forwarded.add(h)
    return tree, forwarded


def has_leaf(fn: ast.AST) -> bool:
    """Whether ``fn`` holds a spliced multi-return tree."""
    return any(getattr(n, "prreport_leaf", False) for n in ast.walk(fn))
