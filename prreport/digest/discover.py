"""Which PRs were merged in a window: ``(#N)`` commits of a local clone, or GitHub's closed PRs."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import timedelta

from prreport.config import GitConfig, GitHubConfig
from prreport.digest.window import Window, iso_utc
from prreport.series import parse_time
from prreport.sources.gitrepo import GitRepo, LogEntry, git_log, repo_name

_SQUASH_SUFFIX = re.compile(r"\s*\(#\d+\)\s*$")


@dataclass(frozen=True)
class MergedPR:
    """A PR merged inside the window, as discovered (before analysis)."""

    number: int
    title: str
    merged_at: str
    ref: str = ""  # the squash/merge commit (git source); "" for GitHub
    author: str = ""
    url: str = ""
    # What fixes the bundle's content before fetching it (git: commit and parent SHAs, which
    # hash every file's text); "" when only the fetched bundle can tell (GitHub).
    content: str = ""
    draft: bool = False
    bot: bool = False


# What ``[digest] include`` / ``--include`` can add back: left out of a digest by default.
SKIPPABLE = ("draft", "bot")


def is_bot_author(author: str) -> bool:
    """A bot's name as git or GitHub writes it (``dependabot[bot]``, ``renovate[bot]``)."""
    return author.strip().lower().endswith("[bot]")


def skip_drafts_and_bots(
    found: list[MergedPR], include: tuple[str, ...]
) -> tuple[list[MergedPR], dict[str, int]]:
    """The PRs a digest covers and how many of each kind were left out (``skipped_drafts``,
    ``skipped_bots``): drafts and bot PRs unless ``include`` names them."""
    kept: list[MergedPR] = []
    skipped = {"skipped_drafts": 0, "skipped_bots": 0}
    for pr in found:
        if pr.draft and "draft" not in include:
            skipped["skipped_drafts"] += 1
        elif (pr.bot or is_bot_author(pr.author)) and "bot" not in include:
            skipped["skipped_bots"] += 1
        else:
            kept.append(pr)
    return kept, skipped


def discover_git(config: GitConfig, window: Window) -> tuple[str, list[MergedPR]]:
    """Repository name and the ``(#N)`` squash/merge commits on HEAD's first-parent line in the window."""
    git = GitRepo(config.repo)
    try:
        # git's --since prunes the walk cheaply; a day of slack covers clock skew, the exact
        # bounds are applied below on the committer date (when the PR landed on the branch).
        slack = iso_utc(window.since - timedelta(days=1))
        entries = git_log(git, ["--first-parent", f"--since={slack}", "HEAD"])
        name = repo_name(git)
        origin = (git.run(["config", "--get", "remote.origin.url"], check=False) or "").strip()
    finally:
        git.close()
    found: dict[int, MergedPR] = {}
    for e in entries:
        number = e.pr_number
        if number is None or number in found or not window.contains(parse_time(e.date)):
            continue
        # A commit SHA is a hash of its whole tree and message, its parents' of theirs: together
        # they fix every byte the git source puts in the bundle (the origin fixes the URLs).
        content = json.dumps(["git", name, origin, e.sha, list(e.parents), config.max_file_bytes])
        found[number] = MergedPR(number, _pr_title(e), e.date, e.sha, e.author, content=content)
    return name, sorted(
        found.values(), key=lambda p: (parse_time(p.merged_at) or window.since, p.number)
    )


def _pr_title(entry: LogEntry) -> str:
    """The PR title a squash commit (``title (#N)``) or a merge commit (body line 1) carries."""
    if entry.subject.startswith("Merge pull request #"):
        first = entry.body.strip().splitlines()
        return first[0].strip() if first else entry.subject
    return _SQUASH_SUFFIX.sub("", entry.subject)


def discover_github(
    config: GitHubConfig, window: Window, page_size: int = 100
) -> tuple[str, list[MergedPR]]:
    """Repository name and the PRs merged in the window, as GitHub's closed-PR listing shows them."""
    from prreport.sources.github.window import merged_in_window

    merged = merged_in_window(config, window.since, window.until, per_page=page_size)
    return config.repo, [
        MergedPR(m.number, m.title, m.merged_at, "", m.author, m.url, draft=m.draft, bot=m.bot)
        for m in merged
    ]
