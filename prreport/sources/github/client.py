"""One way to build a PyGithub client: bounded retries and rate-limit waits, quiet logging.

Every module behind the PyGithub door (the source, the PR-comment and digest publishers,
the digest's PR listing) builds its client here, so none of them can sleep unbounded on a
rate limit (PyGithub's default retry waits for the reset, which can be > 15 minutes).
"""

from __future__ import annotations

import inspect
import logging
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import github
import requests
from github import Auth, Github, GithubException, GithubRetry
from urllib3.util.retry import Retry

from prreport import __version__
from prreport.config import GitHubConfig
from prreport.errors import GitHubError


def api_base(config: GitHubConfig) -> str:
    """The configured API base URL, checked to be http(s), without a trailing slash."""
    api_url = (config.api_url or "https://api.github.com").rstrip("/")
    if urlsplit(api_url).scheme not in ("http", "https"):
        raise GitHubError(
            f"github.api_url must be an http(s) URL, got {api_url!r} (--github-api-url)"
        )
    return api_url


def new_client(config: GitHubConfig, token: str | None, per_page: int = 100) -> Github:
    """A lazy client with bounded retries: at most ``max_rate_limit_wait`` seconds of waiting."""
    # PyGithub logs every retry at INFO on its own stderr handler: keep the CLI to one line.
    if logging.getLogger("github").level == logging.INFO:
        github.set_log_level(logging.WARNING)
    wait = config.max_rate_limit_wait
    retry_kw: dict[str, Any] = {}
    if "retry_after_max" in inspect.signature(Retry.__init__).parameters:
        retry_kw["retry_after_max"] = wait  # urllib3 >= 2.5 caps Retry-After sleeps
    retry = GithubRetry(
        total=config.retries,
        backoff_factor=0.5,
        backoff_max=10,
        # Never sleep longer than configured for a rate limit: raise instead.
        max_rate_limit_wait=wait,
        secondary_rate_wait=min(60, wait),
        **retry_kw,
    )
    return Github(
        auth=Auth.Token(token) if token else None,
        base_url=api_base(config),
        timeout=config.timeout,
        per_page=per_page,
        retry=retry,
        lazy=True,
        user_agent=f"prreport/{__version__}",
        # Requests are serial already; PyGithub's default 0.25 s pause only adds latency.
        seconds_between_requests=None,
    )


def api_error(
    exc: Exception, doing: str, repo: str, api_url: str, hints: Mapping[int, str] | None = None
) -> GitHubError:
    """One-line error for a failed call (``doing`` on ``repo``), with the fix for common statuses."""
    status: int | None = None
    if isinstance(exc, requests.exceptions.RetryError):  # retries used up on 5xx or a rate limit
        status = retry_status(exc)
        if status == 403:  # GithubRetry retries a 403 only when it is a rate limit
            return GitHubError(
                f"GitHub API rate limit exhausted while {doing} on {repo} and retries used up: rerun after the limit resets"
            )
    elif isinstance(exc, GithubException):
        status = exc.status
    if status is not None:
        if status == 401:
            return GitHubError(
                f"GitHub at {api_url} rejected the token (401) while {doing}: set a valid GITHUB_TOKEN"
            )
        if status == 404:
            return GitHubError(
                f"repository {repo} not found at {api_url} (or the token cannot see it) while {doing}: check --github OWNER/NAME"
            )
        hint = (hints or {}).get(status or 0, "try again later")
        return GitHubError(f"GitHub answered {status} while {doing} on {repo}: {hint}")
    return GitHubError(
        f"cannot reach the GitHub API at {api_url} while {doing} ({type(exc).__name__}): check --github-api-url"
    )


def retry_status(exc: Exception) -> int | None:
    """The HTTP status a ``RetryError`` gave up on ("too many 500 error responses")."""
    m = re.search(r"too many (\d{3}) error", str(exc))
    return int(m.group(1)) if m else None
