"""The digest as one value: discover the window's PRs, analyse them (cached, concurrently), sum up.

Flow: window -> PR discovery (git ``(#N)`` commits or GitHub closed PRs) -> per PR the
ordinary pipeline (fetch, gather, analyse) in a worker pool, with analysis facts cached on
disk by bundle-content hash -> one ``Digest`` value -> Markdown / HTML / JSON outputs.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from prreport.bundle import to_jsonable
from prreport.config import Config
from prreport.digest.cache import AnalysisCache, code_fingerprint, content_key
from prreport.digest.discover import discover_git, discover_github
from prreport.digest.facts import SEVERITY_RANK
from prreport.digest.jobs import Job, Outcome, ProgressCallback, run_jobs
from prreport.digest.window import Window
from prreport.errors import ConfigError
from prreport.series import parse_time, series_of

DIGEST_SCHEMA = "prreport.digest/1"

# Verdicts (prreport.report) that mean the PR changes what the code does.
_BEHAVIOUR_VERDICTS = ("behavior-change", "refactor-with-behavior-change")
_TOP_RISKS = 20


@dataclass(frozen=True)
class Digest:
    """The digest as data; the JSON output is this value."""

    repo: str
    source: str
    window: Window
    prs: tuple[dict[str, Any], ...]
    not_analysed: tuple[dict[str, Any], ...]
    totals: dict[str, int]
    series: tuple[dict[str, Any], ...]
    top_risks: tuple[dict[str, Any], ...]
    stats: dict[str, int] = field(default_factory=dict)
    schema: str = DIGEST_SCHEMA

    def to_json(self) -> dict[str, Any]:
        """Plain JSON value (what the templates and ``<week>.json`` show)."""
        return {
            "schema": self.schema,
            "repo": self.repo,
            "source": self.source,
            "window": self.window.to_json(),
            "totals": dict(self.totals),
            "series": to_jsonable(self.series),
            "top_risks": to_jsonable(self.top_risks),
            "prs": to_jsonable(self.prs),
            "not_analysed": to_jsonable(self.not_analysed),
            "stats": dict(self.stats),
        }


def _count(prs: Sequence[dict[str, Any]], kind: str) -> int:
    return sum(int(p["kind_counts"].get(kind, 0)) for p in prs)


def build_digest(repo: str, source: str, window: Window, outcomes: Sequence[Outcome]) -> Digest:
    """Sum per-PR facts into totals, series, top risks and the list of PRs not analysed."""
    prs, not_analysed = _split_outcomes(outcomes)
    prs.sort(key=lambda p: (parse_time(p["merged_at"]) or window.since, p["number"] or 0))
    not_analysed.sort(key=lambda p: p["number"] or 0)
    totals = _totals(prs, outcomes)
    stats = {
        "analysed": sum(1 for o in outcomes if o.facts is not None and not o.cached),
        "cached": sum(1 for o in outcomes if o.cached),
        "failed": totals["not_analysed"],
    }
    return Digest(
        repo=repo,
        source=source,
        window=window,
        prs=tuple(prs),
        not_analysed=tuple(not_analysed),
        totals=totals,
        series=tuple(_series(prs, outcomes)),
        top_risks=tuple(_top_risks(prs)[:_TOP_RISKS]),
        stats=stats,
    )


def _split_outcomes(
    outcomes: Sequence[Outcome],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The analysed PRs' facts, and the PRs not (or only partly) analysed with why."""
    prs: list[dict[str, Any]] = []
    not_analysed: list[dict[str, Any]] = []
    for o in outcomes:
        if o.facts is None:
            not_analysed.append(
                {
                    "number": o.pr.number,
                    "title": o.pr.title,
                    "url": o.pr.url,
                    "reasons": [o.error],
                    "partial": False,
                }
            )
            continue
        facts = {**o.facts, "merged_at": o.facts.get("merged_at") or o.pr.merged_at}
        if o.pr.url and not facts.get("url"):
            facts["url"] = o.pr.url
        prs.append(facts)
        if facts["problems"]:
            not_analysed.append(
                {
                    "number": facts["number"],
                    "title": facts["title"],
                    "url": facts["url"],
                    "reasons": list(facts["problems"]),
                    "partial": True,
                }
            )
    return prs, not_analysed


