"""The PR comment and job summary: one up-to-date comment, safe text, size limits, the risk gate."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from prreport.publish import body as publish_body
from prreport.publish import comment as publish
from tests.ghserver import GitHubServer, GitHubState
from tests.ghserver_comments import ACTIONS_BOT, BODY_LIMIT, add_comment_routes, comments_on, writes
from tests.gitrepo import Repo

FULL = "sgl-project/sglang"
PR = 35980
BOT, OTHER = "prreport-bot", "someone-else"
TOKENS = {"tok-bot": BOT, "tok-other": OTHER}

# GitHub's mention filter (html-pipeline MentionFilter): an @ after a non-word character,
# then a username, outside <code>, <pre> and <a>.
_GITHUB_MENTION = re.compile(
    r"(?:^|\W)@([a-z0-9][a-z0-9-]*)(?!/)(?=\.+[ \t\W]|\.+$|[^0-9a-zA-Z_.]|$)", re.I
)
# ... and its team mentions, @org/team.
_GITHUB_TEAM = re.compile(r"(?:^|\W)@([a-z0-9][a-z0-9-]*)/[a-z0-9][a-z0-9_-]*", re.I)


def live_mentions(markdown: str) -> list[str]:
    """Usernames GitHub would link (and notify) in this Markdown."""
    md = MarkdownIt("commonmark").enable("table").enable("strikethrough")
    found: list[str] = []
    for tok in md.parse(markdown):
        if tok.type != "inline":
            continue
        depth = 0
        text = []
        for child in tok.children or []:
            if child.type == "link_open":
                depth += 1
            elif child.type == "link_close":
                depth -= 1
            elif child.type in ("text", "softbreak", "hardbreak") and depth == 0:
                text.append(child.content if child.type == "text" else "\n")
            elif child.type == "code_inline":
                text.append(" ")
        joined = "".join(text)
        found += _GITHUB_MENTION.findall(joined) + _GITHUB_TEAM.findall(joined)
    return found


def code_text(markdown: str) -> str:
    """Everything Markdown renders as a code block."""
    md = MarkdownIt("commonmark").enable("table")
    return "\n".join(t.content for t in md.parse(markdown) if t.type in ("fence", "code_block"))


# -- pure helpers --------------------------------------------------------------------------


def test_mentions_are_not_linked_but_stay_readable_and_code_is_untouched():
    text = (
        "> cc @someone, (@other-user) and @org/team\n"
        "> mail: dev@example.com, 你好@中文\n\n"
        "```python\n@property\ndef f(self): ...\n```\n"
    )
    assert {"someone", "other-user", "org"} <= set(live_mentions(text))
    safe = publish_body.neutralise_mentions(text)
    assert live_mentions(safe) == []
    assert safe.replace("\u200d", "") == text  # nothing else changed
    assert "@property" in code_text(safe)  # a snippet's decorator stays copyable


def test_fit_cuts_at_a_section_boundary_and_closes_an_open_fence():
    sections = [f"## Section {i}\n\n" + ("text line\n" * 200) for i in range(8)]
    big_code = "## Snippets\n\n```python\n" + ("x = 1\n" * 6000) + "```\n"
    report = "# Title\n\nsummary\n\n" + "".join(sections[:3]) + big_code + "".join(sections[3:])
    out = publish_body.fit(report, 20_000, "the job summary", "en")
    assert publish_body.utf16_len(out) <= 20_000
    assert out.startswith("# Title\n\nsummary\n\n## Section 0")
    assert "## Section 2" in out and "## Section 3" not in out
    # The cut fell inside the code block: the fence is closed before the note.
    md = MarkdownIt("commonmark")
    tokens = md.parse(out)
    assert tokens[-1].type == "blockquote_close"  # the note, outside any code block
    last = out.rstrip("\n").split("\n")[-1]
    assert (
        last.startswith("> ✂️")
        and "Snippets" in last
        and "Section 7" in last
        and "the job summary" in last
    )
    assert publish_body.fit("short", 100, "x") == "short"


def test_fit_without_sections_cuts_inside_the_code_block_and_closes_it():
    report = "~~~~text\n" + "line of code\n" * 5000 + "~~~~\n"
    out = publish_body.fit(report, 10_000, "`out/report.md`")
    assert publish_body.utf16_len(out) <= 10_000
    body, note = out.rstrip("\n").rsplit("\n\n---\n\n", 1)
    assert body.endswith("line of code\n~~~~") and note.startswith("> ✂️")
    assert [t.type for t in MarkdownIt("commonmark").parse(out)][0] == "fence"


def test_fit_counts_what_github_counts():
    # Astral characters are two UTF-16 code units: GitHub's limit is reached earlier than len().
    report = "## A\n\n" + "😀" * 40_000 + "\n\n## B\n\nend\n"
    out = publish_body.fit(report, BODY_LIMIT, "the artifact")
    assert publish_body.utf16_len(out) <= BODY_LIMIT


def test_job_summary_stays_within_one_mebibyte(tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("x" * 100_000 + "\n", encoding="utf-8")
    report = "".join(f"## Section {i}\n\n" + "数据行 with text\n" * 2000 + "\n" for i in range(40))
    assert publish_body.utf8_len(report) > publish.SUMMARY_LIMIT
    assert publish.append_job_summary(report, "the artifact", path=str(summary)) == summary
    size = summary.stat().st_size
    assert publish.SUMMARY_LIMIT - 50_000 < size <= publish.SUMMARY_LIMIT
    assert (
        summary.read_text(encoding="utf-8").rstrip().endswith("The full report is in the artifact.")
    )
    assert publish.append_job_summary(report, "x", path="") is None  # outside Actions: nothing


def test_marker_carries_the_report_hash_and_only_counts_at_the_top():
    body = publish.comment_body("# R\n\ntext\n", "x")
    assert publish.marker_hash(body) == publish.report_hash("# R\n\ntext\n")
    assert publish.marker_hash("quoted:\n" + body) is None
    # A marker quoted from the PR is defused inside our body.
    quoted = publish.comment_body("> <!-- prreport:report sha256=" + "0" * 64 + " -->\n", "x")
    assert quoted.count("<!-- prreport:report") == 1


# -- against the local GitHub API server ---------------------------------------------------


@pytest.fixture()
def server():
    srv = GitHubServer(GitHubState.load())
    add_comment_routes(srv, TOKENS, actions_tokens=frozenset({"tok-actions"}))
    with srv:
        yield srv


PR_BODY = "Hoist the imports.\n\nThanks @someone for the idea; cc @sgl-project/disagg-team.\n"


@pytest.fixture(scope="module")
def mention_repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    """A repository whose squash commit for #35980 quotes @mentions in its body."""
    repo = Repo(tmp_path_factory.mktemp("mention") / "sglang")
    repo.commit(
        "init",
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "def f():\n    while True:\n        import json\n        print(json.dumps(1))\n",
        },
    )
    repo.commit(
        f"refactor(pkg): hoist json out of the loop (#{PR})\n\n{PR_BODY}",
        {"pkg/a.py": "import json\n\n\ndef f():\n    while True:\n        print(json.dumps(1))\n"},
    )
    return repo


