"""Risk tags: each with its severity and the evidence (findings, metadata) it rests on."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from prreport.bundle import PullRequestBundle
from prreport.classify import category
from prreport.findings import Diagnostic, Finding
from prreport.report.claims import CLAIMS
from prreport.report.facts import evidence, guard_texts, partial_init, site_labels
from prreport.report.lazyrisks import fallback_escaped, lazy_import_effects
from prreport.report.ledger import LedgerLine, is_failure
from prreport.report.model import FileEntry

SEVERITY_ORDER = ("high", "medium", "low")


Evidence = list[dict[str, Any]]


@dataclass(frozen=True)
class RiskInput:
    """What every risk rule reads: the bundle, the live findings, files, verdict, review, diagnostics."""

    bundle: PullRequestBundle
    findings: list[Finding]
    files: list[FileEntry]
    verdict: str
    review: dict[str, Any]
    diagnostics: list[Diagnostic]
    # changed code lines of Python source no finding explains (the ledger's left-over lines)
    unexplained: tuple[LedgerLine, ...] = ()

    def of(self, *kinds: str) -> list[Finding]:
        """The findings of the given kinds."""
        return [fd for fd in self.findings if fd.kind in kinds]


def _guard_evidence(fd: Finding) -> dict[str, Any]:
    before, after = fd.details.get("before"), fd.details.get("after")
    lazy = list(fd.details.get("lazy_names", []))  # PEP 810: the error surfaces at first use
    return evidence(fd, before=guard_texts(before), after=guard_texts(after), lazy_names=lazy)


def _import_cycle(x: RiskInput) -> Evidence:
    return [
        evidence(
            fd,
            chain=list(fd.details.get("chain", [])),
            target_path=fd.details.get("target_path", ""),
            **partial_init(fd),
        )
        for fd in x.of("cycle.risk")
    ]


def _guard_dropped(x: RiskInput) -> Evidence:
    # A moved call that lost a guard its old call site had. A guard that could never fail
    # (proven) puts nothing at risk; guards removed from changed code are the next risk.
    return [
        _guard_evidence(fd)
        for fd in x.of("guard.dropped")
        if fd.details.get("behavior_change") is not False and "reason" not in fd.details
    ]


def _guard_removed(x: RiskInput) -> Evidence:
    # An ``if`` test or a ``try`` removed from changed code, its statements kept: what it was.
    # A removed import fallback is its own risk (below).
    return [
        evidence(
            fd,
            guard=fd.details.get("guard", ""),
            reason=fd.details.get("reason", ""),
            caught=list(fd.details.get("caught", [])),
        )
        for fd in x.of("guard.dropped")
        if fd.details.get("behavior_change") is not False
        and "reason" in fd.details
        and not _fallback(fd)
    ]


def _fallback_removed(x: RiskInput) -> Evidence:
    # ``try: import m / except ImportError: ...`` gone: m is now required wherever this runs.
    return [
        _guard_evidence(fd)
        for fd in x.of("guard.dropped")
        if _fallback(fd) and "escaped_by" not in fd.details
    ]


def _fallback(fd: Finding) -> bool:
    return fd.details.get("reason") == "dependency-now-required"


def _implicit_call_removed(x: RiskInput) -> Evidence:
    # A removed ``__deepcopy__`` or framework hook: what called it without naming it now does not.
    return [
        evidence(fd, via=fd.details.get("called_by", ""), caller=fd.details.get("caller", ""))
        for fd in x.of("behavior.changed")
        if fd.details.get("removed") is True and category(fd.path) == "source"
    ]


def _unresolved_name(x: RiskInput) -> Evidence:
    # An import left on a module the PR deleted says which statement fails and why.
    return [
        evidence(
            fd,
            statement=fd.details.get("statement", ""),
            removed_path=fd.details.get("removed_path", ""),
            renamed_to=fd.details.get("renamed_to", ""),
        )
        for fd in x.of("names.unresolved")
    ]


def _hidden_characters(x: RiskInput) -> Evidence:
    # Trojan Source: the characters, by position and name, and the line spelt out.
    return [
        evidence(
            fd, characters=list(fd.details.get("characters", [])), text=fd.details.get("text", "")
        )
        for fd in x.of("unicode.hidden")
    ]


def _confusable_identifier(x: RiskInput) -> Evidence:
    return [
        evidence(
            fd,
            spelled=fd.details.get("spelled", ""),
            reason=fd.details.get("reason", ""),
            looks_like=fd.details.get("looks_like", ""),
            scripts=list(fd.details.get("scripts", [])),
        )
        for fd in x.of("unicode.confusable")
    ]


def _refactor_not_equivalent(x: RiskInput) -> Evidence:
    return [
        evidence(fd, **_not_equivalent(fd))
        for fd in x.findings
        if fd.kind.startswith(("code.", "symbol.")) and fd.details.get("behavior_change") is True
    ]


def _behavior_change_in_refactor(x: RiskInput) -> Evidence:
    # Only the PR's own words make a behaviour change a broken promise (a high risk): a
    # "refactor" title or a no-behaviour-change / pure-refactor claim in the description.
    pr_text = f"{x.bundle.pr.title}\n{x.bundle.pr.body}"
    claims_refactor = bool(re.search(r"\brefactor", x.bundle.pr.title, re.I)) or any(
        re.search(pattern, pr_text, re.I)
        for cid, pattern in CLAIMS
        if cid in ("no-behavior-change", "pure-refactor")
    )
    if not claims_refactor:
        return []
    return [
        evidence(fd, residual=list(fd.details.get("residual", []))[:5])
        for fd in x.of("behavior.changed")
    ]


def _unexplained_change(x: RiskInput) -> Evidence:
    # One entry per file: where its first unexplained code line is, what it says, how many more.
    by_path: dict[str, list[tuple[str, int, str]]] = {}
    for ln in x.unexplained:
        by_path.setdefault(ln.path, []).append((ln.side, ln.line, ln.text.strip()))
    out = []
    for path, rows in by_path.items():
        added = [r for r in rows if r[0] == "+"]
        side, line, text = (added or rows)[0]
        out.append(
            {
                "kind": "lines",
                "path": path,
                # a removed line has no place in the after file: point at the file
                "line": line if side == "+" else None,
                "symbol": "",
                "side": side,
                "text": text if len(text) <= 80 else text[:77] + "...",
                # changed lines, a replaced line counted once
                "count": max(len(added), len(rows) - len(added)),
            }
        )
    return out


def _analysis_incomplete(x: RiskInput) -> Evidence:
    return [
        {
            "kind": "diagnostic",
            "path": "",
            "line": None,
            "symbol": d.origin,
            "origin": d.origin,
            "message": d.message.splitlines()[0],
        }
        for d in x.diagnostics
        if is_failure(d)
    ]


def _unseen_files(x: RiskInput) -> Evidence:
    # Changed files the source never saw (GitHub lists at most 3000): any of them may hold the
    # change that matters, so nothing said about the PR is complete.
    n = x.bundle.unseen_files
    if n <= 0:
        return []
    return [
        {
            "kind": "files",
            "path": "",
            "line": None,
            "symbol": "",
            "count": n,
            "total": len(x.bundle.files) + n,
        }
    ]


def _guard_changed(x: RiskInput) -> Evidence:
    return [_guard_evidence(fd) for fd in x.of("guard.changed")]


def _import_in_loop(x: RiskInput) -> Evidence:
    return [
        evidence(fd, loop=fd.details.get("loop", ""), after=fd.details.get("after", 0))
        for fd in x.of("loop.imports-added", "loop.imports-remaining")
    ]


def _unparseable(x: RiskInput) -> Evidence:
    located = [
        {
            "kind": "diagnostic",
            "path": d.path,
            "line": d.line,
            "symbol": "",
            "origin": d.origin,
            "message": d.message,
        }
        for d in x.diagnostics
        if d.path
    ]
    # A file the source could not read has its diagnostic already (saying which side): once.
    said = {d.path for d in x.diagnostics if d.path}
    unreadable = [
        evidence(fd, reason=fd.details.get("reason", ""), message=fd.details.get("reason", ""))
        for fd in x.of("file.unreadable")
        if fd.path not in said
    ]
    return located + unreadable


def _ci_failing_at_merge(x: RiskInput) -> Evidence:
    if not x.review["merged_with_failures"]:
        return []
    return [
        {"kind": "ci", "path": "", "line": None, "symbol": name}
        for name in x.review["ci_summary"]["failing"]
    ]


def _no_review(x: RiskInput) -> Evidence:
    r = x.review
    if not r["available"] or r["reviews_count"] or r["review_comments_count"]:
        return []
    return [
        {
            "kind": "review",
            "path": "",
            "line": None,
            "symbol": "",
            "issue_comments": r["issue_comments_count"],
        }
    ]


def _cycle_unchecked(x: RiskInput) -> Evidence:
    # what was missing, so the report can say why the hoist is not verified
    return [
        evidence(
            fd,
            unavailable=list(fd.details.get("unavailable", [])),
            unparseable=list(fd.details.get("unparseable", [])),
            depth_limited=bool(fd.details.get("depth_limited")),
            depth=fd.details.get("depth"),
            target_missing=bool(fd.details.get("target_missing")),
            **partial_init(fd),
        )
        for fd in x.of("cycle.unchecked")
    ]


def _names_not_checkable(x: RiskInput) -> Evidence:
    return [
        evidence(fd, stars=[s.get("module", "") for s in fd.details.get("star_imports", [])])
        for fd in x.of("names.not-checkable")
    ]


def _implicit_contract(x: RiskInput) -> Evidence:
    return [
        evidence(
            fd,
            module=fd.details.get("module", fd.symbol),
            forbidden=list(fd.details.get("forbidden", [])),
            importers=list(fd.details.get("importers", [])) or [fd.path],
            module_path=fd.details.get("module_path", ""),
            verified=fd.details.get("verified", True),
            # a cross-reference to the unchecked-cycle risk only when the report has one
            unchecked_risk=bool(x.of("cycle.unchecked")),
            test=fd.details.get("test") if fd.details.get("test_verified") else None,
            test_path=fd.details.get("test_path", ""),
            test_lines=sum(1 for ln in (fd.details.get("test") or "").splitlines() if ln.strip()),
            contract=fd.details.get("contract") or "",
        )
        for fd in x.of("contract.implicit")
    ]


def _no_tests(x: RiskInput) -> Evidence:
    source = [f for f in x.files if f.category == "source" and f.path.endswith(".py")]
    if not source or any(f.category == "test" for f in x.files):
        return []
    return [{"kind": "files", "path": f.path, "line": None, "symbol": ""} for f in source]


# (risk id, severity, rule) in the order a reader wants them within one severity.
RULES: tuple[tuple[str, str, Callable[[RiskInput], Evidence]], ...] = (
    ("unseen-files", "high", _unseen_files),
    ("hidden-characters", "high", _hidden_characters),
    ("confusable-identifier", "high", _confusable_identifier),
    ("import-cycle", "high", _import_cycle),
    ("guard-dropped", "high", _guard_dropped),
    ("unresolved-name", "high", _unresolved_name),
    ("refactor-not-equivalent", "high", _refactor_not_equivalent),
    ("behavior-change-in-refactor", "high", _behavior_change_in_refactor),
    ("unexplained-change", "medium", _unexplained_change),
    ("guard-removed", "medium", _guard_removed),
    ("implicit-call-removed", "medium", _implicit_call_removed),
    ("fallback-removed", "medium", _fallback_removed),
    ("fallback-escaped", "medium", fallback_escaped),
    ("lazy-import-effects", "medium", lazy_import_effects),
    ("analysis-incomplete", "medium", _analysis_incomplete),
    ("guard-changed", "medium", _guard_changed),
    ("import-in-loop", "medium", _import_in_loop),
    ("unparseable", "medium", _unparseable),
    ("ci-failing-at-merge", "medium", _ci_failing_at_merge),
    ("no-review", "medium", _no_review),
    ("cycle-unchecked", "medium", _cycle_unchecked),
    ("names-not-checkable", "low", _names_not_checkable),
    ("implicit-contract", "low", _implicit_contract),
    ("no-tests", "low", _no_tests),
)


def risks_of(
    bundle: PullRequestBundle,
    findings: list[Finding],
    files: list[FileEntry],
    verdict: str,
    review: dict[str, Any],
    diagnostics: list[Diagnostic],
    unexplained: tuple[LedgerLine, ...] = (),
) -> list[dict[str, Any]]:
    """Risk tags from findings and metadata, each with its evidence; highest severity first."""
    x = RiskInput(bundle, findings, files, verdict, review, diagnostics, unexplained)
    risks = []
    for rid, severity, rule in RULES:
        ev = rule(x)
        if ev:
            risks.append({"id": rid, "severity": severity, "title": "", "evidence": ev})
    risks.sort(key=lambda r: SEVERITY_ORDER.index(r["severity"]))
    return risks


def _not_equivalent(fd: Finding) -> dict[str, Any]:
    """Why a refactor finding is not behaviour-preserving, as evidence fields."""
    d = fd.details
    return {
        "equality": d.get("equality", ""),
        "proven": d.get("proven"),
        "different_sites": [
            label
            for site, label in zip(
                d.get("sites", []), site_labels(list(d.get("sites", []))), strict=True
            )
            if site.get("equality") == "different"
        ],
        "not_inheriting": [
            site.get("class", "")
            for site in d.get("sites", [])
            if site.get("inherits_new_home") is False
        ],
        "stale_references": list(d.get("stale_references", []))[:5],
        "overridden_by": list(d.get("overridden_by", []))[:5],
        "base_provides": d.get("base_provides"),
        "base": d.get("base", ""),
        "base_body_kind": d.get("base_body_kind", ""),
        "old_qualname": d.get("old_qualname", ""),
        "inputs": list(d.get("inputs", []))[:3],
    }
