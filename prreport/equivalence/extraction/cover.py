"""Where a helper's statements are found, edited, among the statements one function lost: the
in-order match heaviest in helper code, each parameter and local of the helper standing for one
caller expression (unification), and what differs between them (the residual).

Never a proof: the match says where code came from, so that the extraction is reported
("different", with the residual) and the verdict follows from the callers' own findings.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from prreport.equivalence.extraction.items import Item, token_set
from prreport.python.definitions import bound_names

# Share of the helper's code (weighted by syntax nodes) found, in order, among one function's
# lost statements; the fewest statements the helper body and that match must have; and the
# fewest syntax nodes matched (``for p in self.procs: p.join()`` is too common to say where
# code came from).
COVERED = 0.5
MIN_ITEMS = 2
MIN_WEIGHT = 10


def _unify(
    h: object, o: object, params: frozenset[str], own: frozenset[str], bound: dict[str, str]
) -> bool:
    """Whether helper code ``h`` reads as caller code ``o`` with each parameter standing for one
    caller expression and each of the helper's own locals for one caller name (``bound``)."""
    if isinstance(h, ast.Name) and (h.id in params or h.id in own):
        if h.id in own and not isinstance(o, ast.Name):
            return False
        if not isinstance(o, ast.expr):
            return False
        return bound.setdefault(h.id, ast.unparse(o)) == ast.unparse(o)
    if type(h) is not type(o):
        return False
    if isinstance(h, ast.AST):
        for field in h._fields:
            if field in ("ctx", "type_comment"):
                continue
            if not _unify(getattr(h, field, None), getattr(o, field, None), params, own, bound):
                return False
        return True
    if isinstance(h, list):
        assert isinstance(o, list)
        return len(h) == len(o) and all(
            _unify(x, y, params, own, bound) for x, y in zip(h, o, strict=True)
        )
    return h == o


@dataclass(frozen=True)
class Cover:
    """Where a helper's statements are found among one function's lost statements."""

    pairs: tuple[tuple[int, int], ...]  # (helper item, lost item) indices, in order
    share: float  # of the helper's code (by weight)
    bound: dict[str, str]  # helper parameter/local -> the caller expression it stands for
    item_bound: dict[int, dict[str, str]]  # the same, per matched helper item


def cover(helper: ast.AST, body: list[Item], lost: list[Item]) -> Cover:
    """The in-order match of helper items to lost items heaviest in helper code, each parameter
    and local of the helper standing for the one caller expression most of the match gives it."""
    args = helper.args  # type: ignore[attr-defined]
    params = frozenset(a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs])
    params |= frozenset(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    own = frozenset(bound_names(helper.body)) - params  # type: ignore[attr-defined]
    spelled = [token_set(x.node, params | own) for x in body]
    candidates = [
        (i, j)
        for i, x in enumerate(body)
        for j, y in enumerate(lost)
        if type(x.node) is type(y.node) and spelled[i] <= y.tokens
    ]
    total = sum(x.weight for x in body) or 1
    if sum(body[i].weight for i in {i for i, _ in candidates}) < COVERED * total:
        return Cover((), 0.0, {}, {})  # too little of it can match anyway
    unify = partial(_unify, params=params, own=own)
    first = _align(body, lost, candidates, unify, {})
    votes: dict[str, Counter[str]] = {}
    for i, _ in first.pairs:
        for k, v in first.item_bound[i].items():
            votes.setdefault(k, Counter())[v] += body[i].weight
    fixed = {k: c.most_common(1)[0][0] for k, c in votes.items()}
    return _align(body, lost, candidates, unify, fixed)


def _align(
    body: list[Item],
    lost: list[Item],
    candidates: list[tuple[int, int]],
    unify: Callable[..., bool],
    fixed: dict[str, str],
) -> Cover:
    n, m = len(body), len(lost)
    ok: dict[tuple[int, int], dict[str, str]] = {}
    for i, j in candidates:
        b = dict(fixed)
        if unify(body[i].node, lost[j].node, bound=b):
            ok[i, j] = b
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            take = best[i + 1][j + 1] + body[i].weight if (i, j) in ok else 0
            best[i][j] = max(best[i + 1][j], best[i][j + 1], take)
    pairs: list[tuple[int, int]] = []
    i = j = 0
    while i < n and j < m:
        if (i, j) in ok and best[i][j] == best[i + 1][j + 1] + body[i].weight:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif best[i + 1][j] >= best[i][j + 1]:
            i += 1
        else:
            j += 1
    total = sum(x.weight for x in body) or 1
    item_bound = {i: ok[i, j] for i, j in pairs}
    bound = {k: v for b in item_bound.values() for k, v in b.items()}
    return Cover(tuple(pairs), best[0][0] / total, bound, item_bound)


def edit_residual(
    body: list[Item], lost: list[Item], pairs: Sequence[tuple[int, int]], whole: bool
) -> list[str]:
    """What the lost statements did that the helper does not (``-``), and what the helper does
    that they did not (``+``), in order: all of them when ``whole`` (the function is gone),
    else those from the first found (or the header of a block holding it) to the last found."""
    if not pairs:
        return []
    first, last = pairs[0][1], pairs[-1][1]
    if whole:
        first, last = 0, len(lost) - 1
    while first > 0 and lost[first - 1].block_end >= lost[pairs[0][1]].line:
        first -= 1  # an ``if``/``for``/``with`` around the found statements
    out: list[str] = []
    i, j = 0, first
    for hi, lj in [*pairs, (len(body), last + 1)]:
        out += [f"-{'    ' * lost[k].depth}{lost[k].text}" for k in range(j, lj)]
        out += [f"+{'    ' * body[k].depth}{body[k].text}" for k in range(i, hi)]
        i, j = hi + 1, lj + 1
    return out
