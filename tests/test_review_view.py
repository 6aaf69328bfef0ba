"""The review view (issue 31): every changed line once, folded by what explains it or left; in the
HTML page, the Markdown report (en, zh), the PR comment, the JSON ledger and the terminal."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from prreport.bundle import load_bundle
from prreport.config import Config
from prreport.findings import Finding
from prreport.pipeline import Analysis, analyse
from prreport.render import render_comment, render_html, render_json, render_markdown
from prreport.render.view import left_hunks
from tests import schemacheck

BUNDLES = Path(__file__).resolve().parent / "corpus" / "bundles"
# A pure refactor (a helper inlined, proven), a bug fix (a witnessed change) and an unproven one.
PURE, FIX, UNPROVEN = "rich-0999b404", "attrs-c9150d27", "pip-4b803478"


@pytest.fixture(scope="module")
def analyses() -> dict[str, Analysis]:
    return {
        cid: analyse(load_bundle(BUNDLES / f"{cid}.json.gz"), Config())
        for cid in (PURE, FIX, UNPROVEN)
    }


def _rows(a: Analysis) -> dict[tuple[str, str, int], list[str]]:
    placed: dict[tuple[str, str, int], list[str]] = {}
    for f in a.model.diff:
        for h in f["hunks"]:
            for b in h["blocks"]:
                for r in b["rows"]:
                    if r["sign"] != " ":
                        n = r["old"] if r["sign"] == "-" else r["new"]
                        placed.setdefault((f["path"], r["sign"], n), []).append(b["type"])
    return placed


@pytest.mark.parametrize("cid", [PURE, FIX, UNPROVEN])
def test_every_changed_line_is_placed_once_and_the_counts_agree(analyses, cid) -> None:
    a = analyses[cid]
    led = a.model.ledger
    placed = _rows(a)
    keys = {(f["path"], x["side"], x["line"]) for f in led["files"] for x in f["lines"]}
    assert keys == set(placed) and all(len(v) == 1 for v in placed.values())
    assert led["changed"] == a.model.summary.changed_lines == len(keys)
    left = sum(1 for f in led["files"] for x in f["lines"] if x["left"] is not None)
    assert led["left"] == left == sum(f["left"] for f in a.model.diff)
    assert led["folded"] == led["changed"] - led["left"]
    # a left line is in a left block, a line of a fold has no edit
    for f in led["files"]:
        for x in f["lines"]:
            kinds = placed[(f["path"], x["side"], x["line"])]
            assert (x["left"] is not None) <= (kinds == ["left"])
            if x["by"]:
                assert all(0 <= i < len(a.model.findings) for i in x["by"])
    # files with most lines left first
    lefts = [f["left"] for f in a.model.diff]
    assert lefts == sorted(lefts, reverse=True)


def test_a_pure_refactor_folds_everything_under_its_findings(analyses) -> None:
    a = analyses[PURE]
    assert a.model.summary.verdict == "pure-refactor"
    assert a.model.ledger["left"] == 0 and a.model.ledger["edits"] == []
    page = render_html(a.model, "en")
    assert "inlined into" in page and "proven" in page
    assert 'class="rv-left' not in page and "<script" not in page.lower()


def test_witnessed_lines_are_left_with_what_differs(analyses) -> None:
    a = analyses[FIX]
    assert a.model.summary.verdict == "behavior-change"
    placed = _rows(a)
    witnessed = [
        (e["path"], w.get("side", "+"), w["line"])
        for e in a.model.ledger["edits"]
        for w in e["witnesses"]
    ]
    assert witnessed and all(placed[k] == ["left"] for k in witnessed)
    first = left_hunks(a.model)[0]
    assert first["witnesses"] and first["category"] == "source"  # witnessed edits first
    md = render_markdown(a.model, "en")
    section = md.split("# Lines left to review", 1)[1].split("\n# ", 1)[0]
    assert "what differs: a new branch `if isinstance(state, tuple):`" in section
    assert "```diff" in section and "+            if isinstance(state, tuple):" in section
    zh = render_markdown(a.model, "zh")
    assert "# 待审阅的行" in zh and "不同之处：" in zh and "行待审阅" in zh


def test_html_review_section_folds_with_details_and_switches_without_script(analyses) -> None:
    a = analyses[UNPROVEN]
    page = render_html(a.model, "en")
    assert 'href="#review"' in page and 'id="review"' in page
    toc = re.search(r'<nav class="toc">.*?</nav>', page, re.S)
    assert toc and ">Review</a>" in toc.group(0)
    assert '<details class="rv-fold">' in page and 'class="rv-left' in page
    assert 'id="rv-left"' in page and "#rv-left:checked" in page  # the CSS-only switch
    assert "<script" not in page.lower() and "default-src 'none'" in page
    assert "not proven, no behaviour change shown" in page
    # the Markdown report has no placeholder of the page's section
    assert "PRREPORTREVIEW" not in render_markdown(a.model, "en") + page
    zh = render_html(a.model, "zh")
    assert ">审阅</a>" in zh and "只看待审阅的行" in zh


def test_json_ledger_is_in_the_schema_and_the_view_is_not(analyses) -> None:
    for a in analyses.values():
        data = json.loads(render_json(a.model))
        schemacheck.check(data, "report")
        assert "diff" not in data and data["ledger"]["changed"] == data["summary"]["changed_lines"]


def test_comment_has_the_count_and_the_left_over_edits(analyses) -> None:
    body = render_comment(analyses[FIX].model, "en")
    assert "| **Lines left to review** | 33 of 40 changed lines (5 edits, listed below) |" in body
    assert "<summary>Lines left to review (33)</summary>" in body
    assert body.count("<details>") == body.count("</details>")
    assert "| **待审阅的行** |" in render_comment(analyses[FIX].model, "zh")


def test_terminal_summary_prints_the_count(analyses) -> None:
    from prreport.cli.terminal import summary_markdown

    text = summary_markdown(render_markdown(analyses[UNPROVEN].model, "en"), [])
    assert "**Lines left to review**: 2 of 23 changed lines (2 edits)." in text


def test_small_diff_folds_by_finding_keeps_witnesses_and_absorbs_blank_lines() -> None:
    # m.py: line 11 explained by an extraction, line 10 left; a witness on a line a finding
    # explains is left all the same; formatting and the comment fold (or join the left run).
    from prreport.report.ledger import ledger_of
    from prreport.report.lines import review_lines
    from tests.test_ledger import AFTER, BEFORE, _bundle, _change

    fd = Finding("code.extracted", "m.py", 11, "g", "", {}, (("m.py", "+", 11), ("m.py", "+", 5)))
    bundle = _bundle(_change("m.py", BEFORE, AFTER))
    ledger = ledger_of(bundle, [fd], [])
    wit = [{"kind": "value", "path": "m.py", "line": 5, "side": "+", "before": "", "after": ""}]
    led, diff = review_lines(ledger, [fd], wit)
    lines = {(x["side"], x["line"]): x for x in led["files"][0]["lines"]}
    assert lines[("+", 11)]["by"] == [0] and lines[("+", 11)]["left"] is None
    assert lines[("-", 10)]["left"] is not None
    assert lines[("+", 5)]["left"] is not None  # witnessed: never folded
    assert lines[("-", 5)]["left"] is None and lines[("-", 5)]["kind"] == "formatting"
    assert led["left"] == 2 and led["changed"] == 5 and led["edit_count"] == 2
    (edit,) = [e for e in led["edits"] if e["witnesses"]]
    assert (edit["side"], edit["start"]) == ("+", 5)
    blocks = [b["type"] for h in diff[0]["hunks"] for b in h["blocks"]]
    assert "fold" in blocks and "left" in blocks
