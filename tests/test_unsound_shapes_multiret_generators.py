"""Adversarial review of the multi-return, inlined-key and list-to-generator rules: shapes
where a rule claimed "same behaviour" but Python behaves differently. Each case must not be
reported as a pure refactor."""

from __future__ import annotations

from pathlib import Path

from prreport.pipeline import Analysis
from tests.gitrepo import analyse_commit

MOD = "pkg/mod.py"


def _run(tmp_path: Path, before: str, after: str) -> Analysis:
    return analyse_commit(
        tmp_path,
        {"pkg/__init__.py": "", MOD: before},
        {MOD: after},
        "refactor(pkg): make _items a generator (#7)",
    )


def _kind(a: Analysis, symbol: str) -> str:
    [f] = [f for f in a.findings if f.kind.startswith("behavior.") and f.symbol == symbol]
    return f.kind


# --- list-to-generator: a caller's try sees the generator bound -----------------------------

_GEN_BEFORE = """def _items(n):
    out = []
    for i in range(n):
        out.append(10 // i)
    return out


def total(n):
    xs = None
    try:
        xs = _items(n)
        xs = list(xs)
    except ZeroDivisionError:
        pass
    return xs
"""

_GEN_AFTER = """def _items(n):
    for i in range(n):
        yield 10 // i


def total(n):
    xs = None
    try:
        xs = _items(n)
        xs = list(xs)
    except ZeroDivisionError:
        pass
    return xs
"""


def test_list_to_generator_caller_in_try_sees_the_generator(tmp_path: Path):
    # total(1): before, _items raised before xs was rebound, so total returned None; after,
    # xs holds the generator when list(xs) raises, and total returns that generator.
    a = _run(tmp_path, _GEN_BEFORE, _GEN_AFTER)
    assert _kind(a, "_items") == "behavior.changed"
    assert a.model.summary.verdict != "pure-refactor"


def test_list_to_generator_caller_in_with_sees_the_generator(tmp_path: Path):
    before = _GEN_BEFORE.replace("    try:\n", "    with suppress(ZeroDivisionError):\n")
    before = before.replace("    except ZeroDivisionError:\n        pass\n", "")
    before = "from contextlib import suppress\n\n\n" + before
    after = _GEN_AFTER.replace("    try:\n", "    with suppress(ZeroDivisionError):\n")
    after = after.replace("    except ZeroDivisionError:\n        pass\n", "")
    after = "from contextlib import suppress\n\n\n" + after
    a = _run(tmp_path, before, after)
    assert _kind(a, "_items") == "behavior.changed"
    assert a.model.summary.verdict != "pure-refactor"


# --- list-to-generator: a display split into yields inside a try -----------------------------


def _caller(name: str) -> str:
    return f"\n\ndef total(n):\n    return list({name}(n))\n"


def test_list_to_generator_returned_display_in_try_is_not_split(tmp_path: Path):
    # _items("x") returned [2] before (the display failed as a whole); the generator has
    # yielded 1 before int("x") raises, so list(_items("x")) is [1, 2].
    before = (
        "def _items(n):\n"
        "    try:\n"
        "        return [1, int(n)]\n"
        "    except ValueError:\n"
        "        return [2]\n"
        "    return []\n" + _caller("_items")
    )
    after = (
        "def _items(n):\n"
        "    try:\n"
        "        yield 1\n"
        "        yield int(n)\n"
        "        return\n"
        "    except ValueError:\n"
        "        yield 2\n"
        "        return\n" + _caller("_items")
    )
    a = _run(tmp_path, before, after)
    assert _kind(a, "_items") == "behavior.changed"
    assert a.model.summary.verdict != "pure-refactor"


def test_list_to_generator_extended_display_in_try_is_not_split(tmp_path: Path):
    # out.extend([1, int(n)]) appended nothing when int(n) failed; the generator has yielded 1.
    before = (
        "def _items(n):\n"
        "    out = []\n"
        "    try:\n"
        "        out.extend([1, int(n)])\n"
        "    except ValueError:\n"
        "        pass\n"
        "    return out\n" + _caller("_items")
    )
    after = (
        "def _items(n):\n"
        "    try:\n"
        "        yield 1\n"
        "        yield int(n)\n"
        "    except ValueError:\n"
        "        pass\n" + _caller("_items")
    )
    a = _run(tmp_path, before, after)
    assert _kind(a, "_items") == "behavior.changed"
    assert a.model.summary.verdict != "pure-refactor"


def test_list_to_generator_returned_call_in_try_is_not_yield_from(tmp_path: Path):
    # _items("x"): before, _base raised inside _items's try, so it returned [0]; after, the
    # generator has passed on the 1 _base yielded before failing: [1, 0].
    base_before = "def _base(n):\n    out = [1]\n    out.append(int(n))\n    return out\n\n\n"
    base_after = "def _base(n):\n    yield 1\n    yield int(n)\n\n\n"
    before = (
        base_before + "def _items(n):\n"
        "    try:\n"
        "        return _base(n)\n"
        "    except ValueError:\n"
        "        return [0]\n"
        "    return []\n" + _caller("_items")
    )
    after = (
        base_after + "def _items(n):\n"
        "    try:\n"
        "        yield from _base(n)\n"
        "        return\n"
        "    except ValueError:\n"
        "        yield 0\n"
        "        return\n" + _caller("_items")
    )
    a = _run(tmp_path, before, after)
    assert _kind(a, "_items") == "behavior.changed"
    assert a.model.summary.verdict != "pure-refactor"


# --- inlined-list: the extended object may keep the list it is given -------------------------


def _form(src: str) -> str:
    import ast

    from prreport.equivalence.expansion import results as _results

    fn = ast.parse(src).body[0]
    assert isinstance(fn, ast.FunctionDef)
    _results.normal_form(fn)
    return ast.unparse(fn)


