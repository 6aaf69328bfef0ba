"""The one-direction pipeline: source -> bundle -> analyzers -> report model -> renderers."""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from prreport.analyzers import collect_requests, run_analyzers, selected
from prreport.bundle import PullRequestBundle, analysable, python_line_ends
from prreport.config import AnalysisConfig, Config
from prreport.findings import ContextRequest, Diagnostic, Finding
from prreport.output import report_stem
from prreport.python.sources import SourceFiles
from prreport.report.build import build_model
from prreport.report.ledger import is_failure
from prreport.report.model import ReportModel
from prreport.sources import Source

# Rounds of context fetching: analyzers may follow imports of fetched files (cycle safety).
_MAX_CONTEXT_ROUNDS = 6


@dataclass(frozen=True)
class Analysis:
    """A bundle with its findings and report model."""

    bundle: PullRequestBundle
    findings: list[Finding]
    diagnostics: list[Diagnostic]
    model: ReportModel
    # Context the analyzers asked for that the bundle does not hold (head files, reference
    # names): a saved bundle made by an older prreport; ``gather`` leaves nothing here.
    unfetched: ContextRequest = ContextRequest()

    def live_kinds(self) -> list[str]:
        """Finding kinds the report stands by: a behaviour change a proven refactor accounts for is not one."""
        return [f.kind for f in self.model.findings if not f.details.get("accounted_by")]

    def warnings(self) -> list[str]:
        """One ``warning:`` line per analyzer that failed (the verdict is then ``unknown``)."""
        return [
            f"warning: analyzer {d.origin} failed ({d.message.splitlines()[0]}); the verdict is unknown"
            for d in self.diagnostics
            if is_failure(d)
        ]


@dataclass(frozen=True)
class Gathered:
    """A bundle with the context its analyzers asked for, and its file sides as the planning
    rounds parsed them: ``analyse`` starts from these, so each side is parsed once per run."""

    bundle: PullRequestBundle
    sources: SourceFiles


def _sources_for(bundle: PullRequestBundle, previous: SourceFiles | None) -> SourceFiles:
    sources = SourceFiles(bundle)
    if previous is not None:
        sources.adopt(previous)
    return sources


def gather(source: Source, config: Config) -> Gathered:
    """Fetch the bundle and the context the analyzers ask for (until they ask for nothing new)."""
    with few_collections():  # the planning rounds parse every file side
        return _gather(source, config)


def _gather(source: Source, config: Config) -> Gathered:
    bundle = source.fetch()
    analyzers = selected(config.analysis)
    # Analyzers plan on what they will analyse: no text of a file with an unread side, none of
    # a file over its budget (never parsed: its trees alone would exceed the memory budget).
    view = analysable(_prepared(bundle, config.analysis))
    sources = SourceFiles(view)
    for _ in range(_MAX_CONTEXT_ROUNDS):
        if sources.bundle is not view:
            sources = _sources_for(view, sources)
        request, _diags = collect_requests(analyzers, view, sources)
        files = sorted(set(request.files) - set(bundle.context_files))
        names = sorted(set(request.references) - set(bundle.references))
        if not files and not names:
            break
        context = dict(bundle.context_files)
        references = dict(bundle.references)
        scope = bundle.reference_scope
        if files:
            context.update(source.fetch_context(files))
        if names:
            found, scope = source.find_references(names)
            references.update(found)
        bundle = dataclasses.replace(
            bundle, context_files=context, references=references, reference_scope=scope
        )
        view = analysable(_prepared(bundle, config.analysis))
    if sources.bundle is not view:
        sources = _sources_for(view, sources)
    return Gathered(bundle, sources)


class _Pause:
    """The cyclic collector's pause shared by nested and concurrent analyses (digest jobs)."""

    lock = threading.Lock()
    holders = 0
    paused = False  # this module disabled the collector (it was enabled)


# Allocations a pause lets pile up before collecting anyway: concurrent digest jobs can keep
# the collector paused for a whole digest, and reference cycles must still be freed.
_PAUSE_VALVE = 5_000_000


