"""One PR's door to the GitHub API: the client, the repository handle, failures as one-line errors.

The client is built on first use, with the on-disk HTTP cache unless it is off; every
PyGithub or network failure inside ``calls`` becomes a one-line ``GitHubError``.
"""

from __future__ import annotations

import base64
import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

import requests
from github import Github, GithubException
from github.GithubException import (
    BadCredentialsException,
    RateLimitExceededException,
    UnknownObjectException,
)

from prreport.config import GitHubConfig
from prreport.errors import GitHubError
from prreport.sources.github.client import (
    MALFORMED_ANSWER,
    ServiceUnavailable,
    deadline_error,
    malformed_error,
    new_client,
    request_deadline,
    retry_status,
)
from prreport.sources.github.http import (
    NetworkDeadlineReached,
    PageCapReached,
    cache_namespace,
    page_cap,
    purpose,
)

T = TypeVar("T")


def _token() -> str | None:
    return os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN") or None


def iso_time(value: datetime | None) -> str | None:
    """A PyGithub timestamp (naive means UTC) as ISO text."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.isoformat()


def _reset_text(headers: Any) -> str:
    """When the rate limit resets, from the response headers."""
    value = None
    for k, v in (headers or {}).items():
        if k.lower() == "x-ratelimit-reset":
            value = v
    if value is None or not str(value).isdigit():
        return "at an unknown time"
    reset = datetime.fromtimestamp(int(value), timezone.utc)
    minutes = max(0, round((reset - datetime.now(timezone.utc)).total_seconds() / 60))
    return f"at {reset:%Y-%m-%d %H:%M} UTC (in {minutes} min)"


def _message(data: Any) -> str:
    if isinstance(data, dict):
        return str(data.get("message") or "")
    return ""


class PullRequestApi:
    """The API calls of one PR's source, with the notes (what could not be fetched) they leave."""

    def __init__(self, config: GitHubConfig, number: int) -> None:
        self.config = config
        self.number = number
        self.repo_name = config.repo
        self.api_url = (config.api_url or "https://api.github.com").rstrip("/")
        self.token = _token()
        self.notes: list[str] = []
        self.content_dir: Path | None = None  # the content store, when the cache is on
        self._gh: Github | None = None
        self._repo: Any = None

    def client(self) -> Github:
        """The PyGithub client, built on first use (with the HTTP cache unless it is off)."""
        if self._gh is not None:
            return self._gh
        cache_dir = None
        if self.config.cache:
            ns = Path(self.config.cache_dir) / "github" / cache_namespace(self.token, self.api_url)
            try:
                (ns / "http").mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise GitHubError(
                    f"cannot create the cache directory {ns}: {exc.strerror} (set github.cache_dir or use --no-cache)"
                ) from None
            cache_dir = ns / "http"
            self.content_dir = ns / "content"
        self._gh = new_client(self.config, self.token, cache_dir=cache_dir)
        return self._gh

    @contextlib.contextmanager
    def calls(self, what: str, missing: str | None = None) -> Iterator[None]:
        """Turn PyGithub and network failures into one-line GitHubErrors (``missing``: the 404 text)."""
        where = f"{self.repo_name} PR #{self.number}"
        try:
            with purpose(what):
                yield
        except RateLimitExceededException as exc:
            wait = getattr(exc, "wait", None)
            asked = f"GitHub asks for a {wait:.0f} s wait" if wait else ""
            resets = _reset_text(exc.headers)
            when = f"it resets {resets}" if resets != "at an unknown time" or not asked else asked
            raise GitHubError(
                f"GitHub API rate limit exhausted while {what} for {where}; {when}, more than is left of "
                f"the run's github.max_rate_limit_wait budget ({self.config.max_rate_limit_wait} s in all): rerun then"
                + ("" if self.token else ", or set GITHUB_TOKEN for a higher limit")
            ) from None
        except NetworkDeadlineReached as exc:
            raise deadline_error(exc, what, self.api_url) from None
        except ServiceUnavailable as exc:
            raise GitHubError(
                f"GitHub API at {self.api_url} is unavailable ({exc.status}) while {what} for "
                f"{where} and asks to retry after {exc.wait:.0f} s, more than is left of the run's "
                f"wait budget (github.max_rate_limit_wait, {self.config.max_rate_limit_wait} s in "
                "all): try again later"
            ) from None
        except BadCredentialsException:
            raise GitHubError(
                f"GitHub at {self.api_url} rejected the token (401 Bad credentials) while {what}: "
                "set a valid GITHUB_TOKEN or GH_TOKEN"
            ) from None
        except UnknownObjectException:
            raise (GitHubError(missing) if missing else self._not_found(what)) from None
        except GithubException as exc:
            raise self._status_error(exc.status, _message(exc.data), what) from None
        except requests.exceptions.RetryError as exc:
            status = retry_status(exc)
            if status == 403:  # GithubRetry retries a 403 only when it is a rate limit
                raise GitHubError(
                    f"GitHub API rate limit exhausted while {what} for {where} and retries used up "
                    f"(github.retries = {self.config.retries}): rerun after the limit resets"
                ) from None
            raise self._status_error(status, "", what) from None
        except (requests.exceptions.Timeout, requests.exceptions.ConnectionError) as exc:
            if "no complete answer within" in str(exc):
                raise GitHubError(
                    f"GitHub API at {self.api_url} did not complete an answer within {request_deadline(self.config):g} s "
                    f"(twice github.timeout) while {what}: raise github.timeout or try again later"
                ) from None
            if "timed out" in str(exc).lower() or isinstance(exc, requests.exceptions.Timeout):
                raise GitHubError(
                    f"GitHub API at {self.api_url} did not answer within {self.config.timeout} s while {what} "
                    f"(after {self.config.retries} retries): raise github.timeout or try again later"
                ) from None
            raise GitHubError(
                f"cannot reach the GitHub API at {self.api_url} while {what}: check --github-api-url and the network"
            ) from None
        except GitHubError:
            raise
        except MALFORMED_ANSWER as exc:
            raise malformed_error(exc, what, self.api_url) from None

    def listing(
        self,
        items: Iterable[T],
        what: str,
        max_items: int,
        touch: Callable[[T], object] | None = None,
    ) -> list[T]:
        """At most ``max_items`` of a paginated listing, in at most the pages they fill plus one.

        A server that keeps linking a next page (empty or not) is cut off there with a note,
        so no listing can run forever. ``touch`` reads the attributes used later, so a
        malformed item is reported against this listing's endpoint.
        """
        out: list[T] = []
        max_pages = -(-max_items // 100) + 1
        with self.calls(what), page_cap(max_pages):
            try:
                for item in items:
                    if len(out) >= max_items:
                        self.notes.append(
                            f"{what}: more than {max_items} listed; the first {max_items} are used"
                        )
                        break
                    if not isinstance(getattr(item, "_rawData", {}), dict):
                        # PyGithub makes an item of each key of a JSON object given for a list
                        raise TypeError("a JSON object where a list of items belongs")
                    if touch is not None:
                        touch(item)
                    out.append(item)
            except PageCapReached:
                self.notes.append(
                    f"{what}: GitHub kept linking more pages after {max_pages}; {len(out)} items read"
                )
        return out

    def _status_error(self, status: int | None, message: str, what: str) -> GitHubError:
        detail = f": {message}" if message else ""
        if status == 401:
            return GitHubError(
                f"GitHub at {self.api_url} rejected the token (401{detail}) while {what}: set a valid GITHUB_TOKEN or GH_TOKEN"
            )
        if status == 403:
            return GitHubError(
                f"GitHub refused access (403{detail}) while {what} for {self.repo_name}: "
                "check that the token may read this repository"
            )
        if status == 404:
            return self._not_found(what)
        if status is not None and status >= 500:
            return GitHubError(
                f"GitHub API at {self.api_url} failed with {status} while {what} "
                f"(after {self.config.retries} retries): try again later"
            )
        return GitHubError(
            f"GitHub API answered {status}{detail} while {what} for {self.repo_name} PR #{self.number}"
        )

    def _not_found(self, what: str) -> GitHubError:
        """Say whether the repository or the pull request is missing (one extra request)."""
        try:
            self.repo().private  # noqa: B018 - completes the lazy repository: GET /repos/o/r
        except GithubException as exc:
            if exc.status == 404:
                return GitHubError(
                    f"repository {self.repo_name} not found at {self.api_url} (or the token cannot see it): "
                    "check --github OWNER/NAME and GITHUB_TOKEN"
                )
        except requests.exceptions.RequestException:
            pass
        return GitHubError(
            f"{self.repo_name} has no pull request #{self.number} (404 while {what}): check the number"
        )

    def repo(self) -> Any:
        """The repository handle (lazy: no request)."""
        if self._repo is None:
            self._repo = self.client().get_repo(self.repo_name)  # lazy: no request
        return self._repo

    def blob(self, sha: str, what: str) -> bytes:
        """A git blob's bytes (one request)."""
        missing = (
            f"GitHub has no blob {sha[:12]} in {self.repo_name} (404 while {what} for PR "
            f"#{self.number}): the PR's head may have been force-pushed or the file rewritten; rerun"
        )
        with self.calls(what, missing=missing):
            blob = self.repo().get_git_blob(sha)
            return base64.b64decode(blob.content or "")

    def close(self) -> None:
        """Close the HTTP connections."""
        if self._gh is not None:
            self._gh.close()
            self._gh = None
