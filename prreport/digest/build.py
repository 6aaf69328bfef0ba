"""The digest as one value: discover the window's PRs, analyse them (cached, concurrently), sum up.

Flow: window -> PR discovery (git ``(#N)`` commits or GitHub closed PRs) -> per PR the
ordinary pipeline (fetch, gather, analyse) in a worker pool, with analysis facts cached on
disk by bundle-content hash -> one ``Digest`` value -> Markdown / HTML / JSON outputs.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prreport.bundle import to_jsonable
from prreport.config import Config
from prreport.digest.cache import AnalysisCache, code_fingerprint, content_key
from prreport.digest.discover import discover_git, discover_github
from prreport.digest.facts import ACTION_RANK, LOW_SIGNAL_RISKS, SEVERITY_RANK
from prreport.digest.jobs import Job, Outcome, ProgressCallback, run_jobs
from prreport.digest.window import Window
from prreport.errors import ConfigError
from prreport.series import parse_time, series_of

DIGEST_SCHEMA = "prreport.digest/1"

# Verdicts (prreport.report) that mean the PR changes what the code does.
_BEHAVIOUR_VERDICTS = ("behavior-change", "refactor-with-behavior-change")
_TOP_RISKS = 20
# Among equally risky PRs, a behaviour change needs a reader more than a proven refactor.
_VERDICT_RANK = {"behavior-change": 0, "refactor-with-behavior-change": 0, "unknown": 1}


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
    low_signal: tuple[dict[str, Any], ...] = ()
    repos: tuple[dict[str, Any], ...] = ()
    # Each PR's rendered report per language, keyed "<repo>#<number>" (files, not JSON).
    reports: dict[str, dict[str, str]] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON value (what the templates and ``<week>.json`` show)."""
        return {
            "schema": self.schema,
            "repo": self.repo,
            "source": self.source,
            "window": self.window.to_json(),
            "totals": dict(self.totals),
            "repos": to_jsonable(self.repos),
            "series": to_jsonable(self.series),
            "top_risks": to_jsonable(self.top_risks),
            "low_signal": to_jsonable(self.low_signal),
            "prs": to_jsonable(self.prs),
            "not_analysed": to_jsonable(self.not_analysed),
            "stats": dict(self.stats),
        }


def report_key(repo: str, number: int | None) -> str:
    """The key of one PR's rendered reports in ``Digest.reports``."""
    return f"{repo}#{number}"


def _count(prs: Sequence[dict[str, Any]], kind: str) -> int:
    return sum(int(p["live_kind_counts"].get(kind, 0)) for p in prs)


def build_digest(repo: str, source: str, window: Window, outcomes: Sequence[Outcome]) -> Digest:
    """Sum per-PR facts into totals, series, top risks and the list of PRs not analysed."""
    prs, failed, reports = _split_outcomes(repo, outcomes)
    stats = {
        "analysed": sum(1 for o in outcomes if o.facts is not None and not o.cached),
        "cached": sum(1 for o in outcomes if o.cached),
        "failed": len(failed),
    }
    return summarise(repo, source, window, prs, failed, stats, reports)


def summarise(
    repo: str,
    source: str,
    window: Window,
    prs: Sequence[dict[str, Any]],
    failed: Sequence[dict[str, Any]],
    stats: dict[str, int] | None = None,
    reports: dict[str, dict[str, str]] | None = None,
) -> Digest:
    """The digest of analysed PRs (facts) and PRs that could not be analysed, in any order.

    The single digest and the merge of per-repository digests both end here, so a merged
    organisation digest equals one built in one process over the same PRs.
    """
    ordered = sorted(prs, key=lambda p: attention_key(p, window))
    not_analysed = [{**f, "partial": False} for f in failed] + [
        {
            "repo": p["repo"],
            "number": p["number"],
            "title": p["title"],
            "url": p["url"],
            "reasons": list(p["problems"]),
            "partial": True,
        }
        for p in prs
        if p["problems"]
    ]
    not_analysed.sort(key=lambda f: (f["repo"], f["number"] or 0, f["partial"]))
    return Digest(
        repo=repo,
        source=source,
        window=window,
        prs=tuple(ordered),
        not_analysed=tuple(not_analysed),
        totals=_totals(ordered, failed),
        series=tuple(_series(ordered, failed)),
        top_risks=tuple(_top_risks(ordered, signal=True)[:_TOP_RISKS]),
        stats=dict(stats or {}),
        low_signal=tuple(_top_risks(ordered, signal=False)),
        repos=tuple(_repos(ordered, failed)),
        reports=dict(reports or {}),
    )


def _signal_risks(p: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in p["risks"] if r["id"] not in LOW_SIGNAL_RISKS]


