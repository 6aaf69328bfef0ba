"""The digest as adopters' repositories write PR titles and who opens PRs (issue 36):
bracketed and prefixed types are series types, draft and bot PRs are left out unless asked for,
and the HTML table fits a 1200 px page."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from prreport.series import series_of
from tests.conftest import run_cli
from tests.gitrepo import Repo


@pytest.mark.parametrize(
    ("title", "series"),
    [
        ("[refactor] hoist imports", "refactor"),
        ("[Refactor][core] hoist imports", "refactor(core)"),
        ("[fix] off by one", "fix"),
        ("[Bugfix] off by one", "bugfix"),
        ("Refactor: hoist imports", "refactor"),
        ("refactor(disagg): hoist", "refactor(disagg)"),
        ("fix( ): blank scope", "fix"),
        ("[WIP] not a type", ""),
        ("[Draft] refactor: later", ""),
        ("Hoist imports", ""),
    ],
)
def test_bracketed_and_prefixed_types_are_series(title, series):
    assert series_of(title) == series


def _week_repo(tmp_path: Path) -> Repo:
    repo = Repo(tmp_path / "r")
    repo.commit("init", {"pkg/__init__.py": "", "pkg/a.py": "def f():\n    return 1\n"})
    repo.commit("[refactor] tidy (#3)", {"pkg/a.py": "def f():\n    return 2\n"})
    repo.commit("build(deps): bump rich (#4)", {"pkg/b.py": "X = 1\n"}, author="dependabot[bot]")
    return repo


def _digest(repo: Repo, tmp_path: Path, *extra: str) -> dict:
    out = tmp_path / "o"
    res = run_cli(
        "digest", "--repo", str(repo.path), "--since", "2026-08-01", "--until", "2026-08-31",
        "--out", str(out), "--cache-dir", str(tmp_path / "c"), "--format", "json,html", "-q",
        *extra, env={"CI": "true"},
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    (path,) = out.rglob("*.json")
    return json.loads(path.read_text(encoding="utf-8"))


def test_bot_prs_are_left_out_by_default_and_counted(tmp_path):
    data = _digest(_week_repo(tmp_path), tmp_path)
    assert [p["number"] for p in data["prs"]] == [3]
    assert data["stats"]["skipped_bots"] == 1 and "skipped_drafts" not in data["stats"]
    assert [s["key"] for s in data["series"]] == ["refactor"]
    both = _digest(_week_repo(tmp_path / "again"), tmp_path / "again", "--include", "bot,draft")
    assert sorted(p["number"] for p in both["prs"]) == [3, 4]
    bad = run_cli("digest", "--repo", str(tmp_path / "r"), "--include", "robots")
    assert bad.returncode == 2 and "--include" in bad.stderr and "Traceback" not in bad.stderr


def test_draft_and_bot_prs_from_the_github_listing_are_left_out():
    from prreport.digest.discover import MergedPR, skip_drafts_and_bots

    found = [
        MergedPR(1, "a", "2026-08-10T00:00:00Z", author="alice"),
        MergedPR(2, "b", "2026-08-10T00:00:00Z", author="renovate[bot]"),
        MergedPR(3, "c", "2026-08-10T00:00:00Z", author="svc", bot=True),
        MergedPR(4, "d", "2026-08-10T00:00:00Z", author="bob", draft=True),
    ]
    kept, skipped = skip_drafts_and_bots(found, ())
    assert [p.number for p in kept] == [1]
    assert skipped == {"skipped_drafts": 1, "skipped_bots": 2}
    kept, _ = skip_drafts_and_bots(found, ("bot",))
    assert [p.number for p in kept] == [1, 2, 3]


def test_the_listing_reads_draft_and_bot_from_the_listed_json():
    from github import Auth, Github
    from github.PullRequest import PullRequest

    from prreport.sources.github.window import _is_bot, _listed

    gh = Github(auth=Auth.Token("t"), base_url="http://127.0.0.1:9", lazy=True)
    pr = gh.create_from_raw_data(
        PullRequest, {"number": 5, "draft": True, "user": {"login": "x", "type": "Bot"}}
    )
    gh.close()
    assert _listed(pr)["draft"] is True and _is_bot(_listed(pr)["user"])
    assert not _is_bot({"login": "alice", "type": "User"}) and _is_bot({"login": "a[bot]"})


def test_the_html_digest_table_fits_1200_px(tmp_path):
    """The page is 1200 px wide and only headers and the PR column keep to one line, so the
    narrowest the attention table can be is its headers and PR links: well under 1200 px."""
    _digest(_week_repo(tmp_path), tmp_path)
    (page,) = (tmp_path / "o" / "digests" / "r").glob("*.html")
    html = page.read_text(encoding="utf-8")
    widths = [int(w) for w in re.findall(r"main\.report \{[^}]*max-width: (\d+)px", html)]
    assert widths[-1] == 1200  # the digest's own rule comes last and wins
    nowrap = re.findall(r"([^{}]+)\{[^}]*white-space: nowrap", html.split("</style>")[0])
    assert [s.strip() for s in nowrap if "table-wrap" in s] == [
        ".table-wrap th, .table-wrap td:first-child"
    ]
    assert ".table-wrap td, .table-wrap td code { overflow-wrap: anywhere; }" in html
    table = html.split('<div class="table-wrap">', 1)[1].split("</table>", 1)[0]
    headers = re.findall(r"<th[^>]*>(.*?)</th>", table)
    firsts = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<tr>\s*<td[^>]*>(.*?)</td>", table)]
    # 9 px a character at the table's .92em, 1 rem of padding a cell: what cannot wrap.
    narrowest = sum(9 * len(re.sub(r"<[^>]+>", "", h)) + 16 for h in headers[1:])
    narrowest += 9 * max(len(c) for c in [headers[0], *firsts]) + 16
    assert narrowest < 1200 - 48, (headers, narrowest)
