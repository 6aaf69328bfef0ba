"""The digest's reading order, totals, low-signal line, charts and page, on hand-made facts (fast)."""

from __future__ import annotations

import re
from typing import Any

from prreport.digest.render import with_links
from prreport.digest.summary import summarise
from prreport.digest.window import resolve_window
from prreport.render import render_digest_html, render_digest_markdown
from prreport.render.charts import chart_svg, mermaid_blocks, parse_mermaid

WINDOW = resolve_window("2026-W34")


def _pr(number: int, action: str = "skim", verdict: str = "pure-refactor", **kw: Any) -> dict:
    risks = kw.pop("risks", [])
    facts = {
        "repo": "acme/widgets",
        "number": number,
        "title": kw.pop("title", f"refactor(core): change {number}"),
        "author": "a",
        "url": f"https://github.com/acme/widgets/pull/{number}",
        "merged_at": f"2026-08-18T{number % 24:02d}:00:00+00:00",
        "summary": "",
        "verdict": verdict,
        "series": "refactor(core)",
        "kinds": [],
        "kind_counts": {},
        "live_kind_counts": {},
        "changed_lines": 10,
        "explained_lines": 6,
        "files": 1,
        "risks": [{"id": i, "severity": s, "evidence": 1} for i, s in risks],
        "risk_tags": sorted(i for i, _ in risks),
        "problems": [],
        "action": action,
        "spots": [],
        "spot_count": 0,
    }
    facts.update(kw)
    return facts


def test_ordered_by_action_then_severity_and_low_signal_summarised():
    prs = [
        _pr(1, risks=[("no-tests", "low")]),
        _pr(2, "review", risks=[("no-review", "medium")]),
        _pr(3, "block", verdict="refactor-with-behavior-change", risks=[("guard-dropped", "high")]),
        _pr(4, risks=[("implicit-contract", "low"), ("no-tests", "low")]),
        _pr(5, verdict="behavior-change"),
        _pr(6, "review", risks=[("no-review", "medium"), ("import-in-loop", "medium")]),
    ]
    d = summarise("acme/widgets", "git", WINDOW, list(reversed(prs)), [])
    assert [p["number"] for p in d.prs] == [3, 6, 2, 4, 5, 1]
    assert [r["id"] for r in d.top_risks] == [
        "guard-dropped",
        "no-review",
        "import-in-loop",
        "implicit-contract",
    ]
    (low,) = d.low_signal
    assert (low["id"], low["count"], low["alone"]) == ("no-tests", 2, 1)
    assert (d.totals["block"], d.totals["review"], d.totals["skim"]) == (1, 2, 3)
    md = render_digest_markdown(with_links(d.to_json(), "en", "md"), "en")
    assert "Low signal: `no-tests` (low) in 2 PRs, 1 with no other risk" in md
    table = md.split("# What needs attention")[1].split("# At a glance")[0]
    rows = [ln for ln in table.splitlines() if ln.startswith("| [#")]
    assert [re.match(r"\| \[#(\d+)\]", r).group(1) for r in rows] == ["3", "6", "2", "4", "5", "1"]
    assert "[report](../acme-widgets/2026-W34/pr-3.md)" in rows[0] and "**block**" in rows[0]
    assert "`no-tests`" not in "".join(rows)  # low signal never fills a row's "where to look"


def test_accounted_behaviour_changes_are_not_counted_against_a_pure_refactor():
    pr = _pr(
        7,
        kind_counts={"behavior.changed": 2, "code.extracted": 1},
        live_kind_counts={"code.extracted": 1},
    )
    d = summarise("acme/widgets", "git", WINDOW, [pr], [])
    assert d.totals["pure_refactors"] == 1 and d.totals["behavior_changes"] == 0
    assert d.totals["behavior_changes_accounted"] == 2


