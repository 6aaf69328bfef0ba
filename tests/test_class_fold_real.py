"""A class folded into its subclass, and definitions nested in moved code, on the real scrapy
commit df64fe32 ("Remove deprecated CaselessDict and md5sum()", issue #12 corpus): the methods of
``CaselessDict`` moved into ``Headers``, which now subclasses ``dict``; the tests of the
abstract ``TestCaseInsensitiveDictBase`` moved into ``TestCaseInsensitiveDict``, two of them with
a local ``Mapping`` class. The look-alikes are the real modules with one part changed: a folded
method or a moved test whose body differs, local classes renamed in place in two tests."""

from __future__ import annotations

from pathlib import Path

from prreport.findings import Finding
from prreport.pipeline import Analysis
from tests.corpus_texts import corpus_analysis, corpus_text, live_changes
from tests.gitrepo import analyse_commit

SCRAPY = "scrapy-df64fe32"
HEADERS = "scrapy/http/headers.py"
DATATYPES = "scrapy/utils/datatypes.py"
TESTS = "tests/test_utils_datatypes.py"
HEADER_TESTS = "tests/test_http_headers.py"
FILES = (HEADERS, DATATYPES, TESTS, HEADER_TESTS)


def _of(a: Analysis, kind: str) -> dict[str, Finding]:
    return {f.symbol: f for f in a.findings if f.kind == kind}


def _scrapy_variant(tmp_path: Path, edit=lambda path, side, text: text) -> Analysis:
    """The real scrapy commit replayed in a git repository; ``edit(path, side, text)`` may
    change a module's before or after text."""
    before = {p: edit(p, "before", corpus_text(SCRAPY, p, "before")) for p in FILES}
    after = {p: edit(p, "after", corpus_text(SCRAPY, p, "after")) for p in FILES}
    return analyse_commit(
        tmp_path,
        {"scrapy/__init__.py": "", "scrapy/http/__init__.py": "", **before},
        after,
        message="Remove deprecated CaselessDict and md5sum() (#8023)",
    )


