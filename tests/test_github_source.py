"""The GitHub source against a real local GitHub API server (tests/ghserver.py)."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from prreport.config import GitHubConfig
from prreport.sources.github.patch import reverse_apply
from prreport.sources.github.source import GitHubSource
from tests.conftest import load_json, run_cli
from tests.fixtures.github import make
from tests.ghserver import GitHubServer

TOKEN = "ghp_test0123456789abcdefSECRET"
SEED = "sgl-project/sglang"


@pytest.fixture
def server():
    with GitHubServer(token=TOKEN) as srv:
        yield srv


def _gh_cli(
    srv: GitHubServer, tmp: Path, *args: str, repo: str = SEED, target: str = "35980", env=None
):
    full_env = {"GITHUB_TOKEN": TOKEN, "PRREPORT_GITHUB_CACHE_DIR": str(tmp / "cache")}
    full_env.update(env or {})
    return run_cli(
        target,
        "--github",
        repo,
        "--github-api-url",
        srv.url,
        "--out",
        str(tmp / "out"),
        "-q",
        *args,
        cwd=tmp,
        env=full_env,
    )


def _source(srv: GitHubServer, tmp: Path, repo: str, **kw) -> GitHubSource:
    return GitHubSource(
        "0", GitHubConfig(repo=repo, api_url=srv.url, cache_dir=str(tmp / "cache"), **kw)
    )


def _fetch(srv, tmp, monkeypatch, repo: str, number: int, **kw):
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    src = GitHubSource(
        str(number), GitHubConfig(repo=repo, api_url=srv.url, cache_dir=str(tmp / "cache"), **kw)
    )
    try:
        return src.fetch()
    finally:
        src.close()


def _without_review_sections(md: str) -> str:
    """The report minus what only one source knows: review/CI (the API), why PRs are related
    (git sees every commit's files and blame; the API's request budget does not), merger, source."""
    parts = re.split(r"(?m)^(?=# )", md)
    md = "".join(p for p in parts if not re.match(r"# .*(review|related)", p, re.IGNORECASE))
    md = re.sub(r"(?m)^(- Merged: \S+ \S+) by \S+$", r"\1", md)
    md = re.sub(r"\((git|github) source\)", "(source)", md)
    return re.sub(r"; [^;\n]*\bCI\b[^;\n]*\.$", ".", md, flags=re.MULTILINE)


def test_seed_pr_gives_the_same_findings_and_report_as_the_git_source(seed_repo, server, tmp_path):
    repo, _base, _sha = seed_repo
    git = run_cli(
        "35980",
        "--repo",
        str(repo.path),
        "--format",
        "md,json",
        "--out",
        str(tmp_path / "git"),
        "-q",
    )
    assert git.returncode == 0, git.stderr
    gh = _gh_cli(server, tmp_path, "--format", "md,json")
    assert gh.returncode == 0, gh.stderr
    gj = load_json(tmp_path / "git" / "sgl-project-sglang-pr-35980.json")
    hj = load_json(tmp_path / "out" / "sgl-project-sglang-pr-35980.json")
    assert hj["findings"] == gj["findings"]
    assert hj["files"] == gj["files"]
    assert hj["summary"] == gj["summary"]
    assert [(r["number"], r["relation"], r["evidence"]) for r in hj["related"]] == [
        (r["number"], r["relation"], r["evidence"]) for r in gj["related"]
    ]
    assert hj["review"]["reviews_count"] == 1 and hj["review"]["issue_comments_count"] == 1
    assert {c["name"] for c in hj["review"]["ci"]} == {"lint", "unit-test (3.11)", "ci/docs"}
    git_md = (tmp_path / "git" / "sgl-project-sglang-pr-35980.md").read_text(encoding="utf-8")
    gh_md = (tmp_path / "out" / "sgl-project-sglang-pr-35980.md").read_text(encoding="utf-8")
    assert _without_review_sections(gh_md) == _without_review_sections(git_md)


def test_cold_report_within_budget_and_fresh_rerun_costs_nothing(server, tmp_path):
    files = 2
    cold = _gh_cli(server, tmp_path)
    assert cold.returncode == 0, cold.stderr
    assert server.count <= files + 12, server.paths()
    # The head texts come with the first context round (one GraphQL request, no blob GETs);
    # the cycle walk needs one more round at most.
    graphql = [r for r in server.requests if r.path == "/graphql"]
    assert len(graphql) <= 2 and server.requests[3].path == "/graphql", server.paths()
    assert not [r for r in server.requests if "/git/blobs/" in r.path], server.paths()
    # GitHub marks answers fresh for 60 s: an immediate re-run needs no request at all.
    server.reset_counts()
    assert _gh_cli(server, tmp_path).returncode == 0
    assert server.count == 0, server.paths()


def test_rerun_of_stale_answers_is_all_304s(server, tmp_path):
    server.max_age = 0  # every cached answer is stale at once: each is revalidated
    assert _gh_cli(server, tmp_path).returncode == 0
    cold = server.count
    server.reset_counts()
    remaining = server.rate_remaining
    assert _gh_cli(server, tmp_path).returncode == 0
    # Context files came by GraphQL on the first run and from the content store now.
    assert server.count >= cold - 3 and server.count == server.not_modified, server.paths()
    assert server.rate_remaining == remaining
    for p in (tmp_path / "cache").rglob("*"):
        assert not p.is_file() or TOKEN.encode() not in p.read_bytes(), p


def test_no_cache_writes_no_cache_and_refetches(server, tmp_path):
    assert _gh_cli(server, tmp_path, "--no-cache").returncode == 0
    first = server.count
    assert _gh_cli(server, tmp_path, "--no-cache").returncode == 0
    assert server.count == 2 * first and server.not_modified == 0
    assert not (tmp_path / "cache").exists()


def test_pagination_over_a_150_file_pr(server, tmp_path, monkeypatch):
    bundle = _fetch(server, tmp_path, monkeypatch, "o/r", 101)
    assert len(bundle.files) == 150
    assert len({f.path for f in bundle.files}) == 150
    assert server.count <= 150 + 12, server.paths()
    page = bundle.file("docs/page_042.txt")
    assert page and page.before == "page 42\nline two\n" and page.after == "page 42\nline 2\n"
    assert any("page=2" in p for p in server.paths())


def test_binary_file_costs_no_content_request(server, tmp_path, monkeypatch):
    bundle = _fetch(server, tmp_path, monkeypatch, "o/r", 102)
    logo = bundle.file("assets/logo.png")
    assert (
        logo and logo.binary and logo.before is None and logo.after is None and logo.patch is None
    )
    mod = bundle.file("pkg/mod.py")
    assert mod and mod.before == "VALUE = 1\n" and mod.after == "VALUE = 2\n"
    fixture = json.loads((make.HERE / "o__r.json").read_text())
    logo_sha = next(
        f["sha"] for f in fixture["pull_files"]["102"] if f["filename"] == "assets/logo.png"
    )
    assert not [p for p in server.paths() if logo_sha in p or "logo" in p]


def test_file_without_patch_fetches_its_base_and_deleted_file_is_rebuilt(
    server, tmp_path, monkeypatch
):
    bundle = _fetch(server, tmp_path, monkeypatch, "o/r", 103)
    big = bundle.file("pkg/big.py")
    assert big and big.patch is None
    assert big.before and "return x + 7\n" in big.before and "return x + 70\n" in big.after
    old = bundle.file("pkg/old.py")
    assert old and old.status == "deleted" and old.before == "OLD = True\n" and old.after is None
    # The base of big.py needed the contents API; the deleted file's base came from its patch.
    assert [p for p in server.paths() if "/contents/pkg/big.py" in p]
    assert not [p for p in server.paths() if "old.py" in p]


def test_contents_without_content_falls_back_to_the_blobs_api(server, tmp_path, monkeypatch):
    from tests import ghserver

    def over_1mb(s, q, m):  # what GitHub answers for a file over 1 MB
        status, payload = ghserver._contents(s, q, m)
        return status, dict(payload, encoding="none", content="") if status == 200 else payload

    server.route("GET", ghserver._R + r"/contents/(?P<path>.+)", over_1mb)
    bundle = _fetch(server, tmp_path, monkeypatch, "o/r", 103)
    big = bundle.file("pkg/big.py")
    assert big and big.before and "return x + 7\n" in big.before
    contents = [i for i, p in enumerate(server.paths()) if "/contents/pkg/big.py" in p]
    assert contents and "/git/blobs/" in server.paths()[contents[0] + 1]


def test_reverse_apply_rebuilds_every_fixture_base():
    checked = 0
    for name in ("sgl-project__sglang.json", "o__r.json"):
        fx = json.loads((make.HERE / name).read_text())
        for number, files in fx["pull_files"].items():
            pull = fx["pulls"][number]
            trees = {sha: {e["path"]: e["sha"] for e in t} for sha, t in fx["trees"].items()}
            for f in files:
                if (
                    "patch" not in f
                    or f["status"] == "removed"
                    or pull["base_sha"] not in trees
                    or pull["head_sha"] not in trees
                ):
                    continue
                after = base64.b64decode(fx["blobs"][f["sha"]]).decode()
                base_blob = trees[pull["base_sha"]][f.get("previous_filename", f["filename"])]
                before = base64.b64decode(fx["blobs"][base_blob]).decode()
                assert reverse_apply(after, f["patch"], f["additions"], f["deletions"]) == before, (
                    f["filename"]
                )
                checked += 1
    assert checked >= 150


def test_reverse_apply_refuses_a_patch_that_does_not_fit():
    patch = "@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
    assert reverse_apply("a\nc\n", patch, 1, 1) == "a\nb\n"
    assert reverse_apply("a\nX\n", patch, 1, 1) is None
    assert reverse_apply("a\nc\n", patch, 2, 1) is None  # counts say the patch was cut short
    assert (
        reverse_apply("a\nc", "@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n", 1, 1)
        == "a\nb\n"
    )


FAULTS = [
    ("401", "", "rejected the token (401"),
    ("rate-limit", "", "rate limit exhausted"),
    ("403", "", "refused access (403"),
    ("500", "", "failed with 500"),
    ("slow", "", "did not answer within 1 s"),
]


@pytest.mark.parametrize("kind,match,expected", FAULTS, ids=[f[0] for f in FAULTS])
def test_injected_faults_give_one_line_errors(server, tmp_path, kind, match, expected):
    server.inject(kind, match, delay=3.0 if kind == "slow" else 0.0)
    env = {
        "PRREPORT_GITHUB_RETRIES": "1",
        "PRREPORT_GITHUB_TIMEOUT": "1",
        "PRREPORT_GITHUB_MAX_RATE_LIMIT_WAIT": "5",
    }
    proc = _gh_cli(server, tmp_path, "--format", "md,html,json", env=env)
    _assert_clean_failure(proc, tmp_path, expected)
    if kind == "rate-limit":
        assert "resets at" in proc.stderr
    if kind == "500":
        assert server.count == 2  # one retry, then give up


def test_retry_after_is_waited_at_most_the_configured_time(server, tmp_path):
    import time

    server.inject("secondary-rate-limit")
    env = {"PRREPORT_GITHUB_RETRIES": "1", "PRREPORT_GITHUB_MAX_RATE_LIMIT_WAIT": "1"}
    start = time.monotonic()
    proc = _gh_cli(server, tmp_path, env=env)
    assert time.monotonic() - start < 60  # "Retry-After: 3600" was not obeyed
    _assert_clean_failure(proc, tmp_path, "rate limit exhausted")
    assert server.count == 1  # a wait longer than the whole budget is not even started


def test_fault_later_in_the_run_leaves_no_output(server, tmp_path):
    server.inject("500", match="/check-runs")
    proc = _gh_cli(server, tmp_path, "--format", "md,json", env={"PRREPORT_GITHUB_RETRIES": "0"})
    _assert_clean_failure(proc, tmp_path, "failed with 500 while reading check runs")


def test_missing_repository_and_missing_pr_are_told_apart(server, tmp_path):
    proc = _gh_cli(server, tmp_path, repo="nobody/nothing")
    _assert_clean_failure(proc, tmp_path, "repository nobody/nothing not found")
    proc = _gh_cli(server, tmp_path, target="99999")
    _assert_clean_failure(proc, tmp_path, "has no pull request #99999")


def test_wrong_token_is_a_401_and_never_echoed(server, tmp_path):
    proc = _gh_cli(server, tmp_path, env={"GITHUB_TOKEN": "wrong-token-value"})
    _assert_clean_failure(proc, tmp_path, "set a valid GITHUB_TOKEN")
    assert "wrong-token-value" not in proc.stderr + proc.stdout


def test_a_revision_target_is_refused_with_a_hint(server, tmp_path):
    proc = _gh_cli(server, tmp_path, target="HEAD")
    _assert_clean_failure(proc, tmp_path, "needs a PR number")


def test_token_is_in_no_file_the_run_wrote(server, tmp_path):
    proc = _gh_cli(
        server,
        tmp_path,
        "--format",
        "md,html,json",
        "--save-bundle",
        str(tmp_path / "out" / "b.json"),
    )
    assert proc.returncode == 0, proc.stderr
    assert server.requests and all(TOKEN in r.authorization for r in server.requests)
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any("cache" in p.parts for p in written) and (tmp_path / "out" / "b.json").is_file()
    for p in written:
        assert TOKEN.encode() not in p.read_bytes(), p
    assert TOKEN not in proc.stdout + proc.stderr
    bundle = load_json(tmp_path / "out" / "b.json")
    assert bundle["source"] == "github" and bundle["review_data_available"] is True


def test_saved_github_bundle_gives_the_same_report_offline(server, tmp_path):
    proc = _gh_cli(server, tmp_path, "--format", "json", "--save-bundle", str(tmp_path / "b.json"))
    assert proc.returncode == 0, proc.stderr
    offline = run_cli(
        "--bundle",
        str(tmp_path / "b.json"),
        "--format",
        "json",
        "--out",
        str(tmp_path / "off"),
        "-q",
    )
    assert offline.returncode == 0, offline.stderr
    a = load_json(tmp_path / "out" / "sgl-project-sglang-pr-35980.json")
    b = load_json(tmp_path / "off" / "sgl-project-sglang-pr-35980.json")
    assert a["findings"] == b["findings"] and a["review"] == b["review"]


def test_rate_limit_wait_within_the_bound_is_waited_out(server, tmp_path, monkeypatch):
    import time

    server.rate_reset = int(time.time()) + 1
    server.inject("rate-limit", match="/pulls/35980", times=1)
    bundle = _fetch(server, tmp_path, monkeypatch, SEED, 35980, max_rate_limit_wait=30)
    assert bundle.pr.number == 35980
    assert [r.status for r in server.requests[:2]] == [403, 200]


def test_without_a_token_context_files_come_one_by_one(tmp_path, seed_repo):
    with GitHubServer(token=None) as srv:
        proc = _gh_cli(srv, tmp_path, "--format", "json", env={"GITHUB_TOKEN": "", "GH_TOKEN": ""})
        assert proc.returncode == 0, proc.stderr
        assert not [r for r in srv.requests if r.authorization or r.method == "POST"]
        assert [r for r in srv.requests if "/git/blobs/" in r.path]
    with_token = load_json(tmp_path / "out" / "sgl-project-sglang-pr-35980.json")
    repo, _b, _s = seed_repo
    git = run_cli(
        "35980", "--repo", str(repo.path), "--format", "json", "--out", str(tmp_path / "git"), "-q"
    )
    assert git.returncode == 0, git.stderr
    assert (
        with_token["findings"]
        == load_json(tmp_path / "git" / "sgl-project-sglang-pr-35980.json")["findings"]
    )


def test_graphql_failure_falls_back_to_rest(server, tmp_path, monkeypatch):
    server.route(
        "POST", r"/graphql", lambda s, q, m: (200, {"errors": [{"message": "GraphQL is disabled"}]})
    )
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    src = GitHubSource(
        "35980", GitHubConfig(repo=SEED, api_url=server.url, cache_dir=str(tmp_path / "c"))
    )
    try:
        src.fetch()
        path = "python/sglang/srt/disaggregation/common/staging_handler.py"
        texts = src.fetch_context([path, "no/such/file.py"])
    finally:
        src.close()
    assert texts[path] and "def handle_watermark_msg" in texts[path]
    assert texts["no/such/file.py"] is None
    assert [r for r in server.requests if "/git/blobs/" in r.path]


def test_fixtures_are_up_to_date(tmp_path):
    for name, text in make.build_all(tmp_path).items():
        assert (make.HERE / name).read_text(encoding="utf-8") == text, (
            f"rerun python -m tests.fixtures.github.make ({name})"
        )


def _assert_clean_failure(proc, tmp: Path, expected: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert expected in lines[0], lines[0]
    assert "Traceback" not in proc.stderr
    out = tmp / "out"
    assert not out.exists() or not any(out.iterdir())


def test_debug_lists_what_each_request_is_for(server, tmp_path):
    server.max_age = 0  # the re-run revalidates every answer
    cold = _gh_cli(server, tmp_path, "--debug")
    assert cold.returncode == 0, cold.stderr
    lines = [ln for ln in cold.stderr.splitlines() if ln.startswith("debug: request for ")]
    assert len(lines) == server.count <= 2 + 12, (cold.stderr, server.paths())
    assert not [ln for ln in lines if ln.startswith("debug: request for ?")], lines
    assert any(
        "reading reviews: GET /repos/sgl-project/sglang/pulls/35980/reviews" in ln for ln in lines
    )
    server.reset_counts()
    warm = _gh_cli(server, tmp_path, "--debug")
    lines = [ln for ln in warm.stderr.splitlines() if ln.startswith("debug: request for ")]
    assert lines and all(ln.endswith("-> revalidated (304)") for ln in lines), lines
    assert len(lines) == server.count == server.not_modified, server.paths()