def test_spots_at_most_three_with_the_rest_counted():
    spots = [{"risk": "guard-changed", "path": f"pkg/m{i}.py", "line": i + 1} for i in range(3)]
    pr = _pr(8, "review", spots=spots, spot_count=5, risks=[("guard-changed", "medium")])
    md = render_digest_markdown(summarise("acme/widgets", "git", WINDOW, [pr], []).to_json(), "en")
    row = next(ln for ln in md.splitlines() if ln.startswith("| [#8]"))
    assert row.count("(guard-changed)") == 3 and "`pkg/m2.py:3`" in row and "and 2 more" in row


def test_charts_are_mermaid_in_markdown_and_svg_in_html():
    prs = [_pr(1), _pr(2, verdict="behavior-change", title='fix(a"b): <script>x</script>')]
    prs[1]["series"] = 'fix(a"b)'
    data = summarise("acme/widgets", "git", WINDOW, prs, []).to_json()
    for lang in ("en", "zh"):
        md = render_digest_markdown(data, lang)
        blocks = mermaid_blocks(md)
        assert [b[2].splitlines()[0] for b in blocks] == [
            "pie showData",
            "pie showData",
            "xychart-beta",
        ]
        charts = [parse_mermaid(b[2]) for b in blocks]
        assert all(c is not None for c in charts)
        html = render_digest_html(data, lang)
        assert html.count("<svg") == 3 and "language-mermaid" not in html
        assert "<script" not in html and "&lt;script&gt;" in html
        assert "default-src 'none'" in html  # the CSP is the page's, unchanged
        assert '<div class="table-wrap"><table>' in html
    pie = parse_mermaid('pie showData\n    title T\n    "a" : 3\n    "b" : 1')
    assert pie is not None and pie.values == (3.0, 1.0)
    svg = chart_svg(pie)
    assert svg.count("<path") == 2 and "a: 3 (75%)" in svg
    xy = parse_mermaid(
        'xychart-beta\n  title "X"\n  %% series: one | two\n  x-axis ["p<q", "r"]\n  bar [1, 2]\n  line [2, 0]'
    )
    assert xy is not None and [d.name for d in xy.datasets] == ["one", "two"]
    svg = chart_svg(xy)
    assert "p&lt;q" in svg and "<polyline" in svg and svg.count("<rect") >= 2
    assert parse_mermaid("graph TD\n  A-->B") is None  # anything else stays a code block
    assert parse_mermaid('pie\n  "a" : x') is None


def test_fail_on_sees_the_live_kinds(tmp_path):
    import json

    from tests.conftest import run_cli

    accounted = _pr(
        7,
        kind_counts={"behavior.changed": 1, "code.extracted": 1},
        live_kind_counts={"code.extracted": 1},
    )
    live = _pr(9, verdict="behavior-change", kind_counts={"behavior.changed": 1})
    live["live_kind_counts"] = {"behavior.changed": 1}
    for prs, code in (([accounted], 0), ([accounted, live], 1)):
        path = tmp_path / "d.json"
        data = summarise("acme/widgets", "git", WINDOW, prs, []).to_json()
        path.write_text(json.dumps(data), encoding="utf-8")
        res = run_cli(
            "digest", "--from-json", str(path), "--fail-on", "behavior.changed",
            "--out", str(tmp_path / "out"), "--quiet",
        )  # fmt: skip
        assert res.returncode == code, res.stderr
        assert ("#7" in res.stderr) is False
    assert "fail-on: #9 has behavior.changed" in res.stderr


def test_a_digest_json_of_the_previous_version_is_read_and_summed_again(tmp_path):
    import json

    from prreport.digest.load import load_digest_json

    data = summarise(
        "acme/widgets", "git", WINDOW, [_pr(1), _pr(2, risks=[("guard-dropped", "high")])], []
    ).to_json()
    for p in data["prs"]:
        for key in ("live_kind_counts", "action", "spots", "spot_count", "repo"):
            p.pop(key)
    del data["low_signal"], data["repos"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    again = load_digest_json(path)
    assert [(p["number"], p["action"]) for p in again["prs"]] == [(2, "block"), (1, "skim")]
    assert again["totals"]["block"] == 1 and again["repos"][0]["repo"] == "acme/widgets"
