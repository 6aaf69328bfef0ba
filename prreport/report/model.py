"""The report as data: the view dataclasses templates and the JSON output read."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from prreport.bundle import to_jsonable
from prreport.findings import Diagnostic, Finding

REPORT_SCHEMA = "prreport.report/1"


@dataclass(frozen=True)
class FileEntry:
    """A changed file as the report shows it."""

    path: str
    old_path: str | None
    status: str
    additions: int
    deletions: int
    module: str
    category: str
    change_type: str
    symbols: tuple[str, ...]
    binary: bool
    finding_kinds: tuple[str, ...]
    # What the findings say about this file, grouped for the breakdown and the description.
    facts: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Summary:
    """Verdict and headline facts.

    ``one_line`` and ``recommended_action`` are wording: the renderer fills them (in English
    for JSON) from ``headline`` and ``action``, which are the facts they are built from.
    """

    verdict: str
    one_line: str
    recommended_action: str
    changed_lines: int
    explained_lines: int
    kind_counts: dict[str, int] = field(default_factory=dict)
    headline: dict[str, Any] = field(default_factory=dict)
    action: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ReportModel:
    """The report, as data; the JSON output is this value."""

    pr: dict[str, Any]
    summary: Summary
    motivation: dict[str, Any]
    files: tuple[FileEntry, ...]
    findings: tuple[Finding, ...]
    key_symbols: tuple[str, ...]
    snippets: tuple[dict[str, Any], ...]
    review: dict[str, Any]
    risks: tuple[dict[str, Any], ...]
    impact: dict[str, Any]
    related: tuple[dict[str, Any], ...]
    diagnostics: tuple[Diagnostic, ...]
    source: str
    breakdown: dict[str, Any] = field(default_factory=dict)
    claims: tuple[dict[str, Any], ...] = ()
    public_api: dict[str, Any] = field(default_factory=dict)
    # Every changed line: its kind, the findings (indexes in ``findings``) that explain it, or
    # the left-over edit (index in ``ledger.edits``) it is left in (``report.lines``).
    ledger: dict[str, Any] = field(default_factory=dict)
    # The review view: the same lines with their text and context, hunk by hunk (not in the JSON).
    diff: tuple[dict[str, Any], ...] = field(default=(), metadata={"json": False})
    schema: str = REPORT_SCHEMA

    def to_json(self) -> dict[str, Any]:
        """Plain JSON value of the report (DESIGN §3 names); the review view is left out."""
        return {
            f.name: to_jsonable(getattr(self, f.name))
            for f in fields(self)
            if f.metadata.get("json", True)
        }
