"""Related-PR candidates from GitHub: the PR's series, recent PRs on its most-changed file, PRs it names.

Every lookup is optional: a failure other than a rejected token becomes a source note.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Any

from prreport.bundle import CommitInfo, FileChange, PullRequestMeta, RelatedCandidate
from prreport.errors import GitHubError
from prreport.series import SeriesKey, parse_time, referenced_numbers, related_candidates, series_of
from prreport.sources.github.api import PullRequestApi, iso_time
from prreport.sources.gitrepo import pr_number_of_subject

_RELATED_MAX = 12
_SAME_FILES_PATHS = 1  # "same files recently": the most-changed path only (request budget N + 12)
_REFERENCED_MAX = 5


def related_prs(
    api: PullRequestApi, meta: PullRequestMeta, files: list[FileChange], commits: list[CommitInfo]
) -> list[RelatedCandidate]:
    """Series PRs (search), PRs that touched the most-changed files, and referenced PRs."""
    when = parse_time(meta.merged_at) or parse_time(meta.created_at) or datetime.now(timezone.utc)
    window = timedelta(days=api.config.related_window_days)
    lo, hi = when - window, when + window
    others: dict[int, SeriesKey] = {}
    # Each lookup as a whole is optional: a malformed answer while reading one is a note too.
    series = _soft(api, "reading the PR series", lambda: _series_prs(api, meta.title, lo, hi))
    for key in series or []:
        _add(others, key)
    same_files = _soft(api, "reading recent PRs", lambda: _same_file_prs(api, files, lo, hi))
    for key in same_files or []:
        _add(others, key)
    text = "\n".join([meta.body] + [f"{c.subject}\n{c.body}" for c in commits])
    wanted = sorted(referenced_numbers(text) - set(others) - {api.number})[:_REFERENCED_MAX]
    for key in _soft(api, "reading referenced PRs", lambda: _referenced_prs(api, wanted)) or []:
        _add(others, key)
    this = SeriesKey(
        meta.number,
        meta.title,
        text,
        meta.author,
        meta.merged_at,
        tuple(sorted({f.path for f in files} | {f.old_path for f in files if f.old_path})),
    )
    return related_candidates(
        this, list(others.values()), api.config.related_window_days, _RELATED_MAX
    )


def _add(others: dict[int, SeriesKey], key: SeriesKey) -> None:
    """Add a candidate, merging it with one already found under the same number."""
    assert key.number is not None
    old = others.get(key.number)
    if old is None:
        others[key.number] = key
    else:
        merged = tuple(sorted(set(old.files) | set(key.files)))
        others[key.number] = SeriesKey(
            old.number,
            old.title,
            old.body or key.body,
            old.author,
            old.merged_at or key.merged_at,
            merged,
            old.url or key.url,
        )


def _series_prs(api: PullRequestApi, title: str, lo: datetime, hi: datetime) -> list[SeriesKey]:
    """Merged PRs whose title has the same conventional-commit ``type(scope)`` (one search)."""
    series = series_of(title)
    if not series:
        return []
    query = f'repo:{api.repo_name} is:pr is:merged in:title "{series}" merged:{lo:%Y-%m-%d}..{hi:%Y-%m-%d}'
    found = (
        _soft(
            api,
            "searching for the PR series",
            lambda: api.listing(
                api.client().search_issues(query), "searching for the PR series", 100
            ),
        )
        or []
    )
    keys = []
    for issue in found:
        pr_info = issue.pull_request
        keys.append(
            SeriesKey(
                issue.number,
                issue.title or "",
                issue.body or "",
                issue.user.login if issue.user else "",
                iso_time(pr_info.merged_at)
                if pr_info and pr_info.merged_at
                else iso_time(issue.closed_at),
                (),
                issue.html_url or "",
            )
        )
    return keys


def _same_file_prs(
    api: PullRequestApi, files: list[FileChange], lo: datetime, hi: datetime
) -> list[SeriesKey]:
    """The ``(#N)`` commits that recently changed the PR's most-changed existing files."""
    ranked = sorted(
        (f for f in files if f.status != "added"),
        key=lambda f: (-(f.additions + f.deletions), f.path),
    )
    keys = []
    for f in ranked[:_SAME_FILES_PATHS]:
        found = (
            _soft(
                api,
                f"listing recent commits of {f.before_path}",
                lambda p=f.before_path: api.listing(
                    api.repo().get_commits(path=p, since=lo, until=hi),
                    f"listing recent commits of {p}",
                    100,
                ),
            )
            or []
        )
        for c in found:
            subject, _, body = (c.commit.message or "").partition("\n")
            number = pr_number_of_subject(subject)
            if number is None:
                continue
            title = re.sub(r"\s*\(#\d+\)\s*$", "", subject)
            author = c.commit.author.name if c.commit.author else ""
            keys.append(
                SeriesKey(
                    number,
                    title,
                    body.strip(),
                    author,
                    iso_time(c.commit.author.date) if c.commit.author else None,
                    (f.before_path,),
                    "",
                )
            )
    return keys


def _referenced_prs(api: PullRequestApi, numbers: list[int]) -> list[SeriesKey]:
    """The PRs among the issue numbers the PR text references (one request each)."""
    keys = []
    for n in numbers:
        issue = _soft(api, f"reading #{n}", lambda n=n: _completed(api.repo().get_issue(n)))
        if issue is None or issue.pull_request is None:
            continue
        merged_at = issue.pull_request.merged_at
        keys.append(
            SeriesKey(
                n,
                issue.title or "",
                issue.body or "",
                issue.user.login if issue.user else "",
                iso_time(merged_at) if merged_at else None,
                (),
                issue.html_url or "",
            )
        )
    return keys


def _soft(api: PullRequestApi, what: str, call: Any) -> Any:
    """Related-PR lookups are optional: a failure (other than auth) becomes a source note."""
    try:
        with api.calls(what, missing=f"{what}: not found"):
            return call()
    except GitHubError as exc:
        if "rejected the token" in str(exc):
            raise
        api.notes.append(f"related PRs: {exc}")
        return None


def _completed(obj: Any) -> Any:
    """Complete a lazy PyGithub object now (so errors surface inside the caller's guard)."""
    obj.title  # noqa: B018
    return obj
