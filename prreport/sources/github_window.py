"""The PRs of one repository merged inside a time window, from the GitHub API (for the digest).

Closed PRs are listed by update time, newest first; a PR is updated no earlier than it is
merged, so once an updated time falls before the window no later page can hold a PR merged
inside it and paging stops there.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timezone
from urllib.parse import urlsplit

from prreport import __version__
from prreport.config import GitHubConfig
from prreport.errors import GitHubError


@dataclass(frozen=True)
class MergedInfo:
    """A merged PR as the list endpoint shows it."""

    number: int
    title: str
    merged_at: str
    author: str
    url: str


def _aware(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def merged_in_window(
    config: GitHubConfig, since: datetime, until: datetime, per_page: int = 100
) -> list[MergedInfo]:
    """PRs merged in ``[since, until)``, oldest first; pages are fetched only until the window is passed."""
    from github import Auth, Github, GithubException
    from github.GithubException import BadCredentialsException, UnknownObjectException

    api_url = (config.api_url or "https://api.github.com").rstrip("/")
    if urlsplit(api_url).scheme not in ("http", "https"):
        raise GitHubError(
            f"github.api_url must be an http(s) URL, got {api_url!r} (--github-api-url)"
        )
    token = os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN") or None
    gh = Github(
        auth=Auth.Token(token) if token else None,
        base_url=api_url,
        timeout=config.timeout,
        per_page=per_page,
        retry=config.retries,
        lazy=True,
        user_agent=f"prreport/{__version__}",
        seconds_between_requests=None,
    )
    found: list[MergedInfo] = []
    try:
        repo = gh.get_repo(config.repo)
        for pr in repo.get_pulls(state="closed", sort="updated", direction="desc"):
            updated = _aware(pr.updated_at)
            if updated is not None and updated < since:
                break
            merged = _aware(pr.merged_at)
            if merged is None or not (since <= merged < until):
                continue
            found.append(
                MergedInfo(
                    number=int(pr.number),
                    title=str(pr.title or ""),
                    merged_at=merged.isoformat(),
                    author=str(pr.user.login) if pr.user is not None else "",
                    url=str(pr.html_url or ""),
                )
            )
    except BadCredentialsException:
        raise GitHubError(
            f"GitHub at {api_url} rejected the token (401) while listing merged PRs: set a valid GITHUB_TOKEN"
        ) from None
    except UnknownObjectException:
        raise GitHubError(
            f"repository {config.repo} not found at {api_url} (or the token cannot see it): check --github OWNER/NAME"
        ) from None
    except GithubException as exc:
        raise GitHubError(
            f"GitHub API answered {exc.status} while listing the closed PRs of {config.repo}: try again later"
        ) from None
    except OSError as exc:  # requests' connection errors are OSErrors
        raise GitHubError(
            f"cannot reach the GitHub API at {api_url} while listing merged PRs ({type(exc).__name__}): check --github-api-url"
        ) from None
    finally:
        gh.close()
    found.sort(key=lambda m: (m.merged_at, m.number))
    return found