def _replace_once(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def _headers_after(old: str, new: str):
    """An ``edit`` for ``_scrapy_variant``: ``old`` spelled ``new`` in headers.py after."""

    def edit(path: str, side: str, text: str) -> str:
        return _replace_once(text, old, new) if (path, side) == (HEADERS, "after") else text

    return edit


# -- definitions nested in moved code follow it ----------------------------------------------


def test_folded_methods_move_though_a_moved_test_has_a_local_class_with_their_names():
    # test_init_mutable_mapping (moved along with its class's other tests) defines a local
    # MutableMapping with __setitem__/__delitem__: those travel with the test, so they do not
    # make CaselessDict.__setitem__/__delitem__ ambiguous.
    moved = _of(corpus_analysis(SCRAPY), "symbol.moved")
    for name in ("__setitem__", "__delitem__", "__contains__", "setdefault", "pop"):
        fd = moved[f"Headers.{name}"]
        assert fd.details["old_qualname"] == f"CaselessDict.{name}"
        assert (fd.details["old_path"], fd.path) == (DATATYPES, HEADERS)
        assert fd.details["equality"] == "byte-identical"
        assert fd.details["behavior_change"] is False
    assert not [q for q in moved if "<locals>" in q]


def test_local_classes_of_a_moved_test_are_no_extraction():
    # Two tests each define an equal local Mapping class; both tests moved unchanged. Their
    # methods are neither "2 copies replaced by MyMapping.__init__" nor moves of their own.
    a = corpus_analysis(SCRAPY)
    assert _of(a, "code.extracted") == {}
    fd = _of(a, "symbol.moved")["TestCaseInsensitiveDict.test_init_mapping"]
    assert fd.details["old_qualname"] == "TestCaseInsensitiveDictBase.test_init_mapping"
    assert fd.details["equality"] == "byte-identical"


def test_moved_test_found_among_two_new_definitions_of_its_name():
    # test_fromkeys moved into TestCaseInsensitiveDict unchanged, and a new, different
    # test_fromkeys function was added to test_http_headers.py: the equal one is where it went.
    moved = _of(corpus_analysis(SCRAPY), "symbol.moved")
    fd = moved["TestCaseInsensitiveDict.test_fromkeys"]
    assert fd.details["old_qualname"] == "TestCaseInsensitiveDictBase.test_fromkeys"
    assert fd.details["equality"] == "byte-identical"
    assert "test_fromkeys" not in moved  # the new module-level test is new code


def test_moved_test_edited_on_the_way_is_ambiguous_between_two_new_homes(tmp_path: Path):
    # Look-alike: the moved test_fromkeys also changed; neither new test_fromkeys is equal to
    # it, so neither is claimed as where it went.
    def edit(path: str, side: str, text: str) -> str:
        if path == TESTS and side == "after":
            return _replace_once(
                text, "d = instance.fromkeys(keys, 1)", "d = instance.fromkeys(keys, 2)"
            )
        return text

    moved = _of(_scrapy_variant(tmp_path, edit), "symbol.moved")
    assert "TestCaseInsensitiveDict.test_fromkeys" not in moved
    assert "test_fromkeys" not in moved
    assert moved["Headers.__setitem__"].details["equality"] == "byte-identical"


def test_folded_method_with_another_body_is_a_move_that_changes_behaviour(tmp_path: Path):
    # Look-alike: Headers.__setitem__ no longer normalises the value.
    edit = _headers_after(
        "dict.__setitem__(self, self.normkey(key), self.normvalue(value))",
        "dict.__setitem__(self, self.normkey(key), value)",
    )
    fd = _of(_scrapy_variant(tmp_path, edit), "symbol.moved")["Headers.__setitem__"]
    assert fd.details["equality"] == "different"
    assert fd.details["behavior_change"] is True
    assert not fd.explains
    assert any("self.normvalue(value)" in ln for ln in fd.details["residual"])


def test_equal_local_classes_renamed_in_two_tests_are_no_extraction(tmp_path: Path):
    # Look-alike without any move: the two tests stay where they were (the base class kept)
    # and their local classes are renamed in place to one name. A class local to one test
    # cannot stand for the equal class of the other test.
    def edit(path: str, side: str, text: str) -> str:
        if path != TESTS:
            return text
        text = corpus_text(SCRAPY, TESTS, "before")
        if side == "after":
            text = text.replace("MyMutableMapping", "LocalMapping").replace(
                "MyMapping", "LocalMapping"
            )
        return text

    a = _scrapy_variant(tmp_path, edit)
    assert not [q for q in _of(a, "code.extracted") if q.startswith("TestCaseInsensitiveDictBase")]


# -- the removed base's methods put back at their super() call sites -------------------------


def test_super_calls_into_the_removed_base_are_inlined_and_account_for_the_changes():
    # Headers.__init__ called super().__init__(seq), __getitem__/get called super().m(key...)
    # inside cast(...)[-1]: CaselessDict, Headers' only base, was removed and its bodies put in
    # their place; Headers now has CaselessDict's base (dict), so the super() in the inlined
    # __init__ body still reaches dict.__init__.
    a = corpus_analysis(SCRAPY)
    inlined = _of(a, "code.inlined")
    assert set(inlined) == {"CaselessDict.__init__", "CaselessDict.__getitem__", "CaselessDict.get"}
    for fd in inlined.values():
        assert fd.details["proven"] is True and fd.details["behavior_change"] is False
        assert fd.details["helper_path"] == DATATYPES
    scopes = {s["scope"] for s in inlined["CaselessDict.__getitem__"].details["sites"]}
    assert scopes == {"Headers.__getitem__", "Headers.getlist"}
    changed = {f.symbol for f in a.model.findings if f.kind == "behavior.changed"}
    assert {"Headers.__init__", "Headers.__getitem__", "Headers.get", "Headers.getlist"} < changed
    # Those four are explained by the inlining; Headers.update now calls dict.update where
    # super().update reached CaselessDict.update, which normalised keys and values a second
    # time: not the same code.
    assert live_changes(a) == ["Headers.update"]
    assert a.model.summary.verdict != "pure-refactor"  # CaselessDict itself is gone


def test_super_call_into_a_base_whose_replacement_has_other_bases_is_not_proven(tmp_path: Path):
    # Look-alike: Headers now derives from OrderedDict, CaselessDict derived from dict: the
    # super().__init__() of the inlined body reaches OrderedDict.__init__ now.
    def edit(path: str, side: str, text: str) -> str:
        if path == HEADERS and side == "after":
            text = _replace_once(text, "class Headers(dict):", "class Headers(OrderedDict):")
            return "from collections import OrderedDict\n" + text
        return text

    a = _scrapy_variant(tmp_path, edit)
    fd = _of(a, "code.inlined")["CaselessDict.__init__"]
    assert fd.details["proven"] is False
    [site] = fd.details["sites"]
    assert "Headers now has the bases (OrderedDict), CaselessDict had (dict)" in site["reason"]
    assert "Headers.__init__" in live_changes(a)


def test_inlined_super_call_with_another_body_says_what_differs(tmp_path: Path):
    # Look-alike: Headers.get no longer normalises the default value it puts back.
    edit = _headers_after(
        "dict.get(self, self.normkey(key), self.normvalue(def_val)),",
        "dict.get(self, self.normkey(key), def_val),",
    )
    a = _scrapy_variant(tmp_path, edit)
    fd = _of(a, "code.inlined")["CaselessDict.get"]
    assert fd.details["proven"] is False and fd.details["behavior_change"] is True
    [site] = fd.details["sites"]
    assert site["reason"] == "the expanded code differs"
    assert any("self.normvalue(def_val)" in ln for ln in site["residual"] if ln.startswith("-"))
    assert _of(a, "code.inlined")["CaselessDict.__getitem__"].details["proven"] is True


def test_super_call_into_a_second_base_is_not_resolved(tmp_path: Path):
    # Look-alike: Headers listed a mixin before CaselessDict: super() from Headers reaches the
    # mixin first, so nothing is claimed about CaselessDict's methods.
    mixin = "class _Mixin:\n    pass\n\n\n"

    def edit(path: str, side: str, text: str) -> str:
        if path == HEADERS and side == "before":
            text = _replace_once(
                text, "class Headers(CaselessDict):", mixin + "class Headers(_Mixin, CaselessDict):"
            )
        elif path == HEADERS:
            text = _replace_once(
                text, "class Headers(dict):", mixin + "class Headers(_Mixin, dict):"
            )
        return text

    assert _of(_scrapy_variant(tmp_path, edit), "code.inlined") == {}


def test_inlined_body_reading_a_method_only_the_removed_base_had_is_not_proven(tmp_path: Path):
    # Look-alike: Headers names its key normaliser norm_key, so the self.normkey(key) of
    # CaselessDict.__getitem__ reached CaselessDict.normkey (lower-casing) before and reaches
    # nothing after: the same text, another method.
    def edit(path: str, side: str, text: str) -> str:
        if path == HEADERS:
            return _replace_once(text, "    def normkey(self", "    def norm_key(self")
        return text

    fd = _of(_scrapy_variant(tmp_path, edit), "code.inlined")["CaselessDict.__getitem__"]
    assert fd.details["proven"] is False
    reasons = {s["reason"] for s in fd.details["sites"]}
    assert reasons == {
        "CaselessDict.__getitem__ reads 'normkey' of its instance: CaselessDict's own before, "
        "what the bases of CaselessDict have after the change"
    }


def test_inlined_body_with_a_private_name_is_not_proven(tmp_path: Path):
    # Look-alike: CaselessDict.__init__ also set self.__filled; put back into Headers the same
    # text sets _Headers__filled where _CaselessDict__filled was set.
    line = "        if seq:\n            self.update(seq)\n"
    private = "        self.__filled = bool(seq)\n" + line

    def edit(path: str, side: str, text: str) -> str:
        if (path, side) in ((DATATYPES, "before"), (HEADERS, "after")):
            return _replace_once(text, line, private)
        return text

    fd = _of(_scrapy_variant(tmp_path, edit), "code.inlined")["CaselessDict.__init__"]
    assert fd.details["proven"] is False
    [site] = fd.details["sites"]
    assert site["reason"] == "CaselessDict.__init__ uses __filled: CaselessDict, not Headers"
