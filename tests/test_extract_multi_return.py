"""A helper returning a tuple from several places, unpacked by its caller (attrs deb97638:
``_determine_setters`` picks the setter formatters of ``_attrs_to_init_script``), with
look-alikes that differ in one real way and must not be proven."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from prreport.analyzers import _multiret
from prreport.findings import Finding
from prreport.pipeline import Analysis
from tests.corpus_texts import corpus_analysis, corpus_text
from tests.gitrepo import analyse_commit

_CASE = "attrs-deb97638"
_MAKE = "src/attr/_make.py"


def _before() -> str:
    return corpus_text(_CASE, _MAKE, "before")


def _after() -> str:
    """The real after text with the commit's other edit (the ``conv_name`` temporaries written
    at their use) undone, so only the extraction differs."""
    text = corpus_text(_CASE, _MAKE)
    pattern = re.compile(
        r"( +)names_for_globals\[_INIT_CONVERTER_PAT % \(a\.name,\)\] = \(\n +a\.converter\n +\)"
    )
    # The first two of _attrs_to_init_script (lines 2367 and 2387); the others were so before.
    found = [m for m in pattern.finditer(text) if text[: m.start()].count("\n") + 1 in (2367, 2387)]
    assert len(found) == 2
    for m in reversed(found):
        pad = m.group(1)
        text = (
            text[: m.start()]
            + f"{pad}conv_name = _INIT_CONVERTER_PAT % (a.name,)\n"
            + f"{pad}names_for_globals[conv_name] = a.converter"
            + text[m.end() :]
        )
    return text


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


def test_real_commit_is_left_with_the_conv_name_temporaries_only():
    # The commit also writes ``conv_name`` at its one use, which moves ``a.name`` after
    # ``a.converter`` (a subscript store evaluates its value first): not proven here.
    fd = _extracted(corpus_analysis(_CASE))
    site = fd.details["sites"][0]
    assert site["calls"] == 1 and site["proven"] is False
    assert site["residual"] and all(
        "conv_name" in x or "a.converter" in x for x in site["residual"]
    )


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
    _multiret.normal_form(fn)
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