def attention_key(p: dict[str, Any], window: Window) -> tuple[Any, ...]:
    """What needs attention first: block, review spots, skim; then the worst and most risks."""
    risks = _signal_risks(p)
    worst = min((SEVERITY_RANK.get(r["severity"], 5) for r in risks), default=6)
    merged = parse_time(p.get("merged_at")) or window.since
    return (
        ACTION_RANK.get(p["action"], len(ACTION_RANK)),
        worst,
        -sum(1 for r in risks if SEVERITY_RANK.get(r["severity"], 5) == worst),
        -int(p["spot_count"]),
        _VERDICT_RANK.get(p["verdict"], 1),
        merged,
        p["repo"],
        p["number"] or 0,
    )


def _split_outcomes(
    repo: str, outcomes: Sequence[Outcome]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, dict[str, str]]]:
    """The analysed PRs' facts, the PRs that could not be analysed with why, and the reports."""
    prs: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    reports: dict[str, dict[str, str]] = {}
    for o in outcomes:
        if o.facts is None:
            failed.append(
                {
                    "repo": repo,
                    "number": o.pr.number,
                    "title": o.pr.title,
                    "url": o.pr.url,
                    "reasons": [o.error],
                }
            )
            continue
        facts = {**o.facts, "merged_at": o.facts.get("merged_at") or o.pr.merged_at}
        facts["repo"] = facts.get("repo") or repo
        if o.pr.url and not facts.get("url"):
            facts["url"] = o.pr.url
        rendered = facts.pop("reports", None) or {}
        if rendered:
            reports[report_key(facts["repo"], facts["number"])] = dict(rendered)
        prs.append(facts)
    return prs, failed, reports


def _totals(prs: Sequence[dict[str, Any]], failed: Sequence[dict[str, Any]]) -> dict[str, int]:
    """The digest's headline counts (finding counts are the live ones, as the reports show them)."""
    verdicts = Counter(p["verdict"] for p in prs)
    actions = Counter(p["action"] for p in prs)
    return {
        "prs": len(prs) + len(failed),
        "repos": len({p["repo"] for p in [*prs, *failed]}),
        "analysed": len(prs),
        "not_analysed": len(failed),
        "partially_analysed": sum(1 for p in prs if p["problems"]),
        "pure_refactors": verdicts["pure-refactor"],
        "behavior_changes": sum(verdicts[v] for v in _BEHAVIOUR_VERDICTS),
        "refactors_with_behavior_change": verdicts["refactor-with-behavior-change"],
        "behavior_change_only": verdicts["behavior-change"],
        "unknown_verdicts": verdicts["unknown"],
        "behavior_changes_accounted": sum(
            int(p["kind_counts"].get("behavior.changed", 0))
            - int(p["live_kind_counts"].get("behavior.changed", 0))
            for p in prs
        ),
        "block": actions["block"],
        "review": actions["review"],
        "skim": actions["skim"],
        "low_signal_only": sum(1 for p in prs if p["risks"] and not _signal_risks(p)),
        "lines_changed": sum(p["changed_lines"] for p in prs),
        "lines_explained": sum(p["explained_lines"] for p in prs),
        "imports_hoisted": _count(prs, "import.hoisted"),
        "imports_sunk": _count(prs, "import.sunk"),
        "loops_freed_of_imports": _count(prs, "loop.imports-removed"),
        "dead_code_removed": _count(prs, "code.dead-removed"),
        "cycles_risked": _count(prs, "cycle.risk"),
    }


