"""Pull-request series: conventional-commit keys and the related-PR relation rules (source-neutral)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from prreport.bundle import RelatedCandidate

_CONVENTIONAL = re.compile(r"^\s*(?P<type>[a-zA-Z]+)(?:\((?P<scope>[^)]*)\))?!?:\s")
# ``[refactor] …``, ``[Fix][core] …``: the bracketed tags many projects use. Only commit types
# count, so ``[WIP]`` or ``[Draft]`` name no series.
_BRACKETED = re.compile(r"^\s*\[(?P<type>[a-zA-Z]+)\](?:\s*\[(?P<scope>[^\]]*)\])?")
BRACKET_TYPES = frozenset(
    "feat feature fix bugfix hotfix refactor perf docs doc test tests chore build ci style "
    "revert cleanup deps".split()
)
_REF = re.compile(r"(?<![\w/])#(\d+)\b")
# Relations in the order a reader wants them.
RELATION_ORDER = (
    "predecessor",
    "same-lines",  # wrote the lines this PR edits, but merged before the window: no predecessor
    "follow-up",
    "referenced",
    "references-this",
    "same-series",
    "same-files",
)


def series_of(title: str) -> str:
    """``type(scope)`` of a conventional-commit title (``refactor(disagg)``, also ``Refactor: …``
    and ``[refactor] …`` / ``[fix][core] …``), or ``""``."""
    m = _CONVENTIONAL.match(title)
    if not m:
        m = _BRACKETED.match(title)
        if not m or m.group("type").lower() not in BRACKET_TYPES:
            return ""
    scope = (m.group("scope") or "").strip()
    return f"{m.group('type').lower()}({scope})" if scope else m.group("type").lower()


def referenced_numbers(text: str) -> set[int]:
    """PR/issue numbers written as ``#N`` in text."""
    return {int(n) for n in _REF.findall(text or "")}


def parse_time(value: str | None) -> datetime | None:
    """Parse an ISO-8601 timestamp (``Z`` allowed) to an aware datetime."""
    if not value:
        return None
    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


@dataclass(frozen=True)
class SeriesKey:
    """What the relation rules need to know of one PR."""

    number: int | None
    title: str
    body: str
    author: str
    merged_at: str | None
    files: tuple[str, ...] = ()
    url: str = ""


def related_candidates(
    this: SeriesKey,
    others: Sequence[SeriesKey],
    window_days: int,
    limit: int,
    same_lines: Mapping[int, tuple[str, ...]] | None = None,
) -> list[RelatedCandidate]:
    """Rank other PRs by how they relate to ``this`` (changed lines, series, shared files, references).

    ``same_lines`` maps a PR number to the files whose lines, changed by ``this``, that PR
    wrote last (``git blame`` of the base): listed first however long ago, but called the
    predecessor only inside the window (older: relation ``same-lines``).
    """
    same_lines = same_lines or {}
    this_series = series_of(this.title)
    this_time = parse_time(this.merged_at)
    mentioned = referenced_numbers(this.body) | referenced_numbers(this.title)
    this_files = set(this.files)
    found: list[tuple[float, float, RelatedCandidate]] = []
    for other in others:
        if other.number is None or other.number == this.number:
            continue
        when = parse_time(other.merged_at)
        delta_days = (
            abs((when - this_time).total_seconds()) / 86400 if when and this_time else float("inf")
        )
        later = bool(when and this_time and when > this_time)
        in_window = delta_days <= window_days
        reasons: list[str] = []
        lines_of = tuple(same_lines.get(other.number, ())) if not later else ()
        if lines_of:
            reasons.append("same-lines")
        if other.number in mentioned:
            reasons.append("referenced")
        if this.number is not None and this.number in (
            referenced_numbers(other.body) | referenced_numbers(other.title)
        ):
            reasons.append("references-this")
        other_series = series_of(other.title)
        same_series = bool(this_series and other_series == this_series and in_window)
        if same_series:
            reasons.append("same-series")
        shared = tuple(sorted(this_files & set(other.files))) if in_window else ()
        if shared:
            reasons.append("same-files")
        if not reasons:
            continue
        if lines_of:
            # Older than the window: it wrote the lines, but is no predecessor (issue 32 §5).
            relation = "predecessor" if in_window else "same-lines"
        elif same_series and (shared or "referenced" in reasons or "references-this" in reasons):
            relation = "follow-up" if later else "predecessor"
        elif "referenced" in reasons:
            relation = "referenced"
        elif "references-this" in reasons:
            relation = "references-this"
        elif same_series:
            relation = "same-series"
        else:
            relation = "same-files"
        evidence = _evidence(reasons, this_series, shared, other, this)
        cand = RelatedCandidate(
            number=other.number,
            title=other.title,
            relation=relation,
            evidence=evidence,
            author=other.author,
            merged_at=other.merged_at,
            url=other.url,
            files=other.files,
            reasons=tuple(reasons),
            series=this_series if same_series else "",
            shared_files=shared,
            shared_lines=lines_of,
        )
        # The PR that wrote the lines this one changes comes first among predecessors.
        rank = RELATION_ORDER.index(relation) - (0.5 if lines_of else 0)
        found.append((rank, delta_days, cand))
    found.sort(key=lambda t: (t[0], t[1], t[2].number))
    return [c for _, _, c in found[:limit]]


def _evidence(
    reasons: list[str], series: str, shared: tuple[str, ...], other: SeriesKey, this: SeriesKey
) -> str:
    parts = []
    if "same-lines" in reasons:
        parts.append(f"#{other.number} last changed the lines this PR edits")
    if "referenced" in reasons:
        parts.append(f"this PR's description mentions #{other.number}")
    if "references-this" in reasons:
        parts.append(f"#{other.number} mentions #{this.number}")
    if "same-series" in reasons:
        parts.append(f"same series {series}")
    if shared:
        more = f" (+{len(shared) - 3} more)" if len(shared) > 3 else ""
        parts.append("touches " + ", ".join(shared[:3]) + more)
    return "; ".join(parts)
