"""The weekly digest on a generated repository with 54 PRs merged in 2026-W34 (plus a few outside)."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

import prreport.digest.jobs as jobs_mod
from prreport.config import Config, DigestConfig, GitConfig
from prreport.digest.build import build_digest, make_digest
from prreport.digest.render import render_digest
from prreport.digest.summary import Digest
from prreport.digest.window import resolve_window
from prreport.errors import ConfigError
from prreport.pipeline import analyse, gather
from prreport.series import series_of
from prreport.sources.git import GitSource
from tests.conftest import run_cli
from tests.fixtures.digest_repo import WEEK, WEEK_END, WEEK_START, DigestRepo, build_digest_repo

BEHAVIOUR = ("behavior-change", "refactor-with-behavior-change")


@pytest.fixture(scope="module")
def week_repo(tmp_path_factory: pytest.TempPathFactory) -> DigestRepo:
    """The generated repository (built once for this module)."""
    return build_digest_repo(tmp_path_factory.mktemp("digest") / "widgets")


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One analysis cache shared by the module's digests."""
    return tmp_path_factory.mktemp("digest-cache")


def _config(repo: DigestRepo, cache: Path | str, workers: int = 2) -> Config:
    return Config(
        git=GitConfig(repo=str(repo.path)),
        digest=DigestConfig(workers=workers, cache_dir=str(cache)),
    )


@pytest.fixture(scope="module")
def week(week_repo: DigestRepo, cache_dir: Path) -> Digest:
    """The 2026-W34 digest, computed cold (empty cache) with two worker processes."""
    return make_digest(_config(week_repo, cache_dir), resolve_window(WEEK))


def _by_number(d: Digest) -> dict[int, dict]:
    return {p["number"]: p for p in d.prs}


def test_window_edges_and_discovery(week_repo: DigestRepo, week: Digest):
    expected = {p.number for p in week_repo.in_window()}
    assert len(expected) >= 50
    assert {p["number"] for p in week.prs} == expected
    starts = [p for p in week_repo.prs if p.when == WEEK_START]
    ends = [p for p in week_repo.prs if p.when == WEEK_END]
    assert starts and starts[0].number in expected  # the window's first instant is inside
    assert ends and ends[0].number not in expected  # its end is exclusive
    # Squash titles lose their "(#N)"; merge commits give the title from their body.
    merged = week_repo.of_kind("merge")
    assert merged and all(_by_number(week)[p.number]["title"] == p.title for p in merged)
    assert week.window.to_json() == {
        "label": WEEK,
        "since": "2026-08-17T00:00:00Z",
        "until": "2026-08-24T00:00:00Z",
    }


def test_totals_and_series(week_repo: DigestRepo, week: Digest):
    t = week.totals
    in_window = week_repo.in_window()
    assert t["prs"] == t["analysed"] == len(in_window)
    assert t["not_analysed"] == 0
    # Lines changed: what git itself counts for each PR against its first parent.
    lines = 0
    for p in in_window:
        parent = week_repo.repo.git("rev-parse", f"{p.sha}^1").strip()
        lines += sum(a + d for a, d in week_repo.repo.numstat(parent, p.sha).values())
    assert t["lines_changed"] == lines
    assert 0 < t["lines_explained"] <= t["lines_changed"]
    # Series: conventional-commit type(scope), biggest first, untyped titles last.
    expected: dict[str, list[int]] = {}
    for p in in_window:
        expected.setdefault(series_of(p.title), []).append(p.number)
    assert {s["key"]: s["numbers"] for s in week.series} == {
        k: sorted(v) for k, v in expected.items()
    }
    counts = [s["count"] for s in week.series if s["key"]]
    assert counts == sorted(counts, reverse=True)
    assert week.series[-1]["key"] == ""
    assert {s["key"]: s["count"] for s in week.series}["refactor(disagg)"] == len(
        week_repo.of_kind("hoist")
    )
    # Totals are the sums of the per-PR facts.
    assert t["pure_refactors"] == sum(p["verdict"] == "pure-refactor" for p in week.prs)
    assert t["behavior_changes"] == sum(p["verdict"] in BEHAVIOUR for p in week.prs)
    assert t["dead_code_removed"] == sum(
        p["kind_counts"].get("code.dead-removed", 0) for p in week.prs
    )
    assert t["cycles_risked"] == sum(p["kind_counts"].get("cycle.risk", 0) for p in week.prs)


