"""A temporary written at its one use as a subscript key: ``t = K; d[t] = v`` is ``d[K] = v``.

``inlined-key``: ``t = K`` followed, as the very next statement of the same block, by
``D[t] = W`` (``t`` the whole key), where ``t`` is read nowhere else in the function, is
``D[K] = W``; the now unread ``t`` goes (a local bound and never read is no behaviour).

Why this needs an assumption: ``D[t] = W`` evaluates ``W``, then ``D``, then the key, so with
``K`` written in place of ``t`` it is evaluated after ``W`` and ``D`` instead of before them.
That is the same only when evaluating them in either order gives the same values and runs no
code (a property, ``__getattr__``, a ``__str__`` called by ``%`` formatting could act or raise
in the other order). The rule therefore takes only *reads*: ``K``, ``D`` and ``W`` are built
from names, constants, attribute reads, tuples and arithmetic/formatting operators (no calls,
subscripts, comprehensions, lambdas, ``:=``, ``await``/``yield``), so nothing in them can bind
a name the other reads. The finding states the one assumption: reading those attributes and
applying those operators runs no code of the project's (``K`` evaluated after ``W`` gives the
same). (Even names and constants only
leave one case: two unbound names would raise their ``NameError`` in the other order.)

Ruled out: a function that can see its locals another way (``locals()``, ``vars()``, ``eval``,
``exec``, ``global``/``nonlocal``), a nested scope mentioning ``t`` (a closure would read it),
a read or ``del`` of ``t`` outside such pairs, a statement between the two, ``t`` read inside a
comprehension (another scope). Run only as a last resort, after a comparison failed.
"""

from __future__ import annotations

import ast
from collections import Counter

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_OWN_SCOPES = (*_SCOPES, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_BLOCKS = ("body", "orelse", "finalbody")
_OPAQUE = frozenset({"locals", "vars", "eval", "exec"})
_READS = (
    ast.Name,
    ast.Constant,
    ast.Attribute,
    ast.Tuple,
    ast.BinOp,
    ast.UnaryOp,
    ast.JoinedStr,
    ast.FormattedValue,
    ast.expr_context,
    ast.operator,
    ast.unaryop,
)


def _reads_only(e: ast.expr) -> bool:
    return all(isinstance(n, _READS) for n in ast.walk(e))


def _blocks(fn: ast.AST) -> list[list[ast.stmt]]:
    """Every statement list of ``fn``'s own scope."""
    out: list[list[ast.stmt]] = []
    stack: list[ast.AST] = [fn]
    while stack:
        owner = stack.pop()
        holders = [owner, *(getattr(owner, "handlers", None) or [])]
        holders += getattr(owner, "cases", None) or []
        for h in holders:
            for name in _BLOCKS:
                block = getattr(h, name, None)
                if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                    out.append(block)
                    stack.extend(st for st in block if not isinstance(st, _SCOPES))
    return out


def _pair(first: ast.stmt, then: ast.stmt) -> str | None:
    """``t`` when ``first`` is ``t = K`` and ``then`` is ``D[t] = W``, all reads."""
    if not (
        isinstance(first, ast.Assign)
        and len(first.targets) == 1
        and isinstance(first.targets[0], ast.Name)
        and isinstance(then, ast.Assign)
        and len(then.targets) == 1
        and isinstance(then.targets[0], ast.Subscript)
    ):
        return None
    name = first.targets[0].id
    sub = then.targets[0]
    if not (isinstance(sub.slice, ast.Name) and sub.slice.id == name):
        return None
    if not all(_reads_only(e) for e in (first.value, sub.value, then.value)):
        return None
    if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(first.value)):
        return None
    if any(
        isinstance(n, ast.Name) and n.id == name
        for e in (sub.value, then.value)
        for n in ast.walk(e)
    ):
        return None
    return name


def inline_keys(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, str, str]]:
    """Rewrite ``fn`` in place; each rewrite as (``inlined-key``, the name, the assumption)."""
    if any(
        (isinstance(n, ast.Name) and n.id in _OPAQUE) or isinstance(n, (ast.Global, ast.Nonlocal))
        for n in ast.walk(fn)
    ):
        return []
    closed: set[str] = set()
    loads: Counter[str] = Counter()
    for n in ast.walk(fn):
        if isinstance(n, _OWN_SCOPES) and n is not fn:
            closed |= {x.id for x in ast.walk(n) if isinstance(x, ast.Name)}
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load | ast.Del):
            loads[n.id] += 1  # a ``del t`` would fail once ``t`` is no longer bound: a read
    blocks = _blocks(fn)
    pairs: dict[str, list[tuple[list[ast.stmt], int]]] = {}
    for block in blocks:
        for i in range(len(block) - 1):
            name = _pair(block[i], block[i + 1])
            if name is not None and name not in closed:
                pairs.setdefault(name, []).append((block, i))
    done: list[tuple[str, str, str]] = []
    for name, where in sorted(pairs.items()):
        if loads[name] != len(where):
            continue  # read somewhere else too
        for block, i in sorted(where, key=lambda w: -w[1]):
            first, then = block[i], block[i + 1]
            assert isinstance(first, ast.Assign) and isinstance(then, ast.Assign)
            sub = then.targets[0]
            assert isinstance(sub, ast.Subscript)
            sub.slice = first.value
            del block[i]
            # The assumption: the key evaluated after the value (and the mapping) gives the same.
            detail = ast.unparse(first.value)
            done.append(("inlined-key", name, detail))
    return done