def _totals(prs: Sequence[dict[str, Any]], outcomes: Sequence[Outcome]) -> dict[str, int]:
    """The digest's headline counts."""
    verdicts = Counter(p["verdict"] for p in prs)
    return {
        "prs": len(outcomes),
        "analysed": len(prs),
        "not_analysed": sum(1 for o in outcomes if o.facts is None),
        "partially_analysed": sum(1 for p in prs if p["problems"]),
        "pure_refactors": verdicts["pure-refactor"],
        "behavior_changes": sum(verdicts[v] for v in _BEHAVIOUR_VERDICTS),
        "unknown_verdicts": verdicts["unknown"],
        "lines_changed": sum(p["changed_lines"] for p in prs),
        "lines_explained": sum(p["explained_lines"] for p in prs),
        "imports_hoisted": _count(prs, "import.hoisted"),
        "imports_sunk": _count(prs, "import.sunk"),
        "loops_freed_of_imports": _count(prs, "loop.imports-removed"),
        "dead_code_removed": _count(prs, "code.dead-removed"),
        "cycles_risked": _count(prs, "cycle.risk"),
    }


def _series(prs: Sequence[dict[str, Any]], outcomes: Sequence[Outcome]) -> list[dict[str, Any]]:
    """PRs grouped by conventional-commit ``type(scope)``, PRs not analysed included."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for p in prs:
        groups.setdefault(p["series"], []).append(p)
    for o in outcomes:
        if o.facts is None:
            groups.setdefault(series_of(o.pr.title), []).append(
                {"number": o.pr.number, "verdict": "not-analysed"}
            )
    series: list[dict[str, Any]] = [
        {
            "key": key,
            "count": len(members),
            "numbers": sorted(m["number"] for m in members),
            "pure_refactors": sum(1 for m in members if m["verdict"] == "pure-refactor"),
            "behavior_changes": sum(1 for m in members if m["verdict"] in _BEHAVIOUR_VERDICTS),
        }
        for key, members in groups.items()
    ]
    # Named series first, biggest first; PRs without a conventional-commit title last.
    series.sort(key=lambda s: (s["key"] == "", -s["count"], s["key"]))
    return series


def _top_risks(prs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One line per risk tag (highest severity first, then the most PRs), naming its PRs."""
    by_tag: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for p in prs:
        for r in p["risks"]:
            by_tag.setdefault((r["id"], r["severity"]), []).append(
                {
                    "number": p["number"],
                    "title": p["title"],
                    "url": p["url"],
                    "evidence": r["evidence"],
                }
            )
    risks: list[dict[str, Any]] = [
        {"id": rid, "severity": sev, "count": len(members), "prs": members}
        for (rid, sev), members in by_tag.items()
    ]
    risks.sort(key=lambda r: (SEVERITY_RANK.get(r["severity"], 5), -r["count"], r["id"]))
    return risks


def make_digest(
    config: Config,
    window: Window,
    source: str = "git",
    cache: bool = True,
    on_start: Callable[[int], None] | None = None,
    on_progress: ProgressCallback | None = None,
    page_size: int = 100,
) -> Digest:
    """Discover the PRs merged in the window, analyse them (cached, concurrently), sum up."""
    if source == "github":
        repo, found = discover_github(config.github, window, page_size)
    else:
        repo, found = discover_git(config.git, window)
    cache_dir = config.digest.cache_dir if cache else ""
    fingerprint = code_fingerprint()
    if on_start:
        on_start(len(found))
    # PRs whose content is known up front are looked up here: a warm run starts no worker.
    store = AnalysisCache(cache_dir or None)
    done: dict[int, Outcome] = {}
    for pr in found:
        hit = store.get(content_key(pr.content, config, fingerprint)) if pr.content else None
        if hit is not None:
            hit.pop("key", None)
            done[pr.number] = Outcome(pr, hit, cached=True)
            if on_progress:
                on_progress(len(done), len(found), done[pr.number])
    jobs = [
        Job(pr, config, source, cache_dir, fingerprint) for pr in found if pr.number not in done
    ]

    def progress(count: int, total: int, outcome: Outcome) -> None:
        if on_progress:
            on_progress(len(done) + count, len(found), outcome)

    for outcome in run_jobs(jobs, config.digest.workers, progress):
        done[outcome.pr.number] = outcome
    return build_digest(repo, source, window, [done[pr.number] for pr in found])


def with_workers(config: Config, workers: int | None, cache_dir: str | None) -> Config:
    """The configuration with ``--workers`` / ``--cache-dir`` applied."""
    digest = config.digest
    if workers is not None:
        if workers < 1:
            raise ConfigError(f"--workers must be at least 1, got {workers}")
        digest = dataclasses.replace(digest, workers=workers)
    if cache_dir is not None:
        digest = dataclasses.replace(digest, cache_dir=cache_dir)
    return dataclasses.replace(config, digest=digest)
