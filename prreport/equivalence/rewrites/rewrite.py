"""A rewrite that made two versions equal, and the trace one side's normalisation keeps."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Rewrite:
    """One rewrite that made two versions equal.

    ``kind`` (see ``prreport.equivalence.rewrites``), ``text`` the code it is about (the condition, the
    local's name, the merged test, the hoisted test) and ``detail``: for ``fixed-condition``
    ``"true 3.7"`` (its value and the declared lowest Python), for ``loop-invariant-if`` the
    iterable the assumption is about.
    """

    kind: str
    text: str
    detail: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "text": _plain(self.text), "detail": _plain(self.detail)}


def _plain(code: str) -> str:
    """Canonical ``@m.X`` names as written (``m.X``); a matrix product ``a @ b`` is kept."""
    return re.sub(r"@(?=[A-Za-z_])", "", code)


Inert = Callable[[ast.Call], "str | None"]


@dataclass
class Trace:
    """One side's normalisation: what it is given (the lowest Python the project declares, the
    fact that makes a call an inert construction) and what it did (the rewrites, in order, and
    for a moved construction's name the fact it relies on)."""

    low: tuple[int, ...] | None
    inert: Inert | None = None
    facts: dict[str, str] = field(default_factory=dict)
    done: list[Rewrite] = field(default_factory=list)
