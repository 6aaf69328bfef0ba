"""The organisation digest: ``digest plan`` against the local GitHub API, ``digest merge`` of
per-repository digests, and the merge equal to a digest built in one process over the same PRs."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from prreport.config import Config, DigestConfig, GitHubConfig
from prreport.digest.build import make_digest, make_org_digest
from prreport.digest.merge import merge_shards
from prreport.digest.render import render_digest
from prreport.digest.summary import Digest
from prreport.digest.window import resolve_window
from prreport.errors import ConfigError
from tests.conftest import run_cli
from tests.fixtures.digest_repo import WEEK, DigestRepo, build_digest_repo

TOKEN = "org-token"
REPOS = ("acme/alpha", "acme/beta", "acme/gamma")
# Listed by the organisation but given no matrix job: archived, a fork, not pushed this week.
SKIPPED = (
    {"full_name": "acme/attic", "archived": True, "pushed_at": "2026-08-20T10:00:00Z"},
    {"full_name": "acme/forked", "fork": True, "pushed_at": "2026-08-20T10:00:00Z"},
    {"full_name": "acme/quiet", "pushed_at": "2026-06-01T10:00:00Z"},
)


@pytest.fixture(scope="module")
def org_repo(tmp_path_factory: pytest.TempPathFactory) -> DigestRepo:
    """One small generated week, served below as three repositories of ``acme``."""
    return build_digest_repo(tmp_path_factory.mktemp("org") / "widgets", n_each=1)


@pytest.fixture(scope="module")
def org_server(org_repo: DigestRepo):
    from tests.fixtures.github.make import _repo_fixture
    from tests.ghserver import GitHubServer, GitHubState
    from tests.ghserver_issues import add_digest_routes
    from tests.ghserver_org import add_org_routes

    prs = {
        p.number: {"base": org_repo.repo.git("rev-parse", f"{p.sha}^1").strip(), "head": p.sha}
        for p in org_repo.prs
    }
    state = GitHubState()
    for full in REPOS:
        state.repos[full] = _repo_fixture(org_repo.repo, full, prs)
    server = GitHubServer(state, token=TOKEN)
    add_digest_routes(server, {TOKEN: "digest-bot"})
    listing = [{"full_name": r, "pushed_at": "2026-08-23T10:00:00Z"} for r in REPOS]
    add_org_routes(server, {"acme": [*listing, *SKIPPED], "solo": listing[:1]}, users=("solo",))
    with server:
        yield server


def _config(server: Any, cache: Path, repo: str = "") -> Config:
    return Config(
        github=GitHubConfig(repo=repo, api_url=server.url, cache=False),
        digest=DigestConfig(workers=2, cache_dir=str(cache)),
    )


@pytest.fixture(scope="module")
def shards(
    org_server: Any, tmp_path_factory: pytest.TempPathFactory
) -> tuple[list[Digest], Path, Path]:
    """Each repository's digest as its own matrix job would build it, written to disk."""
    cache = tmp_path_factory.mktemp("org-cache")
    out = tmp_path_factory.mktemp("org-out")
    mp = pytest.MonkeyPatch()
    mp.setenv("GITHUB_TOKEN", TOKEN)
    try:
        digests = [
            make_digest(_config(org_server, cache, repo), resolve_window(WEEK), source="github")
            for repo in REPOS
        ]
    finally:
        mp.undo()
    for d in digests:
        for path, text in render_digest(d, ("en",), ("md", "json"), out).items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    return digests, cache, out


def _comparable(d: Digest) -> dict[str, Any]:
    data = d.to_json()
    data.pop("stats")  # how many came from the cache differs from run to run
    return data


