"""Accumulator loops (an idiom of ``prreport.equivalence.idioms``): a new empty list, set or dict
filled by one loop of ``append`` (``add``, ``d[k] = v``), with optional ``if`` tests, is its
comprehension, when the loop variable is read nowhere else in the function and no
``try``/``with`` around it could see the container half built."""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable

from prreport.equivalence.idioms import call_of, is_name, plain
from prreport.equivalence.returns import awaits
from prreport.equivalence.rewrites.renamed import reads_frame

_GUARDS = (ast.Try, ast.With, ast.AsyncWith) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())


def fold_accumulators(fn: ast.AST, builtin: Callable[[str], bool]) -> list[str]:
    """A new empty list/set/dict filled by the loop right after it, made its comprehension (in
    place); the idioms done."""
    if reads_frame(fn):
        return []
    loads = Counter(
        n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    )
    done: list[str] = []

    def walk(node: ast.AST, guarded: bool) -> None:
        inside = guarded or isinstance(node, _GUARDS)
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for child in block:
                walk(child, inside)
            if block and isinstance(block[0], ast.stmt) and not inside:
                setattr(node, field, _fold_block(block, loads, builtin, done))

    walk(fn, False)
    return done


def _fold_block(
    block: list[ast.stmt], loads: Counter[str], builtin: Callable[[str], bool], done: list[str]
) -> list[ast.stmt]:
    """Each ``out = <empty>`` whose first later mention is the loop that fills it: dropped, and
    the loop made ``out = <comprehension>`` (the statements between, which do not mention
    ``out`` and do not jump, run in the same order)."""
    out = list(block)
    i = 0
    while i < len(out):
        st = out[i]
        name = _new_empty(st, builtin)
        j = _first_mention(out, i, name) if name else None
        comp = _comprehension(st, out[j], loads, builtin) if j is not None else None
        if comp is not None and j is not None:
            out[j] = ast.copy_location(ast.Assign(targets=st.targets, value=comp), out[j])  # type: ignore[attr-defined]
            del out[i]
            done.append("accumulator")
            continue
        i += 1
    return out


def _new_empty(st: ast.stmt, builtin: Callable[[str], bool]) -> str | None:
    if (
        isinstance(st, ast.Assign)
        and len(st.targets) == 1
        and isinstance(st.targets[0], ast.Name)
        and _empty_kind(st.value, builtin) is not None
    ):
        return st.targets[0].id
    return None


def _first_mention(block: list[ast.stmt], i: int, name: str) -> int | None:
    """The index of the first statement after ``i`` that mentions ``name``, when none before it
    can jump out of an enclosing loop (``break``/``continue``)."""
    for j in range(i + 1, len(block)):
        nodes = list(ast.walk(block[j]))
        if any(isinstance(n, ast.Name) and n.id == name for n in nodes):
            return j
        if any(isinstance(n, ast.Break | ast.Continue) for n in nodes):
            return None
    return None


def _empty_kind(value: ast.expr, builtin: Callable[[str], bool]) -> str | None:
    if isinstance(value, ast.List) and not value.elts:
        return "list"
    if isinstance(value, ast.Dict) and not value.keys:
        return "dict"
    if call_of(value, builtin, "set") and not value.args and not value.keywords:  # type: ignore[attr-defined]
        return "set"
    return None


def _comprehension(
    st: ast.stmt, loop: ast.stmt, loads: Counter[str], builtin: Callable[[str], bool]
) -> ast.expr | None:
    if not (
        isinstance(st, ast.Assign)
        and len(st.targets) == 1
        and isinstance(st.targets[0], ast.Name)
        and isinstance(loop, ast.For)
        and not loop.orelse
    ):
        return None
    kind, out = _empty_kind(st.value, builtin), st.targets[0].id
    body, ifs = loop.body, []
    while len(body) == 1 and isinstance(body[0], ast.If) and not body[0].orelse:
        ifs.append(body[0].test)
        body = body[0].body
    if kind is None or len(body) != 1 or awaits(loop):
        return None
    item = _filled(body[0], out, kind)
    if item is None:
        return None
    inside = Counter(
        n.id for n in ast.walk(loop) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    )
    targets = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    if inside[out] != 1 or any(loads[t] != inside[t] for t in targets):
        return None  # the list read while filled, or the loop variable read after the loop
    gen = [ast.comprehension(target=loop.target, iter=loop.iter, ifs=ifs, is_async=0)]
    if kind == "dict":
        key, value = item
        return ast.DictComp(key=key, value=value, generators=gen)
    if kind == "set":
        return ast.SetComp(elt=item[0], generators=gen)
    return ast.ListComp(elt=item[0], generators=gen)


def _filled(st: ast.stmt, out: str, kind: str) -> tuple[ast.expr, ...] | None:
    """What one statement puts into ``out``: ``out.append(e)`` (``add``), ``out[k] = v``."""
    if kind == "dict":
        if (
            isinstance(st, ast.Assign)
            and len(st.targets) == 1
            and isinstance(st.targets[0], ast.Subscript)
            and is_name(st.targets[0].value, out)
            and (plain(st.targets[0].slice) or plain(st.value))  # evaluated in another order
        ):
            return st.targets[0].slice, st.value
        return None
    method = "append" if kind == "list" else "add"
    if (
        isinstance(st, ast.Expr)
        and isinstance(st.value, ast.Call)
        and isinstance(st.value.func, ast.Attribute)
        and st.value.func.attr == method
        and is_name(st.value.func.value, out)
        and len(st.value.args) == 1
        and not st.value.keywords
        and not isinstance(st.value.args[0], ast.Starred)
    ):
        return (st.value.args[0],)
    return None
