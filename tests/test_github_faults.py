"""Servers that misbehave (issue #13 items 8-10): rate-limit waits, endless pages, trickled and malformed answers."""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from prreport.config import GitHubConfig
from prreport.errors import GitHubError
from prreport.sources.github.window import merged_in_window
from tests.conftest import load_json, run_cli
from tests.ghserver import GitHubServer
from tests.ghserver_faults import endless_pages, malformed, trickled

TOKEN = "ghp_test0123456789abcdefSECRET"
SEED = "sgl-project/sglang"
R = r"/repos/sgl-project/sglang"
PULL = R + r"/pulls/35980"
SHA = r"/(?P<sha>[0-9a-f]{40})"
REVIEW = {
    "user": {"login": "a"},
    "body": "x",
    "state": "COMMENTED",
    "submitted_at": "2026-08-20T10:00:00Z",
}


@pytest.fixture
def server():
    with GitHubServer(token=TOKEN) as srv:
        yield srv


def _run(srv: GitHubServer, tmp: Path, **env: str):
    """``prreport 35980 --github`` against ``srv`` (no cache), timed."""
    full = {"GITHUB_TOKEN": TOKEN, "PRREPORT_GITHUB_CACHE_DIR": str(tmp / "cache")}
    full.update({f"PRREPORT_GITHUB_{k.upper()}": v for k, v in env.items()})
    start = time.monotonic()
    proc = run_cli(
        "35980",
        "--github",
        SEED,
        "--github-api-url",
        srv.url,
        "--out",
        str(tmp / "out"),
        "--format",
        "json",
        "-q",
        "--no-cache",
        cwd=tmp,
        env=full,
    )
    return proc, time.monotonic() - start


