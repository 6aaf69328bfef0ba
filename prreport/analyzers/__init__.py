"""Analyzer plug-ins: a registry, shared parsed sources, and the runner.

An analyzer is a class with a ``name``, a one-line docstring with a tiny before/after,
an optional ``requests`` (files/references the source must fetch first) and a pure
``analyze`` returning findings. Every public module of this package is imported on
first use, so adding a module with a ``@register`` class adds an analyzer.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import traceback
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from prreport.bundle import FileChange, PullRequestBundle
from prreport.config import AnalysisConfig
from prreport.diffparse import ChangedLines, changed_lines
from prreport.findings import ContextRequest, Diagnostic, Finding

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


class SourceFiles:
    """Lazily parsed before/after text of changed files and context files, shared by analyzers.

    Parse failures are remembered once per (path, side) and surfaced as diagnostics.
    """

    def __init__(self, bundle: PullRequestBundle) -> None:
        self.bundle = bundle
        self._ast: dict[tuple[str, str], ast.Module | None] = {}
        self._memo: dict[tuple[str, str, str], Any] = {}
        self._changed: dict[str, ChangedLines] = {}
        self.parse_errors: dict[tuple[str, str], Diagnostic] = {}

    def python_files(self) -> list[FileChange]:
        """Changed ``.py`` files that have text on at least one side."""
        return [
            f
            for f in self.bundle.files
            if f.path.endswith(".py")
            and not f.binary
            and (f.before is not None or f.after is not None)
        ]

    def text(self, path: str, side: str) -> str | None:
        """Text of a changed file (side ``"before"`` or ``"after"``) or a context file (``"head"``)."""
        if side == "head":
            f = self.bundle.file(path)
            if f is not None:
                return f.after
            return self.bundle.context_files.get(path)
        for f in self.bundle.files:
            if side == "after" and f.path == path:
                return f.after
            if side == "before" and f.before_path == path:
                return f.before
        return None

    def tree(self, path: str, side: str) -> ast.Module | None:
        """``ast`` of a file side, or None when absent or unparseable (then a diagnostic is kept)."""
        key = (path, side)
        if key not in self._ast:
            text = self.text(path, side)
            tree = None
            if text is not None:
                try:
                    tree = ast.parse(text, filename=path)
                except (SyntaxError, ValueError) as exc:
                    line = getattr(exc, "lineno", None)
                    msg = getattr(exc, "msg", str(exc))
                    self.parse_errors[key] = Diagnostic(
                        "parser", path, f"{side} version does not parse: {msg}", line
                    )
            self._ast[key] = tree
        return self._ast[key]

    def memo(self, path: str, side: str, what: str, build: Callable[[], Any]) -> Any:
        """Cache a derived value (e.g. a libcst tree or a scope index) per file side."""
        key = (path, side, what)
        if key not in self._memo:
            self._memo[key] = build()
        return self._memo[key]

    def changed(self, f: FileChange) -> ChangedLines:
        """Removed/added line numbers of a changed file."""
        if f.path not in self._changed:
            self._changed[f.path] = changed_lines(f.patch)
        return self._changed[f.path]


def selected(config: AnalysisConfig) -> list[Analyzer]:
    """Instantiate every registered analyzer not disabled in the configuration."""
    return [cls(config) for name, cls in registry().items() if name not in config.disabled]


def collect_requests(
    analyzers: list[Analyzer], bundle: PullRequestBundle, sources: SourceFiles | None = None
) -> tuple[ContextRequest, list[Diagnostic]]:
    """Union of what the analyzers want fetched; a failing ``requests`` becomes a diagnostic."""
    sources = sources if sources is not None and sources.bundle is bundle else SourceFiles(bundle)
    req = ContextRequest()
    diags = []
    for a in analyzers:
        try:
            req = req | a.requests(bundle, sources)
        except Exception as exc:  # an analyzer bug must not abort the run
            diags.append(
                Diagnostic(a.name, "", f"could not plan context: {type(exc).__name__}: {exc}")
            )
    return req, diags


def run_analyzers(
    analyzers: list[Analyzer],
    bundle: PullRequestBundle,
    debug: bool = False,
    sources: SourceFiles | None = None,
) -> tuple[list[Finding], list[Diagnostic]]:
    """Run every analyzer; crashes and unparseable files become diagnostics. Output is sorted."""
    sources = sources if sources is not None and sources.bundle is bundle else SourceFiles(bundle)
    findings: list[Finding] = []
    diags: list[Diagnostic] = []
    for a in analyzers:
        try:
            findings.extend(a.analyze(bundle, sources))
        except Exception as exc:  # turn an analyzer crash into a diagnostic, keep the others
            detail = traceback.format_exc(limit=3) if debug else ""
            diags.append(
                Diagnostic(
                    a.name,
                    "",
                    f"analyzer failed: {type(exc).__name__}: {exc}"
                    + (f"\n{detail}" if detail else ""),
                )
            )
    diags.extend(sources.parse_errors.values())
    findings.sort(key=Finding.sort_key)
    diags.sort(key=lambda d: (d.path, d.line or 0, d.origin, d.message))
    return findings, diags