@contextlib.contextmanager
def few_collections() -> Iterator[None]:
    """Run no cyclic garbage collection while analysing: the syntax trees and indexes (millions
    of objects) all stay alive until the analysis ends, then reference counting frees them, so
    every pass over them would be wasted. On leaving, what is still alive joins the oldest
    generation without a pass (``freeze`` + ``unfreeze``), as if it had survived the passes."""
    with _Pause.lock:
        if _Pause.holders == 0:
            _Pause.paused = gc.isenabled()
            gc.disable()
        _Pause.holders += 1
    try:
        yield
    finally:
        with _Pause.lock:
            _Pause.holders -= 1
            if _Pause.paused and _Pause.holders == 0:
                gc.freeze()
                gc.unfreeze()
                gc.enable()
            elif _Pause.paused and gc.get_count()[0] > _PAUSE_VALVE:
                gc.collect()


def analyse(subject: PullRequestBundle | Gathered, config: Config, debug: bool = False) -> Analysis:
    """Run the analyzers on a bundle, or on a gathered one (its parsed file sides reused), and
    build the report model. Each changed file has a budget (``within_budget``, ``_deadline``):
    over it, that file is not analysed and the report says so; the rest still is."""
    with few_collections():
        bundle = subject.bundle if isinstance(subject, Gathered) else subject
        slow: tuple[str, ...] = ()
        while True:
            candidates = _costliest(bundle, slow)
            seconds = config.analysis.max_file_seconds if candidates else 0
            try:
                with _deadline(seconds):
                    return _analyse(subject, config, debug, slow)
            except _OutOfTime:
                slow = (*slow, candidates[0])


def _analyse(
    subject: PullRequestBundle | Gathered, config: Config, debug: bool, slow: tuple[str, ...] = ()
) -> Analysis:
    analyzers = selected(config.analysis)
    # one parse cache shared by planning and analysis (and by gather, for the bundle it made)
    original = subject.bundle if isinstance(subject, Gathered) else subject
    bundle = _prepared(original, config.analysis, slow)
    # No finding may use a side that was not read: the analyzers see no text of such a file.
    view = analysable(bundle)
    if isinstance(subject, Gathered):
        sources = subject.sources
        if sources.bundle is not view:  # e.g. the comment command's bundle without our comment
            sources = _sources_for(view, sources)
    else:
        sources = SourceFiles(view)
    try:
        request, plan_diags = collect_requests(analyzers, view, sources)
        findings, diags = run_analyzers(analyzers, view, debug=debug, sources=sources)
    finally:
        sources.release()  # the trees go now, by reference counting, not at a collector pass
    diags = unread_diagnostics(bundle) + plan_diags + diags
    model = build_model(bundle, findings, diags, config)
    return Analysis(original, findings, diags, model, unfetched(original, request))


def unfetched(bundle: PullRequestBundle, request: ContextRequest) -> ContextRequest:
    """What ``request`` asks for that ``bundle`` lacks: head files it neither changes nor holds
    as context (only those the head tree has), and reference names it holds no search of."""
    held = set(bundle.context_files) | {f.path for f in bundle.files}
    heads = set(bundle.head_paths)
    return ContextRequest(
        frozenset(p for p in request.files if p not in held and p in heads),
        frozenset(n for n in request.references if n not in bundle.references),
    )


# Syntax-tree memory per character of Python source (CPython 3.11: about 0.27 nodes per
# character and 520 bytes per node, both sides' trees alive at once): a 20 MB module needs
# some 2.8 GiB per side before any analyzer runs, so the budget is checked before parsing.
_TREE_BYTES_PER_CHAR = 140
# Files at least this large (either side) are the ones a run out of time leaves unanalysed:
# smaller ones are never the reason (the largest standard-library module is about 300 KB).
_SLOW_FILE_CHARS = 256 * 1024
OVER_BUDGET = "over the analysis budget"


def _prepared(
    bundle: PullRequestBundle, config: AnalysisConfig, slow: tuple[str, ...] = ()
) -> PullRequestBundle:
    """The bundle as the analysis reads it: Python's line numbering, each file within budget."""
    return within_budget(python_line_ends(bundle), config, slow)


