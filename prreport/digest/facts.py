"""What the digest keeps of one PR: verdict, counts, risks and problems, from its report model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prreport.bundle import PullRequestBundle, analysable
from prreport.python.sources import SourceFiles
from prreport.series import series_of

# Risk severities (prreport.report) in the order a reader wants them.
SEVERITY_RANK = {"critical": 0, "high": 1, "medium": 2, "low": 3, "info": 4}
# The report's recommended action (prreport.report.summary.action_of), most urgent first.
ACTION_RANK = {"block": 0, "review": 1, "skim": 2}
# Risk tags that say little on their own: a PR with only these is summarised in one line.
LOW_SIGNAL_RISKS = ("no-tests",)
# The action level each severity leads to (block on high, review medium spots).
_ACTION_SEVERITY = {"block": "high", "review": "medium"}
_MAX_SPOTS = 3


def problems_of(bundle: PullRequestBundle, diagnostics: Sequence[Any]) -> list[str]:
    """Why parts of a PR could not be analysed: diagnostics plus Python files that do not parse."""
    sources = SourceFiles(analysable(bundle))  # a file with an unread side is not parsed
    for f in sources.python_files():
        if f.after is not None:
            sources.tree(f.path, "after")
    seen: list[str] = []
    for d in [*diagnostics, *sources.parse_errors.values()]:
        where = f"{d.path}:{d.line}" if d.path and d.line else d.path
        text = f"{where}: {d.message}" if where else d.message
        if text not in seen:
            seen.append(text)
    said = {d.path for d in diagnostics if d.path}
    for f in bundle.files:
        if f.note and not f.binary and f.path not in said:
            text = f"{f.path}: {f.note}"
            if text not in seen:
                seen.append(text)
    return seen


def facts_of(model_json: dict[str, Any], problems: list[str]) -> dict[str, Any]:
    """The per-PR facts the digest shows, from a report model's JSON value."""
    pr = model_json["pr"]
    summary = model_json["summary"]
    kind_counts = {str(k): int(v) for k, v in (summary.get("kind_counts") or {}).items()}
    risks: list[dict[str, Any]] = [
        {
            "id": str(r.get("id", "")),
            "severity": str(r.get("severity", "medium")),
            "evidence": len(r.get("evidence") or ()),
        }
        for r in model_json.get("risks") or ()
    ]
    series = series_of(pr.get("title") or "")
    verdict = summary.get("verdict", "unknown")
    risks.sort(key=lambda r: (SEVERITY_RANK.get(r["severity"], 5), r["id"]))
    action = str((summary.get("action") or {}).get("level") or "skim")
    spots = _spots(model_json, action)
    return {
        "repo": str(pr.get("repo") or ""),
        "number": pr.get("number"),
        "title": pr.get("title") or "",
        "author": pr.get("author") or "",
        "url": pr.get("url") or "",
        "merged_at": pr.get("merged_at"),
        "summary": summary.get("one_line") or pr.get("title") or "",
        "verdict": verdict,
        "series": series,
        "kinds": sorted(kind_counts),
        "kind_counts": dict(sorted(kind_counts.items())),
        "live_kind_counts": _live_kind_counts(model_json),
        "action": action,
        "spots": spots[:_MAX_SPOTS],
        "spot_count": len(spots),
        "changed_lines": int(summary.get("changed_lines", 0)),
        "explained_lines": int(summary.get("explained_lines", 0)),
        # the review view's count: code no finding explains, and witnessed lines
        "left_lines": int((model_json.get("ledger") or {}).get("left", 0)),
        "files": len(model_json.get("files") or ()),
        "risks": risks,
        "risk_tags": sorted({r["id"] for r in risks}),
        "problems": problems,
    }


def _live_kind_counts(model_json: dict[str, Any]) -> dict[str, int]:
    """Finding kinds the report stands by: a behaviour change a proven refactor accounts for is not one."""
    counts: dict[str, int] = {}
    for fd in model_json.get("findings") or ():
        if (fd.get("details") or {}).get("accounted_by"):
            continue
        kind = str(fd.get("kind", ""))
        counts[kind] = counts.get(kind, 0) + 1
    return dict(sorted(counts.items()))


def _spots(model_json: dict[str, Any], action: str) -> list[dict[str, Any]]:
    """Where to look, for the action's severity: each located piece of evidence once, in risk order."""
    wanted = _ACTION_SEVERITY.get(action)
    spots: list[dict[str, Any]] = []
    seen: set[tuple[str, str, int | None]] = set()
    for r in model_json.get("risks") or ():
        if r.get("severity") != wanted:
            continue
        located = [e for e in r.get("evidence") or () if e.get("path")]
        if not located:
            located = [{"path": "", "line": None}]
        for e in located:
            line = e.get("line") if isinstance(e.get("line"), int) else None
            key = (str(r.get("id", "")), str(e.get("path") or ""), line)
            if key not in seen:
                seen.add(key)
                spots.append({"risk": key[0], "path": key[1], "line": line})
    return spots
