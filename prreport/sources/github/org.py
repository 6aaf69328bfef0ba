"""The repositories of an organisation (or a user), from the GitHub API (for the organisation digest)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timezone

from prreport.config import GitHubConfig
from prreport.errors import GitHubError


@dataclass(frozen=True)
class RepoInfo:
    """One repository as the listing shows it."""

    full_name: str
    archived: bool
    fork: bool
    pushed_at: datetime | None


def owner_repos(config: GitHubConfig, owner: str, per_page: int = 100) -> list[RepoInfo]:
    """Every repository of ``owner``: an organisation's, else a user's (``/users/{owner}/repos``)."""
    from github import GithubException

    from prreport.sources.github.client import api_base, api_error, new_client

    api_url = api_base(config)
    token = os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN") or None
    gh = new_client(config, token, per_page=per_page)
    found: list[RepoInfo] = []
    doing = f"listing the repositories of {owner}"
    try:
        try:
            listing = list(gh.get_organization(owner).get_repos(type="all"))
        except GithubException as exc:
            if exc.status != 404:
                raise
            try:
                listing = list(gh.get_user(owner).get_repos(type="owner"))
            except GithubException as inner:
                if inner.status != 404:
                    raise
                raise GitHubError(
                    f"no organisation or user {owner!r} at {api_url}: check --org"
                ) from None
        for r in listing:
            pushed = r.pushed_at
            if pushed is not None and pushed.tzinfo is None:
                pushed = pushed.replace(tzinfo=timezone.utc)
            found.append(RepoInfo(str(r.full_name), bool(r.archived), bool(r.fork), pushed))
    except (GithubException, OSError) as exc:  # requests' connection errors are OSErrors
        raise api_error(exc, doing, owner, api_url) from None
    finally:
        gh.close()
    return sorted(found, key=lambda r: r.full_name.lower())
