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
from tests.corpus_texts import corpus_analysis, corpus_text
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
    def edit(path: str, side: str, text: str) -> str:
        if path == HEADERS and side == "after":
            return _replace_once(
                text,
                "dict.__setitem__(self, self.normkey(key), self.normvalue(value))",
                "dict.__setitem__(self, self.normkey(key), value)",
            )
        return text

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