def test_refactor_kinds_counted(week_repo: DigestRepo, week: Digest):
    prs = _by_number(week)
    hoists = week_repo.of_kind("hoist")
    for p in hoists:  # two names hoisted out of one while-loop each
        facts = prs[p.number]
        assert facts["kind_counts"].get("import.hoisted") == 2, facts
        assert facts["kind_counts"].get("loop.imports-removed") == 1, facts
        assert facts["verdict"] == "pure-refactor", facts
    assert week.totals["imports_hoisted"] == 2 * len(hoists)
    assert week.totals["loops_freed_of_imports"] == len(hoists)
    assert week.totals["imports_sunk"] == 0
    for p in week_repo.of_kind("dead"):
        assert prs[p.number]["kind_counts"].get("code.dead-removed") == 1, prs[p.number]
    for p in week_repo.of_kind("rename"):
        assert "symbol.renamed" in prs[p.number]["kinds"], prs[p.number]
    for p in week_repo.of_kind("fix"):  # the slice end moved: behaviour changed
        assert prs[p.number]["verdict"] in BEHAVIOUR, prs[p.number]
    assert week.totals["behavior_changes"] >= len(week_repo.of_kind("fix"))


def test_digest_facts_match_the_single_pr_report(week_repo: DigestRepo, week: Digest):
    for p in (week_repo.of_kind("hoist")[0], week_repo.of_kind("fix")[0]):
        source = GitSource(str(p.number), GitConfig(repo=str(week_repo.path)))
        try:
            bundle = gather(source, Config(git=GitConfig(repo=str(week_repo.path))))
        finally:
            source.close()
        model = analyse(bundle, Config()).model.to_json()
        facts = _by_number(week)[p.number]
        assert facts["kind_counts"] == model["summary"]["kind_counts"]
        assert facts["verdict"] == model["summary"]["verdict"]
        assert facts["changed_lines"] == model["summary"]["changed_lines"]
        assert facts["risk_tags"] == sorted({r["id"] for r in model["risks"]})


def test_unparseable_file_is_listed_with_why(week_repo: DigestRepo, week: Digest):
    broken = week_repo.of_kind("broken")[0]
    listed = {p["number"]: p for p in week.not_analysed}
    assert set(listed) == {broken.number}
    entry = listed[broken.number]
    assert entry["partial"] is True
    assert any("pkg/core/loader.py" in why and "does not parse" in why for why in entry["reasons"])
    assert week.totals["partially_analysed"] == 1
    assert broken.number in {p["number"] for p in week.prs}  # still counted among the week's PRs


def test_rerun_and_overlapping_window_use_the_cache(
    week_repo: DigestRepo, week: Digest, cache_dir: Path
):
    assert week.stats == {"analysed": len(week_repo.in_window()), "cached": 0, "failed": 0}
    again = make_digest(_config(week_repo, cache_dir), resolve_window(WEEK))
    assert again.stats == {"analysed": 0, "cached": len(week_repo.in_window()), "failed": 0}
    first, second = week.to_json(), again.to_json()
    first.pop("stats")
    second.pop("stats")
    assert first == second
    # A window overlapping W34 analyses only the PRs it does not share with it.
    shifted = make_digest(
        _config(week_repo, cache_dir), resolve_window(since="2026-08-20", until="2026-08-26")
    )
    new = [
        p
        for p in week_repo.prs
        if not p.in_window and datetime(2026, 8, 20, tzinfo=timezone.utc) <= p.when
    ]
    assert len(new) == 2
    assert shifted.stats["analysed"] == len(new)
    assert shifted.stats["cached"] == shifted.totals["prs"] - len(new)


