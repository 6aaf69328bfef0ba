"""Removed definitions that run without being named are not dead code (issue #12, dead code).

A text search finds no caller of ``__deepcopy__``, of an ``HTMLParser`` subclass's
``handle_starttag`` or of a test, yet Python, the base class and pytest call them. Claiming them
dead would call a behaviour change a pure refactor. Each case is a real commit of the corpus or a
real module of it.
"""

from __future__ import annotations

from pathlib import Path

from prreport.pipeline import Analysis
from prreport.render.markdown import render_markdown
from tests.corpus_texts import corpus_analysis, corpus_text
from tests.gitrepo import analyse_commit


def _removed(a: Analysis) -> dict[str, dict[str, object]]:
    return {
        f.symbol: f.details
        for f in a.findings
        if f.kind == "behavior.changed" and f.details.get("removed") is True
    }


def test_removed_deepcopy_protocol_methods_are_a_behaviour_change_not_dead_code():
    # tox da22bd06 "remove unused deepcopy": three ``__deepcopy__`` methods go; nothing in tox
    # names them, but ``copy.deepcopy`` calls them and now copies those objects differently.
    a = corpus_analysis("tox-da22bd06")
    assert not [f.symbol for f in a.findings if f.kind == "code.dead-removed"]
    removed = _removed(a)
    assert sorted(removed) == [
        "ConfigDynamicDefinition.__deepcopy__",
        "IniLoader.__deepcopy__",
        "ToxIni.__deepcopy__",
    ]
    assert {(d["called_by"], d["caller"]) for d in removed.values()} == {
        ("protocol", "copy.deepcopy(obj)")
    }
    assert a.model.summary.verdict == "behavior-change"
    risk = next(r for r in a.model.risks if r["id"] == "implicit-call-removed")
    assert risk["severity"] == "medium"
    md = render_markdown(a.model, "en")
    assert "Python calls it for `copy.deepcopy(obj)`" in md
    assert "Safe to skim" not in md


def test_a_hook_an_outside_base_class_calls_is_not_dead(tmp_path: Path):
    # pip's collector.py: ``HTMLLinkParser(HTMLParser).handle_starttag`` is called by
    # ``HTMLParser.feed``; no line of pip names it. Removing it changes what the parser collects.
    path = "src/pip/_internal/index/collector.py"
    before = corpus_text("pip-a287a0bf", path, "before")
    start = before.index("    def handle_starttag(")
    end = before.index("    def get_href(")
    after = before[:start] + before[end:]
    a = analyse_commit(tmp_path, {path: before}, {path: after}, "Remove unused method (#3)")
    assert not [f for f in a.findings if f.kind == "code.dead-removed"]
    removed = _removed(a)
    assert removed["HTMLLinkParser.handle_starttag"]["called_by"] == "base"
    assert removed["HTMLLinkParser.handle_starttag"]["caller"] == "HTMLParser"
    assert a.model.summary.verdict == "behavior-change"
    assert (
        "the base class `HTMLParser`, whose code was not read (outside the repository or not fetched), may call it"
        in (render_markdown(a.model, "en"))
    )


def test_an_unreferenced_helper_of_the_same_class_is_still_dead(tmp_path: Path):
    # The control: a method no base defines and nothing calls, in a class whose only base is a
    # built-in exception, is dead code as before.
    path = "src/pip/_internal/index/collector.py"
    before = corpus_text("pip-a287a0bf", path, "before")
    anchor = "class HTMLLinkParser(HTMLParser):"
    extra = (
        "class _ParseFailed(ValueError):\n"
        "    def describe(self) -> str:\n"
        '        return f"could not parse: {self.args[0]}"\n\n\n'
    )
    before = before.replace(anchor, extra + anchor)
    after = before.replace(extra.split("\n", 1)[1].rsplit("\n\n\n", 1)[0] + "\n", "    pass\n")
    a = analyse_commit(tmp_path, {path: before}, {path: after}, "Remove unused method (#3)")
    dead = [f.symbol for f in a.findings if f.kind == "code.dead-removed"]
    assert dead == ["_ParseFailed.describe"]
    assert not _removed(a)


def test_removed_tests_are_not_dead_but_a_helper_only_a_docstring_names_is():
    # aiohttp a6687c2e drops the pickle fallback of CookieJar.load with its five tests. pytest
    # collects the tests by name, so they are not dead code; ``dump_cookiejar`` (a test helper)
    # was named only in a test's docstring, which is prose, not a call: it is dead.
    a = corpus_analysis("aiohttp-a6687c2e")
    dead = {f.symbol for f in a.findings if f.kind == "code.dead-removed"}
    assert dead == {"dump_cookiejar"}
    # A removed test is no behaviour change of the library either.
    assert not [s for s in _removed(a) if s.startswith("test_")]


def test_the_imports_of_a_deleted_module_are_not_called_dead():
    # uvicorn bfc8fb39 deletes middleware/debug.py, unused anywhere: its definitions are dead
    # code; its ``import html`` / ``import traceback`` were used by them and are only removed.
    a = corpus_analysis("uvicorn-bfc8fb39")
    dead = {f.symbol: f.details["kind"] for f in a.findings if f.kind == "code.dead-removed"}
    assert "DebugMiddleware" in dead and "get_accept_header" in dead
    assert "import" not in dead.values()


def test_a_removed_method_that_only_raised_for_outside_callers_is_a_change():
    # django-rest-framework e13688f0 removes Request.DATA and Request.QUERY_PARAMS, properties
    # that only raised NotImplementedError("`request.DATA` has been deprecated in favor of
    # `request.data`..."). Nothing in the repository uses them (that is their point): callers
    # now get an AttributeError through Request.__getattr__, without the message.
    a = corpus_analysis("django-rest-framework-e13688f0")
    assert not [f for f in a.findings if f.kind == "code.dead-removed"]
    removed = _removed(a)
    assert sorted(removed) == ["Request.DATA", "Request.QUERY_PARAMS"]
    assert {(d["called_by"], d["caller"]) for d in removed.values()} == {
        ("shim", "NotImplementedError")
    }
    assert a.model.summary.verdict == "behavior-change"
    assert "it only raised `NotImplementedError` with a message, for callers outside the" in (
        render_markdown(a.model, "en")
    )