def within_budget(
    bundle: PullRequestBundle, config: AnalysisConfig, slow: tuple[str, ...] = ()
) -> PullRequestBundle:
    """``bundle`` with no text for each changed Python file over its budget: its estimated
    syntax trees over ``max_file_memory``, or named in ``slow`` (its analysis ran past
    ``max_file_seconds``). Such a file is unread for the analysis: ``unknown``, a diagnostic."""
    files = []
    for f in bundle.files:
        size = len(f.before or "") + len(f.after or "")
        estimate = size * _TREE_BYTES_PER_CHAR
        why = ""
        if f.path in slow:
            why = f"its analysis ran past [analysis] max_file_seconds = {config.max_file_seconds} s"
        elif f.path.endswith(".py") and estimate > config.max_file_memory * 2**20:
            why = (
                f"{size / 1e6:.1f} MB of Python needs an estimated {estimate / 2**20:,.0f} MiB of"
                f" syntax trees, over [analysis] max_file_memory = {config.max_file_memory} MiB"
            )
        if why and (f.before is not None or f.after is not None):
            f = dataclasses.replace(f, before=None, after=None, note=f"{OVER_BUDGET}: {why}")
        files.append(f)
    changed = any(a is not b for a, b in zip(files, bundle.files, strict=True))
    return dataclasses.replace(bundle, files=tuple(files)) if changed else bundle


def _costliest(bundle: PullRequestBundle, excluded: tuple[str, ...]) -> list[str]:
    """Changed Python files large enough to be the reason a run is out of time, largest first."""
    sized = [
        (max(len(f.before or ""), len(f.after or "")), f.path)
        for f in bundle.files
        if f.path.endswith(".py") and f.path not in excluded
    ]
    return [p for n, p in sorted(sized, key=lambda x: (-x[0], x[1])) if n >= _SLOW_FILE_CHARS]


class _OutOfTime(BaseException):
    """The analysis ran past its time budget (not an ``Exception``: no analyzer may catch it)."""


@contextlib.contextmanager
def _deadline(seconds: int) -> Iterator[None]:
    """Raise ``_OutOfTime`` in the main thread after ``seconds`` (0, or another thread, as in
    the digest's concurrent jobs: none; the memory budget still holds there)."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not seconds or not usable or signal.getitimer(signal.ITIMER_REAL)[0]:
        # (an alarm someone else set is theirs: no budget then rather than theirs cancelled)
        yield
        return

    def fire(_signum: int, _frame: object) -> None:
        raise _OutOfTime()

    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def unread_diagnostics(bundle: PullRequestBundle) -> list[Diagnostic]:
    """One diagnostic per changed file with a side that was not read: the file is not analysed."""
    out = []
    for f in bundle.files:
        sides = f.unread_sides
        if sides:
            why = f"{f.note}: " if f.note else ""
            if (f.note or "").startswith(OVER_BUDGET):
                text = f"{f.note}, so the file is not analysed"
            else:
                text = f"{why}{' and '.join(sides)} version not read, so the file is not analysed"
            out.append(
                Diagnostic(
                    "source",
                    f.path,
                    text + " (its change is unknown, not a removal or an addition)",
                )
            )
    return out


def render_outputs(
    analysis: Analysis, config: Config, out_dir: Path, name: str | None = None
) -> dict[Path, str]:
    """Render every configured format; returns path -> text (nothing written yet).

    ``name`` replaces the repository part of the file names (``--name``).
    """
    model = analysis.model
    pr = model.pr
    stem = report_stem(
        name or pr["repo"],
        pr["number"],
        pr["target"],
        pr.get("head_sha", ""),
        pr.get("base_sha", ""),
    )
    lang = config.report.lang
    suffix = "" if lang == "en" else f".{lang}"
    outputs: dict[Path, str] = {}
    formats = config.report.formats
    # Renderers are imported, and the Markdown rendered, only for the formats asked for.
    if "md" in formats or "html" in formats:
        from prreport.render.markdown import render_markdown

        markdown = render_markdown(model, lang)
        if "md" in formats:
            outputs[out_dir / f"{stem}{suffix}.md"] = markdown
        if "html" in formats:
            from prreport.render.html import render_html

            outputs[out_dir / f"{stem}{suffix}.html"] = render_html(model, lang)
    if "json" in formats:
        from prreport.render.json import render_json

        outputs[out_dir / f"{stem}.json"] = render_json(model)
    if "sarif" in formats:
        from prreport.render.sarif import render_sarif

        outputs[out_dir / f"{stem}.sarif"] = render_sarif(model)
    return outputs
