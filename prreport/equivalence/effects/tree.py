"""The summary tree: effects in order, branches on conditions, and how a path ends.

Nodes: ``("seq", effects, node)``, ``("br", cond, then, else)``, and leaves ``("ret", v)``,
``("raise", exc, cause)`` and, inside a loop, ``with`` or ``try`` body, how it was left
(``next``, ``break``, ``continue``, ``fall``, ``done``) with the values of the names the
block assigns. Two versions do the same when their trees are equal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from prreport.equivalence.effects.terms import Path, Term, ite

Cont = Callable[[Path], Term]


@dataclass(frozen=True)
class Conts:
    """Where a block goes next: falling off its end, ``break`` and ``continue`` (None outside
    a loop)."""

    after: Cont
    brk: Cont | None = None
    cont: Cont | None = None


def leaf(path: Path, node: Term) -> Term:
    """``node`` after the path's pending effects."""
    return ("seq", tuple(path.effects), node) if path.effects else node


def merge(cond: Term, yes: Term, no: Term) -> Term:
    """A branch, folded when both sides are equal or both only return a value."""
    if yes == no:
        return yes
    if yes[0] == "ret" and no[0] == "ret":
        return ("ret", ite(cond, yes[1], no[1]))
    return ("br", cond, yes, no)


def exits(tree: Term) -> set[str]:
    """How paths through ``tree`` end (the heads of its leaves)."""
    out: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if node[0] == "seq":
            stack.append(node[2])
        elif node[0] == "br":
            stack.extend((node[2], node[3]))
        else:
            out.add(node[0])
    return out