def test_plan_lists_the_active_repositories(org_server: Any, tmp_path: Path):
    gh_output = tmp_path / "gh-output"
    res = run_cli(
        "digest",
        "plan",
        "--org",
        "acme",
        "--week",
        WEEK,
        "--github-api-url",
        org_server.url,
        env={"GITHUB_TOKEN": TOKEN, "GITHUB_OUTPUT": str(gh_output)},
    )
    assert res.returncode == 0, res.stderr
    plan = json.loads(res.stdout)
    assert plan["window"]["label"] == WEEK
    assert plan["include"] == [{"repo": r, "week": WEEK} for r in REPOS]
    lines = dict(line.split("=", 1) for line in gh_output.read_text().splitlines())
    assert json.loads(lines["matrix"]) == plan and lines["week"] == WEEK and lines["count"] == "3"
    # A user's repositories, when the owner is no organisation.
    res = run_cli(
        "digest", "plan", "--org", "solo", "--week", WEEK, "--github-api-url", org_server.url,
        env={"GITHUB_TOKEN": TOKEN},
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert [e["repo"] for e in json.loads(res.stdout)["include"]] == ["acme/alpha"]


def test_plan_from_a_list_file_and_errors(org_server: Any, tmp_path: Path):
    listing = tmp_path / "repos.txt"
    listing.write_text("# ours\nacme/beta\n\nacme/alpha  # the first\nacme/beta\n")
    res = run_cli("digest", "plan", "--list", str(listing), "--week", WEEK)
    assert res.returncode == 0, res.stderr
    assert [e["repo"] for e in json.loads(res.stdout)["include"]] == ["acme/alpha", "acme/beta"]
    listing.write_text("acme/alpha\nnot a repo\n")
    res = run_cli("digest", "plan", "--list", str(listing))
    assert res.returncode == 2 and f"{listing}:2" in res.stderr and "OWNER/NAME" in res.stderr
    res = run_cli("digest", "plan")
    assert res.returncode == 2 and "--org OWNER or --list FILE" in res.stderr
    res = run_cli(
        "digest", "plan", "--org", "nobody", "--github-api-url", org_server.url,
        env={"GITHUB_TOKEN": TOKEN},
    )  # fmt: skip
    assert res.returncode == 2, res.stderr
    assert res.stderr.startswith("error: ") and "nobody" in res.stderr
    assert "Traceback" not in res.stderr


def test_a_since_until_plan_hands_each_matrix_job_the_same_window(tmp_path: Path):
    listing = tmp_path / "repos.txt"
    listing.write_text("acme/alpha\nacme/beta\n")
    res = run_cli(
        "digest", "plan", "--list", str(listing), "--since", "2026-08-17", "--until", "2026-08-23"
    )
    assert res.returncode == 0, res.stderr
    plan = json.loads(res.stdout)
    label = plan["window"]["label"]
    assert label == "2026-08-17_2026-08-23"
    assert plan["include"] == [
        {"repo": r, "week": label, "since": "2026-08-17", "until": "2026-08-23"}
        for r in ("acme/alpha", "acme/beta")
    ]
    # What the workflow's matrix job passes on resolves to the plan's window, so every shard
    # is named and bounded alike and the merge accepts them together.
    entry = plan["include"][0]
    job = resolve_window(None, entry["since"], entry["until"])
    assert job.to_json() == plan["window"]
    text = WORKFLOW.read_text(encoding="utf-8")
    assert (
        'window=(--since "$SINCE" --until "$UNTIL")' in text
        and "SINCE: ${{ matrix.since }}" in text
    )
    res = run_cli("digest", "plan", "--list", str(listing), "--week", WEEK, "--since", "2026-08-17")
    assert res.returncode == 2 and "exclusive" in res.stderr


def test_merge_equals_one_process_digest_in_any_order(
    org_server: Any, shards: tuple[list[Digest], Path, Path], monkeypatch: pytest.MonkeyPatch
):
    digests, cache, _out = shards
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    one = make_org_digest(_config(org_server, cache), resolve_window(WEEK), REPOS, "acme")
    assert one.totals["repos"] == 3 and one.totals["prs"] == 3 * digests[0].totals["prs"]
    expected = _comparable(one)
    # Through JSON, as the matrix jobs hand them over, in every order.
    data = [json.loads(json.dumps(d.to_json())) for d in digests]
    for order in itertools.permutations(data):
        assert _comparable(merge_shards(list(order))) == expected
    merged = merge_shards(data)
    assert merged.repo == "acme" and merged.source == "github"
    assert merged.stats["analysed"] + merged.stats["cached"] == merged.totals["analysed"]
    # Totals are the sums of the shards' totals (the derived repository count aside).
    for key, value in merged.totals.items():
        if key != "repos":
            assert value == sum(d.totals[key] for d in digests), key
    # Ordered by what needs attention: block, review, skim.
    rank = {"block": 0, "review": 1, "skim": 2}
    actions = [rank[p["action"]] for p in merged.prs]
    assert actions == sorted(actions)


def test_merge_command_writes_and_publishes_the_org_digest(
    org_server: Any, shards: tuple[list[Digest], Path, Path], tmp_path: Path
):
    from tests.ghserver_issues import issues_of

    _digests, _cache, out = shards
    res = run_cli(
        "digest", "merge", str(out / "digests"), "--out", str(out), "--lang", "en,zh",
        "--github", "acme/alpha", "--github-api-url", org_server.url, "--publish", "issue",
        env={"GITHUB_TOKEN": TOKEN, "CI": "true"},
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "3 repositories" in res.stderr and "created issue #" in res.stderr
    base = out / "digests" / "acme"
    assert sorted(p.name for p in base.iterdir()) == [
        f"{WEEK}.html", f"{WEEK}.json", f"{WEEK}.md", f"{WEEK}.zh.html", f"{WEEK}.zh.md",
    ]  # fmt: skip
    md = (base / f"{WEEK}.md").read_text(encoding="utf-8")
    assert md.startswith("# Organisation digest: `acme` 2026-W34")
    for repo in REPOS:
        assert f"| `{repo}` |" in md
    # Each row links to the PR and to its report, which the repository's own job wrote.
    first = json.loads((base / f"{WEEK}.json").read_text(encoding="utf-8"))["prs"][0]
    link = f"../{first['repo'].replace('/', '-')}/{WEEK}/pr-{first['number']}.md"
    assert f"· [report]({link})" in md and (base / link).resolve().is_file()
    assert "```mermaid\nxychart-beta" in md and "```mermaid\npie showData" in md
    html = (base / f"{WEEK}.html").read_text(encoding="utf-8")
    assert "<svg" in html and "<script" not in html and "language-mermaid" not in html
    (issue,) = issues_of(org_server, "acme/alpha")
    assert "acme 2026-W34" in issue["title"] and "[report](" not in issue["body"]
    # A second merge leaves the one issue as it is.
    res = run_cli(
        "digest", "merge", str(out / "digests" / "acme-alpha"), str(out / "digests" / "acme-beta"),
        str(out / "digests" / "acme-gamma"), "--out", "-", "--format", "md",
        "--github", "acme/alpha", "--github-api-url", org_server.url, "--publish", "issue",
        env={"GITHUB_TOKEN": TOKEN, "CI": "true"},
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "unchanged issue" in res.stderr and len(issues_of(org_server, "acme/alpha")) == 1


def test_merge_refuses_mixed_windows_and_repeated_repositories(
    shards: tuple[list[Digest], Path, Path], tmp_path: Path
):
    digests, _cache, _out = shards
    a, b = (json.loads(json.dumps(d.to_json())) for d in digests[:2])
    with pytest.raises(ConfigError, match="more than one digest"):
        merge_shards([a, a])
    b["window"] = {**b["window"], "label": "2026-W35"}
    with pytest.raises(ConfigError, match="same --week"):
        merge_shards([a, b])
    res = run_cli("digest", "merge", str(tmp_path))
    assert res.returncode == 2 and "no digest JSON" in res.stderr


WORKFLOW = Path(__file__).resolve().parent.parent / ".github" / "workflows" / "org-digest.yml"


def test_org_workflow_wires_plan_matrix_merge_with_least_privilege():
    import yaml

    wf = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    on = wf.get("on", wf.get(True))
    assert set(on) == {"workflow_call"} and wf["permissions"] == {}
    jobs = wf["jobs"]
    assert list(jobs) == ["plan", "digest", "merge", "publish"]
    assert jobs["digest"]["needs"] == "plan"
    assert "fromJSON(needs.plan.outputs.matrix)" in jobs["digest"]["strategy"]["matrix"]
    assert jobs["digest"]["strategy"]["fail-fast"] is False
    assert jobs["merge"]["needs"] == ["plan", "digest"] and jobs["merge"]["permissions"] == {}
    assert jobs["digest"]["permissions"] == {"pull-requests": "read"}
    assert jobs["publish"]["permissions"] == {"issues": "write"}
    text = WORKFLOW.read_text(encoding="utf-8")
    for needle in ("digest plan", "digest merge", "digest --github", "--publish issue"):
        assert needle in text
    # Inputs reach the shell only through the environment (no template injection).
    for job in jobs.values():
        for step in job["steps"]:
            assert "${{" not in step.get("run", ""), step.get("name")


@pytest.mark.slow
def test_org_workflow_is_zizmor_clean():
    import shutil
    import subprocess
    import sys

    exe = Path(sys.executable).parent / "zizmor"
    found = str(exe) if exe.exists() else shutil.which("zizmor")
    if not found:
        pytest.fail("zizmor is not installed; install the test extras: pip install -e '.[test]'")
    res = subprocess.run(
        [found, "--offline", "--format", "json", str(WORKFLOW)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    assert json.loads(res.stdout) == []
