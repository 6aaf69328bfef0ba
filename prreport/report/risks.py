"""Risk tags: each with its severity and the evidence (findings, metadata) it rests on."""

from __future__ import annotations

import re
from typing import Any

from prreport.bundle import PullRequestBundle
from prreport.findings import Diagnostic, Finding
from prreport.report.claims import CLAIMS
from prreport.report.facts import evidence, guard_texts
from prreport.report.model import FileEntry

SEVERITY_ORDER = ("high", "medium", "low")


def risks_of(
    bundle: PullRequestBundle,
    findings: list[Finding],
    files: list[FileEntry],
    verdict: str,
    review: dict[str, Any],
    diagnostics: list[Diagnostic],
) -> list[dict[str, Any]]:
    """Risk tags from findings and metadata, each with its evidence; highest severity first."""
    risks: list[dict[str, Any]] = []

    def add(rid: str, severity: str, evidence: list[dict[str, Any]]) -> None:
        if evidence:
            risks.append({"id": rid, "severity": severity, "title": "", "evidence": evidence})

    of = lambda *kinds: [fd for fd in findings if fd.kind in kinds]  # noqa: E731
    add(
        "import-cycle",
        "high",
        [
            evidence(
                fd,
                chain=list(fd.details.get("chain", [])),
                target_path=fd.details.get("target_path", ""),
            )
            for fd in of("cycle.risk")
        ],
    )
    add(
        "guard-dropped",
        "high",
        [
            evidence(
                fd,
                before=guard_texts(fd.details.get("before")),
                after=guard_texts(fd.details.get("after")),
            )
            for fd in of("guard.dropped")
        ],
    )
    add("unresolved-name", "high", [evidence(fd) for fd in of("names.unresolved")])
    add(
        "refactor-not-equivalent",
        "high",
        [
            evidence(fd, **_not_equivalent(fd))
            for fd in findings
            if fd.kind.startswith(("code.", "symbol."))
            and fd.details.get("behavior_change") is True
        ],
    )
    # Only the PR's own words make a behaviour change a broken promise (a high risk): a
    # "refactor" title or a no-behaviour-change / pure-refactor claim in the description.
    pr_text = f"{bundle.pr.title}\n{bundle.pr.body}"
    claims_refactor = bool(re.search(r"\brefactor", bundle.pr.title, re.I)) or any(
        re.search(pattern, pr_text, re.I)
        for cid, pattern in CLAIMS
        if cid in ("no-behavior-change", "pure-refactor")
    )
    if claims_refactor:
        add(
            "behavior-change-in-refactor",
            "high",
            [
                evidence(fd, residual=list(fd.details.get("residual", []))[:5])
                for fd in of("behavior.changed")
            ],
        )
    add(
        "guard-changed",
        "medium",
        [
            evidence(
                fd,
                before=guard_texts(fd.details.get("before")),
                after=guard_texts(fd.details.get("after")),
            )
            for fd in of("guard.changed")
        ],
    )
    add(
        "import-in-loop",
        "medium",
        [
            evidence(fd, loop=fd.details.get("loop", ""), after=fd.details.get("after", 0))
            for fd in of("loop.imports-added", "loop.imports-remaining")
        ],
    )
    add(
        "unparseable",
        "medium",
        [
            {
                "kind": "diagnostic",
                "path": d.path,
                "line": d.line,
                "symbol": "",
                "origin": d.origin,
                "message": d.message,
            }
            for d in diagnostics
            if d.path
        ]
        + [evidence(fd, reason=fd.details.get("reason", "")) for fd in of("file.unreadable")],
    )
    if review["merged_with_failures"]:
        add(
            "ci-failing-at-merge",
            "medium",
            [
                {"kind": "ci", "path": "", "line": None, "symbol": name}
                for name in review["ci_summary"]["failing"]
            ],
        )
    if review["available"] and not review["reviews_count"] and not review["review_comments_count"]:
        add(
            "no-review",
            "medium",
            [
                {
                    "kind": "review",
                    "path": "",
                    "line": None,
                    "symbol": "",
                    "issue_comments": review["issue_comments_count"],
                }
            ],
        )
    add(
        "cycle-unchecked",
        "medium",
        [
            evidence(fd, unavailable=list(fd.details.get("unavailable", [])))
            for fd in of("cycle.unchecked")
        ],
    )
    add(
        "names-not-checkable",
        "low",
        [
            evidence(fd, stars=[x.get("module", "") for x in fd.details.get("star_imports", [])])
            for fd in of("names.not-checkable")
        ],
    )
    add(
        "implicit-contract",
        "low",
        [
            evidence(
                fd,
                module=fd.details.get("module", fd.symbol),
                forbidden=list(fd.details.get("forbidden", [])),
                importers=list(fd.details.get("importers", [])) or [fd.path],
                contract=fd.details.get("contract", ""),
            )
            for fd in of("contract.implicit")
        ],
    )
    source = [f for f in files if f.category == "source" and f.path.endswith(".py")]
    tests = [f for f in files if f.category == "test"]
    if source and not tests:
        add(
            "no-tests",
            "low",
            [{"kind": "files", "path": f.path, "line": None, "symbol": ""} for f in source],
        )
    risks.sort(key=lambda r: SEVERITY_ORDER.index(r["severity"]))
    return risks


def _not_equivalent(fd: Finding) -> dict[str, Any]:
    """Why a refactor finding is not behaviour-preserving, as evidence fields."""
    d = fd.details
    return {
        "equality": d.get("equality", ""),
        "proven": d.get("proven"),
        "different_sites": [
            site.get("scope") or site.get("class", "")
            for site in d.get("sites", [])
            if site.get("equality") == "different"
        ],
        "not_inheriting": [
            site.get("class", "")
            for site in d.get("sites", [])
            if site.get("inherits_new_home") is False
        ],
        "stale_references": list(d.get("stale_references", []))[:5],
        "base_provides": d.get("base_provides"),
        "base": d.get("base", ""),
        "base_body_kind": d.get("base_body_kind", ""),
        "old_qualname": d.get("old_qualname", ""),
    }
