"""The PRs of one repository merged inside a time window, from the GitHub API (for the digest).

Closed PRs are listed by update time, newest first; a PR is updated no earlier than it is
merged, so once an updated time falls before the window no later page can hold a PR merged
inside it and paging stops there.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from prreport.config import GitHubConfig


@dataclass(frozen=True)
class MergedInfo:
    """A merged PR as the list endpoint shows it."""

    number: int
    title: str
    merged_at: str
    author: str
    url: str
    draft: bool = False
    bot: bool = False  # a GitHub App or bot account (``user.type == "Bot"``, ``…[bot]``)


_MAX_PAGES = 500  # 50,000 closed PRs updated since the window began


def _until(pulls: Iterable[Any], since: datetime) -> Iterator[Any]:
    """Closed PRs, newest update first, until one was last updated before ``since``."""
    for pr in pulls:
        updated = _aware(pr.updated_at)
        if updated is not None and updated < since:
            return
        yield pr


def _aware(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def _listed(pr: Any) -> dict[str, Any]:
    """The PR as the listing sent it. ``raw_data`` would fetch each PR again (it completes the
    object); PyGithub keeps the listed JSON in ``_rawData`` (held by tests/test_library_bounds.py)."""
    data = getattr(pr, "_rawData", None)
    return data if isinstance(data, dict) else {}


def _is_bot(user: Any) -> bool:
    """A bot account, as the listing's ``user`` object says."""
    if not isinstance(user, dict):
        return False
    return user.get("type") == "Bot" or str(user.get("login", "")).endswith("[bot]")


def merged_in_window(
    config: GitHubConfig, since: datetime, until: datetime, per_page: int = 100
) -> list[MergedInfo]:
    """PRs merged in ``[since, until)``, oldest first; pages are fetched only until the window is passed."""
    from prreport.sources.github.client import API_FAILURES, api_base, api_error, new_client
    from prreport.sources.github.http import page_cap

    api_url = api_base(config)
    token = os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN") or None
    gh = new_client(config, token, per_page=per_page)
    found: list[MergedInfo] = []
    try:
        repo = gh.get_repo(config.repo)
        pulls = repo.get_pulls(state="closed", sort="updated", direction="desc")
        # A server that never stops linking pages is cut off (with an error: a partial list
        # of a week would be a wrong digest).
        with page_cap(_MAX_PAGES):
            merged_prs = list(_until(pulls, since))
        for pr in merged_prs:
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
                    draft=bool(_listed(pr).get("draft")),
                    bot=_is_bot(_listed(pr).get("user")),
                )
            )
    except API_FAILURES as exc:
        raise api_error(exc, "listing the closed PRs", config.repo, api_url) from None
    finally:
        gh.close()
    found.sort(key=lambda m: (m.merged_at, m.number))
    return found
