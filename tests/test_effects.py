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


_FORWARDERS = (
    "def log(*args):\n    return sink.write(*args)\n"
    "def log_kw(*args, **kwargs):\n    return sink.write(*args, **kwargs)\n"
    "def log_tail(*args):\n    return sink.write(*args[1:])\n"
    "def log_more(*args):\n    return sink.write(*args, flush=True)\n"
    "def log_level(level, *args):\n    return sink.write(level + 1, *args)\n"
)


@pytest.mark.parametrize(
    ("call", "written", "equal"),
    [
        # a forwarder's ``*args``/``**kwargs`` pass the call's arguments on as they came
        ("log(DEBUG, 'ok')", "sink.write(DEBUG, 'ok')", True),
        ("log_kw(DEBUG, 'ok', end='')", "sink.write(DEBUG, 'ok', end='')", True),
        ("log()", "sink.write()", True),
        # near misses: one argument dropped, a keyword added, a value changed, another order
        ("log_tail(DEBUG, 'ok')", "sink.write(DEBUG, 'ok')", False),
        ("log_more(DEBUG, 'ok')", "sink.write(DEBUG, 'ok')", False),
        ("log_level(1, 'ok')", "sink.write(1, 'ok')", False),
        ("log('ok', DEBUG)", "sink.write(DEBUG, 'ok')", False),
        ("log_kw(DEBUG, end='')", "sink.write(DEBUG, end='\\n')", False),
    ],
)
def test_a_call_through_a_forwarder_is_the_call_it_forwards(
    call: str, written: str, equal: bool
) -> None:
    new = f"def f(DEBUG):\n    {call}\n    return 1"
    old = f"def f(DEBUG):\n    {written}\n    return 1"
    got = _same(new, old, _FORWARDERS, "")
    assert (got is not None) is equal


def test_a_format_call_on_a_string_literal_computes_a_value() -> None:
    # ``'...'.format(x)`` is a value like an f-string: a read after it is not moved across a call
    a = "def f(self, m):\n    self.out.write('got {}'.format(m))"
    b = "def f(self, m):\n    text = 'got {}'.format(m)\n    self.out.write(text)"
    assert _same(a, b) is not None
    assert _same(a, "def f(self, m):\n    self.out.write(f'got {m}')") is None  # another term
    assert _same(a, "def f(self, m):\n    self.out.write('got {}'.format(m, 1))") is None


def test_calls_routed_through_a_new_forwarding_method_are_a_proven_extraction(tmp_path):
    # paramiko's shape: every ``self.transport._log(...)`` now goes through ``self._log(...)``,
    # a new method of the same name that forwards ``*args`` (so the old callers' calls of
    # ``self.transport._log`` are not calls of the helper).
    from tests.gitrepo import analyse_commit

    body = (
        "    def accept(self, m):\n        self.{call}(DEBUG, 'ok {{}}'.format(m))\n"
        "        return m\n\n    def fail(self, why):\n        self.{call}(DEBUG, 'no: ' + str(why))\n"
        "        self.transport.close()\n"
    )
    head = (
        "DEBUG = 10\n\n\nclass Handler:\n    def __init__(self, t):\n        self.transport = t\n\n"
    )
    base = {"pkg/__init__.py": "", "pkg/auth.py": head + body.format(call="transport._log")}
    forward = "    def _log(self, *args):\n        return self.transport._log(*args)\n\n"
    after = head + forward + body.format(call="_log")
    a = analyse_commit(tmp_path / "a", base, {"pkg/auth.py": after}, message="refactor (#2)")
    assert a.model.summary.verdict == "pure-refactor"
    # near miss: the forwarder drops the level
    dropped = after.replace("_log(*args)\n", "_log(*args[1:])\n")
    b = analyse_commit(tmp_path / "b", base, {"pkg/auth.py": dropped}, message="refactor (#2)")
    assert b.model.summary.verdict != "pure-refactor"


# freezegun-6f4fab9f: a patch list built by a comprehension over a literal table reading
# ``globals()[name]`` is the table written out with the names (invoke-70e9d93a has the loop form).
_TABLE = (
    "def f(s):\n"
    "    things = [(n, globals()[n], k) for n, k in [('real_a', A), ('real_b', B)]]\n"
    "    for mod in list(s):\n"
    "        for attr in dir(mod):\n"
    "            g(attr, things)\n"
)
_WRITTEN = (
    "def f(s):\n"
    "    to_patch = [('real_a', real_a, A), ('real_b', real_b, B)]\n"
    "    for mod in list(s):\n"
    "        for attr in dir(mod):\n"
    "            g(attr, to_patch)\n"
)
_MODULE = frozenset({"real_a", "real_b", "A", "B", "g"})


def _with_module(a: str, b: str, names: frozenset[str] = _MODULE) -> list[str] | None:
    fa, fb = ast.parse(a).body[0], ast.parse(b).body[0]
    return same_effects(fa, fb, (ModuleFacts(names), ModuleFacts(names)))  # type: ignore[arg-type]


def test_a_comprehension_over_a_literal_table_is_the_table_written_out() -> None:
    assert _with_module(_TABLE, _WRITTEN) is not None


@pytest.mark.parametrize(
    ("before", "names"),
    [
        (_TABLE.replace("('real_b', B)", "('real_b', A)"), _MODULE),  # another value
        (_TABLE.replace("for n, k in", "for n, k in") + "", _MODULE - {"real_b"}),  # not bound
        (_TABLE.replace("globals()[n]", "locals()[n]"), _MODULE),  # the frame's locals
        (_TABLE.replace("]]\n", "] if k]\n", 1), _MODULE),  # a filter: not unrolled
        (_TABLE.replace("globals()[n], k)", "(lambda: n), k)"), _MODULE),  # a closure
        ("globals = dict\n" + _TABLE, _MODULE | {"globals"}),  # not the builtin
    ],
)
def test_near_misses_of_the_literal_table(before: str, names: frozenset[str]) -> None:
    fn = next(st for st in ast.parse(before).body if isinstance(st, ast.FunctionDef))
    after = ast.parse(_WRITTEN).body[0]
    assert same_effects(fn, after, (ModuleFacts(names), ModuleFacts(names))) is None  # type: ignore[arg-type]


def test_dir_of_an_object_is_a_call_and_dir_of_the_frame_is_not_modelled() -> None:
    call = "def f(m):\n    return dir(m)\n"
    assert _with_module(call, call) is not None
    assert _with_module(call, "def f(m):\n    return dir(g)\n") is None
    frame = "def f(m):\n    return dir()\n"
    assert _with_module(frame, frame) is None
