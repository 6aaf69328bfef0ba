"""The digest as one value: per-PR facts summed into totals, per-repository rows, series and
top risks, the PRs in reading order (what needs attention first).

A digest built in one run, one merged from per-repository digests and one read back from its
JSON are all summed up here (``summarise``), so they agree."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from prreport.bundle import to_jsonable
from prreport.digest.facts import ACTION_RANK, LOW_SIGNAL_RISKS, SEVERITY_RANK
from prreport.digest.window import Window
from prreport.series import parse_time, series_of

DIGEST_SCHEMA = "prreport.digest/1"

# Verdicts (prreport.report) that mean the PR changes what the code does.
_BEHAVIOUR_VERDICTS = ("behavior-change", "refactor-with-behavior-change")
_TOP_RISKS = 20
# Among equally risky PRs, a behaviour change needs a reader more than a proven refactor.
# A refactor with lines left to review comes next: someone must read those lines.
_VERDICT_RANK = {
    "behavior-change": 0,
    "refactor-with-behavior-change": 0,
    "refactor-unproven": 1,
    "unknown": 2,
}


@dataclass(frozen=True)
class Digest:
    """The digest as data; the JSON output is this value."""

    repo: str
    source: str
    window: Window
    prs: tuple[dict[str, Any], ...]
    not_analysed: tuple[dict[str, Any], ...]
    totals: dict[str, int]
    series: tuple[dict[str, Any], ...]
    top_risks: tuple[dict[str, Any], ...]
    stats: dict[str, int] = field(default_factory=dict)
    schema: str = DIGEST_SCHEMA
    low_signal: tuple[dict[str, Any], ...] = ()
    repos: tuple[dict[str, Any], ...] = ()
    # Each PR's rendered report per language, keyed "<repo>#<number>" (files, not JSON).
    reports: dict[str, dict[str, str]] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON value (what the templates and ``<week>.json`` show)."""
        return {
            "schema": self.schema,
            "repo": self.repo,
            "source": self.source,
            "window": self.window.to_json(),
            "totals": dict(self.totals),
            "repos": to_jsonable(self.repos),
            "series": to_jsonable(self.series),
            "top_risks": to_jsonable(self.top_risks),
            "low_signal": to_jsonable(self.low_signal),
            "prs": to_jsonable(self.prs),
            "not_analysed": to_jsonable(self.not_analysed),
            "stats": dict(self.stats),
        }


def report_key(repo: str, number: int | None) -> str:
    """The key of one PR's rendered reports in ``Digest.reports``."""
    return f"{repo}#{number}"


def _count(prs: Sequence[dict[str, Any]], kind: str) -> int:
    return sum(int(p["live_kind_counts"].get(kind, 0)) for p in prs)


def summarise(
    repo: str,
    source: str,
    window: Window,
    prs: Sequence[dict[str, Any]],
    failed: Sequence[dict[str, Any]],
    stats: dict[str, int] | None = None,
    reports: dict[str, dict[str, str]] | None = None,
) -> Digest:
    """The digest of analysed PRs (facts) and PRs that could not be analysed, in any order.

    The single digest and the merge of per-repository digests both end here, so a merged
    organisation digest equals one built in one process over the same PRs.
    """
    ordered = sorted(prs, key=lambda p: attention_key(p, window))
    not_analysed = [{**f, "partial": False} for f in failed] + [
        {
            "repo": p["repo"],
            "number": p["number"],
            "title": p["title"],
            "url": p["url"],
            "reasons": list(p["problems"]),
            "partial": True,
        }
        for p in prs
        if p["problems"]
    ]
    not_analysed.sort(key=lambda f: (f["repo"], f["number"] or 0, f["partial"]))
    return Digest(
        repo=repo,
        source=source,
        window=window,
        prs=tuple(ordered),
        not_analysed=tuple(not_analysed),
        totals=_totals(ordered, failed),
        series=tuple(_series(ordered, failed)),
        top_risks=tuple(_top_risks(ordered, signal=True)[:_TOP_RISKS]),
        stats=dict(stats or {}),
        low_signal=tuple(_top_risks(ordered, signal=False)),
        repos=tuple(_repos(ordered, failed)),
        reports=dict(reports or {}),
    )


def _signal_risks(p: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in p["risks"] if r["id"] not in LOW_SIGNAL_RISKS]


def attention_key(p: dict[str, Any], window: Window) -> tuple[Any, ...]:
    """What needs attention first: block, review spots, skim; then the worst and most risks."""
    risks = _signal_risks(p)
    worst = min((SEVERITY_RANK.get(r["severity"], 5) for r in risks), default=6)
    merged = parse_time(p.get("merged_at")) or window.since
    return (
        ACTION_RANK.get(p["action"], len(ACTION_RANK)),
        worst,
        -sum(1 for r in risks if SEVERITY_RANK.get(r["severity"], 5) == worst),
        -int(p["spot_count"]),
        _VERDICT_RANK.get(p["verdict"], 2),
        merged,
        p["repo"],
        p["number"] or 0,
    )


