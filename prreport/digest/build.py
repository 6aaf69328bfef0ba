"""The weekly digest: merged PRs of a time window, analysed concurrently, cached, summed up.

Flow: window -> PR discovery (git ``(#N)`` commits or GitHub closed PRs) -> per PR the
ordinary pipeline (fetch, gather, analyse) in a worker pool, with analysis facts cached on
disk by bundle-content hash -> one ``Digest`` value -> Markdown / HTML / JSON outputs.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import multiprocessing
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path
from typing import Any

from prreport import __version__
from prreport.analyzers import SourceFiles
from prreport.bundle import PullRequestBundle, to_jsonable
from prreport.config import Config, GitConfig
from prreport.errors import ConfigError, OutputError, PrreportError
from prreport.output import write_atomic
from prreport.pipeline import analyse, gather
from prreport.render import render_digest_html, render_digest_markdown, summary_texts
from prreport.series import parse_time, series_of
from prreport.sources import Source
from prreport.sources.git import GitRepo, GitSource, LogEntry, git_log, repo_name

DIGEST_SCHEMA = "prreport.digest/1"

_SQUASH_SUFFIX = re.compile(r"\s*\(#\d+\)\s*$")
_WEEK = re.compile(r"^(\d{4})-?W(\d{1,2})$", re.IGNORECASE)

# Verdicts (prreport.model) that mean the PR changes what the code does.
_BEHAVIOUR_VERDICTS = ("behavior-change", "refactor-with-behavior-change")

# Risk severities (prreport.model) in the order a reader wants them.
_SEVERITY_RANK = {"critical": 0, "high": 1, "medium": 2, "low": 3, "info": 4}
_TOP_RISKS = 20


# --- window -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Window:
    """A half-open UTC time range ``[since, until)`` and the label files are named after."""

    label: str
    since: datetime
    until: datetime

    def contains(self, when: datetime | None) -> bool:
        """Whether a timestamp falls inside the window."""
        return when is not None and self.since <= when < self.until

    def to_json(self) -> dict[str, str]:
        """Plain JSON value."""
        return {"label": self.label, "since": _iso(self.since), "until": _iso(self.until)}


def _iso(dt: datetime) -> str:
    return dt.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def week_window(year: int, week: int) -> Window:
    """The ISO week ``year-Www`` (Monday 00:00 UTC to the next Monday)."""
    try:
        start = date.fromisocalendar(year, week, 1)
    except ValueError:
        raise ConfigError(f"--week: {year}-W{week:02d} is not an ISO week of {year}") from None
    since = datetime.combine(start, time(), timezone.utc)
    return Window(f"{year}-W{week:02d}", since, since + timedelta(days=7))


def last_full_week(now: datetime) -> Window:
    """The last ISO week that ended before ``now`` (UTC)."""
    now = now.astimezone(timezone.utc)
    previous = now.date() - timedelta(days=7)
    year, week, _ = previous.isocalendar()
    return week_window(year, week)


def _parse_bound(flag: str, value: str, end: bool) -> datetime:
    """A date (whole day; ``--until`` includes it) or an ISO timestamp (exact)."""
    text = value.strip()
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            dt = datetime.combine(day, time(), timezone.utc)
            return dt + timedelta(days=1) if end else dt
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(
            f"{flag}: expected a date like 2026-08-17 or an ISO timestamp, got {value!r}"
        ) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def resolve_window(
    week: str | None = None,
    since: str | None = None,
    until: str | None = None,
    now: datetime | None = None,
) -> Window:
    """``--week 2026-W34`` or ``--since DATE --until DATE``; default the last full ISO week (UTC)."""
    if week and (since or until):
        raise ConfigError("--week and --since/--until are exclusive: give one kind of window")
    if week:
        m = _WEEK.match(week.strip())
        if not m:
            raise ConfigError(f"--week: expected an ISO week like 2026-W34, got {week!r}")
        return week_window(int(m.group(1)), int(m.group(2)))
    if since or until:
        if not (since and until):
            raise ConfigError(
                "--since and --until go together: give both dates (--until is inclusive)"
            )
        start = _parse_bound("--since", since, end=False)
        stop = _parse_bound("--until", until, end=True)
        if stop <= start:
            raise ConfigError(f"--until {until} is not after --since {since}")
        label = f"{_label_part(since, start, False)}_{_label_part(until, stop, True)}"
        return Window(label, start, stop)
    return last_full_week(now or datetime.now(timezone.utc))


def _label_part(text: str, dt: datetime, end: bool) -> str:
    if len(text.strip()) == 10:
        return ((dt - timedelta(days=1)) if end else dt).date().isoformat()
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H%M%SZ")


# --- discovery --------------------------------------------------------------------------


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


def discover_git(config: GitConfig, window: Window) -> tuple[str, list[MergedPR]]:
    """Repository name and the ``(#N)`` squash/merge commits on HEAD's first-parent line in the window."""
    git = GitRepo(config.repo)
    try:
        # git's --since prunes the walk cheaply; a day of slack covers clock skew, the exact
        # bounds are applied below on the committer date (when the PR landed on the branch).
        slack = _iso(window.since - timedelta(days=1))
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


# --- per-PR analysis, cached ------------------------------------------------------------


# What the per-PR facts are computed by (the bundle itself is hashed separately).
_FACT_CODE = (
    "analyzers",
    "model.py",
    "pipeline.py",
    "findings.py",
    "classify.py",
    "diffparse.py",
    "digest",
)


def code_fingerprint() -> str:
    """Hash of the code that computes the facts, so a changed analyzer never reuses stale ones."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256(__version__.encode())
    paths = sorted(
        p
        for name in _FACT_CODE
        for p in ([root / name] if name.endswith(".py") else (root / name).rglob("*.py"))
    )
    for p in paths:
        h.update(str(p.relative_to(root)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def cache_key(bundle: PullRequestBundle, config: Config, fingerprint: str) -> str:
    """Content hash of a bundle plus everything else the facts depend on."""
    data = to_jsonable(bundle)
    # Related-PR candidates change whenever later PRs merge; the facts do not use them, and
    # keeping them out lets overlapping windows reuse older results.
    data.pop("related", None)
    return _key(data, config, fingerprint)


def content_key(content: str, config: Config, fingerprint: str) -> str:
    """The cache key of a PR whose content is known before fetching (see ``MergedPR.content``)."""
    return _key({"content": content}, config, fingerprint)


def _key(data: Any, config: Config, fingerprint: str) -> str:
    payload = {
        "bundle": data,
        "version": __version__,
        "code": fingerprint,
        "analysis": to_jsonable(config.analysis),
        "modules": to_jsonable(config.modules),
    }
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class AnalysisCache:
    """Per-PR digest facts on disk, one JSON file per content hash."""

    def __init__(self, directory: str | Path | None) -> None:
        self.directory = Path(directory) if directory else None

    def _path(self, key: str) -> Path:
        assert self.directory is not None
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached facts, or None (also for an unreadable entry, which is then recomputed)."""
        if self.directory is None:
            return None
        try:
            value = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return value if isinstance(value, dict) and value.get("key") == key else None

    def put(self, key: str, facts: dict[str, Any]) -> None:
        """Store facts atomically; a cache that cannot be written only costs speed."""
        if self.directory is None:
            return
        try:
            write_atomic(
                self._path(key),
                json.dumps({**facts, "key": key}, ensure_ascii=False, sort_keys=True),
            )
        except OutputError:
            pass


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


def _problems(bundle: PullRequestBundle, diagnostics: Sequence[Any]) -> list[str]:
    """Why parts of a PR could not be analysed: diagnostics plus Python files that do not parse."""
    sources = SourceFiles(bundle)
    for f in sources.python_files():
        if f.after is not None:
            sources.tree(f.path, "after")
    seen: list[str] = []
    for d in [*diagnostics, *sources.parse_errors.values()]:
        where = f"{d.path}:{d.line}" if d.path and d.line else d.path
        text = f"{where}: {d.message}" if where else d.message
        if text not in seen:
            seen.append(text)
    for f in bundle.files:
        if f.note and not f.binary:
            text = f"{f.path}: {f.note}"
            if text not in seen:
                seen.append(text)
    return seen


def facts_of(model_json: dict[str, Any], problems: list[str]) -> dict[str, Any]:
    """The per-PR facts the digest shows, from a report model's JSON value."""
    pr = model_json["pr"]
    summary = model_json["summary"]
    kind_counts = {str(k): int(v) for k, v in (summary.get("kind_counts") or {}).items()}
    risks: list[dict[str, Any]] = [
        {
            "id": str(r.get("id", "")),
            "severity": str(r.get("severity", "medium")),
            "evidence": len(r.get("evidence") or ()),
        }
        for r in model_json.get("risks") or ()
    ]
    series = series_of(pr.get("title") or "")
    verdict = summary.get("verdict", "unknown")
    risks.sort(key=lambda r: (_SEVERITY_RANK.get(r["severity"], 5), r["id"]))
    return {
        "number": pr.get("number"),
        "title": pr.get("title") or "",
        "author": pr.get("author") or "",
        "url": pr.get("url") or "",
        "merged_at": pr.get("merged_at"),
        "summary": summary.get("one_line") or pr.get("title") or "",
        "verdict": verdict,
        "series": series,
        "kinds": sorted(kind_counts),
        "kind_counts": dict(sorted(kind_counts.items())),
        "changed_lines": int(summary.get("changed_lines", 0)),
        "explained_lines": int(summary.get("explained_lines", 0)),
        "files": len(model_json.get("files") or ()),
        "risks": risks,
        "risk_tags": sorted({r["id"] for r in risks}),
        "problems": problems,
    }


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
            bundle = gather(_Prefetched(source, bundle), job.config)
        finally:
            source.close()
        analysis = analyse(bundle, job.config)
        facts = facts_of(analysis.model.to_json(), _problems(bundle, analysis.diagnostics)) | {
            "summary": summary_texts(analysis.model)["one_line"]
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


# --- the digest -------------------------------------------------------------------------


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
    prs.sort(key=lambda p: (parse_time(p["merged_at"]) or window.since, p["number"] or 0))
    not_analysed.sort(key=lambda p: p["number"] or 0)
    verdicts = Counter(p["verdict"] for p in prs)
    totals = {
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
    # One line per risk tag (highest severity first, then the most PRs), naming its PRs.
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
    risks.sort(key=lambda r: (_SEVERITY_RANK.get(r["severity"], 5), -r["count"], r["id"]))
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
        series=tuple(series),
        top_risks=tuple(risks[:_TOP_RISKS]),
        stats=stats,
    )


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
        from prreport.sources.github.window import merged_in_window

        repo = config.github.repo
        merged = merged_in_window(config.github, window.since, window.until, per_page=page_size)
        found = [MergedPR(m.number, m.title, m.merged_at, "", m.author, m.url) for m in merged]
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


# --- outputs ----------------------------------------------------------------------------


def digest_paths(out_dir: Path, repo: str, label: str, lang: str) -> dict[str, Path]:
    """``<out>/digests/<repo>/<week>.{md,html,json}`` (``.zh.md``/``.zh.html`` for Chinese)."""
    safe_repo = re.sub(r"[^A-Za-z0-9._-]+", "-", repo).strip("-") or "repo"
    base = out_dir / "digests" / safe_repo
    suffix = "" if lang == "en" else f".{lang}"
    return {
        "md": base / f"{label}{suffix}.md",
        "html": base / f"{label}{suffix}.html",
        "json": base / f"{label}.json",
    }


def render_digest(
    digest: Digest, langs: Sequence[str], formats: Sequence[str], out_dir: Path
) -> dict[Path, str]:
    """Every requested language and format as path -> text (nothing written yet)."""
    return render_digest_data(digest.to_json(), langs, formats, out_dir)


def render_digest_data(
    data: dict[str, Any], langs: Sequence[str], formats: Sequence[str], out_dir: Path
) -> dict[Path, str]:
    """The same from a digest's JSON value (e.g. one saved by an earlier run)."""
    outputs: dict[Path, str] = {}
    for lang in langs:
        paths = digest_paths(out_dir, data["repo"], data["window"]["label"], lang)
        markdown = render_digest_markdown(data, lang)
        if "md" in formats:
            outputs[paths["md"]] = markdown
        if "html" in formats:
            outputs[paths["html"]] = render_digest_html(data, lang, markdown)
        if "json" in formats:
            outputs[paths["json"]] = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    return outputs


def load_digest_json(path: str | Path) -> dict[str, Any]:
    """A digest JSON file written by ``prreport digest`` (checked for its schema)."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"--from-json: {p} does not exist") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"--from-json: {p} is not a readable digest JSON file ({exc})") from None
    if not isinstance(data, dict) or data.get("schema") != DIGEST_SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else None
        raise ConfigError(
            f"--from-json: {p} has schema {found!r}, not {DIGEST_SCHEMA!r} (give the <week>.json of a digest)"
        )
    if parse_time(str(data.get("window", {}).get("since", ""))) is None or not data.get("repo"):
        raise ConfigError(
            f"--from-json: {p} has no repo or window: write it again with prreport digest"
        )
    return data


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