def test_inlined_list_needs_a_list_to_extend():
    # ``lines`` is any object: a ``Builder.extend`` that keeps its argument holds ``extra``
    # itself, so the caller's later ``extra.append(...)`` shows in it; with the display written
    # at the extend it holds another list. Both texts must not reach one normal form.
    kept = (
        "def f(make):\n    lines = make()\n    extra = ['a']\n    lines.extend(extra)\n"
        "    return extra\n"
    )
    inlined = (
        "def f(make):\n    lines = make()\n    extra = ['a']\n    lines.extend(['a'])\n"
        "    return extra\n"
    )
    assert _form(kept) != _form(inlined)
    assert "lines.extend(extra)" in _form(kept)


# --- split-tuple: a with statement may suppress the exception half-way -----------------------


def test_tuple_in_a_with_is_not_split():
    # f(False): y is unbound, so ``a, b = 5, y`` fails before binding a and f returns 0; split,
    # ``a = 5`` has run when ``b = y`` fails, suppress() swallows it and f returns 5.
    src = (
        "def f(c):\n    a = 0\n    with suppress(NameError):\n        if c:\n"
        "            y = 1\n        a, b = 5, y\n    return a\n"
    )
    assert "a, b = (5, y)" in _form(src)


# --- forwarded-local: a with of the caller may suppress the helper's exception ---------------


def test_forwarded_local_in_a_with_of_the_caller_is_not_proven(tmp_path: Path):
    # caller(True, "x"): before, x = [1] was bound when int(n) failed and suppress() went on,
    # so caller returned [1]; after, _pick fails before the caller's x is bound: None.
    head = "from contextlib import suppress\n\n\n"
    before = head + (
        "def caller(c, n):\n    x = None\n    with suppress(ValueError):\n        if c:\n"
        "            x = [1]\n            x, y = x, int(n)\n        else:\n"
        "            x, y = [2], 0\n    return x\n"
    )
    after = head + (
        "def _pick(c, n):\n    if c:\n        x = [1]\n        return x, int(n)\n"
        "    return [2], 0\n\n\n"
        "def caller(c, n):\n    x = None\n    with suppress(ValueError):\n"
        "        x, y = _pick(c, n)\n    return x\n"
    )
    a = _run(tmp_path, before, after)
    [fd] = [f for f in a.findings if f.kind == "code.extracted"]
    assert fd.details["proven"] is False
    assert a.model.summary.verdict != "pure-refactor"


# --- list-to-generator: the list local rebound by a binder that is not a Name ----------------


def test_list_to_generator_local_rebound_by_except_as(tmp_path: Path):
    # ``except ValueError as out`` rebinds then deletes ``out``: the old ``return out`` raises
    # UnboundLocalError; the generator has yielded 1 and returns normally: [1].
    before = (
        "def _items(n):\n"
        "    out = []\n"
        "    out.append(1)\n"
        "    try:\n"
        "        int(n)\n"
        "    except ValueError as out:\n"
        "        pass\n"
        "    return out\n" + _caller("_items")
    )
    after = (
        "def _items(n):\n"
        "    yield 1\n"
        "    try:\n"
        "        int(n)\n"
        "    except ValueError as out:\n"
        "        pass\n" + _caller("_items")
    )
    a = _run(tmp_path, before, after)
    assert _kind(a, "_items") == "behavior.changed"
    assert a.model.summary.verdict != "pure-refactor"


def test_list_to_generator_prepended_name_rebound_by_except_as(tmp_path: Path):
    # ``except ValueError as v`` rebinds and deletes ``v``: _items("x") raised
    # UnboundLocalError at the insert; the generator yielded "a" before and returns ["a", 1].
    before = (
        "def _items(n):\n"
        '    v = "a"\n'
        "    out = [1]\n"
        "    try:\n"
        "        int(n)\n"
        "    except ValueError as v:\n"
        "        pass\n"
        "    out.insert(0, v)\n"
        "    return out\n" + _caller("_items")
    )
    after = (
        "def _items(n):\n"
        '    v = "a"\n'
        "    yield v\n"
        "    yield 1\n"
        "    try:\n"
        "        int(n)\n"
        "    except ValueError as v:\n"
        "        pass\n" + _caller("_items")
    )
    a = _run(tmp_path, before, after)
    assert _kind(a, "_items") == "behavior.changed"
    assert a.model.summary.verdict != "pure-refactor"


def test_split_elif_tuple_rebound_by_except_as(tmp_path: Path):
    # _items((3, 7)): the first branch's ``except ValueError as v`` deletes ``v``; the elif
    # was never evaluated, so the old body returned ["base"], while the split test reads
    # ``v`` again and raises UnboundLocalError.
    before = (
        "def _items(v):\n"
        "    v = tuple(v)\n"
        "    out = []\n"
        "    if v < (3, 8):\n"
        "        try:\n"
        '            int("x")\n'
        "        except ValueError as v:\n"
        "            pass\n"
        "    elif v >= (3, 9):\n"
        '        out.append("new")\n'
        '    out.insert(0, "base")\n'
        "    return out\n" + _caller("_items")
    )
    after = (
        "def _items(v):\n"
        "    v = tuple(v)\n"
        "    if v < (3, 8):\n"
        "        try:\n"
        '            int("x")\n'
        "        except ValueError as v:\n"
        "            pass\n"
        '    yield "base"\n'
        "    if v >= (3, 8) and v >= (3, 9):\n"
        '        yield "new"\n' + _caller("_items")
    )
    a = _run(tmp_path, before, after)
    assert _kind(a, "_items") == "behavior.changed"
    assert a.model.summary.verdict != "pure-refactor"
