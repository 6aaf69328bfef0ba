"""Publishing a rendered report: the one PR comment, kept up to date, and the Actions job summary.

The marker helpers are pure; the ``CommentPublisher`` is the PyGithub "publisher" door of
the one-door rule (the body text itself is made safe in ``prreport.publish.body``).
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from prreport.config import GitHubConfig
from prreport.errors import ConfigError, GitHubError, OutputError
from prreport.publish.body import (
    defuse_markers,
    fit,
    neutralise_links,
    neutralise_mentions,
    utf8_len,
    utf16_len,
)

COMMENT_LIMIT = 65_536  # GitHub answers 422 "Body is too long" above this many characters
SUMMARY_LIMIT = 1_048_576  # $GITHUB_STEP_SUMMARY: 1 MiB per step
ACTIONS_BOT = "github-actions[bot]"  # who the Actions token comments as (it cannot call GET /user)

_MAX_COMMENT_PAGES = 100  # 10,000 comments: a server paging on beyond is not GitHub
_MARKER = "<!-- prreport:report sha256={} -->"
# Only a marker that opens the comment counts: a quoted marker further down is just text.
_MARKER_RE = re.compile(r"\A<!-- prreport:report sha256=([0-9a-f]{64}) -->")

# Bumped when the comment built from the same report changes (fitting, neutralising), so
# existing comments are rewritten once; the run-specific pointer line is not hashed.
_BODY_VERSION = "1"


def report_hash(report: str) -> str:
    """SHA-256 of the rendered report (and body format): equal hashes mean no edit is needed."""
    return hashlib.sha256(f"prreport-comment/{_BODY_VERSION}\n{report}".encode()).hexdigest()


def marker(digest: str) -> str:
    """The hidden first line that identifies a prreport comment and the report it shows."""
    return _MARKER.format(digest)


def marker_hash(body: str | None) -> str | None:
    """The report hash of a comment that opens with our marker, else None."""
    m = _MARKER_RE.match(body or "")
    return m.group(1) if m else None


def same_body(posted: str | None, rendered: str) -> bool:
    """Whether the comment on the PR still reads as rendered: a hand edit that kept the marker
    (and so the report's hash) is not the report, and is written over. Line ends GitHub may
    have turned into ``\\r\\n`` and trailing blank space do not count."""
    if posted is None:
        return False

    def norm(text: str) -> str:
        return text.replace("\r\n", "\n").rstrip()

    return norm(posted) == norm(rendered)


def comment_body(
    report: str, where: str, lang: str = "en", limit: int = COMMENT_LIMIT, untrusted: bool = False
) -> str:
    """The full comment: our marker (with the report's hash), then the safe, fitted report.

    ``untrusted`` (a report from a fork PR's artifact): links, images and raw HTML are made
    inert as well as mentions.
    """
    head = marker(report_hash(report)) + "\n"
    safe = neutralise_mentions(defuse_markers(report))
    if untrusted:
        safe = neutralise_links(safe)
    return head + fit(safe, limit - utf16_len(head), where, lang)


def append_job_summary(
    report: str, where: str, lang: str = "en", path: str | None = None
) -> Path | None:
    """Append the report to ``$GITHUB_STEP_SUMMARY`` (within its 1 MiB); None outside Actions."""
    target = path if path is not None else os.environ.get("GITHUB_STEP_SUMMARY", "")
    if not target:
        return None
    p = Path(target)
    try:
        existing = p.stat().st_size if p.exists() else 0
        room = SUMMARY_LIMIT - existing - 2
        if room <= 4096:
            return None  # this step's summary is full; the comment and the artifact still have the report
        text = fit(neutralise_mentions(report), room, where, lang, measure=utf8_len)
        with p.open("a", encoding="utf-8", newline="\n") as fh:
            if existing:
                fh.write("\n")
            fh.write(text if text.endswith("\n") else text + "\n")
    except OSError as exc:
        raise OutputError(
            f"cannot append to the job summary {p}: {exc.strerror} (check GITHUB_STEP_SUMMARY)"
        ) from None
    return p


@dataclass(frozen=True)
class PublishResult:
    """What the publisher did: ``created``, ``updated`` or ``unchanged``, and the comment."""

    action: str
    comment_id: int
    url: str
    login: str


class CommentPublisher:
    """Keeps exactly one prreport comment on a PR, written by the token's own user."""

    def __init__(self, repo: str, token: str, config: GitHubConfig) -> None:
        from prreport.sources.github.client import new_client

        if not token:
            raise ConfigError(
                "no GitHub token to post the comment: set GITHUB_TOKEN (or GH_TOKEN), or use --dry-run"
            )
        self.repo_name = repo
        self._gh = new_client(config, token)
        self._repo = self._gh.get_repo(repo, lazy=True)

    def close(self) -> None:
        """Close the HTTP connections."""
        self._gh.close()

    def _fail(self, exc: Exception, doing: str, number: int) -> GitHubError:
        from github import GithubException, RateLimitExceededException

        from prreport.sources.github.client import (
            MALFORMED_ANSWER,
            ServiceUnavailable,
            deadline_error,
            malformed_error,
            rate_limit_wait_text,
        )
        from prreport.sources.github.http import NetworkDeadlineReached, PageCapReached

        where = f"{self.repo_name}#{number}"
        if isinstance(exc, PageCapReached):
            return GitHubError(
                f"GitHub kept paging the comments of {where} ({exc}): stopped; check --github-api-url"
            )
        if isinstance(exc, MALFORMED_ANSWER) and not isinstance(exc, GithubException):
            return malformed_error(exc, f"{doing} on {where}", self._gh.requester.base_url)
        if isinstance(exc, NetworkDeadlineReached):
            return deadline_error(exc, doing, str(self._gh.requester.base_url))
        if isinstance(exc, ServiceUnavailable):
            return GitHubError(
                f"GitHub is unavailable ({exc.status}) while {doing} on {where} and asks to retry "
                f"after {exc.wait:.0f} s, more than the run's wait budget has left: try again later"
            )
        if isinstance(exc, RateLimitExceededException):
            return GitHubError(
                f"GitHub API rate limit exhausted while {doing} on {where}: {rate_limit_wait_text(exc)}"
            )
        if isinstance(exc, GithubException):
            status = exc.status
            if status == 401:
                return GitHubError(
                    f"GitHub rejected the token while {doing} on {where} (401): set a valid GITHUB_TOKEN"
                )
            if status == 403:
                return GitHubError(
                    f"GitHub refused {doing} on {where} (403): the token needs 'pull-requests: write' (or is rate limited)"
                )
            if status == 404:
                return GitHubError(
                    f"{where} not found while {doing} (404): check --github OWNER/NAME and the PR number"
                )
            if status == 422:
                return GitHubError(f"GitHub rejected the comment on {where} (422): {exc.data}")
            return GitHubError(f"GitHub failed {doing} on {where} (HTTP {status})")
        return GitHubError(
            f"cannot reach GitHub while {doing} on {where}: {exc} (check --github-api-url)"
        )

    def own_login(self) -> str:
        """The token's user (GET /user), or ``github-actions[bot]`` when that is forbidden."""
        from github import GithubException

        try:
            return str(self._gh.get_user().login)
        except GithubException as exc:
            if exc.status in (403, 404):  # the Actions token may not read /user
                return ACTIONS_BOT
            raise self._fail(exc, "reading the token's user", 0) from None
        except Exception as exc:  # network failures become one-line errors
            raise self._fail(exc, "reading the token's user", 0) from None

    def head_sha(self, number: int) -> str:
        """The PR's current head commit."""
        try:
            return str(self._repo.get_pull(number).head.sha)
        except Exception as exc:
            raise self._fail(exc, "reading the PR", number) from None

    def find(self, number: int, login: str) -> list[tuple[int, str, object]]:
        """Our comments on the PR as ``(id, hash, comment)``, oldest first (marker AND author)."""
        from prreport.sources.github.http import page_cap

        try:
            with page_cap(_MAX_COMMENT_PAGES):
                comments = list(self._repo.get_issue(number).get_comments())
        except Exception as exc:
            raise self._fail(exc, "listing comments", number) from None
        ours = []
        for c in comments:
            digest = marker_hash(c.body)
            if digest and c.user is not None and c.user.login.lower() == login.lower():
                ours.append((int(c.id), digest, c))
        return sorted(ours, key=lambda t: t[0])

    def publish(self, number: int, body: str, expect_head: str | None = None) -> PublishResult:
        """Create the comment, edit ours in place, or do nothing when it reads as rendered (the
        same report hash and the same body: a hand edit keeping the marker is written over)."""
        digest = marker_hash(body)
        if digest is None:
            raise ValueError("comment body must start with the prreport marker")
        if expect_head:
            actual = self.head_sha(number)
            if actual != expect_head:
                raise GitHubError(
                    f"{self.repo_name}#{number} head is {actual[:12]}, not {expect_head[:12]}: "
                    "the report is for another commit (re-run on the PR's current head)"
                )
        login = self.own_login()
        ours = self.find(number, login)
        try:
            if not ours:
                created = self._repo.get_issue(number).create_comment(body)
                return PublishResult("created", int(created.id), str(created.html_url or ""), login)
            cid, old, comment = ours[0]
            # Two runs racing may each have created one: keep the oldest, drop the others.
            for _id, _hash, extra in ours[1:]:
                extra.delete()  # type: ignore[attr-defined]
            url = str(getattr(comment, "html_url", "") or "")
            if old == digest and same_body(getattr(comment, "body", None), body):
                return PublishResult("unchanged", cid, url, login)
            comment.edit(body)  # type: ignore[attr-defined]
            return PublishResult("updated", cid, url, login)
        except GitHubError:
            raise
        except Exception as exc:
            raise self._fail(exc, "writing the comment", number) from None
