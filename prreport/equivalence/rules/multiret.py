"""What a caller does with a tuple a helper returns from several places (``prreport.equivalence.expansion.multiret``)."""

from __future__ import annotations

from prreport.equivalence.rules.spec import Rule, edit

_SETTERS_BEFORE = """def script(frozen):
    lines = []
    if frozen:

        def fmt():
            return 1

    else:
        lines.append("a")

        def fmt():
            return 2

    return lines, fmt
"""
_SETTERS = """def _setters(frozen):
    if frozen:

        def fmt():
            return 1

        return [], fmt

    def fmt():
        return 2

    return ["a"], fmt
"""
_SETTERS_AFTER = (
    _SETTERS
    + """

def script(frozen):
    lines = []
    extra, fmt = _setters(frozen)
    lines.extend(extra)
    return lines, fmt
"""
)
# The same, with the call in a ``try`` of the caller: an exception half-way could be caught.
_SETTERS_TRY_BEFORE = """def script(frozen):
    lines = []
    try:
        if frozen:

            def fmt():
                return 1

        else:
            lines.append("a")

            def fmt():
                return 2

    except KeyError:
        fmt = None
    return lines, fmt
"""
_SETTERS_TRY_AFTER = (
    _SETTERS
    + """

def script(frozen):
    lines = []
    try:
        extra, fmt = _setters(frozen)
        lines.extend(extra)
    except KeyError:
        fmt = None
    return lines, fmt
"""
)


MULTIRET = (
    Rule(
        "multi-return",
        "prreport.equivalence.expansion.multiret",
        "A helper whose every path ends in `return (e1, ..., en)` runs, at `a, b = helper(...)`,"
        " as its `if` tree with the assignment at each leaf.",
        "",
        before=_SETTERS_BEFORE,
        after=_SETTERS_AFTER,
        near_miss=edit(
            _SETTERS_AFTER,
            '    return ["a"], fmt\n',
            '    for _ in "a":\n        return ["a"], fmt\n',
        ),
    ),
    Rule(
        "split-tuple",
        "prreport.equivalence.expansion.multiret",
        "`a, b = x, y` is `a = x; b = y` when the targets are distinct names and the values"
        " names, constants or displays of those that name no target.",
        "",
        before=_SETTERS_BEFORE,
        after=_SETTERS_AFTER,
        near_miss=_SETTERS_TRY_AFTER,
        near_miss_before=_SETTERS_TRY_BEFORE,
    ),
    Rule(
        "pushed-into-if",
        "prreport.equivalence.expansion.multiret",
        "`L.extend(X)` right after an `if` that binds `X` runs at the same moments written at"
        " the end of each branch.",
        "",
        before=_SETTERS_BEFORE,
        after=_SETTERS_AFTER,
        near_miss=edit(
            _SETTERS_AFTER, "    lines.extend(extra)\n", "    print(fmt)\n    lines.extend(extra)\n"
        ),
        near_miss_before=edit(
            _SETTERS_BEFORE, "    return lines, fmt\n", "    print(fmt)\n    return lines, fmt\n"
        ),
    ),
    Rule(
        "inlined-list",
        "prreport.equivalence.expansion.multiret",
        "`X = [constants]` followed by `L.extend(X)`, `L` a list the function built, is"
        " `L.extend([constants])`, and `X` goes when nothing else reads it.",
        "",
        before=_SETTERS_BEFORE,
        after=_SETTERS_AFTER,
        near_miss=edit(_SETTERS_AFTER, "    lines = []\n", "    lines = frozen.lines()\n"),
        near_miss_before=edit(_SETTERS_BEFORE, "    lines = []\n", "    lines = frozen.lines()\n"),
    ),
    Rule(
        "extend-as-append",
        "prreport.equivalence.expansion.multiret",
        "`L.extend([e1, ...])` is `L.append(e1)` ... (several elements only when all are"
        " constants), `L` a list bound once by a list display of the function's top level.",
        "",
        before=_SETTERS_BEFORE,
        after=_SETTERS_AFTER,
        near_miss=edit(
            _SETTERS_AFTER,
            "    return lines, fmt\n",
            "    lines.extend([frozen.p(), frozen.q()])\n    return lines, fmt\n",
        ),
        near_miss_before=edit(
            _SETTERS_BEFORE,
            "    return lines, fmt\n",
            "    lines.append(frozen.p())\n    lines.append(frozen.q())\n    return lines, fmt\n",
        ),
    ),
    Rule(
        "append-before-def",
        "prreport.equivalence.expansion.multiret",
        "`L.append(<constant>)` moves up across a `def` without decorators or defaults, which only"
        " binds a function object the append cannot read.",
        "",
        before=_SETTERS_BEFORE,
        after=_SETTERS_AFTER,
        near_miss=edit(
            _SETTERS_AFTER,
            "    def fmt():\n        return 2\n",
            "    @frozen.wrap\n    def fmt():\n        return 2\n",
        ),
        near_miss_before=edit(
            _SETTERS_BEFORE,
            "        def fmt():\n            return 2\n",
            "        @frozen.wrap\n        def fmt():\n            return 2\n",
        ),
    ),
)
