"""Guards dropped in real commits whose functions changed in other ways too (issue #12).

A removed ``try`` whose docstring changed with it, a test dropped from an ``and`` (or from a
nested ``if``), a guard dropped in a function whose other statements changed: each is still a
dropped guard. A branch removed from an ``elif`` chain, or an ``if`` removed whole among other
changes, is not: no statement runs unguarded. Every case is a real commit of the corpus.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from prreport.findings import Finding
from prreport.render.markdown import render_markdown
from tests.corpus_texts import corpus_analysis, corpus_text
from tests.gitrepo import analyse_commit


def _drops(case: str) -> dict[str, list[Finding]]:
    out: dict[str, list[Finding]] = {}
    for f in corpus_analysis(case).findings:
        if f.kind == "guard.dropped":
            out.setdefault(f.symbol, []).append(f)
    return out


def test_a_try_removed_around_calls_that_remain_even_when_the_docstring_changed():
    # aiohttp a6687c2e: CookieJar.load's JSON attempt loses its try/except (the pickle
    # fallback): a legacy file now raises. The docstring was rewritten in the same commit.
    [fd] = _drops("aiohttp-a6687c2e")["CookieJar.load"]
    assert fd.details["guard"] == "try"
    assert fd.details["reason"] == "exception-now-propagates"
    assert fd.details["behavior_change"] is True


def test_a_test_dropped_from_an_and_or_a_nested_if_is_a_dropped_guard():
    # marshmallow 9ac3241b: ``if value is missing_ and hasattr(self, "default"):`` became
    # ``if value is missing_:``; ``if value is missing_: if hasattr(self, "required") and
    # self.required:`` became ``if value is missing_ and self.required:``, while the next
    # ``if`` of _validate_missing was rewritten (``is not True`` -> ``not``).
    drops = _drops("marshmallow-9ac3241b")
    [serialize] = drops["Field.serialize"]
    assert serialize.details["guard"] == "if hasattr(self, 'default')"
    assert serialize.details["proven"] is False
    guards = [fd.details["guard"] for fd in drops["Field._validate_missing"]]
    assert guards == ["if hasattr(self, 'required')"]
    # The rewritten test is a change, not a dropped guard, and the verdict says so.
    assert corpus_analysis("marshmallow-9ac3241b").model.summary.verdict != "pure-refactor"


def test_a_branch_removed_from_an_elif_chain_is_not_a_dropped_guard():
    # uvicorn 53d7d1ed removes two ``elif isinstance(event, events.Reject...)`` branches of
    # WSProtocol.handle_events: the branches after them still test their own event types.
    assert "WSProtocol.handle_events" not in _drops("uvicorn-53d7d1ed")


def test_an_if_removed_whole_among_other_changes_is_not_a_dropped_guard():
    # attrs 689a0e64: ``if _has_own_attribute(cls, "__annotations__"): return
    # cls.__annotations__`` / ``return {}`` became one ``return cls.__dict__.get(...)``.
    assert "_get_annotations" not in _drops("attrs-689a0e64")


def test_the_report_names_each_removed_test_where_it_was_and_shows_the_function_diff():
    a = corpus_analysis("marshmallow-9ac3241b")
    risk = next(r for r in a.model.risks if r["id"] == "guard-removed")
    assert risk["severity"] == "medium"
    # Where the kept code is now (after lines), not where the guard was.
    assert [(e["symbol"], e["line"]) for e in risk["evidence"]] == [
        ("Field._validate_missing", 297),
        ("Field.serialize", 321),
    ]
    assert not any(r["id"] == "guard-dropped" for r in a.model.risks)  # no moved call here
    md = render_markdown(a.model, "en")
    assert "`if hasattr(self, 'default')` in `Field.serialize`" in md
    # The snippet of a changed function is its diff, wherever in a long signature's body the
    # change is, shown once even when a guard was removed from it too.
    serialize = [s for s in a.model.snippets if s["caption_facts"]["symbol"] == "Field.serialize"]
    assert len(serialize) == 1
    assert '-        if value is missing_ and hasattr(self, "default"):' in serialize[0]["diff"]
    assert "+        if value is missing_:" in serialize[0]["diff"]


@pytest.mark.parametrize(
    ("test", "proven"),
    [
        ('name.startswith("WS_") and sys.version_info < (3, 7)', True),  # never true on >= 3.7
        ('name.startswith("WS_") or sys.version_info < (3, 7)', False),  # still depends on name
    ],
)
def test_a_removed_branch_whose_and_test_has_an_always_false_part(
    tmp_path: Path, test: str, proven: bool
):
    # starlette's status.py (python_requires >= 3.7, starlette 589df786): the Python < 3.7
    # branch of a stack-level choice removed, its else kept.
    status = "starlette/status.py"
    real = corpus_text("starlette-589df786", status, "before")
    line = "        stacklevel = 3 if sys.version_info >= (3, 7) else 4\n"
    assert line in real
    branch = f"        if {test}:\n            stacklevel = 4\n        else:\n            stacklevel = 3\n"
    before, after = real.replace(line, branch), real.replace(line, "        stacklevel = 3\n")
    setup = corpus_text("starlette-589df786", "setup.py", "before")
    base = {"setup.py": setup, "starlette/__init__.py": "", status: before}
    a = analyse_commit(tmp_path, base, {status: after}, "Drop Python 3.6 code (#9)")
    [fd] = [f for f in a.findings if f.kind == "guard.dropped" and f.symbol == "__getattr__"]
    assert fd.details["proven"] is proven
    if proven:
        assert fd.details["reason"] == "condition-always-false"
        assert "sys.version_info < (3, 7) is always false" in fd.details["proof"]
        assert a.model.summary.verdict == "pure-refactor"
    else:
        assert fd.details["reason"] == "condition-no-longer-checked"
        assert a.model.summary.verdict != "pure-refactor"
