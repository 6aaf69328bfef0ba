"""Idioms (``prreport.equivalence.idioms``): the spellings linters' autofixes and clean-ups
produce compare equal, and one real difference away they do not."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from prreport.equivalence.canonical import bindings, canonical, locally_bound, rebound_builtins
from prreport.equivalence.rewrites import see_through
from prreport.python.definitions import same_tree
from tests.gitrepo import analyse_commit

_HEAD = "import contextlib\nimport socket\n\n\n"


def _canon(code: str) -> tuple[ast.AST, list[str]]:
    tree = ast.parse(_HEAD + code)
    fn = next(st for st in tree.body if isinstance(st, ast.FunctionDef | ast.ClassDef))
    applied: list[str] = []
    names = bindings(tree.body, "pkg/mod.py")
    out = canonical(fn, names, locally_bound(fn), rebound_builtins(tree), None, applied)
    return out, applied


def _same(a: str, b: str) -> bool:
    """Equal canonical forms, or equal once the rewrites compare runs next fold them."""
    ca, cb = _canon(a)[0], _canon(b)[0]
    return same_tree(ca, cb, ()) or see_through(ca, cb, None) is not None


SAME = {
    # setuptools-226e1a28: ``if not TYPE_CHECKING and ...`` (pydantic, aiohttp, pyjwt, textual
    # and pip write ``if not TYPE_CHECKING:`` too)
    "not-type-checking-and": (
        "from typing import TYPE_CHECKING\n\n\ndef f(p):\n    if p.system() == 'W':\n        g()\n",
        "from typing import TYPE_CHECKING\n\n\ndef f(p):\n    if not TYPE_CHECKING and p.system() == 'W':\n        g()\n",
    ),
    "if-not-type-checking": (
        "from typing import TYPE_CHECKING\n\n\ndef f(p):\n    g(p)\n",
        "from typing import TYPE_CHECKING\n\n\ndef f(p):\n    if TYPE_CHECKING:\n        h(p)\n    else:\n        g(p)\n",
    ),
    # pdm-956ff177 (``mark = "*" if ... else "-"``), ruff SIM108
    "conditional-assignment": (
        "def f(p):\n    if p.ok:\n        mark = '*'\n    else:\n        mark = '-'\n    return mark\n",
        "def f(p):\n    mark = '*' if p.ok else '-'\n    return mark\n",
    ),
    "conditional-attribute-elif": (
        "def f(s, p):\n    if p > 1:\n        s.x = g(p)\n    elif p:\n        s.x = 0\n    else:\n        s.x = None\n",
        "def f(s, p):\n    s.x = g(p) if p > 1 else 0 if p else None\n",
    ),
    "constant-or": (
        "def f(p):\n    return g(p)\n",
        "def f(p):\n    return False or g(p) if True else h(p)\n",
    ),
    "suppress": (
        "def f(p):\n    try:\n        g(p)\n    except (OSError,):\n        pass\n",
        "def f(p):\n    with contextlib.suppress(OSError):\n        g(p)\n",
    ),
    "suppress-two": (
        "def f(p):\n    try:\n        g(p)\n    except (KeyError, IndexError):\n        ...\n",
        "def f(p):\n    with contextlib.suppress(KeyError, IndexError):\n        g(p)\n",
    ),
    "not-is": (
        "def f(a, b):\n    return not a is None, not a in b\n",
        "def f(a, b):\n    return a is not None, a not in b\n",
    ),
    "aliases": (
        "def f():\n    try:\n        g()\n    except (socket.error, IOError, EnvironmentError):\n        return 1\n",
        "def f():\n    try:\n        g()\n    except OSError:\n        return 1\n",
    ),
    "isinstance-or": (
        "def f(x):\n    return isinstance(x, int) or isinstance(x, (float, str))\n",
        "def f(x):\n    return isinstance(x, (int, float, str))\n",
    ),
    "bool-return": (
        "def f(a):\n    if a.ok:\n        return True\n    return False\n",
        "def f(a):\n    return bool(a.ok)\n",
    ),
    "bool-return-isinstance": (
        "def f(a):\n    if isinstance(a, int):\n        return True\n    else:\n        return False\n",
        "def f(a):\n    return isinstance(a, int)\n",
    ),
    "bool-return-not": (
        "def f(a):\n    if a:\n        return False\n    return True\n",
        "def f(a):\n    return not a\n",
    ),
    "any": (
        "def f(xs):\n    for x in xs:\n        if x.ok():\n            return True\n    return False\n",
        "def f(xs):\n    return any(x.ok() for x in xs)\n",
    ),
    "all": (
        "def f(xs):\n    for x in xs:\n        if not x.ok():\n            return False\n    return True\n",
        "def f(xs):\n    return all(x.ok() for x in xs)\n",
    ),
    "literals": (
        "def f():\n    return dict(), list(), tuple(), str('s'), dict(a=1)\n",
        "def f():\n    return {}, [], (), 's', {'a': 1}\n",
    ),
    "dict-comprehension": (
        "def f(ys):\n    return dict((k, v) for k, v in ys)\n",
        "def f(ys):\n    return {k: v for k, v in ys}\n",
    ),
    "sorted-list": (
        "def f(ys):\n    return sorted(list(ys)), list(sorted(ys))\n",
        "def f(ys):\n    return sorted(ys), sorted(ys)\n",
    ),
    "consumed": (
        "def f(ys):\n    return ', '.join([str(y) for y in ys]), tuple([y for y in ys if y])\n",
        "def f(ys):\n    return ', '.join(str(y) for y in ys), tuple(y for y in ys if y)\n",
    ),
    "identity-comprehension": (
        "def f(ys):\n    return [y for y in ys], {y for y in ys}\n",
        "def f(ys):\n    return list(ys), set(ys)\n",
    ),
    "dict-kwargs": (
        "def f(a):\n    return g(a, **{'b': 1, 'c': a})\n",
        "def f(a):\n    return g(a, b=1, c=a)\n",
    ),
    "raise-class": (
        "def f(p):\n    if p:\n        raise NotImplementedError()\n",
        "def f(p):\n    if p:\n        raise NotImplementedError\n",
    ),
    "type-checking": (
        "from typing import TYPE_CHECKING\n\n\ndef f(x):\n    if not TYPE_CHECKING and x:\n        g()\n",
        "from typing import TYPE_CHECKING\n\n\ndef f(x):\n    if x:\n        g()\n",
    ),
    "accumulator": (
        "def f(ys):\n    out = []\n    for y in ys:\n        out.append(y * 2)\n    return out\n",
        "def f(ys):\n    out = [y * 2 for y in ys]\n    return out\n",
    ),
    "accumulator-filtered-later": (
        "def f(ys):\n    out = set()\n    n = len(ys)\n    for y in ys:\n        if y:\n            if y > n:\n                out.add(y)\n    return out\n",
        "def f(ys):\n    n = len(ys)\n    out = {y for y in ys if y if y > n}\n    return out\n",
    ),
    "accumulator-dict": (
        "def f(ys):\n    out = {}\n    for k, v in ys:\n        out[k] = v.x\n    return out\n",
        "def f(ys):\n    out = {k: v.x for k, v in ys}\n    return out\n",
    ),
}

DIFFER = {
    # ``x and True`` is ``True`` when ``x`` is truthy: only leading constants are dropped
    "conditional-other-target": (
        "def f(p):\n    if p:\n        a = 1\n    else:\n        b = 2\n    return a\n",
        "def f(p):\n    a = 1 if p else 2\n    return a\n",
    ),
    "conditional-one-branch": (
        "def f(p, x):\n    if p:\n        x = g(x)\n    return x\n",
        "def f(p, x):\n    x = g(x) if p else h(x)\n    return x\n",
    ),
    "constant-trailing": (
        "def f(p):\n    return g(p)\n",
        "def f(p):\n    return g(p) and True\n",
    ),
    "type-checking-or": (
        "from typing import TYPE_CHECKING\n\n\ndef f(p):\n    if p:\n        g()\n",
        "from typing import TYPE_CHECKING\n\n\ndef f(p):\n    if TYPE_CHECKING or p:\n        g()\n    h()\n",
    ),
    "if-true-other-branch": (
        "def f(p):\n    g(p)\n",
        "def f(p):\n    if 1:\n        h(p)\n    else:\n        g(p)\n",
    ),
    "suppress-other-type": (
        "def f(p):\n    try:\n        g(p)\n    except OSError:\n        pass\n",
        "def f(p):\n    with contextlib.suppress(KeyError):\n        g(p)\n",
    ),
    "suppress-handler-acts": (
        "def f(p):\n    try:\n        g(p)\n    except OSError:\n        log()\n",
        "def f(p):\n    with contextlib.suppress(OSError):\n        g(p)\n",
    ),
    "not-is-flipped": (
        "def f(a):\n    return not a is None\n",
        "def f(a):\n    return a is None\n",
    ),
    "alias-other": (
        "def f():\n    try:\n        g()\n    except IOError:\n        return 1\n",
        "def f():\n    try:\n        g()\n    except ConnectionError:\n        return 1\n",
    ),
    "isinstance-or-attribute": (
        "def f(x):\n    return isinstance(x.y, int) or isinstance(x.y, float)\n",
        "def f(x):\n    return isinstance(x.y, (int, float))\n",
    ),
    "bool-of-comparison": (
        "def f(a):\n    if a > 1:\n        return True\n    return False\n",
        "def f(a):\n    return a > 1\n",
    ),
    "any-for-all": (
        "def f(xs):\n    for x in xs:\n        if x.ok():\n            return True\n    return False\n",
        "def f(xs):\n    return all(x.ok() for x in xs)\n",
    ),
    "any-not-consumer": (
        "def f(ys):\n    return any([g(y) for y in ys])\n",
        "def f(ys):\n    return any(g(y) for y in ys)\n",
    ),
    "rebound-dict": (
        "dict = OrderedDict\n\n\ndef f():\n    return dict()\n",
        "dict = OrderedDict\n\n\ndef f():\n    return {}\n",
    ),
    "raise-own-class": (
        "def f(p):\n    if p:\n        raise Error()\n",
        "def f(p):\n    if p:\n        raise Error\n",
    ),
    "kwargs-not-identifier": (
        "def f(a):\n    return g(**{'b-c': 1})\n",
        "def f(a):\n    return g(b_c=1)\n",
    ),
    "accumulator-variable-read-after": (
        "def f(ys):\n    out = []\n    for y in ys:\n        out.append(y)\n    return out, y\n",
        "def f(ys):\n    out = [y for y in ys]\n    return out, y\n",
    ),
    "accumulator-in-try": (
        "def f(ys):\n    try:\n        out = []\n        for y in ys:\n            out.append(g(y))\n    except KeyError:\n        return out\n    return out\n",
        "def f(ys):\n    try:\n        out = [g(y) for y in ys]\n    except KeyError:\n        return out\n    return out\n",
    ),
    "accumulator-read-in-loop": (
        "def f(ys):\n    out = []\n    for y in ys:\n        out.append(len(out))\n    return out\n",
        "def f(ys):\n    out = [len(out) for y in ys]\n    return out\n",
    ),
    "accumulator-break-between": (
        "def f(ys, zs):\n    for z in zs:\n        out = []\n        if z:\n            break\n        for y in ys:\n            out.append(y)\n    return out\n",
        "def f(ys, zs):\n    for z in zs:\n        if z:\n            break\n        out = [y for y in ys]\n    return out\n",
    ),
    "accumulator-dict-order": (
        "def f(ys):\n    out = {}\n    for y in ys:\n        out[k(y)] = v(y)\n    return out\n",
        "def f(ys):\n    out = {k(y): v(y) for y in ys}\n    return out\n",
    ),
}


@pytest.mark.parametrize("name", SAME)
def test_idioms_compare_equal(name: str):
    before, after = SAME[name]
    assert _same(before, after), name
    assert _canon(before)[1] or _canon(after)[1], "an idiom was rewritten"


@pytest.mark.parametrize("name", DIFFER)
def test_a_real_difference_is_kept(name: str):
    before, after = DIFFER[name]
    assert not _same(before, after), name


def test_the_finding_names_the_idiom_and_the_verdict_is_pure(tmp_path: Path):
    before = _HEAD + SAME["suppress"][0] + "\n\n" + SAME["any"][0]
    after = _HEAD + SAME["suppress"][1] + "\n\n" + SAME["any"][1].replace("def f(", "def f2(")
    before = before.replace("def f(xs)", "def f2(xs)")
    a = analyse_commit(
        tmp_path, {"pkg/__init__.py": "", "pkg/mod.py": before}, {"pkg/mod.py": after}
    )
    told = {
        f.symbol: f.details.get("rewrites") for f in a.findings if f.kind == "behavior.unchanged"
    }
    assert told["f"] == [{"kind": "idiom", "text": "suppress, type-tuple", "detail": ""}]
    assert told["f2"] == [{"kind": "idiom", "text": "any-all", "detail": ""}]
    assert a.model.summary.verdict == "pure-refactor"


def test_every_idiom_is_worded_in_each_language():
    from prreport.equivalence.idioms import IDIOMS

    root = Path(__file__).resolve().parent.parent / "templates"
    for lang in ("en", "zh"):
        text = (root / lang / "text.md.j2").read_text(encoding="utf-8")
        assert [i for i in IDIOMS if f'"{i}":' not in text] == [], lang