def test_a_failing_pr_does_not_stop_the_digest(
    week_repo: DigestRepo, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    victim = week_repo.in_window()[1].number
    real = jobs_mod.analyse

    def failing(gathered, config, debug=False):  # noqa: ANN001
        if gathered.bundle.pr.number == victim:
            raise RuntimeError("analyzer exploded")
        return real(gathered, config, debug)

    monkeypatch.setattr(jobs_mod, "analyse", failing)
    window = resolve_window(since="2026-08-17", until="2026-08-17")  # the first day only
    d = make_digest(_config(week_repo, tmp_path / "cache", workers=1), window)
    on_day = [p for p in week_repo.in_window() if p.when.date().isoformat() == "2026-08-17"]
    assert d.totals["prs"] == len(on_day) and d.totals["not_analysed"] == 1
    assert d.totals["analysed"] == len(on_day) - 1
    (entry,) = d.not_analysed
    assert entry["number"] == victim and entry["partial"] is False
    assert entry["reasons"] == ["RuntimeError: analyzer exploded"]
    # Nothing was cached for the failed PR: the next run analyses it.
    monkeypatch.setattr(jobs_mod, "analyse", real)
    again = make_digest(_config(week_repo, tmp_path / "cache", workers=1), window)
    assert again.stats == {"analysed": 1, "cached": len(on_day) - 1, "failed": 0}


def test_outputs_are_written_and_well_formed(
    week_repo: DigestRepo, cache_dir: Path, tmp_path: Path
):
    res = run_cli(
        "digest",
        "--repo",
        str(week_repo.path),
        "--week",
        WEEK,
        "--out",
        str(tmp_path),
        "--lang",
        "en,zh",
        "--cache-dir",
        str(cache_dir),
        env={"CI": "true"},
    )
    assert res.returncode == 0, res.stderr
    assert f"{len(week_repo.in_window())} PRs" in res.stderr
    base = tmp_path / "digests" / "acme-widgets"
    names = sorted(p.name for p in base.iterdir())
    assert names == [
        WEEK,  # each PR's report, linked from its row
        f"{WEEK}.html",
        f"{WEEK}.json",
        f"{WEEK}.md",
        f"{WEEK}.zh.html",
        f"{WEEK}.zh.md",
    ]
    data = json.loads((base / f"{WEEK}.json").read_text(encoding="utf-8"))
    assert data["schema"] == "prreport.digest/1" and data["repo"] == "acme/widgets"
    assert data["totals"]["prs"] == len(data["prs"]) == len(week_repo.in_window())
    md = (base / f"{WEEK}.md").read_text(encoding="utf-8")
    zh = (base / f"{WEEK}.zh.md").read_text(encoding="utf-8")
    for p in week_repo.in_window():
        assert f"[#{p.number}](https://github.com/acme/widgets/pull/{p.number})" in md
    assert "| Imports hoisted / sunk | 16 / 0 |" in md
    assert "`refactor(disagg)` | 8 |" in md and "`refactor(disagg)` | 8 |" in zh
    assert "# 每周摘要" in zh and "# 未能分析" in zh
    html = (base / f"{WEEK}.html").read_text(encoding="utf-8")
    assert html.startswith("<!doctype html>") and html.rstrip().endswith("</html>")
    assert "<table>" in html and "<script" not in html
    assert not list(base.glob(".*.tmp"))  # atomic writes leave no temporary files


def test_empty_window_and_bad_flags(week_repo: DigestRepo, tmp_path: Path):
    d = make_digest(_config(week_repo, tmp_path / "c", workers=1), resolve_window("2025-W01"))
    assert d.totals["prs"] == 0 and d.prs == () and d.series == ()
    out = render_digest(d, ["en"], ["md"], tmp_path)
    assert "No PRs merged in this window." in next(iter(out.values()))
    res = run_cli("digest", "--repo", str(week_repo.path), "--week", "2026-W60")
    assert (
        res.returncode == 2
        and res.stderr.strip() == "error: --week: 2026-W60 is not an ISO week of 2026"
    )
    res = run_cli("digest", "--repo", str(week_repo.path), "--since", "2026-08-17")
    assert res.returncode == 2 and "--until" in res.stderr and "Traceback" not in res.stderr


def test_window_resolution():
    wed = datetime(2026, 8, 26, 15, 0, tzinfo=timezone.utc)
    assert resolve_window(now=wed).label == "2026-W34"
    monday_early = datetime(2026, 8, 24, 0, 30, tzinfo=timezone.utc)
    assert resolve_window(now=monday_early).label == "2026-W34"
    new_year = datetime(2026, 1, 2, tzinfo=timezone.utc)  # ISO week 2026-W01 began on 2025-12-29
    assert resolve_window(now=new_year).label == "2025-W52"
    w = resolve_window(since="2026-08-17", until="2026-08-23")
    assert (w.since, w.until, w.label) == (WEEK_START, WEEK_END, "2026-08-17_2026-08-23")
    assert resolve_window("2026w34") == resolve_window(WEEK)
    with pytest.raises(ConfigError, match="exclusive"):
        resolve_window("2026-W34", since="2026-08-17", until="2026-08-18")
    with pytest.raises(ConfigError, match="not after"):
        resolve_window(since="2026-08-18", until="2026-08-16")


def test_top_risks_rank_by_severity(week: Digest):
    ranks = {"critical": 0, "high": 1, "medium": 2, "low": 3, "info": 4}
    order = [ranks[r["severity"]] for r in week.top_risks]
    assert order == sorted(order)
    for r in week.top_risks:
        assert r["count"] == len(r["prs"])
        for p in r["prs"]:
            assert r["id"] in _by_number(week)[p["number"]]["risk_tags"]
    unparseable = [r for r in week.top_risks if r["id"] == "unparseable"]
    assert unparseable and [p["number"] for p in unparseable[0]["prs"]] == [
        week.not_analysed[0]["number"]
    ]


def test_build_digest_without_outcomes_is_empty():
    d = build_digest("o/r", "git", resolve_window(WEEK), [])
    assert d.totals["prs"] == 0 and d.top_risks == () and d.not_analysed == ()


# --- the same week from the local GitHub API server -------------------------------------

TOKEN = "digest-token"


@pytest.fixture(scope="module")
def gh_server(week_repo: DigestRepo):
    """The generated repository served by the local GitHub API (plus 25 PRs merged in July)."""
    from tests.fixtures.github.make import _repo_fixture
    from tests.ghserver import GitHubServer, GitHubState
    from tests.ghserver_issues import add_digest_routes

    prs = {}
    for p in week_repo.prs:
        prs[p.number] = {
            "base": week_repo.repo.git("rev-parse", f"{p.sha}^1").strip(),
            "head": p.sha,
        }
    fixture = _repo_fixture(week_repo.repo, "acme/widgets", prs)
    for k in range(25):  # old history: paging must stop before it
        n = 10 + k
        fixture["pulls"][str(n)] = {
            "title": f"chore: old change {k}",
            "body": "",
            "author": "old",
            "merged_at": f"2026-07-{k + 1:02d}T10:00:00+00:00",
            "created_at": f"2026-07-{k + 1:02d}T09:00:00+00:00",
            "base_sha": prs[101]["base"],
            "head_sha": prs[101]["base"],
        }
    state = GitHubState()
    state.repos["acme/widgets"] = fixture
    server = GitHubServer(state, token=TOKEN)
    add_digest_routes(server, {TOKEN: "digest-bot"})
    with server:
        yield server


@pytest.fixture(scope="module")
def gh_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The analysis cache of the GitHub-source digests (their bundles differ from git's)."""
    return tmp_path_factory.mktemp("digest-gh-cache")


def _gh_config(server, cache: Path) -> Config:  # noqa: ANN001
    from prreport.config import GitHubConfig

    return Config(
        github=GitHubConfig(repo="acme/widgets", api_url=server.url, cache=False),
        digest=DigestConfig(workers=2, cache_dir=str(cache)),
    )


def test_github_digest_matches_the_git_digest(
    gh_server, week: Digest, monkeypatch: pytest.MonkeyPatch, gh_cache: Path
):
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    gh_server.reset_counts()
    gh = make_digest(
        _gh_config(gh_server, gh_cache), resolve_window(WEEK), source="github", page_size=10
    )
    assert gh.repo == "acme/widgets" and gh.source == "github"
    # Same PRs; the order is by what needs attention, which the unproven verdicts below shift.
    assert sorted(p["number"] for p in gh.prs) == sorted(p["number"] for p in week.prs)
    # The GitHub source cannot search the whole repository, so the dead-code removals are not
    # proven there: those verdicts are honestly unknown instead of pure.
    unproven = {p["number"] for p in week.prs if p["kind_counts"].get("code.dead-removed")}
    assert unproven
    by_number = {p["number"]: p for p in week.prs}
    for ours in gh.prs:
        theirs = by_number[ours["number"]]
        if ours["number"] in unproven:
            assert (ours["verdict"], theirs["verdict"]) == ("unknown", "pure-refactor")
        for key in (
            "title",
            *(() if ours["number"] in unproven else ("verdict",)),
            "kind_counts",
            "changed_lines",
            "explained_lines",
            "series",
            "url",
        ):
            assert ours[key] == theirs[key], (ours["number"], key)
    moved = {"pure_refactors": -len(unproven), "unknown_verdicts": len(unproven)}
    # The fixture's PRs have no reviews on GitHub (a medium "no-review" risk, so "review"),
    # which the git source cannot see: the action counts differ, their sum does not.
    actions = ("block", "review", "skim", "low_signal_only")
    assert {k: v for k, v in gh.totals.items() if k not in actions} == {
        k: v + moved.get(k, 0) for k, v in week.totals.items() if k not in actions
    }
    assert sum(gh.totals[k] for k in actions[:3]) == sum(week.totals[k] for k in actions[:3])
    assert gh.totals["review"] == len(gh.prs)
    assert [(s["key"], s["numbers"]) for s in gh.series] == [
        (s["key"], s["numbers"]) for s in week.series
    ]
    # Paging: 82 closed PRs at 10 a page; the window is passed on page 6, so 7-9 are never asked for.
    pages = sorted(
        int(m.group(1)) if (m := re.search(r"[?&]page=(\d+)", r.path)) else 1
        for r in gh_server.requests
        if r.method == "GET" and r.path.split("?")[0] == "/repos/acme/widgets/pulls"
    )
    assert pages == [1, 2, 3, 4, 5, 6]


def test_publish_issue_twice_leaves_one_issue(gh_server, tmp_path: Path, gh_cache: Path):
    from tests.ghserver_issues import issues_of

    args = (
        "digest",
        "--github",
        "acme/widgets",
        "--github-api-url",
        gh_server.url,
        "--week",
        WEEK,
        "--publish",
        "issue",
        "--out",
        str(tmp_path / "out"),
        "--cache-dir",
        str(gh_cache),
    )
    env = {"GITHUB_TOKEN": TOKEN, "CI": "true"}
    first = run_cli(*args, cwd=tmp_path, env=env)
    assert first.returncode == 0, first.stderr
    assert "created issue #" in first.stderr
    second = run_cli(*args, cwd=tmp_path, env=env)
    assert second.returncode == 0, second.stderr
    assert "unchanged issue #" in second.stderr
    # The publish step of the workflow: the saved JSON rendered again (in Chinese this time:
    # a different body, so the same issue is edited in place), then once more: unchanged.
    saved = tmp_path / "out" / "digests" / "acme-widgets" / f"{WEEK}.json"
    again = (
        "digest",
        "--from-json",
        str(saved),
        "--github",
        "acme/widgets",
        "--github-api-url",
        gh_server.url,
        "--publish",
        "issue",
        "--lang",
        "zh",
        "--format",
        "md",
        "--out",
        str(tmp_path / "again"),
    )
    third = run_cli(*again, cwd=tmp_path, env=env)
    assert third.returncode == 0, third.stderr
    assert "updated issue #" in third.stderr
    fourth = run_cli(*again, cwd=tmp_path, env=env)
    assert fourth.returncode == 0, fourth.stderr
    assert "unchanged issue #" in fourth.stderr
    marker = "<!-- prreport:digest repo=acme/widgets window=2026-W34 -->"
    (issue,) = [i for i in issues_of(gh_server, "acme/widgets") if i["body"].startswith(marker)]
    assert issue["body"].startswith("<!-- prreport:digest repo=acme/widgets window=2026-W34 -->\n")
    assert "# 每周摘要" in issue["body"] and issue["author"] == "digest-bot"


def test_publish_never_edits_someone_elses_marked_issue(gh_server):
    from prreport.config import GitHubConfig
    from prreport.publish.digest_issue import issue_marker, publish_digest_issue
    from tests.ghserver_issues import issues_of

    label = "2026-W30"
    planted = {
        "number": 900,
        "title": "look here",
        "body": issue_marker("acme/widgets", label) + "\nnot ours",
        "author": "mallory",
        "created_at": "2026-07-27T10:00:00Z",
        "updated_at": "2026-07-27T10:00:00Z",
    }
    gh_server.state.repos["acme/widgets"].setdefault("issues", []).append(planted)
    config = GitHubConfig(repo="acme/widgets", api_url=gh_server.url, cache=False)
    since = datetime(2026, 7, 20, tzinfo=timezone.utc)
    result = publish_digest_issue(config, TOKEN, "acme/widgets", label, since, "# Weekly digest\n")
    assert result.action == "created" and result.number != 900
    assert planted["body"].endswith("not ours")
    again = publish_digest_issue(
        config, TOKEN, "acme/widgets", label, since, "# Weekly digest\n\nmore\n"
    )
    assert (again.action, again.number) == ("updated", result.number)
    ours = [
        i
        for i in issues_of(gh_server, "acme/widgets")
        if i["body"].startswith(issue_marker("acme/widgets", label))
    ]
    assert sorted(i["author"] for i in ours) == ["digest-bot", "mallory"]


def test_issue_body_fits_the_size_limit():
    from prreport.publish.digest_issue import ISSUE_LIMIT, issue_body

    rows = "\n".join(
        f"| [#{n}](https://github.com/o/r/pull/{n}) | a title @someone | x |" for n in range(3000)
    )
    markdown = f"# Weekly digest\n\n# Pull requests\n\n| PR | Title | X |\n|---|---|---|\n{rows}\n"
    assert len(markdown) > ISSUE_LIMIT
    body = issue_body(markdown, "o/r", WEEK, "the `digest` artifact")
    assert len(body.encode("utf-16-le")) // 2 <= ISSUE_LIMIT
    assert body.startswith("<!-- prreport:digest repo=o/r window=2026-W34 -->\n# Weekly digest")
    assert "the `digest` artifact" in body.rstrip().splitlines()[-1]
    assert "@someone" not in body  # mentions never notify from a digest


def test_weekly_workflow_is_scheduled_off_minute_with_least_privilege():
    import shutil
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    wf = root / ".github" / "workflows" / "weekly-digest.yml"
    text = wf.read_text(encoding="utf-8")
    (cron,) = re.findall(r'cron:\s*"([^"]+)"', text)
    minute, hour = cron.split()[:2]
    assert minute.isdigit() and int(minute) not in (0, 15, 30, 45) and hour.isdigit()
    assert "workflow_dispatch:" in text and "\npermissions: {}\n" in text
    code = "\n".join(line.split("#", 1)[0].rstrip() for line in text.splitlines())
    digest_job, publish_job = code.split("\n  digest:\n", 1)[1].split("\n  publish:\n", 1)
    assert "write" not in digest_job  # reading PRs needs no write access
    assert re.findall(r"\b[\w-]+: write\b", publish_job) == ["issues: write"]
    assert "--from-json" in publish_job  # the window comes from the digest's data
    exe = Path(sys.executable).parent / "zizmor"
    zizmor = str(exe) if exe.exists() else shutil.which("zizmor")
    if not zizmor:
        pytest.fail("zizmor is not installed; install the test extras: pip install -e '.[test]'")
    res = subprocess.run(
        [zizmor, "--offline", "--min-severity", "high", str(wf)], capture_output=True, text=True
    )
    assert res.returncode == 0, res.stdout + res.stderr


@pytest.mark.parametrize(
    "fault, repo, needle",
    [
        ("401", "acme/widgets", "rejected the token (401) while listing the closed PRs"),
        ("500", "acme/widgets", "GitHub answered 500 while listing the closed PRs on acme/widgets"),
        (None, "acme/nope", "repository acme/nope not found at"),
    ],
)
def test_github_digest_errors_are_one_line(gh_server, tmp_path: Path, fault, repo, needle):
    if fault:
        # More failures than retries, so the error surfaces; the server is shared: bounded.
        gh_server.inject(fault, "/repos/acme/widgets/pulls", times=8)
    res = run_cli(
        "digest",
        "--github",
        repo,
        "--github-api-url",
        gh_server.url,
        "--week",
        WEEK,
        "--out",
        str(tmp_path / "out"),
        "-q",
        cwd=tmp_path,
        env={"GITHUB_TOKEN": TOKEN, "CI": "true", "PRREPORT_GITHUB_RETRIES": "1"},
    )
    gh_server.faults.clear()
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], res.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.*"))
