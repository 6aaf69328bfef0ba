"""Analyzer plug-ins: the registry and the runner.

An analyzer is a class with a ``name``, a one-line docstring with a tiny before/after,
an optional ``requests`` (files/references the source must fetch first) and a pure
``analyze`` returning findings. Every public module of this package is imported on
first use, so adding a module with a ``@register`` class adds an analyzer.
"""

from __future__ import annotations

import importlib
import pkgutil
import traceback
from collections.abc import Iterable
from typing import ClassVar

from prreport.bundle import PullRequestBundle
from prreport.config import AnalysisConfig
from prreport.findings import ContextRequest, Diagnostic, Finding
from prreport.python.sources import SourceFiles

_REGISTRY: dict[str, type[Analyzer]] = {}


class Analyzer:
    """Base class of analyzer plug-ins."""

    name: ClassVar[str] = ""

    def __init__(self, config: AnalysisConfig) -> None:
        self.config = config

    def requests(self, bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
        """Files at head and names to search that this analyzer needs (default: none)."""
        return ContextRequest()

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Return findings; must be pure and deterministic."""
        raise NotImplementedError


def register(cls: type[Analyzer]) -> type[Analyzer]:
    """Class decorator adding an analyzer to the registry under its ``name``."""
    if not cls.name:
        raise ValueError(f"analyzer {cls.__qualname__} has no name")
    _REGISTRY[cls.name] = cls
    return cls


_LOADED: list[bool] = []


def _load_plugins() -> None:
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")
    _LOADED.append(True)


def registry() -> dict[str, type[Analyzer]]:
    """All registered analyzers by name (plug-in modules are imported on first call)."""
    # Not "registry empty": one plug-in imported directly first must not hide the others.
    if not _LOADED:
        _load_plugins()
    return dict(sorted(_REGISTRY.items()))


def selected(config: AnalysisConfig) -> list[Analyzer]:
    """Instantiate every registered analyzer not disabled in the configuration."""
    return [cls(config) for name, cls in registry().items() if name not in config.disabled]


def collect_requests(
    analyzers: list[Analyzer], bundle: PullRequestBundle, sources: SourceFiles | None = None
) -> tuple[ContextRequest, list[Diagnostic]]:
    """Union of what the analyzers want fetched; a failing ``requests`` becomes a diagnostic."""
    sources = sources if sources is not None and sources.bundle is bundle else SourceFiles(bundle)
    while True:
        req = ContextRequest()
        diags = []
        deep = False
        for a in analyzers:
            try:
                req = req | a.requests(bundle, sources)
            except Exception as exc:  # an analyzer bug must not abort the run
                deep = deep or isinstance(exc, RecursionError)
                diags.append(
                    Diagnostic(a.name, "", f"could not plan context: {type(exc).__name__}: {exc}")
                )
        if not (deep and sources.drop_too_deep()):
            return req, diags


def run_analyzers(
    analyzers: list[Analyzer],
    bundle: PullRequestBundle,
    debug: bool = False,
    sources: SourceFiles | None = None,
) -> tuple[list[Finding], list[Diagnostic]]:
    """Run every analyzer; crashes and unparseable files become diagnostics. Output is sorted."""
    sources = sources if sources is not None and sources.bundle is bundle else SourceFiles(bundle)
    while True:
        findings: list[Finding] = []
        diags: list[Diagnostic] = []
        deep = False
        for a in analyzers:
            try:
                findings.extend(a.analyze(bundle, sources))
            except Exception as exc:  # turn an analyzer crash into a diagnostic, keep the others
                deep = deep or isinstance(exc, RecursionError)
                detail = traceback.format_exc(limit=3) if debug else ""
                diags.append(
                    Diagnostic(
                        a.name,
                        "",
                        f"analyzer failed: {type(exc).__name__}: {exc}"
                        + (f"\n{detail}" if detail else ""),
                    )
                )
        # A tree too deep for the analyzers' recursion: not analysed (a parser diagnostic), run again.
        if not (deep and sources.drop_too_deep()):
            break
    diags.extend(sources.parse_errors.values())
    findings.sort(key=Finding.sort_key)
    diags.sort(key=lambda d: (d.path, d.line or 0, d.origin, d.message))
    return findings, diags
