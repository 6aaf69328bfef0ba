"""One way to build a PyGithub client: bounded retries and rate-limit waits, quiet logging.

Every module behind the PyGithub door (the source, the PR-comment and digest publishers,
the digest's PR listing) builds its client here, so none of them can sleep unbounded on a
rate limit (PyGithub's default retry waits for the reset, which can be > 15 minutes).
``github.max_rate_limit_wait`` is a budget for the whole run, shared by all its clients:
a wait that does not fit what is left fails at once instead of sleeping first.
"""

from __future__ import annotations

import email.utils
import inspect
import logging
import re
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import github
import requests
from github import Auth, Github, GithubException, GithubRetry
from github.GithubException import (
    BadAttributeException,
    RateLimitExceededExceedsMaxWait,
    RateLimitExceededException,
)
from urllib3.util.retry import Retry

from prreport import __version__
from prreport.config import GitHubConfig
from prreport.errors import GitHubError
from prreport.sources.github.http import (
    NetworkBudget,
    NetworkDeadlineReached,
    PageCapReached,
    current_budget,
    install_transport,
    last_request,
)

# What PyGithub raises on an answer that is not the API's: a body that is not JSON (HTML from a
# proxy, truncated), ``null`` or a list for an object, wrong types, invalid dates, and (as
# RuntimeError) a redirect to another host. Caught only around API calls, where they can only
# mean a malformed answer; ``--debug`` shows the traceback.
MALFORMED_ANSWER: tuple[type[Exception], ...] = (
    BadAttributeException,
    ValueError,
    TypeError,
    AttributeError,
    KeyError,
    IndexError,
    RuntimeError,
)
# Every failure of a call through a client from ``new_client`` (OSError covers requests').
API_FAILURES: tuple[type[Exception], ...] = (
    GithubException,
    OSError,
    PageCapReached,
    NetworkDeadlineReached,
    *MALFORMED_ANSWER,
)


def api_base(config: GitHubConfig) -> str:
    """The configured API base URL, checked to be http(s), without a trailing slash."""
    api_url = (config.api_url or "https://api.github.com").rstrip("/")
    if urlsplit(api_url).scheme not in ("http", "https"):
        raise GitHubError(
            f"github.api_url must be an http(s) URL, got {api_url!r} (--github-api-url)"
        )
    return api_url


class WaitBudget:
    """Seconds a run may still sleep on rate limits (``github.max_rate_limit_wait`` in all)."""

    def __init__(self, seconds: float) -> None:
        self.total = float(seconds)
        self.spent = 0.0
        self._lock = threading.Lock()

    def remaining(self) -> float:
        """Seconds left to wait."""
        with self._lock:
            return max(0.0, self.total - self.spent)

    def take(self, seconds: float) -> bool:
        """Reserve ``seconds`` of waiting; False (nothing reserved) when they do not fit."""
        with self._lock:
            if self.spent + seconds > self.total:
                return False
            self.spent += seconds
            return True


# One run is one process: every client of the run (the PR source, the publisher, the
# digest's listing and its per-PR sources) draws on the same budget.
_BUDGETS: dict[float, WaitBudget] = {}
_BUDGETS_LOCK = threading.Lock()


def run_wait_budget(seconds: float) -> WaitBudget:
    """The run's rate-limit wait budget of ``seconds`` (created on first use)."""
    with _BUDGETS_LOCK:
        return _BUDGETS.setdefault(float(seconds), WaitBudget(seconds))


def reset_wait_budgets() -> None:
    """Forget the spent budgets (a new run in the same process, e.g. in tests)."""
    with _BUDGETS_LOCK:
        _BUDGETS.clear()


def _retry_after(response: Any) -> float | None:
    """The ``Retry-After`` header in seconds, uncapped (None when absent or unreadable)."""
    value = (getattr(response, "headers", None) or {}).get("Retry-After")
    if value is None:
        return None
    value = str(value).strip()
    if value.isdigit():
        return float(value)
    parsed = email.utils.parsedate_tz(value)
    return None if parsed is None else max(0.0, email.utils.mktime_tz(parsed) - time.time())


class ServiceUnavailable(GithubException):
    """A 5xx whose ``Retry-After`` asks for a longer wait than the run has left: the service is
    down for now, not a rate limit (``wait``: the seconds asked for)."""

    def __init__(self, status: int, headers: dict[str, str], wait: float) -> None:
        super().__init__(status, {"message": "service unavailable"}, headers)
        self.wait = wait


class _BudgetRetry(GithubRetry):
    """GithubRetry whose rate-limit sleeps all come out of one ``WaitBudget``."""

    budget: WaitBudget

    def new(self, **kw: Any) -> _BudgetRetry:
        retry = super().new(**kw)
        retry.budget = self.budget
        return retry

    def increment(self, *args: Any, **kwargs: Any) -> Retry:  # type: ignore[override]
        # GithubRetry raises when the reset is further away than this: what is left, not the whole.
        self.max_rate_limit_wait = self.budget.remaining()
        return super().increment(*args, **kwargs)

    def sleep(self, response: Any = None) -> None:
        status = getattr(response, "status", None)
        after = _retry_after(response) if response is not None else None
        wait = after if after is not None else self.get_backoff_time()
        network = current_budget()  # the client's network deadline: sleeps count
        left = network.left() if network is not None else wait
        if status not in (403, 429) and after is None:
            if network is not None and wait >= left:
                raise NetworkDeadlineReached(last_request(), network.used(), network.total)
            if wait > 0:  # a 5xx or connection backoff: bounded by the retry count
                time.sleep(wait)
            return
        if not self.budget.take(wait):
            headers = dict(getattr(response, "headers", None) or {})
            if status is not None and status >= 500:  # 503 + Retry-After: down, not rate limited
                raise ServiceUnavailable(status, headers, wait)
            raise RateLimitExceededExceedsMaxWait(
                status or 403, {"message": "rate limit wait budget used up"}, headers, wait=wait
            )
        if network is not None and wait >= left:  # fits the wait budget, not the deadline
            raise NetworkDeadlineReached(last_request(), network.used(), network.total, wait)
        if wait > 0:
            time.sleep(wait)


