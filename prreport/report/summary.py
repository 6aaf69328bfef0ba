"""Headline, recommended action, key symbols, impact and breakdown: the facts the summary is worded from."""

from __future__ import annotations

from collections import Counter
from typing import Any

from prreport.bundle import PullRequestBundle
from prreport.findings import Finding
from prreport.report.facts import SYMBOL_PRIORITY, names_of, retained_fact
from prreport.report.model import FileEntry


def headline_of(findings: list[Finding], files: list[FileEntry], verdict: str) -> dict[str, Any]:
    """The facts the one-line summary is built from, dominant first."""
    kinds = Counter(fd.kind for fd in findings)
    hoisted_files = sorted({fd.path for fd in findings if fd.kind == "import.hoisted"})
    code = {k: names_of(findings, k) for k in sorted(kinds) if k.startswith(("code.", "symbol."))}
    behavior = (
        "changed"
        if kinds["behavior.changed"]
        else ("unchanged" if kinds["behavior.unchanged"] else "unknown")
    )
    return {
        "verdict": verdict,
        "hoisted": names_of(findings, "import.hoisted"),
        "hoisted_files": len(hoisted_files),
        "sunk": names_of(findings, "import.sunk"),
        "moved": names_of(findings, "import.moved"),
        "loops_cleared": kinds["loop.imports-removed"],
        "loops_remaining": kinds["loop.imports-remaining"] + kinds["loop.imports-added"],
        "code": code,
        "behavior": behavior,
        "behavior_changed": names_of(findings, "behavior.changed"),
        # symbol.renamed as (old, new) pairs: a rename reads as "old → new", not just the new name.
        "renames": sorted(
            [str(fd.details.get("old_qualname", "")), fd.symbol]
            for fd in findings
            if fd.kind == "symbol.renamed"
        ),
        "files": len(files),
        "additions": sum(f.additions for f in files),
        "deletions": sum(f.deletions for f in files),
        "dominant": [
            k
            for k, _n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))
            if k in SYMBOL_PRIORITY
        ][:3],
    }


def action_of(risks: list[dict[str, Any]]) -> dict[str, Any]:
    """Recommended action from the risks: block on high, review medium spots, else skim."""
    high = [r["id"] for r in risks if r["severity"] == "high"]
    medium = [r for r in risks if r["severity"] == "medium"]
    if high:
        return {"level": "block", "blockers": high, "spots": []}
    if medium:
        spots: list[dict[str, Any]] = []
        for r in medium:
            located = [e for e in r["evidence"] if e.get("path")]
            spots.extend(
                {"risk": r["id"], "path": e["path"], "line": e.get("line")} for e in located[:3]
            )
            if not located:
                spots.append({"risk": r["id"], "path": "", "line": None})
        return {"level": "review", "blockers": [], "spots": spots}
    return {"level": "skim", "blockers": [], "spots": []}


def key_symbols_of(findings: list[Finding]) -> tuple[str, ...]:
    """Symbols that carry the change, most telling first (at most twelve)."""
    order = {kind: i for i, kind in enumerate(SYMBOL_PRIORITY)}
    seen: dict[str, None] = {}
    for _rank, sym in sorted(
        (order[fd.kind], fd.symbol) for fd in findings if fd.kind in order and fd.symbol
    ):
        seen.setdefault(sym, None)
    return tuple(list(seen)[:12])


def impact_of(files: list[FileEntry], findings: list[Finding], verdict: str) -> dict[str, Any]:
    """Who and what is affected: modules, file kinds, behaviour."""
    kinds = {fd.kind for fd in findings}
    return {
        "files": len(files),
        "modules": sorted({f.module for f in files}),
        "paths": [f.path for f in files],
        "categories": dict(sorted(Counter(f.category for f in files).items())),
        "verdict": verdict,
        "behavior": "changed"
        if "behavior.changed" in kinds
        or verdict in ("behavior-change", "refactor-with-behavior-change")
        else (
            "unchanged"
            if "behavior.unchanged" in kinds or verdict == "pure-refactor"
            else "unknown"
        ),
        "refactors": sorted(
            {fd.kind for fd in findings if fd.kind.startswith(("code.", "symbol."))}
        ),
        "changed_functions": names_of(findings, "behavior.changed"),
        "loops_cleared": sum(1 for fd in findings if fd.kind == "loop.imports-removed"),
        "imports_removed_from_loops": sum(
            int(fd.details.get("before", 0)) - int(fd.details.get("after", 0))
            for fd in findings
            if fd.kind == "loop.imports-removed"
        ),
        "public_api_touched": sorted(
            {fd.symbol for fd in findings if fd.kind in ("symbol.moved", "symbol.renamed")}
        ),
    }


def breakdown_of(
    bundle: PullRequestBundle,
    findings: list[Finding],
    files: list[FileEntry],
    review: dict[str, Any],
) -> dict[str, Any]:
    """Numbered areas: entry points, one per source file, other file groups, retained lazies, checks."""
    entry = [
        {
            "path": fd.path,
            "scope": fd.symbol,
            "loop": fd.details.get("loop", ""),
            "line": fd.line,
            "kind": fd.kind,
        }
        for fd in findings
        if fd.kind.startswith("loop.")
    ]
    groups: dict[str, dict[str, Any]] = {}
    for f in files:
        if f.category == "source":
            continue
        g = groups.setdefault(
            f.category, {"category": f.category, "paths": [], "additions": 0, "deletions": 0}
        )
        g["paths"].append(f.path)
        g["additions"] += f.additions
        g["deletions"] += f.deletions
    retained = [retained_fact(fd) for fd in findings if fd.kind == "lazy-import.retained"]
    return {
        "entry_points": entry,
        "source_files": [f.path for f in files if f.category == "source"],
        "other_groups": [groups[k] for k in sorted(groups)],
        "retained": retained,
        "verification": {
            "tests_changed": sum(1 for f in files if f.category == "test"),
            "unresolved": len([fd for fd in findings if fd.kind == "names.unresolved"]),
            "cycle_safe": sorted({fd.symbol for fd in findings if fd.kind == "cycle.safe"}),
            "ci_available": review["available"],
            "ci_failing": review["ci_summary"]["failing"],
            "ci_passing": len(review["ci_summary"]["passing"]),
        },
    }