def cli(
    *args: str,
    token: str | None = "tok-bot",
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m prreport`` with a clean, Actions-free environment."""
    full = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GITHUB_", "GH_", "PRREPORT_", "RUNNER_"))
    }
    if token:
        full["GITHUB_TOKEN"] = token
    full.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "prreport", *args],
        capture_output=True,
        text=True,
        env=full,
        cwd=cwd,
        timeout=300,
    )


def comment(
    server: GitHubServer,
    repo: Repo,
    out: Path,
    *extra: str,
    token: str | None = "tok-bot",
    env: dict[str, str] | None = None,
):
    return cli(
        "comment",
        str(PR),
        "--repo",
        str(repo.path),
        "--github",
        FULL,
        "--github-api-url",
        server.url,
        "--out",
        str(out),
        *extra,
        token=token,
        env=env,
    )


def ours(server: GitHubServer, login: str = BOT) -> list[dict]:
    return [c for c in comments_on(server, FULL, PR) if c["author"] == login]


def test_first_run_creates_second_is_silent_changed_report_edits(server, mention_repo, tmp_path):
    res = comment(server, mention_repo, tmp_path / "o")
    assert res.returncode == 0, res.stderr
    assert writes(server) == [f"POST /repos/{FULL}/issues/{PR}/comments"]
    mine = dict(ours(server)[0])  # a copy: the server edits its state in place
    assert len(ours(server)) == 1 and publish.marker_hash(mine["body"]) is not None
    assert "created comment" in res.stderr

    server.reset_counts()
    res = comment(server, mention_repo, tmp_path / "o")
    assert res.returncode == 0, res.stderr
    assert writes(server) == [], server.paths()
    assert "left unchanged" in res.stderr

    server.reset_counts()
    res = comment(server, mention_repo, tmp_path / "o", "--lang", "zh")
    assert res.returncode == 0, res.stderr
    assert writes(server) == [f"PATCH /repos/{FULL}/issues/comments/{mine['id']}"]
    (edited,) = ours(server)
    assert edited["id"] == mine["id"] and edited["body"] != mine["body"]


def test_marker_in_another_users_comment_is_left_alone(server, mention_repo, tmp_path):
    # Someone pastes our exact comment (marker and all), and an older-looking marker.
    dry = comment(server, mention_repo, tmp_path / "o", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    repo = server.state.repo(FULL)
    repo["issue_comments"][str(PR)].append({"id": 4242, "author": OTHER, "body": dry.stdout})
    server.reset_counts()
    res = comment(server, mention_repo, tmp_path / "o")
    assert res.returncode == 0, res.stderr
    assert writes(server) == [f"POST /repos/{FULL}/issues/{PR}/comments"]
    theirs = [c for c in comments_on(server, FULL, PR) if c.get("id") == 4242]
    assert theirs == [{"id": 4242, "author": OTHER, "body": dry.stdout}]
    assert len(ours(server)) == 1


def test_duplicate_comments_from_a_race_are_reduced_to_one(server, mention_repo, tmp_path):
    dry = comment(server, mention_repo, tmp_path / "o", "--dry-run")
    stale = "<!-- prreport:report sha256=" + "0" * 64 + " -->\nold report\n"
    comments = server.state.repo(FULL)["issue_comments"][str(PR)]
    comments += [
        {"id": 501, "author": BOT, "body": stale},
        {"id": 502, "author": BOT, "body": dry.stdout},
    ]
    res = comment(server, mention_repo, tmp_path / "o")
    assert res.returncode == 0, res.stderr
    assert writes(server) == [
        f"DELETE /repos/{FULL}/issues/comments/502",
        f"PATCH /repos/{FULL}/issues/comments/501",
    ]
    assert [c["id"] for c in ours(server)] == [501]


def test_actions_token_falls_back_to_the_bot_identity(server, mention_repo, tmp_path):
    res = comment(server, mention_repo, tmp_path / "o", token="tok-actions")
    assert res.returncode == 0, res.stderr
    assert "github-actions[bot]" in res.stderr
    assert len(ours(server, ACTIONS_BOT)) == 1
    server.reset_counts()
    res = comment(server, mention_repo, tmp_path / "o", token="tok-actions")
    assert res.returncode == 0 and writes(server) == []


def test_mentions_quoted_from_the_pr_body_are_not_live(server, mention_repo, tmp_path):
    res = comment(server, mention_repo, tmp_path / "o")
    assert res.returncode == 0, res.stderr
    report = next(p for p in (tmp_path / "o").glob("*.md") if not p.name.endswith(".comment.md"))
    md = report.read_text(encoding="utf-8")
    assert "someone" in live_mentions(md)  # the report quotes the PR body ...
    (mine,) = ours(server)
    assert "someone" not in mine["body"]  # ... the comment does not echo the description ...
    assert live_mentions(mine["body"]) == []
    # ... and a full report posted from a file keeps the quote readable, pinging nobody.
    res = cli(
        "comment",
        str(PR),
        "--from-file",
        str(report),
        "--github",
        FULL,
        "--github-api-url",
        server.url,
    )
    assert res.returncode == 0, res.stderr
    (mine,) = ours(server)
    assert "someone" in mine["body"] and live_mentions(mine["body"]) == []


def test_oversized_report_is_posted_truncated_with_pointer_and_no_open_fence(server, tmp_path):
    sections = "".join(
        f"## Part {i}\n\n" + "A finding line with some words.\n" * 300 for i in range(4)
    )
    snippet = (
        "## Key source snippets\n\n```python\n" + "value = compute(1)  # padding\n" * 3000 + "```\n"
    )
    big = tmp_path / "big.md"
    big.write_text(
        "# Report\n\nsummary\n\n" + sections + snippet + "## Risks\n\nnone\n", encoding="utf-8"
    )
    assert len(big.read_text(encoding="utf-8")) > BODY_LIMIT
    res = cli(
        "comment",
        str(PR),
        "--from-file",
        str(big),
        "--github",
        FULL,
        "--github-api-url",
        server.url,
        "--artifact",
        "prreport-report",
        "--report-url",
        "https://github.com/o/r/actions/runs/1",
    )
    assert res.returncode == 0, res.stderr
    (mine,) = ours(server)
    body = mine["body"]
    assert publish_body.utf16_len(body) <= BODY_LIMIT
    last = body.rstrip("\n").split("\n")[-1]
    assert (
        "cut" in last and "prreport-report" in last and "actions/runs/1" in last and "Risks" in last
    )
    tokens = MarkdownIt("commonmark").parse(body)
    assert (
        tokens[-1].type == "blockquote_close"
    )  # the pointer line is not swallowed by a code block
    assert "## Part 3" in body  # whole sections before the cut are kept


def test_job_summary_gets_the_report_appended(server, mention_repo, tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("# earlier step\n", encoding="utf-8")
    res = comment(
        server,
        mention_repo,
        tmp_path / "o",
        "--no-post",
        "--format",
        "md",
        env={"GITHUB_STEP_SUMMARY": str(summary)},
    )
    assert res.returncode == 0, res.stderr
    text = summary.read_text(encoding="utf-8")
    report = next((tmp_path / "o").glob("*.md")).read_text(encoding="utf-8")
    assert text.startswith("# earlier step\n")
    assert report.splitlines()[0] in text and len(text) > len(report) // 2
    assert writes(server) == [] and server.count == 0  # --no-post: nothing sent


def test_fail_on_exits_1_when_a_listed_kind_is_present(server, mention_repo, tmp_path):
    res = comment(server, mention_repo, tmp_path / "o", "--no-post", "--format", "json")
    assert res.returncode == 0, res.stderr
    data = json.loads(next((tmp_path / "o").glob("*.json")).read_text(encoding="utf-8"))
    kinds = sorted({f["kind"] for f in data["findings"]})
    assert kinds, "the fixture PR should produce findings"
    present = kinds[0]
    res = comment(
        server, mention_repo, tmp_path / "o", "--no-post", "--fail-on", f"cycle.risk,{present}"
    )
    assert res.returncode == 1, res.stderr
    assert present in res.stderr
    family = present.split(".")[0] + ".*"
    assert (
        comment(server, mention_repo, tmp_path / "o", "--no-post", "--fail-on", family).returncode
        == 1
    )
    # A kind no report can contain is an error (a gate that never fires is no gate).
    res = comment(server, mention_repo, tmp_path / "o", "--no-post", "--fail-on", "no.such-kind")
    assert res.returncode == 2 and "is not a finding kind" in res.stderr
    res = comment(server, mention_repo, tmp_path / "o", "--no-post", "--fail-on", "Bad Kind")
    assert res.returncode == 2 and res.stderr.startswith("error: --fail-on")


def test_fail_on_still_posts_the_comment_first(server, mention_repo, tmp_path):
    data_run = comment(server, mention_repo, tmp_path / "o", "--no-post", "--format", "json")
    kinds = {
        f["kind"] for f in json.loads(next((tmp_path / "o").glob("*.json")).read_text())["findings"]
    }
    res = comment(server, mention_repo, tmp_path / "o", "--fail-on", sorted(kinds)[0])
    assert data_run.returncode == 0 and res.returncode == 1
    assert len(ours(server)) == 1


def test_actions_context_needs_no_arguments(server, mention_repo, tmp_path):
    event = tmp_path / "event.json"
    event.write_text(
        json.dumps(
            {
                "action": "synchronize",
                "number": PR,
                "pull_request": {"number": PR, "head": {"sha": "x"}},
            }
        )
    )
    outputs = tmp_path / "gh-output"
    env = {
        "GITHUB_REPOSITORY": FULL,
        "GITHUB_API_URL": server.url,
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_RUN_ID": "77",
        "GITHUB_SERVER_URL": "https://github.com",
    }
    res = cli("comment", "--repo", str(mention_repo.path), "--out", str(tmp_path / "o"), env=env)
    assert res.returncode == 0, res.stderr
    assert len(ours(server)) == 1
    out = outputs.read_text()
    assert "comment-action=created" in out and re.search(r"^md-path=.+\.md$", out, re.M)


def test_workflow_run_posts_only_onto_the_pr_whose_head_it_rendered(server, tmp_path):
    report = tmp_path / "report.md"
    report.write_text("# Report\n\nall good\n", encoding="utf-8")
    head = server.state.repo(FULL)["pulls"][str(PR)]["head_sha"]
    event = tmp_path / "event.json"
    event.write_text(
        json.dumps(
            {
                "workflow_run": {
                    "head_sha": "0" * 40,
                    "pull_requests": [],
                    "html_url": "https://github.com/x/y/actions/runs/5",
                }
            }
        )
    )
    env = {"GITHUB_REPOSITORY": FULL, "GITHUB_API_URL": server.url, "GITHUB_EVENT_PATH": str(event)}
    res = cli("comment", str(PR), "--from-file", str(report), env=env)
    assert res.returncode == 2 and "not 000000000000" in res.stderr
    assert writes(server) == []
    event.write_text(
        json.dumps({"workflow_run": {"head_sha": head, "pull_requests": [{"number": PR}]}})
    )
    res = cli("comment", "--from-file", str(report), env=env)
    assert res.returncode == 0, res.stderr
    assert len(ours(server)) == 1


def test_dry_run_prints_the_comment_and_sends_nothing(server, mention_repo, tmp_path):
    res = comment(server, mention_repo, tmp_path / "o", "--dry-run", token=None)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("<!-- prreport:report sha256=")
    assert "dry run" in res.stderr and FULL in res.stderr
    assert server.count == 0 and not (tmp_path / "o").exists()


def test_errors_are_one_line(server, mention_repo, tmp_path):
    res = comment(server, mention_repo, tmp_path / "o", token=None)
    assert res.returncode == 2 and res.stderr.strip().splitlines()[-1].startswith(
        "error: no GitHub token"
    )
    res = cli(
        "comment", "999", "--from-file", __file__, "--github", FULL, "--github-api-url", server.url
    )
    assert res.returncode == 2 and "sgl-project/sglang#999 not found" in res.stderr
    assert "Traceback" not in res.stderr


def test_in_actions_with_the_github_source_no_argument_is_needed_and_reruns_are_silent(
    server, tmp_path
):
    """The whole Action path: PR from the API, repository/API/PR number from the environment."""
    server.state.repo(FULL)["pulls"][str(PR)]["body"] = PR_BODY
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"number": PR, "pull_request": {"number": PR}}))
    summary = tmp_path / "summary.md"
    env = {
        "GITHUB_REPOSITORY": FULL,
        "GITHUB_API_URL": server.url,
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_STEP_SUMMARY": str(summary),
    }
    res = cli("comment", env=env, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    (mine,) = ours(server)
    assert live_mentions(mine["body"]) == []
    assert "someone" in summary.read_text(encoding="utf-8")  # the job summary has the full report
    # Our own comment is now among the PR's comments; it must not change the next report.
    server.reset_counts()
    res = cli("comment", env=env, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert writes(server) == [], server.paths()


def test_a_hand_edit_that_keeps_the_marker_is_written_over(server, mention_repo, tmp_path):
    # Hardening II G17: the report hash is unchanged, but the comment no longer is the report.
    res = comment(server, mention_repo, tmp_path / "o")
    assert res.returncode == 0, res.stderr
    (mine,) = ours(server)
    rendered = mine["body"]
    head, _, rest = rendered.partition("\n")
    mine["body"] = f"{head}\n## ✅ pure refactor, safe to merge (edited by hand)\n{rest}"
    server.reset_counts()
    res = comment(server, mention_repo, tmp_path / "o")
    assert res.returncode == 0, res.stderr
    assert writes(server) == [f"PATCH /repos/{FULL}/issues/comments/{mine['id']}"]
    assert ours(server)[0]["body"] == rendered
    # GitHub's own \r\n line ends (a comment saved from the web editor) are no edit.
    ours(server)[0]["body"] = rendered.replace("\n", "\r\n") + "\r\n"
    server.reset_counts()
    res = comment(server, mention_repo, tmp_path / "o")
    assert res.returncode == 0, res.stderr
    assert writes(server) == [] and "left unchanged" in res.stderr
