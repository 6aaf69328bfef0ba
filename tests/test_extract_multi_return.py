"""A helper returning a tuple from several places, unpacked by its caller (attrs deb97638:
``_determine_setters`` picks the setter formatters of ``_attrs_to_init_script``), with
look-alikes that differ in one real way and must not be proven."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

from prreport.equivalence.expansion import multiret as _multiret
from prreport.equivalence.expansion import results as _results
from prreport.findings import Finding
from prreport.pipeline import Analysis
from tests.corpus_texts import corpus_analysis, corpus_text
from tests.gitrepo import analyse_commit

_CASE = "attrs-deb97638"
_MAKE = "src/attr/_make.py"


def _before() -> str:
    return corpus_text(_CASE, _MAKE, "before")


def _changed_keys(text: str, spell: Callable[[str], str]) -> str:
    """``text`` (the real after) with the two stores into ``names_for_globals`` the commit
    rewrote in _attrs_to_init_script (lines 2367 and 2387) spelled ``spell(indent)``."""
    pattern = re.compile(
        r"( +)names_for_globals\[_INIT_CONVERTER_PAT % \(a\.name,\)\] = \(\n +a\.converter\n +\)"
    )
    found = [m for m in pattern.finditer(text) if text[: m.start()].count("\n") + 1 in (2367, 2387)]
    assert len(found) == 2
    for m in reversed(found):
        text = text[: m.start()] + spell(m.group(1)) + text[m.end() :]
    return text


def _after() -> str:
    """The real after text with the commit's other edit (the ``conv_name`` temporaries written
    at their use) undone, so only the extraction differs."""
    return _changed_keys(
        corpus_text(_CASE, _MAKE),
        lambda pad: (
            f"{pad}conv_name = _INIT_CONVERTER_PAT % (a.name,)\n"
            f"{pad}names_for_globals[conv_name] = a.converter"
        ),
    )


def _run(tmp_path: Path, before: str, after: str) -> Analysis:
    return analyse_commit(tmp_path, {_MAKE: before}, {_MAKE: after})


def _extracted(a: Analysis) -> Finding:
    found = [f for f in a.findings if f.kind == "code.extracted"]
    assert [f.symbol for f in found] == ["_determine_setters"], [(f.kind, f.symbol) for f in found]
    return found[0]


def _replace(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


# -- the real extraction ---------------------------------------------------------------------


def test_setters_returned_from_several_places_are_the_callers_if_tree(tmp_path: Path):
    a = _run(tmp_path, _before(), _after())
    fd = _extracted(a)
    assert fd.details["proven"] is True, fd.details["sites"]
    kinds = {r["kind"] for r in fd.details["sites"][0]["rewrites"]}
    assert kinds == {
        "multi-return",
        "split-tuple",
        "pushed-into-if",
        "inlined-list",
        "extend-as-append",
        "append-before-def",
    }
    assert a.model.summary.verdict == "pure-refactor"


def test_real_commit_with_its_conv_name_temporaries_written_at_their_use():
    # The commit also writes ``conv_name`` at its one use, a subscript key: ``d[k] = v``
    # evaluates ``v`` first, so ``a.name`` is now read after ``a.converter``. Proven under
    # that one stated assumption (plain attribute reads run no code).
    a = corpus_analysis(_CASE)
    site = _extracted(a).details["sites"][0]
    assert site["calls"] == 1 and site["proven"] is True
    keys = [r for r in site["rewrites"] if r["kind"] == "inlined-key"]
    assert keys == [
        {"kind": "inlined-key", "text": "conv_name", "detail": "_INIT_CONVERTER_PAT % (a.name,)"}
    ]
    assert a.model.summary.verdict == "pure-refactor"


def _real_key_edit(value: str) -> tuple[str, str]:
    """The real before and after with ``a.converter`` (the value stored under the key) spelled
    ``value`` on both sides."""
    before = _before().replace(
        "names_for_globals[conv_name] = a.converter", f"names_for_globals[conv_name] = {value}"
    )
    after = _changed_keys(
        corpus_text(_CASE, _MAKE),
        lambda pad: f"{pad}names_for_globals[_INIT_CONVERTER_PAT % (a.name,)] = {value}",
    )
    return before, after


def test_key_written_after_a_call_is_not_proven(tmp_path: Path):
    # ``make_converter(a)`` may change what ``a.name`` reads: the key now comes after it.
    fd = _extracted(_run(tmp_path, *_real_key_edit("make_converter(a)")))
    assert fd.details["proven"] is False
    assert any("conv_name" in x for x in fd.details["sites"][0]["residual"])


def test_key_read_again_later_is_not_inlined(tmp_path: Path):
    before, after = _real_key_edit("a.converter")
    before = _replace(
        before,
        "    if attrs_to_validate:  # we can skip this if there are no validators.",
        "    last_converter = conv_name\n"
        "    if attrs_to_validate:  # we can skip this if there are no validators.",
    )
    after = _replace(
        after,
        "    if attrs_to_validate:  # we can skip this if there are no validators.",
        "    last_converter = conv_name\n"
        "    if attrs_to_validate:  # we can skip this if there are no validators.",
    )
    fd = _extracted(_run(tmp_path, before, after))
    assert fd.details["proven"] is False


# -- look-alikes: one real difference each ---------------------------------------------------


def test_slotted_path_that_now_adds_the_dict_line_is_not_proven(tmp_path: Path):
    after = _replace(
        _after(),
        "            return [], _setattr, _setattr_with_converter",
        '            return ["_inst_dict = self.__dict__"], _setattr, _setattr_with_converter',
    )
    fd = _extracted(_run(tmp_path, _before(), after))
    assert fd.details["proven"] is False
    assert fd.details["sites"][0]["reason"] == "the expanded code differs"


def test_extra_lines_added_after_the_loop_is_not_proven(tmp_path: Path):
    # The dict line would land after the attribute assignments instead of before them.
    after = _replace(_after(), "    lines.extend(extra_lines)\n\n    args = []", "    args = []")
    after = _replace(
        after,
        "    if attrs_to_validate:  # we can skip this if there are no validators.",
        "    lines.extend(extra_lines)\n"
        "    if attrs_to_validate:  # we can skip this if there are no validators.",
    )
    fd = _extracted(_run(tmp_path, _before(), after))
    assert fd.details["proven"] is False


def test_closure_over_a_parameter_the_caller_rebinds_later_is_not_proven(tmp_path: Path):
    # Before, fmt_setter reads the caller's base_attr_map when it is called (after the
    # rebinding); after, the helper's parameter (the value before it).
    rebind = "\n    base_attr_map = dict(base_attr_map, extra=None)\n"
    before = _replace(
        _before(),
        "        fmt_setter_with_converter = _assign_with_converter\n",
        "        fmt_setter_with_converter = _assign_with_converter\n" + rebind,
    )
    after = _replace(
        _after(), "    lines.extend(extra_lines)\n", "    lines.extend(extra_lines)\n" + rebind
    )
    fd = _extracted(_run(tmp_path, before, after))
    assert fd.details["proven"] is False
    assert "base_attr_map" in fd.details["sites"][0]["reason"]


def test_helper_falling_off_the_end_is_not_expanded(tmp_path: Path):
    after = _replace(
        _after(),
        "    # Not frozen -- we can just assign directly.\n"
        "    return [], _assign, _assign_with_converter\n",
        "    # Not frozen -- we can just assign directly.\n",
    )
    fd = _extracted(_run(tmp_path, _before(), after))
    assert fd.details["proven"] is False
    assert fd.details["sites"][0]["reason"] == "helper returns from several places"


# -- the normal form on its own: what it must not rewrite -------------------------------------


def _form(src: str) -> str:
    fn = ast.parse(src).body[0]
    assert isinstance(fn, ast.FunctionDef)
    _results.normal_form(fn)
    return ast.unparse(fn)


def test_swapping_tuple_is_not_split():
    src = "def f(a, b):\n    a, b = b, a\n    return a\n"
    assert _form(src) == ast.unparse(ast.parse(src))


def test_tuple_in_a_try_or_read_by_a_closure_is_not_split():
    in_try = "def f(x):\n    try:\n        a, b = x, y\n    except NameError:\n        pass\n"
    assert "a, b = (x, y)" in _form(in_try)
    closure = "def f(x):\n    g = lambda: a\n    a, b = x, y\n    return g\n"
    assert "a, b = (x, y)" in _form(closure)


def test_extend_of_a_name_that_may_not_be_a_list_is_kept():
    for src in (
        "def f(lines):\n    lines.extend(['a', 'b'])\n",  # a parameter: any object
        "def f():\n    lines = make()\n    lines.extend(['a', 'b'])\n",  # not a list display
        "def f(c):\n    if c:\n        lines = []\n    lines.extend(['a'])\n",  # maybe unbound
        "def f():\n    lines = []\n    lines = []\n    lines.extend(['a'])\n",  # bound twice
    ):
        assert "extend" in _form(src), src


def test_extend_of_several_computed_items_is_kept():
    src = "def f(x):\n    lines = []\n    lines.extend([x.a, x.b])\n"
    assert "extend" in _form(src)
    one = "def f(x):\n    lines = []\n    lines.extend([x.a])\n"
    assert "lines.append(x.a)" in _form(one)


def test_append_does_not_move_across_a_def_with_defaults_or_decorators():
    for src in (
        "def f(x):\n    lines = []\n    def g(a=x.y):\n        pass\n    lines.append('s')\n",
        "def f(x):\n    lines = []\n    @x\n    def g():\n        pass\n    lines.append('s')\n",
    ):
        out = _form(src)
        assert out.index("def g") < out.index("lines.append"), src
    plain = "def f(x):\n    lines = []\n    def g(a):\n        pass\n    lines.append('s')\n"
    out = _form(plain)
    assert out.index("lines.append") < out.index("def g")


def test_list_read_again_later_keeps_its_assignment():
    src = (
        "def f(c):\n    lines = []\n    extra = ['a']\n    lines.extend(extra)\n    return extra\n"
    )
    out = _form(src)
    assert "extra = ['a']" in out


def _keys(src: str) -> str:
    from prreport.equivalence import laterkey as _laterkey

    fn = ast.parse(src).body[0]
    assert isinstance(fn, ast.FunctionDef)
    _laterkey.inline_keys(fn)
    return ast.unparse(fn)


def test_key_temporary_needs_the_very_next_statement_and_reads_only():
    same = [
        # a statement between
        "def f(d, a):\n    t = a.n\n    x = 1\n    d[t] = a.v\n",
        # a call in the key or in the value
        "def f(d, a):\n    t = str(a)\n    d[t] = a.v\n",
        "def f(d, a):\n    t = a.n\n    d[t] = a.f()\n",
        # a closure reading the temporary, locals()
        "def f(d, a):\n    t = a.n\n    d[t] = a.v\n    return lambda: t\n",
        "def f(d, a):\n    t = a.n\n    d[t] = a.v\n    return locals()\n",
        # the key is part of a larger key
        "def f(d, a):\n    t = a.n\n    d[t, 1] = a.v\n",
    ]
    for src in same:
        assert _keys(src) == ast.unparse(ast.parse(src)), src
    assert _keys("def f(d, a):\n    t = a.n\n    d[t] = a.v\n") == (
        "def f(d, a):\n    d[a.n] = a.v"
    )


def test_deleted_temporaries_keep_their_assignments():
    key = "def f(d, a):\n    t = a.n\n    d[t] = a.v\n    del t\n"
    assert _keys(key) == ast.unparse(ast.parse(key))
    listed = "def f():\n    lines = []\n    extra = ['a']\n    lines.extend(extra)\n    del extra\n"
    assert "extra = ['a']" in _form(listed)


def test_generator_reading_a_tuple_target_blocks_the_split():
    src = "def f(x, y):\n    g = (a for _ in x)\n    a, b = x, y\n    return g\n"
    assert "a, b = (x, y)" in _form(src)


def test_helper_assigning_the_callers_target_names_itself_is_spliced():
    # The helper's own ``x, y = ...`` is not a return point, though it names the targets.
    helper = ast.parse(
        "def h(c):\n    x, y = pair()\n    if c:\n        return x, y\n    return y, x\n"
    ).body[0]
    caller = ast.parse("def f(c):\n    x, y = h(c)\n    return x\n").body[0]
    assert isinstance(helper, ast.FunctionDef) and isinstance(caller, ast.FunctionDef)
    target = ast.parse("x, y = 0, 0").body[0].targets[0]  # type: ignore[attr-defined]
    got = _multiret.spliced(helper.body, target, {"x", "y"}, caller, False)
    assert not isinstance(got, str)
    tree, forwarded = got
    assert forwarded == set()  # each is returned at the other position on one path
    assert ast.unparse(tree[0]) == "x, y = pair()"