def _repos(prs: Sequence[dict[str, Any]], failed: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per repository: PRs, verdicts, actions and lines (one row for a single-repository digest)."""
    names = sorted({p["repo"] for p in [*prs, *failed]})
    rows = []
    for name in names:
        mine = [p for p in prs if p["repo"] == name]
        t = _totals(mine, [f for f in failed if f["repo"] == name])
        rows.append(
            {"repo": name}
            | {
                k: t[k]
                for k in (
                    "prs",
                    "pure_refactors",
                    "behavior_changes",
                    "unknown_verdicts",
                    "not_analysed",
                    "block",
                    "review",
                    "lines_changed",
                    "lines_explained",
                )
            }
        )
    return rows


def _series(
    prs: Sequence[dict[str, Any]], failed: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """PRs grouped by conventional-commit ``type(scope)``, PRs not analysed included."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for p in prs:
        groups.setdefault(p["series"], []).append(p)
    for f in failed:
        groups.setdefault(series_of(f["title"]), []).append(
            {"repo": f["repo"], "number": f["number"], "verdict": "not-analysed"}
        )
    series: list[dict[str, Any]] = [
        {
            "key": key,
            "count": len(members),
            "numbers": sorted(m["number"] for m in members),
            "prs": sorted(
                ({"repo": m["repo"], "number": m["number"]} for m in members),
                key=lambda m: (m["repo"], m["number"] or 0),
            ),
            "pure_refactors": sum(1 for m in members if m["verdict"] == "pure-refactor"),
            "behavior_changes": sum(1 for m in members if m["verdict"] in _BEHAVIOUR_VERDICTS),
        }
        for key, members in groups.items()
    ]
    # Named series first, biggest first; PRs without a conventional-commit title last.
    series.sort(key=lambda s: (s["key"] == "", -s["count"], s["key"]))
    return series


def _top_risks(prs: Sequence[dict[str, Any]], signal: bool) -> list[dict[str, Any]]:
    """One line per risk tag (highest severity first, then the most PRs), naming its PRs.

    ``signal``: the risks worth a line of their own; else the low-signal ones (summarised).
    """
    by_tag: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for p in prs:
        for r in p["risks"]:
            if (r["id"] in LOW_SIGNAL_RISKS) == signal:
                continue
            by_tag.setdefault((r["id"], r["severity"]), []).append(
                {
                    "repo": p["repo"],
                    "number": p["number"],
                    "title": p["title"],
                    "url": p["url"],
                    "evidence": r["evidence"],
                    "alone": not _signal_risks(p),
                }
            )
    risks: list[dict[str, Any]] = [
        {
            "id": rid,
            "severity": sev,
            "count": len(members),
            "alone": sum(1 for m in members if m["alone"]),
            "prs": members,
        }
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


def make_org_digest(
    config: Config, window: Window, repos: Sequence[str], name: str, page_size: int = 100
) -> Digest:
    """One digest of several GitHub repositories built in this process (one worker pool).

    The distributed way (a digest per repository in its own job, then ``digest merge``) gives
    the same digest; this is the reference it is tested against, and fine for a few repositories.
    """
    cache_dir = config.digest.cache_dir
    fingerprint = code_fingerprint()
    jobs: list[Job] = []
    for repo in repos:
        repo_config = dataclasses.replace(
            config, github=dataclasses.replace(config.github, repo=repo)
        )
        _name, found = discover_github(repo_config.github, window, page_size)
        jobs.extend(Job(pr, repo_config, "github", cache_dir, fingerprint) for pr in found)
    outcomes = run_jobs(jobs, config.digest.workers)
    prs: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    reports: dict[str, dict[str, str]] = {}
    for repo in repos:
        mine = [o for job, o in zip(jobs, outcomes, strict=True) if job.config.github.repo == repo]
        p, f, r = _split_outcomes(repo, mine)
        prs.extend(p)
        failed.extend(f)
        reports.update(r)
    stats = {
        "analysed": sum(1 for o in outcomes if o.facts is not None and not o.cached),
        "cached": sum(1 for o in outcomes if o.cached),
        "failed": len(failed),
    }
    return summarise(name, "github", window, prs, failed, stats, reports)


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


def load_digest_json(path: str | Path, flag: str = "--from-json") -> dict[str, Any]:
    """A digest JSON file written by ``prreport digest`` (checked for its schema)."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{flag}: {p} does not exist") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"{flag}: {p} is not a readable digest JSON file ({exc})") from None
    if not isinstance(data, dict) or data.get("schema") != DIGEST_SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else None
        raise ConfigError(
            f"{flag}: {p} has schema {found!r}, not {DIGEST_SCHEMA!r} (give the <week>.json of a digest)"
        )
    if parse_time(str(data.get("window", {}).get("since", ""))) is None or not data.get("repo"):
        raise ConfigError(f"{flag}: {p} has no repo or window: write it again with prreport digest")
    try:
        return _resummed(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ConfigError(
            f"{flag}: {p} is not a digest this version can read ({type(exc).__name__}: {exc}): write it again with prreport digest"
        ) from None


def _resummed(data: dict[str, Any]) -> dict[str, Any]:
    """A digest JSON summed up again by this version: one written before the reading order
    (no action, spots or live counts per PR) gets them from its risks, as the report does."""
    window = data["window"]
    since, until = parse_time(str(window["since"])), parse_time(str(window["until"]))
    if since is None or until is None:
        raise ValueError("window without since/until")
    prs = []
    for p in data.get("prs") or ():
        risks = p.get("risks") or []
        severities = {r.get("severity") for r in risks}
        level = "block" if "high" in severities else "review" if "medium" in severities else "skim"
        prs.append(
            {
                "live_kind_counts": dict(p.get("kind_counts") or {}),
                "action": level,
                "spots": [],
                "spot_count": 0,
                **p,
                "repo": p.get("repo") or data["repo"],
            }
        )
    failed = [
        {**f, "repo": f.get("repo") or data["repo"]}
        for f in data.get("not_analysed") or ()
        if not f.get("partial")
    ]
    for f in failed:
        f.pop("partial", None)
    digest = summarise(
        data["repo"],
        str(data.get("source") or ""),
        Window(str(window.get("label") or ""), since, until),
        prs,
        failed,
        dict(data.get("stats") or {}),
    )
    return digest.to_json()