def _totals(prs: Sequence[dict[str, Any]], failed: Sequence[dict[str, Any]]) -> dict[str, int]:
    """The digest's headline counts (finding counts are the live ones, as the reports show them)."""
    verdicts = Counter(p["verdict"] for p in prs)
    actions = Counter(p["action"] for p in prs)
    return {
        "prs": len(prs) + len(failed),
        "repos": len({p["repo"] for p in [*prs, *failed]}),
        "analysed": len(prs),
        "not_analysed": len(failed),
        "partially_analysed": sum(1 for p in prs if p["problems"]),
        "pure_refactors": verdicts["pure-refactor"],
        "behavior_changes": sum(verdicts[v] for v in _BEHAVIOUR_VERDICTS),
        "refactors_with_behavior_change": verdicts["refactor-with-behavior-change"],
        "behavior_change_only": verdicts["behavior-change"],
        "unproven_refactors": verdicts["refactor-unproven"],
        "unknown_verdicts": verdicts["unknown"],
        "behavior_changes_accounted": sum(
            int(p["kind_counts"].get("behavior.changed", 0))
            - int(p["live_kind_counts"].get("behavior.changed", 0))
            for p in prs
        ),
        "block": actions["block"],
        "review": actions["review"],
        "skim": actions["skim"],
        "low_signal_only": sum(1 for p in prs if p["risks"] and not _signal_risks(p)),
        "lines_changed": sum(p["changed_lines"] for p in prs),
        "lines_explained": sum(p["explained_lines"] for p in prs),
        "lines_left": sum(int(p.get("left_lines", 0)) for p in prs),
        "imports_hoisted": _count(prs, "import.hoisted"),
        "imports_sunk": _count(prs, "import.sunk"),
        "imports_made_lazy": _count(prs, "import.made-lazy"),
        "loops_freed_of_imports": _count(prs, "loop.imports-removed"),
        "dead_code_removed": _count(prs, "code.dead-removed"),
        "cycles_risked": _count(prs, "cycle.risk"),
    }


def _repos(prs: Sequence[dict[str, Any]], failed: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per repository: PRs, verdicts, actions and lines (one row for a single-repository digest)."""
    names = sorted({p["repo"] for p in [*prs, *failed]})
    rows = []
    for name in names:
        mine = [p for p in prs if p["repo"] == name]
        t = _totals(mine, [f for f in failed if f["repo"] == name])
        rows.append(
            {"repo": name}
            | {
                k: t[k]
                for k in (
                    "prs",
                    "pure_refactors",
                    "behavior_changes",
                    "unknown_verdicts",
                    "not_analysed",
                    "block",
                    "review",
                    "lines_changed",
                    "lines_explained",
                    "lines_left",
                )
            }
        )
    return rows


def _series(
    prs: Sequence[dict[str, Any]], failed: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """PRs grouped by conventional-commit ``type(scope)``, PRs not analysed included."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for p in prs:
        groups.setdefault(p["series"], []).append(p)
    for f in failed:
        groups.setdefault(series_of(f["title"]), []).append(
            {"repo": f["repo"], "number": f["number"], "verdict": "not-analysed"}
        )
    series: list[dict[str, Any]] = [
        {
            "key": key,
            "count": len(members),
            "numbers": sorted(m["number"] for m in members),
            "prs": sorted(
                ({"repo": m["repo"], "number": m["number"]} for m in members),
                key=lambda m: (m["repo"], m["number"] or 0),
            ),
            "pure_refactors": sum(1 for m in members if m["verdict"] == "pure-refactor"),
            "behavior_changes": sum(1 for m in members if m["verdict"] in _BEHAVIOUR_VERDICTS),
        }
        for key, members in groups.items()
    ]
    # Named series first, biggest first; PRs without a conventional-commit title last.
    series.sort(key=lambda s: (s["key"] == "", -s["count"], s["key"]))
    return series


def _top_risks(prs: Sequence[dict[str, Any]], signal: bool) -> list[dict[str, Any]]:
    """One line per risk tag (highest severity first, then the most PRs), naming its PRs.

    ``signal``: the risks worth a line of their own; else the low-signal ones (summarised).
    """
    by_tag: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for p in prs:
        for r in p["risks"]:
            if (r["id"] in LOW_SIGNAL_RISKS) == signal:
                continue
            by_tag.setdefault((r["id"], r["severity"]), []).append(
                {
                    "repo": p["repo"],
                    "number": p["number"],
                    "title": p["title"],
                    "url": p["url"],
                    "evidence": r["evidence"],
                    "alone": not _signal_risks(p),
                }
            )
    risks: list[dict[str, Any]] = [
        {
            "id": rid,
            "severity": sev,
            "count": len(members),
            "alone": sum(1 for m in members if m["alone"]),
            "prs": members,
        }
        for (rid, sev), members in by_tag.items()
    ]
    risks.sort(key=lambda r: (SEVERITY_RANK.get(r["severity"], 5), -r["count"], r["id"]))
    return risks
