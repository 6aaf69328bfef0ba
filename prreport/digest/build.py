"""Making a digest: discover the window's PRs, analyse them (cached, concurrently), sum up.

Flow: window -> PR discovery (git ``(#N)`` commits or GitHub closed PRs) -> per PR the
ordinary pipeline (fetch, gather, analyse) in a worker pool, with analysis facts cached on
disk by bundle-content hash -> one ``Digest`` value -> Markdown / HTML / JSON outputs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from prreport.config import Config
from prreport.digest.cache import AnalysisCache, code_fingerprint, content_key
from prreport.digest.discover import discover_git, discover_github, skip_drafts_and_bots
from prreport.digest.jobs import Job, Outcome, ProgressCallback, run_jobs
from prreport.digest.summary import Digest, report_key, summarise
from prreport.digest.window import Window
from prreport.errors import ConfigError


def build_digest(
    repo: str,
    source: str,
    window: Window,
    outcomes: Sequence[Outcome],
    skipped: dict[str, int] | None = None,
) -> Digest:
    """Sum per-PR facts into totals, series, top risks and the list of PRs not analysed."""
    prs, failed, reports = _split_outcomes(repo, outcomes)
    stats = {
        "analysed": sum(1 for o in outcomes if o.facts is not None and not o.cached),
        "cached": sum(1 for o in outcomes if o.cached),
        "failed": len(failed),
        # Only when some were left out: the stats of a digest without drafts or bots stay as before.
        **{k: n for k, n in (skipped or {}).items() if n},
    }
    return summarise(repo, source, window, prs, failed, stats, reports)


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
    found, skipped = skip_drafts_and_bots(found, config.digest.include)
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
    return build_digest(repo, source, window, [done[pr.number] for pr in found], skipped)


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
        found, _skipped = skip_drafts_and_bots(found, config.digest.include)
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
