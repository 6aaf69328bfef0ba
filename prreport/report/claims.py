"""Claims of the PR text, found by pattern and checked against the findings."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from prreport.findings import Finding
from prreport.report.facts import evidence

# Claim id -> pattern over the PR title and body (English phrasing of common PR texts).
CLAIMS = (
    (
        "no-behavior-change",
        r"no (functional |behaviou?ral |behaviou?r |logic |semantic )?changes? (in|to) behaviou?r"
        r"|no (functional|behaviou?ral|behaviou?r|logic|semantic) changes?|behaviou?r[- ]preserving|does not change (the )?behaviou?r",
    ),
    (
        "pure-refactor",
        r"\bpure(ly)?( a)? refactor|refactor[- ]only|\bno-op refactor|mechanical (refactor|change)",
    ),
    (
        "no-import-cycle",
        r"no (import |circular )?(cycle|circular import)s?|no cycle-avoidance reason|without (an )?import cycle",
    ),
    (
        "zero-imports-in-loop",
        r"zero imports?|no imports? (inside|in) the loops?|no (more )?in-loop imports?",
    ),
    ("names-resolve", r"\bF821\b|no undefined names?"),
)


def _claim_sentence(text: str, match: re.Match[str]) -> str:
    """The sentence of ``text`` containing the match, whitespace collapsed (a quote, never rewritten)."""
    bounds = re.compile(r"(?<=[.!?])\s+|\n\s*\n|\n\s*[-*+]\s|\n#+\s")
    start = 0
    for b in bounds.finditer(text, 0, match.start()):
        start = b.end()
    nxt = bounds.search(text, match.end())
    sentence = text[start : nxt.start() if nxt else len(text)]
    sentence = re.sub(r"^\s*([-*+]\s+)?(\[[ xX]\]\s+)?", "", sentence)
    return " ".join(sentence.split())


def claims_of(title: str, body: str, findings: list[Finding], verdict: str) -> list[dict[str, Any]]:
    """Statements in the PR text, checked against the findings: supported, contradicted or not checkable."""
    text = f"{title}\n{body}"
    # A guard proven never to fail (``behavior_change: false``) contradicts no claim.
    findings = [
        fd
        for fd in findings
        if not (fd.kind == "guard.dropped" and fd.details.get("behavior_change") is False)
    ]
    kinds = Counter(fd.kind for fd in findings)
    out = []
    for cid, pattern in CLAIMS:
        m = re.search(pattern, text, re.I)
        if not m:
            continue
        status, evidence = _check_claim(cid, findings, kinds, verdict)
        out.append(
            {"id": cid, "quote": _claim_sentence(text, m), "status": status, "evidence": evidence}
        )
    return out


def _check_claim(
    cid: str, findings: list[Finding], kinds: Counter[str], verdict: str
) -> tuple[str, list[dict[str, Any]]]:
    def ev(*ks: str) -> list[dict[str, Any]]:
        return [evidence(fd) for fd in findings if fd.kind in ks][:6]

    against = {
        "no-behavior-change": ("behavior.changed", "guard.dropped", "guard.changed"),
        "pure-refactor": ("behavior.changed", "guard.dropped", "guard.changed", "cycle.risk"),
        "no-import-cycle": ("cycle.risk",),
        "zero-imports-in-loop": ("loop.imports-remaining", "loop.imports-added"),
        "names-resolve": ("names.unresolved",),
    }[cid]
    support = {
        "no-behavior-change": ("behavior.unchanged",),
        "pure-refactor": ("behavior.unchanged",),
        "no-import-cycle": ("cycle.safe",),
        "zero-imports-in-loop": ("loop.imports-removed",),
        # A clean name check leaves no finding, so only a contradiction is checkable.
        "names-resolve": (),
    }[cid]
    if any(kinds[k] for k in against):
        return "contradicted", ev(*against)
    if cid == "pure-refactor" and verdict != "pure-refactor":
        return "not-checkable", []
    if support and any(kinds[k] for k in support):
        return "supported", ev(*support)
    return "not-checkable", []
