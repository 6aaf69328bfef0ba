"""The rewrites of ``prreport.equivalence.rewrites``: tests and branches, locals, renames."""

from __future__ import annotations

from prreport.equivalence.rules.spec import Rule

# A project that declares Python >= 3.8 (what ``fixed-condition`` reads).
_PY38 = (("pyproject.toml", '[project]\nname = "pkg"\nrequires-python = ">=3.8"\n'),)

REWRITES = (
    Rule(
        "fixed-condition",
        "prreport.equivalence.rewrites.conditions",
        "A version test the declared lowest Python decides keeps only the branch that runs.",
        "The code runs only on the Python versions the project declares (requires-python).",
        before="""import sys


def level():
    if sys.version_info >= (3, 8):
        return 3
    else:
        return 4
""",
        after="""import sys


def level():
    return 3
""",
        near_miss="""import sys


def level():
    return 3
""",
        near_miss_before="""import sys


def level():
    if sys.version_info >= (3, 9):
        return 3
    else:
        return 4
""",
        context=_PY38,
    ),
    Rule(
        "inlined-local",
        "prreport.equivalence.rewrites.assignments",
        "A local assigned a value that cannot change or act, and read once, is that value at its use.",
        "",
        before="""import os


def joined(name):
    sep = os.sep
    return name + sep
""",
        after="""import os


def joined(name):
    return name + os.sep
""",
        near_miss="""import os


def joined(name):
    return name + os.getcwd()
""",
        near_miss_before="""import os


def joined(name):
    here = os.getcwd()
    print(name)
    return name + here
""",
    ),
    Rule(
        "moved-assignment",
        "prreport.equivalence.rewrites.assignments",
        "An assignment of a constant, an imported object or a new empty container moves within"
        " its block across statements that do not mention the name.",
        "",
        before="""def collect(items, seen):
    found = []
    total = len(items)
    for x in items:
        found.append(x)
        seen(x)
    return found, total
""",
        after="""def collect(items, seen):
    total = len(items)
    found = []
    for x in items:
        found.append(x)
        seen(x)
    return found, total
""",
        near_miss="""def collect(items, make, seen):
    total = len(items)
    found = make()
    for x in items:
        found.append(x)
        seen(x)
    return found, total
""",
        near_miss_before="""def collect(items, make, seen):
    found = make()
    total = len(items)
    for x in items:
        found.append(x)
        seen(x)
    return found, total
""",
        detail="^$",
    ),
    Rule(
        "merged-if",
        "prreport.equivalence.rewrites.conditions",
        "`if a:` whose whole body is `if b: X` (no else on either) is `if a and b: X`.",
        "",
        before="""def check(a, b):
    if a:
        if b:
            return 1
    return 0
""",
        after="""def check(a, b):
    if a and b:
        return 1
    return 0
""",
        near_miss="""def check(a, b):
    if b and a:
        return 1
    return 0
""",
    ),
    Rule(
        "renamed-local",
        "prreport.equivalence.rewrites.renamed",
        "A function's own local renamed everywhere it is used (not a parameter) is the same code.",
        "",
        before="""def scaled(x):
    tmp = x + 1
    return tmp * 2
""",
        after="""def scaled(x):
    value = x + 1
    return value * 2
""",
        near_miss="""def scaled(y):
    value = y + 1
    return value * 2
""",
    ),
    Rule(
        "merged-elif",
        "prreport.equivalence.rewrites.conditions",
        "`if a: X` followed by `elif b: X` (the same body) is `if a or b: X`.",
        "",
        before="""def size(x):
    if x == 1:
        return "small"
    elif x == 2:
        return "small"
    return "big"
""",
        after="""def size(x):
    if x == 1 or x == 2:
        return "small"
    return "big"
""",
        near_miss="""def size(x):
    if x == 1 or x == 2:
        return "small"
    return "big"
""",
        near_miss_before="""def size(x):
    if x == 1:
        return "small"
    elif x == 2:
        return "medium"
    return "big"
""",
    ),
    Rule(
        "affix-tuple",
        "prreport.equivalence.rewrites.conditions",
        "`s.startswith((a, b))` is `s.startswith(a) or s.startswith(b)` (`endswith` too).",
        "The receiver `s` is a `str`, as the literal arguments are.",
        before="""def is_json(kind):
    return kind.startswith("application/json") or kind.startswith("text/json")
""",
        after="""def is_json(kind):
    return kind.startswith(("application/json", "text/json"))
""",
        near_miss="""def is_json(kind):
    return kind.startswith(("application/json",))
""",
    ),
    Rule(
        "loop-invariant-if",
        "prreport.equivalence.rewrites.conditions",
        "`for t in xs: if a and b: X`, with `a` a name the loop never assigns, is"
        " `if a: for t in xs: if b: X`.",
        "Iterating `xs` (a name or attribute, not a call) does nothing when `a` is false.",
        before="""def send(flag, items, out):
    for t in items:
        if flag and t:
            out.append(t)
""",
        after="""def send(flag, items, out):
    if flag:
        for t in items:
            if t:
                out.append(t)
""",
        near_miss="""def send(flag, items, out):
    if flag:
        for t in items:
            flag = flag and t != 0
            if t:
                out.append(t)
""",
        near_miss_before="""def send(flag, items, out):
    for t in items:
        flag = flag and t != 0
        if flag and t:
            out.append(t)
""",
    ),
    Rule(
        "match-chain",
        "prreport.equivalence.rewrites.conditions",
        "A `match` whose cases are literals (and a final `case _:`), with no guard or capture,"
        " is the `if`/`elif` chain of `==` tests.",
        "Evaluating the subject again gives the same value and does nothing (stated only when"
        " the subject is not a plain name).",
        before="""def name(code):
    if code == 1:
        return "one"
    elif code == 2 or code == 3:
        return "few"
    else:
        return "many"
""",
        after="""def name(code):
    match code:
        case 1:
            return "one"
        case 2 | 3:
            return "few"
        case _:
            return "many"
""",
        near_miss="""def name(code):
    match code:
        case 1:
            return "one"
        case 2 | 3:
            return "few"
        case other:
            return "many"
""",
    ),
)
