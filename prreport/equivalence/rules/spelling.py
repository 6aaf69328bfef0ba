"""Spellings the canonical form (``prreport.equivalence.canonical``) does not see."""

from __future__ import annotations

from prreport.equivalence.rules.spec import Rule


def _spelling(id: str, proves: str, before: str, after: str, near_miss: str) -> Rule:
    """A spelling rule: ``before``/``after``/``near_miss`` are the body of ``def f(x):``."""

    def module(body: str) -> str:
        head, _, rest = body.rpartition("\n---\n")
        return (head + "\n\n\n" if head else "") + "def f(x):\n" + rest

    return Rule(
        id,
        "prreport.equivalence.canonical",
        proves,
        "",
        before=module(before),
        after=module(after),
        near_miss=module(near_miss),
        shown="equal",
    )


SPELLING = (
    Rule(
        "annotation",
        "prreport.equivalence.canonical",
        "Annotations of parameters and returns do not change what the code does.",
        "",
        before="def f(x):\n    return x\n",
        after="def f(x: int) -> int:\n    return x\n",
        near_miss="def f(x: int = 0) -> int:\n    return x\n",
        shown="equal",
    ),
    _spelling(
        "docstring",
        "A docstring (or another string statement) says nothing about what the code does.",
        '    """Old words."""\n    return x\n',
        '    """New words."""\n    return x\n',
        '    """New words."""\n    return x + 1\n',
    ),
    _spelling(
        "import-spelling",
        "The same imported object spelled another way (`from m import X`, `m.X`, an alias) is"
        " the same object.",
        "import os\n---\n    return os.path.join(x, 'a')\n",
        "from os import path\n---\n    return path.join(x, 'a')\n",
        "from os import path\n---\n    return path.join('a', x)\n",
    ),
    _spelling(
        "open-mode",
        'open(f, "r") is open(f): "r" (and "rt") is the default mode of the builtin `open`.',
        "    return open(x, 'r')\n",
        "    return open(x)\n",
        "    return open(x, 'rb')\n",
    ),
    _spelling(
        "encode-default",
        "A `str` literal or f-string encoded with `'utf-8'` is encoded with the default.",
        "    return f'{x}'.encode('utf-8')\n",
        "    return f'{x}'.encode()\n",
        "    return x.encode()\n",
    ),
    _spelling(
        "format-fstring",
        "`'{} {!r}'.format(a, b)` of names, constants or attributes, each used once in order, is"
        " the f-string `f'{a} {b!r}'`.",
        "    return '{} bytes'.format(x)\n",
        "    return f'{x} bytes'\n",
        "    return f'{x!r} bytes'\n",
    ),
    _spelling(
        "comprehension-call",
        "`set(x for x in y)` is `{x for x in y}`, and `list(...)` of a generator is `[...]`.",
        "    return set(v for v in x)\n",
        "    return {v for v in x}\n",
        "    return {v for v in x if v}\n",
    ),
    _spelling(
        "typing-cast",
        "`typing.cast(T, x)` returns `x` whatever `T` is.",
        "from typing import cast\n---\n    return x.lower()\n",
        "from typing import cast\n---\n    return cast(str, x).lower()\n",
        "from typing import cast\n---\n    return cast(str, x.strip()).lower()\n",
    ),
)

_SUPER = """{}class Base:
    def f(self):
        return 1


{}class A(Base):
    def f(self):
        return super({}).f() + 1
"""
_REGISTERED = "def registered(cls):\n    return cls\n\n\n"
CLASS_SPELLING = (
    Rule(
        "super-arguments",
        "prreport.equivalence.canonical",
        "`super(C, self)` in a method of the undecorated module-level class `C` is `super()`.",
        "",
        before=_SUPER.format("", "", "A, self"),
        after=_SUPER.format("", "", ""),
        near_miss=_SUPER.format(_REGISTERED, "@registered\n", ""),
        near_miss_before=_SUPER.format(_REGISTERED, "@registered\n", "A, self"),
        shown="equal",
    ),
    Rule(
        "object-base",
        "prreport.equivalence.canonical",
        "`class A(object):` is `class A:` in Python 3.",
        "",
        before="class A(object):\n    def f(self):\n        return 1\n",
        after="class A:\n    def f(self):\n        return 1\n",
        near_miss="class A(dict):\n    def f(self):\n        return 1\n",
        shown="equal",
    ),
)
