"""Call-site expansion (``prreport.equivalence.expand``) and what it sees through once a call is
expanded (``rereads``, ``laterkey``).
"""

from __future__ import annotations

from prreport.equivalence.rules.spec import Rule, edit

_KEYS_BEFORE = """def register(d, a):
    d["conv_" + a.name] = a.value
    return d
"""
_KEYS_AFTER = """def _store(d, a):
    key = "conv_" + a.name
    d[key] = a.value


def register(d, a):
    _store(d, a)
    return d
"""
_SHOUT_BEFORE = """def shout(user):
    text = user.name.strip()
    return text + "!"
"""
_SHOUT_AFTER = """def _shout(name):
    text = name.strip()
    return text + "!"


def shout(user):
    return _shout(user.name)
"""
_SHOW_BEFORE = """def report(items):
    s = 0
    for x in items:
        s += x
    print(s)
    return len(items)
"""
_SHOW_AFTER = """{}def _show(items):
    s = 0
    for x in items:
        s += x
    print(s)


def report(items):
    _show(items)
    return len(items)
"""
_AREA2_BEFORE = """def area(w, h):
    size = w * h
    print(size)
    return size + 1
"""
_AREA2_AFTER = """def _size(w, h):
    size = w * h
    return size


def area(w, h):
    size = _size(w, h)
    print(size)
    return size + 1
"""
_DOUBLE_BEFORE = """def bump(y):
    return 1 + y * 2
"""
_DOUBLE_AFTER = """def _double(v):
    return v * 2


def bump(y):
    return 1 + _double({})
"""

EXPANSION = (
    Rule(
        "expanded-call",
        "prreport.equivalence.expansion",
        "A caller that now calls a new helper is the old code once the call is replaced by the"
        " helper's body, parameters bound to the arguments in call order.",
        "",
        before=_SHOW_BEFORE,
        after=_SHOW_AFTER.format(""),
        near_miss=_SHOW_AFTER.format("import functools\n\n\n@functools.cache\n"),
        shown="expansion",
    ),
    Rule(
        "forwarded-local",
        "prreport.equivalence.expansion",
        "A helper local returned into a caller target of the same name is the caller's own"
        " variable once the helper is spliced in.",
        "",
        before=_AREA2_BEFORE,
        after=_AREA2_AFTER,
        near_miss=edit(
            _AREA2_AFTER,
            "    size = _size(w, h)\n",
            "    try:\n        size = _size(w, h)\n    except TypeError:\n        size = 0\n",
        ),
        near_miss_before=edit(
            _AREA2_BEFORE,
            "    size = w * h\n",
            "    try:\n        size = w * h\n    except TypeError:\n        size = -1\n",
        ),
        shown="expansion",
    ),
    Rule(
        "inlined-expression",
        "prreport.equivalence.expansion",
        "A call, inside a larger expression, of a helper whose body is one `return E` is `E`"
        " with the parameters replaced by the arguments, when each is a constant or a local.",
        "",
        before=_DOUBLE_BEFORE,
        after=_DOUBLE_AFTER.format("y"),
        # A call argument: not substituted; and here the precedence differs too, so nothing
        # (the effect summaries included) may prove it.
        near_miss=_DOUBLE_AFTER.format("next(y) + 1"),
        near_miss_before=_DOUBLE_BEFORE.replace("y * 2", "next(y) + 1 * 2"),
        shown="expansion",
    ),
    Rule(
        "reread-argument",
        "prreport.equivalence.rereads",
        "An attribute read passed as an argument may be read again at each use in the expanded"
        " body when nothing that could act runs before the last read.",
        "The attribute is a plain attribute that is set (no property or `__getattr__`), and the"
        " operators between leave it unchanged.",
        before=_SHOUT_BEFORE,
        after=_SHOUT_AFTER,
        near_miss=_SHOUT_AFTER.replace("    text = name", "    print(1)\n    text = name"),
        near_miss_before=_SHOUT_BEFORE.replace("    text = user", "    print(1)\n    text = user"),
        detail="^assumed$",
    ),
    Rule(
        "inlined-key",
        "prreport.equivalence.laterkey",
        "`t = K` followed by `D[t] = W`, `t` read nowhere else, is `D[K] = W` (built of reads"
        " only: names, constants, attributes, operators).",
        "Reading those attributes and applying those operators runs no code of the project's,"
        " so `K` evaluated after `W` gives the same.",
        before=_KEYS_BEFORE,
        after=_KEYS_AFTER,
        near_miss=_KEYS_AFTER.replace("a.value", "a.make()"),
        near_miss_before=_KEYS_BEFORE.replace("a.value", "a.make()"),
    ),
)
