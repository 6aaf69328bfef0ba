"""The organisation digest's plan: which repositories get a digest job (the Actions matrix)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from prreport.config import GitHubConfig
from prreport.digest.window import Window
from prreport.errors import ConfigError

_FULL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}$")


def repos_from_file(path: str | Path) -> list[str]:
    """``OWNER/NAME`` per line; blank lines and ``#`` comments ignored; each checked."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"--list: cannot read {p} ({exc})") from None
    repos: list[str] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if not _FULL_NAME.match(line):
            raise ConfigError(f"--list: {p}:{n}: {line!r} is not OWNER/NAME")
        if line not in repos:
            repos.append(line)
    if not repos:
        raise ConfigError(f"--list: {p} names no repository (one OWNER/NAME a line)")
    return repos


def repos_of_owner(
    config: GitHubConfig,
    owner: str,
    window: Window,
    include_archived: bool = False,
    include_forks: bool = False,
) -> list[str]:
    """The owner's repositories that can have PRs merged in the window.

    A merge pushes to the base branch, so a repository last pushed before the window starts
    has none: it gets no matrix job (and no API requests).
    """
    from prreport.sources.github.org import owner_repos

    return [
        r.full_name
        for r in owner_repos(config, owner)
        if (include_archived or not r.archived)
        and (include_forks or not r.fork)
        and (r.pushed_at is None or r.pushed_at >= window.since)
    ]


def matrix(
    repos: Sequence[str], window: Window, since: str | None = None, until: str | None = None
) -> dict[str, Any]:
    """The plan as JSON: the window and one matrix entry per repository (``fromJSON`` ready).

    ``week`` is the window's label (what the shard files are named after); a ``--since``/
    ``--until`` window also gives each entry the two bounds as the user wrote them, so every
    matrix job resolves the same window.
    """
    bounds = {"since": since, "until": until} if since and until else {}
    return {
        "window": window.to_json(),
        "include": [
            {"repo": r, "week": window.label, **bounds} for r in sorted(repos, key=str.lower)
        ],
    }
