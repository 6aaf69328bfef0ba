"""The rules of ``prreport.equivalence.generators``: a list builder made a generator, and its callers."""

from __future__ import annotations

from prreport.equivalence.rules.spec import Rule

_NAMES_LIST = """def _names(items):
    out = []
    for x in items:
        out.append(x.name)
    return out
"""
_NAMES_GEN = """def _names(items):
    for x in items:
        yield x.name
"""
_CALLER = """

def names(items):
    return {}(_names(items))
"""
_ABIS = """def _abis(version, debug):
    version = tuple(version)
    abis = []
    if version < (3, 8):
        mode = "m"
    elif debug:
        abis.append("cp3d")
    abis.append("cp3")
    abis.insert(0, "cp3t")
    return abis
"""
_ABIS_GEN = """def _abis(version, debug):
    version = tuple(version)
    if version < (3, 8):
        mode = "m"
    yield "cp3t"
    if version >= (3, 8) and debug:
        yield "cp3d"
    yield "cp3"
"""
_ABIS_CALLER = """

def abis(version, debug):
    return list(_abis(version, debug))
"""


def _untupled(text: str) -> str:
    """``text`` with the version compared as given (not made a tuple first)."""
    return text.replace("    version = tuple(version)\n", "")


GENERATORS = (
    Rule(
        "list-to-generator",
        "prreport.equivalence.generators.proof",
        "A private function that built and returned a list, made a generator yielding the same"
        " elements, is the same when every reference in the repository consumes its call"
        " completely and at once.",
        "No StopIteration escapes the old body (a generator turns it into RuntimeError).",
        before=_NAMES_LIST + _CALLER.format("list"),
        after=_NAMES_GEN + _CALLER.format("list"),
        near_miss=_NAMES_GEN + _CALLER.format("sorted"),
        near_miss_before=_NAMES_LIST + _CALLER.format("sorted"),
    ),
    Rule(
        "consumed-generator",
        "prreport.equivalence.generators.proof",
        "A caller that now wraps a call of a proven list-to-generator function in `list(...)`"
        " gets a new list with the same elements, made at the same point.",
        "",
        before=_NAMES_LIST + _CALLER.format(""),
        after=_NAMES_GEN + _CALLER.format("list"),
        near_miss=_NAMES_GEN + _CALLER.format("tuple"),
    ),
    Rule(
        "split-elif",
        "prreport.equivalence.generators.prepend",
        "`if A: S elif B: T` is `if A: S` followed by `if not A and B: T` when `A` compares a"
        " local tuple with a tuple of ints, so a prepended element can be yielded between them.",
        "The items of the tuple compare with ints as numbers do: no side effect, a total order.",
        before=_ABIS + _ABIS_CALLER,
        after=_ABIS_GEN + _ABIS_CALLER,
        near_miss=_untupled(_ABIS_GEN) + _ABIS_CALLER,
        near_miss_before=_untupled(_ABIS) + _ABIS_CALLER,
    ),
)
