"""The organisation digest: per-repository digest JSON files (one per matrix job) merged into one.

Each shard is the ``<week>.json`` a single ``prreport digest`` writes; the merge re-sums their
PRs with the same code as the single digest (``build.summarise``), so the result does not
depend on how the repositories were split into shards or in which order they are given.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from prreport.digest.load import load_digest_json
from prreport.digest.summary import DIGEST_SCHEMA, Digest, summarise
from prreport.digest.window import Window
from prreport.errors import ConfigError
from prreport.series import parse_time

_FLAG = "digest merge"


def shard_files(paths: Sequence[str | Path]) -> list[Path]:
    """The digest JSON files among ``paths``: files as given, directories searched recursively."""
    found: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            for f in sorted(p.rglob("*.json")):
                if _is_digest(f):
                    found.append(f)
        elif p.is_file():
            found.append(p)
        else:
            raise ConfigError(f"{_FLAG}: {p} does not exist")
    if not found:
        raise ConfigError(
            f"{_FLAG}: no digest JSON in {', '.join(map(str, paths))} (give the directories the per-repository digests were written to)"
        )
    return sorted(set(found))


def _is_digest(path: Path) -> bool:
    """A digest JSON file (cheaply: its schema is in the first bytes), not a report or a plan."""
    try:
        with path.open(encoding="utf-8") as fh:
            head = fh.read(200)
    except (OSError, UnicodeDecodeError):
        return False
    return f'"schema": "{DIGEST_SCHEMA}"' in head


def owner_of(repos: Sequence[str]) -> str:
    """The name of an organisation digest: the repositories' common owner, else ``org``."""
    owners = {r.split("/", 1)[0] for r in repos if "/" in r}
    return owners.pop() if len(owners) == 1 else "org"


def merge_shards(shards: Sequence[dict[str, Any]], name: str | None = None) -> Digest:
    """One digest of every shard's PRs (same window required; a repository at most once)."""
    if not shards:
        raise ConfigError(f"{_FLAG}: nothing to merge")
    window = _window(shards[0])
    seen: dict[str, int] = {}
    prs: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    stats: dict[str, int] = {}
    for index, shard in enumerate(shards):
        other = _window(shard)
        if other != window:
            raise ConfigError(
                f"{_FLAG}: {shard['repo']} covers {other.label} ({other.since:%Y-%m-%d}..{other.until:%Y-%m-%d}), "
                f"not {window.label}: build every shard for the same --week"
            )
        repos = sorted({str(p.get("repo") or shard["repo"]) for p in shard.get("prs") or ()})
        for repo in repos or [shard["repo"]]:
            if seen.setdefault(repo, index) != index:
                raise ConfigError(
                    f"{_FLAG}: {repo} is in more than one digest: give each repository's digest once"
                )
        for p in shard.get("prs") or ():
            prs.append({**p, "repo": p.get("repo") or shard["repo"]})
        for f in shard.get("not_analysed") or ():
            if not f.get("partial"):
                failed.append(
                    {
                        "repo": f.get("repo") or shard["repo"],
                        "number": f.get("number"),
                        "title": f.get("title") or "",
                        "url": f.get("url") or "",
                        "reasons": list(f.get("reasons") or ()),
                    }
                )
        for k, v in (shard.get("stats") or {}).items():
            stats[k] = stats.get(k, 0) + int(v)
    sources = {str(s.get("source") or "") for s in shards}
    repo_names = sorted(
        {p["repo"] for p in prs} | {f["repo"] for f in failed} | {s["repo"] for s in shards}
    )
    return summarise(
        name or owner_of(repo_names),
        sources.pop() if len(sources) == 1 else "mixed",
        window,
        prs,
        failed,
        stats,
    )


def load_shards(paths: Sequence[str | Path]) -> list[dict[str, Any]]:
    """Every digest JSON under ``paths``, checked."""
    return [load_digest_json(f, _FLAG) for f in shard_files(paths)]


def _window(shard: dict[str, Any]) -> Window:
    w = shard["window"]
    since, until = parse_time(str(w.get("since"))), parse_time(str(w.get("until")))
    if since is None or until is None:
        raise ConfigError(f"{_FLAG}: {shard['repo']} has no readable window")
    return Window(str(w.get("label") or ""), since, until)
