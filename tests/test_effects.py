"""Effect summaries (``prreport.equivalence.effects``): spellings that do the same compare
equal, and one real difference away they do not (the near miss of each pair)."""

from __future__ import annotations

import ast

import pytest

from prreport.equivalence.effects import ModuleFacts, same_effects


def _same(a: str, b: str, helpers_a: str = "", helpers_b: str = "") -> list[str] | None:
    fa, fb = ast.parse(a).body[0], ast.parse(b).body[0]
    ha = {f.name: f for f in ast.parse(helpers_a).body if isinstance(f, ast.FunctionDef)}
    hb = {f.name: f for f in ast.parse(helpers_b).body if isinstance(f, ast.FunctionDef)}
    facts = (ModuleFacts(frozenset(ha), ha), ModuleFacts(frozenset(hb), hb))
    return same_effects(fa, fb, facts)  # type: ignore[arg-type]


CASES = [
    (
        "def f(c, a, b):\n    if c:\n        return a\n    return b",
        "def f(c, a, b):\n    return a if c else b",
        True,
    ),
    (
        "def f(c, a, b):\n    if c:\n        x = a\n    else:\n        x = b\n    g(x)",
        "def f(c, a, b):\n    g(a if c else b)",
        True,
    ),
    (
        "def f(c, a, b):\n    if c:\n        x = a\n    else:\n        x = b\n    g(x)",
        "def f(c, a, b):\n    g(b if c else a)",
        False,
    ),
    (
        "def f(x):\n    for n in ('a', 'b'):\n        g(n, x)",
        "def f(x):\n    g('a', x)\n    g('b', x)",
        True,
    ),
    (
        "def f(x):\n    for n in ('a', 'b'):\n        g(n, x)",
        "def f(x):\n    g('b', x)\n    g('a', x)",
        False,
    ),
    ("def f(x):\n    s = 'a'\n    s += x\n    return s", "def f(x):\n    return 'a' + x", True),
    ("def f(x):\n    s = []\n    s += x\n    return s", "def f(x):\n    return [] + x", False),
    ("def f(t):\n    a, b = t\n    return a", "def f(t):\n    return t[0]", False),
    ("def f(x, y):\n    a, b = x, y\n    return g(a, b)", "def f(x, y):\n    return g(x, y)", True),
    (
        "def f(x):\n    v = h(x)\n    g(v)\n    return v",
        "def f(x):\n    v = h(x)\n    g(v)\n    return h(x)",
        False,
    ),
    ("def f(x):\n    a = x.y\n    g()\n    return a", "def f(x):\n    g()\n    return x.y", False),
    (
        "def f(x):\n    return _h(x, 2) + 1",
        "def f(x):\n    return k(x) * 2 + 1",
        True,
        "def _h(a, b):\n    return k(a) * b",
        "",
    ),
    (
        "def f(x):\n    return _h(x, 3) + 1",
        "def f(x):\n    return k(x) * 2 + 1",
        False,
        "def _h(a, b):\n    return k(a) * b",
        "",
    ),
    (
        "def f(xs):\n    for x in xs:\n        if x:\n            return x\n    return None",
        "def f(xs):\n    for y in xs:\n        if y:\n            return y",
        True,
    ),
    (
        "def f(xs):\n    for x in xs:\n        if x:\n            return x\n    return None",
        "def f(xs):\n    for y in xs:\n        if not y:\n            return y",
        False,
    ),
    (
        "def f(a):\n    with open(a) as fh:\n        return fh.read()",
        "def f(a):\n    with open(a) as fh:\n        data = fh.read()\n    return data",
        False,
    ),
    (
        "def f(a):\n    try:\n        g(a)\n    except ValueError:\n        return 1\n    return 2",
        "def f(a):\n    try:\n        g(a)\n    except ValueError:\n        return 1\n    else:\n        return 2",
        False,
    ),
    (
        "def f(a):\n    try:\n        x = g(a)\n    except ValueError:\n        x = None\n    return x",
        "def f(a):\n    try:\n        y = g(a)\n    except ValueError:\n        y = None\n    return y",
        True,
    ),
    (
        "def f(a):\n    if not a:\n        return []\n    return [x for x in a]",
        "def f(a):\n    if a:\n        return [x for x in a]\n    return []",
        True,
    ),
    (
        "def f(a, b):\n    if a and b:\n        g()\n",
        "def f(a, b):\n    if a:\n        if b:\n            g()\n",
        True,
    ),
    (
        "def f(a, b):\n    if a or b:\n        g()\n",
        "def f(a, b):\n    if a:\n        if b:\n            g()\n",
        False,
    ),
    ("def f():\n    return 1", "def f():\n    return 1\n    yield", False),
    # A container the function made and no other code can reach: changing it is no effect on
    # what other code reads (``self._s`` reads the same before and after ``parts.append``).
    (
        "def f(self, n):\n    parts = list(self.raw)\n    s = self._s\n    parts.append(n)\n    parts[0] = ''\n    return g(s, parts)",
        "def f(self, n):\n    parts = list(self.raw)\n    parts.append(n)\n    parts[0] = ''\n    return g(self._s, parts)",
        True,
    ),
    (
        "def f(self, n):\n    parts = list(self.raw)\n    s = self._s\n    h(parts)\n    parts.append(n)\n    return g(s, parts)",
        "def f(self, n):\n    parts = list(self.raw)\n    h(parts)\n    parts.append(n)\n    return g(self._s, parts)",
        False,
    ),
    (
        "def f(x):\n    out = [x]\n    n = len(out)\n    out.append(1)\n    return n",
        "def f(x):\n    out = [x]\n    out.append(1)\n    return len(out)",
        False,
    ),
    (
        "def f(x):\n    a = []\n    b = a\n    b.append(x)\n    return len(a)",
        "def f(x):\n    a = []\n    b = a\n    return len(a)",
        False,
    ),
    (
        "def f(self, xs):\n    out = set()\n    s = self._s\n    out.update(xs)\n    return g(s, out)",
        "def f(self, xs):\n    out = set()\n    out.update(xs)\n    return g(self._s, out)",
        False,
    ),
    (
        "def f(self, x):\n    out = set()\n    s = self._s\n    out.update((x, 1))\n    return g(s, out)",
        "def f(self, x):\n    out = set()\n    out.update((x, 1))\n    return g(self._s, out)",
        True,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0].splitlines()[1].strip()[:30])
