"""Analysing the digest's PRs: one job per PR (cached facts or fetch + analyse) in a process pool."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

from prreport.bundle import PullRequestBundle
from prreport.config import LANGS, Config
from prreport.digest.cache import AnalysisCache, cache_key, content_key
from prreport.digest.discover import MergedPR
from prreport.digest.facts import facts_of, problems_of
from prreport.errors import PrreportError
from prreport.pipeline import analyse, gather
from prreport.render import render_markdown, summary_texts
from prreport.sources import Source
from prreport.sources.git import GitSource

# The languages each PR's report is rendered in (the digest links to them).
REPORT_LANGS = LANGS


class _Prefetched:
    """A source whose bundle was already fetched (to hash it before deciding to analyse)."""

    def __init__(self, source: Source, bundle: PullRequestBundle) -> None:
        self._source = source
        self._bundle = bundle

    def fetch(self) -> PullRequestBundle:
        return self._bundle

    def fetch_context(self, paths: Iterable[str]) -> dict[str, str | None]:
        return self._source.fetch_context(paths)

    def find_references(self, names: Iterable[str]) -> tuple[dict[str, tuple[str, ...]], str]:
        return self._source.find_references(names)

    def close(self) -> None:
        self._source.close()


@dataclass(frozen=True)
class Job:
    """One PR to analyse, with everything a worker process needs."""

    pr: MergedPR
    config: Config
    source: str  # "git" | "github"
    cache_dir: str
    fingerprint: str


@dataclass(frozen=True)
class Outcome:
    """What happened to one PR: its facts, or why it could not be analysed."""

    pr: MergedPR
    facts: dict[str, Any] | None
    cached: bool = False
    error: str = ""


def _make_source(job: Job) -> Source:
    if job.source == "github":
        from prreport.sources.github.source import GitHubSource

        return GitHubSource(str(job.pr.number), job.config.github)
    # The commit itself, not "#N": no history search per PR.
    return GitSource(job.pr.ref, job.config.git)


def run_job(job: Job) -> Outcome:
    """Fetch one PR, reuse cached facts when its content is unchanged, else analyse it."""
    try:
        source = _make_source(job)
        try:
            bundle = source.fetch()
            cache = AnalysisCache(job.cache_dir or None)
            if job.pr.content:
                key = content_key(job.pr.content, job.config, job.fingerprint)
            else:
                key = cache_key(bundle, job.config, job.fingerprint)
            cached = cache.get(key)
            if cached is not None:
                cached.pop("key", None)
                return Outcome(job.pr, cached, cached=True)
            gathered = gather(_Prefetched(source, bundle), job.config)
        finally:
            source.close()
        analysis = analyse(gathered, job.config)
        facts = facts_of(
            analysis.model.to_json(), problems_of(analysis.bundle, analysis.diagnostics)
        ) | {
            "summary": summary_texts(analysis.model)["one_line"],
            # The digest links every row to the PR's own report: rendered here, where the
            # model is, and cached with the facts so a warm run writes them without analysis.
            "reports": {lang: render_markdown(analysis.model, lang) for lang in REPORT_LANGS},
        }
        cache.put(key, facts)
        return Outcome(job.pr, facts)
    except PrreportError as exc:
        return Outcome(job.pr, None, error=str(exc))
    except Exception as exc:  # one failing PR must not stop the digest: it is listed with why
        return Outcome(job.pr, None, error=f"{type(exc).__name__}: {exc}")


ProgressCallback = Callable[[int, int, Outcome], None]


def run_jobs(
    jobs: Sequence[Job], workers: int, on_progress: ProgressCallback | None = None
) -> list[Outcome]:
    """Run jobs in a process pool (``workers`` > 1) or inline; results in job order."""
    results: dict[int, Outcome] = {}
    total = len(jobs)
    if workers <= 1 or total <= 1:
        for i, job in enumerate(jobs):
            results[i] = run_job(job)
            if on_progress:
                on_progress(len(results), total, results[i])
        return [results[i] for i in range(total)]
    # Analysis is CPU-bound Python: processes, not threads. "spawn" because the caller may
    # run threads (a progress bar) and fork would copy their locks mid-use.
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(workers, total), mp_context=ctx) as pool:
        futures: dict[Future[Outcome], int] = {
            pool.submit(run_job, job): i for i, job in enumerate(jobs)
        }
        for fut in as_completed(futures):
            i = futures[fut]
            try:
                results[i] = fut.result()
            except Exception as exc:  # a worker died (e.g. killed): list the PR, keep going
                results[i] = Outcome(
                    jobs[i].pr, None, error=f"worker failed: {type(exc).__name__}: {exc}"
                )
            if on_progress:
                on_progress(len(results), total, results[i])
    return [results[i] for i in range(total)]