def _one_error_line(proc, expected: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert "internal error" not in lines[0] and expected in lines[0], lines[0]
    return lines[0]


# -- item 8: the rate-limit wait is a budget for the whole run ------------------------------


def test_a_retry_after_longer_than_the_budget_fails_at_once(server, tmp_path):
    server.inject("secondary-rate-limit")  # Retry-After: 3600
    proc, elapsed = _run(server, tmp_path, max_rate_limit_wait="60", retries="3")
    line = _one_error_line(proc, "rate limit exhausted")
    assert "3600 s" in line and "max_rate_limit_wait" in line
    assert elapsed < 15, elapsed  # was 3 x 60 s: the cap applied to each sleep
    assert server.count == 1


def test_waits_across_requests_share_one_budget(server, tmp_path):
    # Each of four requests is asked to wait 2 s once: 8 s in all, but the run may wait 5.
    for match in ("/pulls/35980", "/files", "/git/trees/", "/reviews"):
        server.inject("secondary-rate-limit", match=match, times=1, delay=2)
    proc, elapsed = _run(server, tmp_path, max_rate_limit_wait="5", retries="3")
    _one_error_line(proc, "rate limit exhausted while reading the head tree")
    statuses = [r.status for r in server.requests]
    assert statuses == [403, 200, 403, 200, 403], server.paths()
    assert 4 <= elapsed < 4 + 10, elapsed  # two waits of 2 s, not a third


def test_waits_within_the_budget_are_waited_out(server, tmp_path):
    for match in ("/pulls/35980", "/files"):
        server.inject("secondary-rate-limit", match=match, times=1, delay=1)
    proc, _elapsed = _run(server, tmp_path, max_rate_limit_wait="5")
    assert proc.returncode == 0, proc.stderr


# -- item 9: capped listings, a total deadline per request ----------------------------------


def test_an_endless_chain_of_full_review_pages_is_cut_with_a_note(server, tmp_path):
    endless_pages(server, PULL + "/reviews", REVIEW)
    proc, elapsed = _run(server, tmp_path)
    assert proc.returncode == 0, proc.stderr
    report = load_json(tmp_path / "out" / "sgl-project-sglang-pr-35980.json")
    notes = [d["message"] for d in report["diagnostics"] if d["origin"] == "source"]
    assert any("reading reviews: more than 3000 listed" in n for n in notes), notes
    assert sum("/reviews" in r.path for r in server.requests) <= 31
    assert elapsed < 120


def test_an_endless_chain_of_empty_check_run_pages_is_cut_with_a_note(server, tmp_path):
    endless_pages(server, R + r"/commits" + SHA + r"/check-runs", key="check_runs")
    proc, _elapsed = _run(server, tmp_path)
    assert proc.returncode == 0, proc.stderr
    report = load_json(tmp_path / "out" / "sgl-project-sglang-pr-35980.json")
    notes = [d["message"] for d in report["diagnostics"] if d["origin"] == "source"]
    assert any("reading check runs: GitHub kept linking more pages" in n for n in notes), notes
    assert sum("/check-runs" in r.path for r in server.requests) <= 11


def test_a_trickled_body_ends_at_the_request_deadline(server, tmp_path):
    # 62 bytes at one byte per 0.5 s: each read is within timeout=1, the answer takes 31 s.
    trickled(server, PULL + "/reviews", b"[" + b" " * 60 + b"]", 0.5)
    proc, elapsed = _run(server, tmp_path, timeout="1", retries="1")
    _one_error_line(proc, "did not complete an answer within 2 s")
    assert elapsed < 15, elapsed


def test_a_digest_listing_that_never_ends_is_an_error(server, tmp_path, monkeypatch):
    old = {"number": 1, "title": "t", "merged_at": None, "updated_at": "2099-01-01T00:00:00Z"}
    endless_pages(server, R + r"/pulls", old)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    config = GitHubConfig(repo=SEED, api_url=server.url, cache=False)
    since = datetime(2026, 8, 17, tzinfo=timezone.utc)
    with pytest.raises(GitHubError, match="kept paging while listing the closed PRs"):
        merged_in_window(config, since, datetime(2026, 8, 24, tzinfo=timezone.utc))
    assert server.count <= 501


# -- item 10: malformed answers are one error line naming the endpoint ----------------------

PULL_PATH = "/repos/sgl-project/sglang/pulls/35980"
MALFORMED = {
    "truncated-json": (PULL, b'{"number": 35980, "title": "x', {}, PULL_PATH),
    "html-with-200": (
        PULL,
        b"<html><body>Unicorn!</body></html>",
        {"content_type": "text/html"},
        PULL_PATH,
    ),
    "null": (PULL, b"null", {}, PULL_PATH),
    "list-for-object": (PULL, b"[]", {}, PULL_PATH),
    "wrong-types": (
        PULL,
        json.dumps({"number": "x", "title": 5, "user": "bob", "base": "main"}).encode(),
        {},
        PULL_PATH,
    ),
    "invalid-date": (
        PULL + "/reviews",
        json.dumps([dict(REVIEW, submitted_at="not a date")]).encode(),
        {},
        PULL_PATH + "/reviews",
    ),
    "files-wrong-types": (
        PULL + "/files",
        json.dumps([{"filename": 5, "status": ["x"], "additions": "many"}]).encode(),
        {},
        PULL_PATH + "/files",
    ),
    "files-null": (PULL + "/files", b"null", {}, "/pulls/35980/files"),
    # Hardening II G9: an object where a list belongs ("internal error: AttributeError").
    "files-object": (
        PULL + "/files",
        b'{"message": "Moved Permanently", "files": [{"filename": "a.py"}]}',
        {},
        PULL_PATH + "/files",
    ),
    "reviews-object": (PULL + "/reviews", b'{"reviews": []}', {}, PULL_PATH + "/reviews"),
    "commits-object": (PULL + "/commits", b'{"commits": []}', {}, PULL_PATH + "/commits"),
    "tree-is-a-string": (R + r"/git/trees" + SHA, b'"tree"', {}, "/git/trees/"),
    "check-runs-null": (
        R + r"/commits" + SHA + r"/check-runs",
        b'{"total_count": 1, "check_runs": null}',
        {},
        "/check-runs",
    ),
    "cross-host-redirect": (
        PULL,
        b"",
        {"status": 301, "headers": {"Location": "http://evil.example:1" + PULL_PATH}},
        PULL_PATH,
    ),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_answer_is_one_error_line_naming_the_endpoint(server, tmp_path, case):
    pattern, body, kw, endpoint = MALFORMED[case]
    malformed(server, pattern, body, **kw)
    proc, _elapsed = _run(server, tmp_path, retries="0")
    _one_error_line(proc, endpoint)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


# -- Hardening II G16: a service that is down is not a rate limit; a missing blob is no missing PR


def test_a_503_with_retry_after_says_unavailable_not_rate_limited(server, tmp_path):
    malformed(
        server,
        PULL,
        b'{"message": "Service Unavailable"}',
        status=503,
        headers={"Retry-After": "3600"},
    )
    proc, elapsed = _run(server, tmp_path, retries="1")
    line = _one_error_line(proc, "is unavailable (503) while reading the pull request")
    assert "asks to retry after 3600 s" in line and "rate limit" not in line
    assert elapsed < 30


def test_a_blob_404_names_the_blob_not_a_missing_pull_request(server, tmp_path):
    malformed(server, R + r"/git/blobs" + SHA, b'{"message": "Not Found"}', status=404)
    server.inject("500", match="/graphql")  # the texts come from the REST blobs then
    proc, _elapsed = _run(server, tmp_path, retries="0")
    line = _one_error_line(proc, "GitHub has no blob ")
    assert "no pull request" not in line and "mooncake/conn.py" in line


# -- Hardening II G11: one deadline for a run's network waits ---------------------------------


def test_a_stalling_endpoint_stops_at_the_network_deadline(server, tmp_path):
    # Each attempt times out after 1 s and is retried 3 times, with backoff: about 5 s without
    # a deadline (124 s with the defaults); the deadline of 3 s ends it, naming the endpoint.
    server.inject("slow", match="/pulls/35980/files", delay=8)
    proc, elapsed = _run(server, tmp_path, timeout="1", retries="3", deadline="3")
    line = _one_error_line(proc, "the network deadline (github.deadline = 3 s) passed")
    assert "GET /repos/sgl-project/sglang/pulls/35980/files" in line, line
    assert elapsed < 8, elapsed


def test_a_rate_limit_wait_past_the_network_deadline_fails_at_once(server, tmp_path):
    server.inject("secondary-rate-limit", delay=20, times=1)  # Retry-After: 20 s
    proc, elapsed = _run(server, tmp_path, max_rate_limit_wait="60", deadline="10")
    line = _one_error_line(proc, "the network deadline (github.deadline = 10 s) passed")
    assert "GitHub asks for a 20 s wait, which does not fit" in line, line
    assert elapsed < 8, elapsed


def test_slow_answers_add_up_to_the_network_deadline(server, tmp_path):
    # Every answer takes 0.8 s, well within its own timeout: no request fails alone, but their
    # sum passes the run's deadline of 2 s at the third request, which ends the run there.
    server.inject("slow", delay=0.8)
    proc, _elapsed = _run(server, tmp_path, timeout="5", retries="3", deadline="2")
    line = _one_error_line(proc, "the network deadline (github.deadline = 2 s) passed")
    assert "GET /repos/sgl-project/sglang/" in line, line
    assert server.count <= 3, server.paths()