def test_summaries_equal_exactly_when_the_versions_do_the_same(case: tuple) -> None:
    before, after, same, *helpers = case
    assert (_same(before, after, *helpers) is not None) is same


def test_a_helper_replaced_by_its_body_is_named() -> None:
    got = _same(
        "def f(x):\n    return _h(x, 2) + 1",
        "def f(x):\n    return k(x) * 2 + 1",
        "def _h(a, b):\n    return k(a) * b",
    )
    assert got == ["_h"]


def test_a_function_too_branchy_to_summarise_gives_no_answer() -> None:
    body = "".join(f"    if a{i}:\n        g({i})\n" for i in range(24))
    fn = "def f(" + ", ".join(f"a{i}" for i in range(24)) + "):\n" + body
    assert _same(fn, fn + "    return None\n") is None


def test_a_read_moved_across_a_call_is_not_equal() -> None:
    # The call may change what the attribute holds.
    assert (
        _same("def f(x):\n    a = x.y\n    g()\n    return a", "def f(x):\n    g()\n    return x.y")
        is None
    )


def test_an_object_made_twice_is_not_the_same_object() -> None:
    assert (
        _same(
            "def f():\n    a = []\n    b = []\n    g(a, b)",
            "def f():\n    a = []\n    b = a\n    g(a, b)",
        )
        is None
    )


def test_a_closure_over_a_rebound_local_gives_no_answer() -> None:
    src = "def f(x):\n    n = 1\n    h = lambda: n\n    n = 2\n    return h()"
    assert _same(src, src.replace("h()", "h() ")) is None


def test_free_names_of_a_function_with_a_lambda_inside() -> None:
    # pdm-53c0c848 crashed the inlined analyzer: a lambda's body is an expression, not a list.
    from prreport.python.localnames import free_names

    fn = ast.parse("def f(xs):\n    key = lambda v: v[0] + k\n    return sorted(xs, key=key)").body[
        0
    ]
    assert free_names(fn) == {"k", "sorted"}  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("after", "same"),
    [
        ("def f(c, s):\n    x = s.root if c else s.get(1)\n    return x", True),
        ("def f(c, s):\n    x = s.get(1) if c else s.root\n    return x", False),
        ("def f(c, s):\n    return s.root if c else s.get(1)", True),
    ],
)
def test_a_choice_with_effects_is_the_if_it_evaluates_like(after: str, same: bool) -> None:
    before = (
        "def f(c, s):\n    if c:\n        x = s.root\n    else:\n        x = s.get(1)\n    return x"
    )
    assert (_same(before, after) is not None) is same


def test_or_with_a_call_is_the_if_it_evaluates_like() -> None:
    before = "def f(d):\n    v = d.x\n    if not v:\n        v = make()\n    return v"
    assert _same(before, "def f(d):\n    v = d.x or make()\n    return v") is not None
    assert _same(before, "def f(d):\n    v = d.x and make()\n    return v") is None


def test_a_nested_function_is_a_closure_compared_by_its_code() -> None:
    before = "def f(x):\n    def key(v):\n        return v[x]\n    return sorted(g(), key=key)"
    assert _same(before, before.replace("v[x]", "v [x]")) is not None
    assert _same(before, before.replace("v[x]", "v[0]")) is None


def test_an_assignment_expression_binds_its_name() -> None:
    before = "def f(d):\n    v = d.get(1)\n    if v:\n        return v\n    return 0"
    assert (
        _same(before, "def f(d):\n    if v := d.get(1):\n        return v\n    return 0")
        is not None
    )


@pytest.mark.parametrize("block", ["try", "with"])
def test_a_binding_moved_across_a_call_inside_try_or_with_is_not_equal(block: str) -> None:
    # A handler (or a suppressing __exit__) goes on with the locals as they were when cb()
    # raised: before, n is 0 there; after, None.
    head = "def f(a, cb):\n    n = None\n"
    opening, closing = {
        "try": ("    try:\n", "    except ValueError:\n        pass\n    return n"),
        "with": ("    with cb:\n", "    return n"),
    }[block]

    def wrap(body: str) -> str:
        return head + opening + body + closing

    before = wrap("        n = 0\n        cb()\n")
    after = wrap("        cb()\n        n = 0\n")
    assert _same(before, after) is None
    assert _same(before, before.replace("cb()", "cb( )")) is not None
