"""ReportModel: everything templates need, computed, sorted and grouped (language-neutral)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from prreport.bundle import PullRequestBundle, to_jsonable
from prreport.classify import category, module_name
from prreport.config import Config
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


@dataclass(frozen=True)
class Summary:
    """Verdict and headline facts."""

    verdict: str
    one_line: str
    recommended_action: str
    changed_lines: int
    explained_lines: int
    kind_counts: dict[str, int] = field(default_factory=dict)


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
    schema: str = REPORT_SCHEMA

    def to_json(self) -> dict[str, Any]:
        """Plain JSON value of the report (DESIGN §3 names)."""
        return to_jsonable(self)


_BEHAVIOUR_CHANGE_KINDS = ("behavior.changed",)
_MECHANICAL_PREFIXES = ("import.", "loop.", "code.", "symbol.", "behavior.unchanged", "file.renamed")


def _verdict(findings: list[Finding], changed: int, explained: int, has_python: bool) -> str:
    """``pure-refactor`` | ``refactor-with-behavior-change`` | ``behavior-change`` | ``unknown``.

    Pure: no finding says behaviour changed and every changed line is explained by a
    mechanical finding (so every changed function that still exists is ``behavior.unchanged``).
    """
    kinds = {f.kind for f in findings}
    # Without any fact from parsed Python (only file.* findings) nothing can be claimed.
    if not has_python or not any(not k.startswith("file.") for k in kinds):
        return "unknown"
    changes = kinds & {"behavior.changed", "guard.dropped", "cycle.risk", "names.unresolved"}
    mechanical = any(
        k.startswith(("import.", "loop.", "code.", "symbol.", "file.renamed")) or k == "behavior.unchanged"
        for k in kinds
    )
    if changes:
        return "refactor-with-behavior-change" if mechanical else "behavior-change"
    if changed and explained >= changed:
        return "pure-refactor"
    # Unexplained lines without a computed behaviour change: say so rather than guess.
    return "unknown"


def _explained(bundle: PullRequestBundle, findings: list[Finding]) -> tuple[int, int]:
    """(changed lines, changed lines some finding explains) over all text files of the PR."""
    from prreport.diffparse import changed_lines

    total: set[tuple[str, str, int]] = set()
    # A removed line may be named by the file's before path (renames) or its after path.
    alias: dict[tuple[str, str, int], tuple[str, str, int]] = {}
    for f in bundle.files:
        if f.binary:
            continue
        cl = changed_lines(f.patch)
        for n in cl.removed:
            total.add((f.path, "-", n))
            alias[(f.before_path, "-", n)] = (f.path, "-", n)
        total |= {(f.path, "+", n) for n in cl.added}
    explained = {alias.get(e, e) for fd in findings for e in fd.explains} & total
    return len(total), len(explained)


def build_model(
    bundle: PullRequestBundle, findings: list[Finding], diagnostics: list[Diagnostic], config: Config
) -> ReportModel:
    """Compute the report model from a bundle and its findings."""
    pr = bundle.pr
    by_path: dict[str, list[Finding]] = {}
    for fd in findings:
        by_path.setdefault(fd.path, []).append(fd)
    files = []
    for f in bundle.files:
        fds = by_path.get(f.path, [])
        cat = category(f.path)
        files.append(
            FileEntry(
                path=f.path,
                old_path=f.old_path,
                status=f.status,
                additions=f.additions,
                deletions=f.deletions,
                module=module_name(f.path, config.modules, bundle.head_paths),
                category=cat,
                change_type=_change_type(cat, fds, f.status),
                symbols=tuple(sorted({fd.symbol for fd in fds if fd.symbol})),
                binary=f.binary,
                finding_kinds=tuple(sorted({fd.kind for fd in fds})),
            )
        )
    changed, explained = _explained(bundle, findings)
    has_python = any(f.path.endswith(".py") and not f.binary for f in bundle.files)
    verdict = _verdict(findings, changed, explained, has_python)
    counts = dict(sorted(Counter(fd.kind for fd in findings).items()))
    summary = Summary(
        verdict=verdict,
        one_line=pr.title,
        recommended_action="",
        changed_lines=changed,
        explained_lines=explained,
        kind_counts=counts,
    )
    all_diags = list(diagnostics) + [Diagnostic("source", "", note) for note in bundle.source_notes]
    return ReportModel(
        pr={
            "repo": pr.repo,
            "number": pr.number,
            "title": pr.title,
            "author": pr.author,
            "url": pr.url,
            "state": pr.state,
            "merged_at": pr.merged_at,
            "merged_by": pr.merged_by,
            "base_sha": pr.base_sha,
            "head_sha": pr.head_sha,
            "labels": list(pr.labels),
            "target": pr.target,
        },
        summary=summary,
        motivation={"quoted": pr.body.strip(), "source": "description" if pr.body.strip() else "none"},
        files=tuple(files),
        findings=tuple(findings),
        key_symbols=tuple(sorted({fd.symbol for fd in findings if fd.symbol and not fd.kind.startswith("file.")})),
        snippets=(),
        review={
            "available": bundle.review_data_available,
            "review_comments_count": len(bundle.review_comments),
            "issue_comments_count": len(bundle.issue_comments),
            "reviews_count": len(bundle.reviews),
            "highlights": [],
            "ci": [to_jsonable(c) for c in bundle.checks],
        },
        risks=(),
        impact={"files": len(files), "modules": sorted({f.module for f in files})},
        related=tuple(to_jsonable(r) for r in bundle.related),
        diagnostics=tuple(all_diags),
        source=bundle.source,
    )


def _change_type(cat: str, fds: list[Finding], status: str) -> str:
    if cat in ("test", "docs", "ci", "build", "config", "data"):
        return cat
    kinds = {fd.kind for fd in fds}
    if status == "renamed" and not kinds - {"file.renamed"}:
        return "rename"
    if kinds and all(k.startswith(("import.", "loop.")) for k in kinds - {"behavior.unchanged", "cycle.safe", "contract.implicit", "guard.preserved", "lazy-import.retained", "names.unused-import"}):
        return "dependency-wiring"
    if "behavior.changed" in kinds:
        return "logic"
    if kinds & {"behavior.unchanged"} or any(k.startswith(("code.", "symbol.")) for k in kinds):
        return "refactor"
    return "change"
