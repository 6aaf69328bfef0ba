"""The effect-summary rule (``prreport.equivalence.effects``), with one example per class of
code it covers: one rule, one mechanism, many spellings."""

from __future__ import annotations

from prreport.equivalence.effects import ASSUMPTION
from prreport.equivalence.rules.spec import Rule, edit

_MODULE = "prreport.equivalence.effects"
_ASSUMES = (
    ASSUMPTION[0].upper() + ASSUMPTION[1:] + " (no property or operator method with a side effect)."
)
_PROVES = (
    "Both versions make the same calls in the same order with the same arguments and return "
    "or raise the same on every path (their effect summaries are equal)."
)

_CONDITIONAL_BEFORE = """def label(user, verbose):
    if verbose:
        text = user.full_name
    else:
        text = user.name
    emit("user", text)
    if not user.active:
        return None
    return text.upper()
"""
_CONDITIONAL_AFTER = """def label(user, verbose):
    text = user.full_name if verbose else user.name
    emit("user", text)
    if user.active:
        return text.upper()
"""

_LOOP_BEFORE = """def register(table, handler):
    table.add("get", handler)
    table.add("post", handler)
    table.add("put", handler)
"""
_LOOP_AFTER = """def register(table, handler):
    for method in ("get", "post", "put"):
        table.add(method, handler)
"""

_HELPER_BEFORE = """def _scaled(value, factor=2):
    return check(value) * factor


def price(item):
    return tax(item.cost * 2) + 1
"""
_HELPER_AFTER = """def _scaled(value, factor=2):
    return check(value) * factor


def _taxed(amount, extra):
    return tax(amount) + extra


def price(item):
    return _taxed(item.cost * 2, 1)
"""

_LOCAL_BEFORE = """def with_name(url, name):
    parts = list(url.parts)
    scheme, host = url.scheme, url.host
    if host:
        parts.append(name)
    else:
        parts[-1] = name
    return make(scheme, host, parts)
"""
_LOCAL_AFTER = """def with_name(url, name):
    parts = list(url.parts)
    if host := url.host:
        parts.append(name)
    else:
        parts[-1] = name
    return make(url.scheme, host, parts)
"""

EFFECTS: tuple[Rule, ...] = (
    Rule(
        "same-effects",
        _MODULE,
        _PROVES + " Here: an `if`/`else` written as conditional expressions.",
        _ASSUMES,
        before=_CONDITIONAL_BEFORE,
        after=_CONDITIONAL_AFTER,
        near_miss=edit(_CONDITIONAL_AFTER, "if user.active:", "if not user.active:"),
        detail="^attribute",
    ),
    Rule(
        "same-effects-loop",
        _MODULE,
        _PROVES + " Here: repeated statements folded into a loop over a literal tuple.",
        _ASSUMES,
        before=_LOOP_BEFORE,
        after=_LOOP_AFTER,
        near_miss=edit(_LOOP_AFTER, '("get", "post", "put")', '("get", "put", "post")'),
        kind="same-effects",
        detail="^attribute",
    ),
    Rule(
        "same-effects-helper",
        _MODULE,
        _PROVES + " Here: code extracted into a helper of the module with parameters.",
        _ASSUMES,
        before=_HELPER_BEFORE,
        after=_HELPER_AFTER,
        near_miss=edit(_HELPER_AFTER, "_taxed(item.cost * 2, 1)", "_taxed(item.cost * 2, 2)"),
        kind="same-effects",
        detail="^attribute",
    ),
    Rule(
        "same-effects-local",
        _MODULE,
        _PROVES
        + " Here: a read moved across changes to a list the function made, which no other code"
        " can reach.",
        _ASSUMES,
        before=_LOCAL_BEFORE,
        after=_LOCAL_AFTER,
        near_miss=edit(_LOCAL_AFTER, "parts.append(name)", "parts.append(url.scheme)"),
        kind="same-effects",
        detail="^attribute",
    ),
)
