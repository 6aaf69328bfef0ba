"""Findings and diagnostics: the data analyzers produce (wording lives in templates)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Finding:
    """One computed fact about the change, with its evidence.

    ``explains`` lists the changed lines this fact accounts for, as ``(path, side, line)``
    with side ``"-"`` (a removed line, numbered in the before file) or ``"+"`` (an added
    line, numbered in the after file); the report uses it for the explained-lines share.
    """

    kind: str
    path: str
    line: int | None
    symbol: str
    message: str
    details: dict[str, Any] = field(default_factory=dict)
    explains: tuple[tuple[str, str, int], ...] = ()

    def sort_key(self) -> tuple[str, int, str, str, str]:
        """Deterministic order: path, line, kind, symbol, message."""
        return (self.path, self.line or 0, self.kind, self.symbol, self.message)


@dataclass(frozen=True)
class Diagnostic:
    """Something prreport could not do (a file that does not parse, an analyzer that failed)."""

    origin: str  # analyzer name, "source" or "pipeline"
    path: str
    message: str
    line: int | None = None


@dataclass(frozen=True)
class ContextRequest:
    """What an analyzer needs the source to fetch before analysis (files at head, references)."""

    files: frozenset[str] = frozenset()
    references: frozenset[str] = frozenset()

    def __or__(self, other: ContextRequest) -> ContextRequest:
        return ContextRequest(self.files | other.files, self.references | other.references)
