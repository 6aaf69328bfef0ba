"""Rules an analyzer of its own applies, outside the comparison of two versions of one function:
a removed method no lookup reached (``shadowed``), and an early return proven by case analysis
(``prreport.equivalence.assume``, applied by ``branches``).
"""

from __future__ import annotations

from prreport.equivalence.rules.spec import Rule

_VISITOR = """class Base:
    def run(self):
        return self.visit()
{}

class Leaf(Base):
    def visit(self):
        return 1


def main():
    return Leaf().run()
"""
_METHOD = """
    def visit(self):
        return 0
"""
_HANDLERS = """import enum


class Kind(enum.Enum):
    A = "a"
    B = "b"


def handler(backend, kind):
{}    if backend == "x":
        handlers = {{{}Kind.B: 2}}
        return handlers.get(kind)
    elif backend == "y":
        handlers = {{{}Kind.B: 3}}
        return handlers.get(kind)
    {}
"""

ANALYZERS = (
    Rule(
        "unreached-method",
        "prreport.analyzers.shadowed",
        "A removed method no attribute lookup could reach, because every subclass in the"
        " repository defines it and its class is never instantiated or read as a value, changes"
        " nothing.",
        "Evaluating the annotations of the removed method, which succeeded at import before,"
        " has no side effect.",
        before=_VISITOR.format(_METHOD),
        after=_VISITOR.format(""),
        near_miss=_VISITOR.format("") + "\n\nBASE = Base()\n",
        near_miss_before=_VISITOR.format(_METHOD) + "\n\nBASE = Base()\n",
    ),
    Rule(
        "early-return",
        "prreport.equivalence.assume",
        "An `if x == K: return R` placed before a chain whose every path answered `x == K` with"
        " `R`, its `K` entries dropped, answers every input as before (case analysis on"
        " `x == K`).",
        "",
        before=_HANDLERS.format("", "Kind.A: 1, ", "Kind.A: 1, ", "return 1"),
        after=_HANDLERS.format("    if kind == Kind.A:\n        return 1\n", "", "", "return 1"),
        near_miss=_HANDLERS.format(
            "    if kind == Kind.A:\n        return 1\n", "", "", "raise ValueError(backend)"
        ),
        near_miss_before=_HANDLERS.format(
            "", "Kind.A: 1, ", "Kind.A: 1, ", "raise ValueError(backend)"
        ),
        shown="case-analysis",
    ),
)
