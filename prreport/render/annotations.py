"""GitHub Actions annotations: the spots of the report's risks as ``::warning``/``::notice`` lines.

GitHub shows at most 10 annotations of each level per step, so at most 10 are printed per level,
worst risks first (the report's own order). High and medium risks are warnings, low ones
notices; each risk gives its first three located pieces of evidence, as the recommended action
does. File names and evidence text come from the PR: every value goes through the workflow
command escaping of ``escape.py``.
"""

from __future__ import annotations

from typing import Any

from prreport.render.escape import command_data, command_property
from prreport.render.view import report_view
from prreport.report.model import ReportModel

# GitHub's display limit per level and step (errors, warnings and notices alike).
MAX_PER_LEVEL = 10
_SPOTS_PER_RISK = 3
_LEVEL = {"high": "warning", "medium": "warning", "low": "notice"}
# Says little alone (the digest's low-signal risk): a line in the report, not a mark on each file.
_NOT_ANNOTATED = ("no-tests",)


def annotation_spots(model: ReportModel) -> list[dict[str, Any]]:
    """Every located spot of every risk: level, path, line, title and message (unescaped)."""
    view = report_view(model, "en")
    verdict = view["summary"]["verdict"]
    action = view["summary"]["action"].get("level", "skim")
    spots: list[dict[str, Any]] = []
    seen: set[tuple[str, str, Any]] = set()
    for risk in view["risks"]:
        if risk["id"] in _NOT_ANNOTATED:
            continue
        located = [e for e in risk["evidence"] if e.get("path")][:_SPOTS_PER_RISK]
        for e in located:
            key = (risk["id"], e["path"], e.get("line"))
            if key in seen:
                continue
            seen.add(key)
            detail = e.get("text") or e.get("symbol") or ""
            message = f"{risk['severity']} risk {risk['id']} (verdict {verdict}, action {action})"
            spots.append(
                {
                    "level": _LEVEL.get(risk["severity"], "notice"),
                    "path": e["path"],
                    "line": e.get("line"),
                    "title": f"prreport: {risk['title']}",
                    "message": f"{message}: {detail}" if detail else message,
                }
            )
    return spots


def annotation_lines(model: ReportModel) -> tuple[list[str], int]:
    """The workflow command lines (at most 10 per level) and how many spots were left out."""
    lines: list[str] = []
    per_level: dict[str, int] = {}
    left_out = 0
    for spot in annotation_spots(model):
        level = spot["level"]
        if per_level.get(level, 0) >= MAX_PER_LEVEL:
            left_out += 1
            continue
        per_level[level] = per_level.get(level, 0) + 1
        props = [f"file={command_property(spot['path'])}"]
        if isinstance(spot["line"], int) and spot["line"] > 0:
            props.append(f"line={spot['line']}")
        props.append(f"title={command_property(spot['title'])}")
        lines.append(f"::{level} {','.join(props)}::{command_data(spot['message'])}")
    return lines, left_out
