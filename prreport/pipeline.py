"""The one-direction pipeline: source -> bundle -> analyzers -> report model -> renderers."""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from prreport.analyzers import collect_requests, run_analyzers, selected
from prreport.bundle import PullRequestBundle, analysable
from prreport.config import Config
from prreport.findings import Diagnostic, Finding
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
    # Analyzers plan on what they will analyse: no text of a file with an unread side.
    view = analysable(bundle)
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
        view = analysable(bundle)
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
    build the report model."""
    with few_collections():
        return _analyse(subject, config, debug)


def _analyse(subject: PullRequestBundle | Gathered, config: Config, debug: bool) -> Analysis:
    analyzers = selected(config.analysis)
    # one parse cache shared by planning and analysis (and by gather, for the bundle it made)
    bundle = subject.bundle if isinstance(subject, Gathered) else subject
    # No finding may use a side that was not read: the analyzers see no text of such a file.
    view = analysable(bundle)
    if isinstance(subject, Gathered):
        sources = subject.sources
        if sources.bundle is not view:  # e.g. the comment command's bundle without our comment
            sources = _sources_for(view, sources)
    else:
        sources = SourceFiles(view)
    try:
        _req, plan_diags = collect_requests(analyzers, view, sources)
        findings, diags = run_analyzers(analyzers, view, debug=debug, sources=sources)
    finally:
        sources.release()  # the trees go now, by reference counting, not at a collector pass
    diags = unread_diagnostics(bundle) + plan_diags + diags
    model = build_model(bundle, findings, diags, config)
    return Analysis(bundle, findings, diags, model)


def unread_diagnostics(bundle: PullRequestBundle) -> list[Diagnostic]:
    """One diagnostic per changed file with a side that was not read: the file is not analysed."""
    out = []
    for f in bundle.files:
        sides = f.unread_sides
        if sides:
            why = f"{f.note}: " if f.note else ""
            out.append(
                Diagnostic(
                    "source",
                    f.path,
                    f"{why}{' and '.join(sides)} version not read, so the file is not analysed"
                    " (its change is unknown, not a removal or an addition)",
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
    return outputs
