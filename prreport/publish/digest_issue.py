"""Publishing the weekly digest as one GitHub issue per week, found again by a hidden marker.

The body helpers are pure; ``publish_digest_issue`` is the PyGithub door for digest issues.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from prreport.config import GitHubConfig
from prreport.errors import ConfigError
from prreport.publish.body import (
    defuse_markers,
    fit,
    full_report_pointer,
    neutralise_mentions,
    utf16_len,
)
from prreport.publish.comment import ACTIONS_BOT, COMMENT_LIMIT

ISSUE_LIMIT = COMMENT_LIMIT  # GitHub caps issue bodies like comments: 65,536 characters
_MAX_PAGES = 100  # digest issues updated since the window began: far fewer in practice
_MARKER = "<!-- prreport:digest repo={repo} window={label} -->"
_TITLES = {
    "en": "prreport weekly digest: {repo} {label}",
    "zh": "prreport 每周摘要：{repo} {label}",
}
_SAFE = re.compile(r"[^A-Za-z0-9._/-]")


def issue_marker(repo: str, label: str) -> str:
    """The hidden first line that identifies the digest issue of one repository and window."""
    return _MARKER.format(repo=_SAFE.sub("-", repo), label=_SAFE.sub("-", label))


def issue_title(repo: str, label: str, lang: str) -> str:
    """The issue title."""
    return _TITLES.get(lang, _TITLES["en"]).format(repo=repo, label=label)


def issue_body(
    markdown: str, repo: str, label: str, where: str, lang: str = "en", limit: int = ISSUE_LIMIT
) -> str:
    """Marker, then the digest with mentions neutralised, cut to the issue size limit if needed."""
    head = issue_marker(repo, label) + "\n"
    safe = neutralise_mentions(defuse_markers(markdown))
    return head + fit(safe, limit - utf16_len(head), where, lang)


def _run_pointer(lang: str, label: str) -> str:
    """Where the full digest is when the issue body had to be cut (the Actions run, else the file)."""
    server, repo, run = (
        os.environ.get(k, "") for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID")
    )
    run_url = f"{server}/{repo}/actions/runs/{run}" if server and repo and run else ""
    return full_report_pointer(
        lang, run_url=run_url, artifact="digest" if run_url else "", path=f"{label}.md"
    )


@dataclass(frozen=True)
class IssueResult:
    """What publishing did: ``created``, ``updated`` or ``unchanged``, and the issue."""

    action: str
    number: int
    url: str


def publish_digest_issue(
    config: GitHubConfig,
    token: str,
    repo: str,
    label: str,
    since: datetime,
    markdown: str,
    lang: str = "en",
    digest_repo: str | None = None,
) -> IssueResult:
    """Create this window's digest issue, or edit ours in place (nothing when the body is equal).

    ``repo`` is where the issue goes; ``digest_repo`` what it is about (an organisation digest
    is posted in one repository), by default the same.
    """
    from github import GithubException

    from prreport.sources.github.client import API_FAILURES, api_base, api_error, new_client
    from prreport.sources.github.http import page_cap

    if not token:
        raise ConfigError(
            "no GitHub token to publish the digest issue: set GITHUB_TOKEN (or GH_TOKEN)"
        )
    api_url = api_base(config)
    about = digest_repo or repo
    body = issue_body(markdown, about, label, _run_pointer(lang, label), lang)
    marker = issue_marker(about, label)
    title = issue_title(about, label, lang)
    gh = new_client(config, token)
    doing = "reading the token's user"
    try:
        try:
            login = str(gh.get_user().login)
        except GithubException as exc:
            if exc.status not in (403, 404):  # the Actions token may not read /user
                raise
            login = ACTIONS_BOT
        handle = gh.get_repo(repo)
        doing = "listing issues"
        # The issue cannot predate its window by much: no need to page through older issues.
        with page_cap(_MAX_PAGES):
            ours = [
                issue
                for issue in handle.get_issues(state="all", since=since - timedelta(days=1))
                if issue.pull_request is None
                and (issue.body or "").startswith(marker)
                and issue.user is not None
                and issue.user.login.lower() == login.lower()
            ]
        if not ours:
            doing = "creating the digest issue"
            created = handle.create_issue(title=title, body=body)
            return IssueResult("created", int(created.number), str(created.html_url or ""))
        issue = min(ours, key=lambda i: i.number)
        if issue.body == body and issue.title == title:
            return IssueResult("unchanged", int(issue.number), str(issue.html_url or ""))
        doing = f"editing issue #{issue.number}"
        issue.edit(title=title, body=body)
        return IssueResult("updated", int(issue.number), str(issue.html_url or ""))
    except API_FAILURES as exc:
        raise api_error(
            exc, doing, repo, api_url, {403: "the token needs 'issues: write'"}
        ) from None
    finally:
        gh.close()
