"""Proving a caller equal to another version once the helper's calls are expanded.

Extraction (the after caller calls a new helper: expanded, it must equal the before caller) and
inlining (the before caller called a removed helper: expanded, it must equal the after caller)
are the same proof. Equal after :func:`~prreport.equivalence.expansion.normal.canonical` is
proven; as last resorts, told in the proof when they were needed, the behaviour-keeping
rewrites (``prreport.equivalence.rewrites``), the normal form of a tuple returned from several
places (``results``) and temporaries written at their one use as a subscript key
(``laterkey``).
"""

from __future__ import annotations

import ast
import copy
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from prreport.equivalence import laterkey
from prreport.equivalence.effects import ASSUMPTION as EFFECTS_ASSUMPTION
from prreport.equivalence.effects import ModuleFacts, same_effects
from prreport.equivalence.expansion import multiret, results
from prreport.equivalence.expansion.binding import Helper
from prreport.equivalence.expansion.caller import expand
from prreport.equivalence.expansion.normal import canonical, normalised, residual_of
from prreport.equivalence.expansion.splice import Stable
from prreport.equivalence.rewrites import Inert, see_through
from prreport.python.definitions import dump


@dataclass(frozen=True)
class Proof:
    """Outcome of expanding one caller: proven equal, or why not (with a residual)."""

    proven: bool
    sites: int
    reason: str = ""
    residual: tuple[str, ...] = ()
    # Most of the helper's code is found where the call was (extracted/inlined, but changed).
    similar: bool = False
    equality: str = "different"  # byte-identical (syntax trees equal) | modulo-renames
    # Rewrites (``rewrites``) that made the expanded code equal, as ``Rewrite.as_dict()``.
    rewrites: tuple[dict[str, str], ...] = ()


def prove(
    compact: ast.FunctionDef | ast.AsyncFunctionDef,
    other: ast.FunctionDef | ast.AsyncFunctionDef,
    helper: Helper,
    matches: Callable[[ast.Call], bool],
    nested: bool = False,
    inert: tuple[Inert, Inert] | None = None,
    stable: Stable | None = None,
    names: tuple[frozenset[str] | None, frozenset[str] | None] = (None, None),
) -> Proof:
    """Whether ``compact`` with the helper's calls expanded equals ``other`` (modulo local names).

    ``inert`` (the compact side's, the other side's): constructions that can neither act nor
    fail; given, the rewrites of ``rewrites`` are tried last. ``names``: the names each side's
    module binds (a free name bound by neither is a builtin), for the effect summaries.
    """
    notes: list[dict[str, str]] = []
    got = expand(compact, helper, matches, nested, stable, notes)
    if isinstance(got, str):
        by_effects = _by_effects(compact, other, helper, matches, names)
        return by_effects if by_effects is not None else Proof(False, 0, got)
    fn, sites, same_names = got
    a, b = normalised(fn), normalised(other)
    a.name = b.name
    if canonical(a) == canonical(b):
        exact = same_names and dump(a) == dump(b)
        return Proof(
            True,
            sites,
            equality="byte-identical" if exact else "modulo-renames",
            rewrites=tuple(notes),
        )
    # Last resorts, told when one side needed them; the residual, if the proof still fails,
    # is the code as written. First the rewrites of ``rewrites`` (on copies) ...
    residual = residual_of(a, b)
    if inert is not None:
        rewrites = see_through(copy.deepcopy(a), copy.deepcopy(b), None, inert)
        if rewrites is not None:
            kept = (*notes, *(r.as_dict() for r in rewrites))
            return Proof(True, sites, equality="modulo-renames", rewrites=kept)
    # ... then a tuple returned from several places and what the caller does with it, and
    # temporaries written at their one use as a subscript key.
    done_a, done_b = laterkey.inline_keys(a), laterkey.inline_keys(b)
    if multiret.has_leaf(a):
        done_a += [(k, t, "") for k, t in results.normal_form(a)]
        done_a.append(("multi-return", helper.node.name, ""))
        done_b += [(k, t, "") for k, t in results.normal_form(b)]
    if (done_a or done_b) and canonical(a) == canonical(b):
        both = Counter(done_a) & Counter(done_b)
        told = ((Counter(done_a) - both) + (Counter(done_b) - both)).elements()
        kept = (*notes, *({"kind": k, "text": t, "detail": d} for k, t, d in sorted(set(told))))
        return Proof(True, sites, equality="modulo-renames", rewrites=kept)
    by_effects = _by_effects(compact, other, helper, matches, names)
    if by_effects is not None:
        return by_effects
    return Proof(False, sites, "the expanded code differs", residual)


def _by_effects(
    compact: ast.FunctionDef | ast.AsyncFunctionDef,
    other: ast.FunctionDef | ast.AsyncFunctionDef,
    helper: Helper,
    matches: Callable[[ast.Call], bool],
    names: tuple[frozenset[str] | None, frozenset[str] | None] = (None, None),
) -> Proof | None:
    """Last resort: the effect summaries (``equivalence.effects``) of ``compact``, with the
    helper's body in place of each call, and of ``other`` are equal. Only when every call
    spelled as a call of the helper does reach it (``matches``)."""
    name, node = helper.node.name, helper.node
    if helper.receiver not in ("function", "method") or isinstance(node, ast.AsyncFunctionDef):
        return None
    params = [*compact.args.posonlyargs, *compact.args.args]
    first = params[0].arg if params else None
    calls = [
        c
        for c in ast.walk(compact)
        if isinstance(c, ast.Call)
        and (
            (helper.receiver == "function" and isinstance(c.func, ast.Name) and c.func.id == name)
            or (
                helper.receiver == "method"
                and isinstance(c.func, ast.Attribute)
                and c.func.attr == name
                and isinstance(c.func.value, ast.Name)
                and c.func.value.id == first
            )
        )
    ]
    if not calls or not all(matches(c) for c in calls):
        return None
    table = {name: node}
    facts = (
        ModuleFacts(
            names[0],
            table if helper.receiver == "function" else {},
            table if helper.receiver == "method" else {},
        ),
        ModuleFacts(names[1]),
    )
    inlined = same_effects(compact, other, facts)  # type: ignore[arg-type]
    if inlined is None or name not in inlined:
        return None
    told = {"kind": "same-effects", "text": name, "detail": EFFECTS_ASSUMPTION}
    return Proof(True, len(calls), equality="modulo-renames", rewrites=(told,))