def new_client(
    config: GitHubConfig, token: str | None, per_page: int = 100, cache_dir: Path | None = None
) -> Github:
    """A lazy client with bounded retries, request deadlines and a run-wide rate-limit wait budget."""
    # PyGithub logs every retry at INFO on its own stderr handler: keep the CLI to one line.
    if logging.getLogger("github").level == logging.INFO:
        github.set_log_level(logging.WARNING)
    wait = config.max_rate_limit_wait
    retry_kw: dict[str, Any] = {}
    if "retry_after_max" in inspect.signature(Retry.__init__).parameters:
        retry_kw["retry_after_max"] = wait  # urllib3 >= 2.5 caps Retry-After sleeps
    retry = _BudgetRetry(
        total=config.retries,
        backoff_factor=0.5,
        backoff_max=10,
        # Never sleep longer than configured for a rate limit: raise instead.
        max_rate_limit_wait=wait,
        secondary_rate_wait=min(60, wait),
        **retry_kw,
    )
    retry.budget = run_wait_budget(wait)
    base = api_base(config)
    gh = Github(
        auth=Auth.Token(token) if token else None,
        base_url=base,
        timeout=config.timeout,
        per_page=per_page,
        retry=retry,
        lazy=True,
        user_agent=f"prreport/{__version__}",
        # Requests are serial already; PyGithub's default 0.25 s pause only adds latency.
        seconds_between_requests=None,
    )
    # Every request, cached or not, gets a total deadline (a trickled body cannot hang a run),
    # and all of them together the client's network deadline (github.deadline).
    install_transport(
        gh.requester,
        urlsplit(base).scheme,
        request_deadline(config),
        cache_dir,
        NetworkBudget(config.deadline),
    )
    return gh


def request_deadline(config: GitHubConfig) -> float:
    """Seconds one attempt of a request may take in all: twice ``github.timeout``."""
    return 2.0 * max(1, config.timeout)


def api_error(
    exc: Exception, doing: str, repo: str, api_url: str, hints: Mapping[int, str] | None = None
) -> GitHubError:
    """One-line error for a failed call (``doing`` on ``repo``), with the fix for common statuses."""
    status: int | None = None
    if isinstance(exc, PageCapReached):
        return GitHubError(
            f"GitHub API at {api_url} kept paging while {doing} on {repo} ({exc}): "
            "stopped; check --github-api-url"
        )
    if isinstance(exc, MALFORMED_ANSWER) and not isinstance(exc, GithubException):
        return malformed_error(exc, doing, api_url)
    if isinstance(exc, NetworkDeadlineReached):
        return deadline_error(exc, doing, api_url)
    if isinstance(exc, ServiceUnavailable):
        return GitHubError(
            f"GitHub API at {api_url} is unavailable ({exc.status}) while {doing} on {repo} and "
            f"asks to retry after {exc.wait:.0f} s, more than the run's wait budget "
            "(github.max_rate_limit_wait) has left: try again later"
        )
    if isinstance(exc, RateLimitExceededException):
        return GitHubError(
            f"GitHub API rate limit exhausted while {doing} on {repo}: {rate_limit_wait_text(exc)}"
        )
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


def deadline_error(exc: NetworkDeadlineReached, doing: str, api_url: str) -> GitHubError:
    """One line for a network deadline that passed: the endpoint and the time spent."""
    asked = f"; GitHub asks for a {exc.asked:.0f} s wait, which does not fit" if exc.asked else ""
    return GitHubError(
        f"GitHub API at {api_url}: the network deadline (github.deadline = {exc.total:g} s) "
        f"passed while {doing}, at {exc.endpoint or 'a request'} after {exc.spent:.0f} s of "
        f"network waits (requests, retries, rate-limit waits){asked}: try again later or raise "
        "github.deadline"
    )


def retry_status(exc: Exception) -> int | None:
    """The HTTP status a ``RetryError`` gave up on ("too many 500 error responses")."""
    m = re.search(r"too many (\d{3}) error", str(exc))
    return int(m.group(1)) if m else None


def rate_limit_wait_text(exc: RateLimitExceededException) -> str:
    """Why a rate limit was not waited out: the wait asked for against the run's budget."""
    wait = getattr(exc, "wait", None)
    asked = f"it asks for a wait of {wait:.0f} s, " if wait else ""
    return (
        f"{asked}more than the run's rate-limit wait budget (github.max_rate_limit_wait) has left"
    )


def malformed_error(exc: Exception, doing: str, api_url: str) -> GitHubError:
    """One line for an answer that is not the API's, naming the endpoint that gave it."""
    endpoint = last_request() or "a request"
    text = " ".join(str(exc).split())
    if isinstance(exc, RuntimeError) and "redirected" in text:
        why = "a redirect to another host"
    else:
        why = f"{type(exc).__name__}: {text[:160]}" if text else type(exc).__name__
    return GitHubError(
        f"GitHub API at {api_url} gave a malformed answer to {endpoint} while {doing} ({why}): "
        "check --github-api-url (a proxy or an outage page?) or try again later"
    )
