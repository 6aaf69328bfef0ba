"""SARIF 2.1.0 (``--format sarif``): the report for code scanning (``upload-sarif``).

One rule per finding kind of the report (``import.hoisted``, ``cycle.risk``, …) and one per risk
tag (``risk/unexplained-change``); one result per located piece of risk evidence (the spots the
recommended action names among them), at the risk's level (high: error, medium: warning, low:
note), with the finding kinds it rests on. Paths are repository-relative URIs (``%``-encoded),
so GitHub places each result on its line in the PR. Wording is the JSON report's (English).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from prreport import __version__
from prreport.render.view import report_view
from prreport.report.model import ReportModel

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/prreport/prreport"
_LEVEL = {"high": "error", "medium": "warning", "low": "note"}
_SECURITY = {"high": "8.0", "medium": "5.0", "low": "2.0"}


def render_sarif(model: ReportModel) -> str:
    """The SARIF 2.1.0 log of the report: one run, its rules and results."""
    view = report_view(model, "en")
    rules = _finding_rules(view) + _risk_rules(view)
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = [
        _result(risk, e, index)
        for risk in view["risks"]
        for e in risk["evidence"]
        if isinstance(e.get("path"), str) and e["path"]
    ]
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "prreport",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": rules,
            }
        },
        "automationDetails": {"id": f"prreport/{view['pr'].get('repo', '')}/"},
        "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "The repository root."}}},
        "results": results,
        "properties": {
            "verdict": view["summary"]["verdict"],
            "recommendedAction": view["summary"]["action"].get("level", ""),
            "summary": view["summary"]["one_line"],
            "pr": {k: view["pr"].get(k) for k in ("repo", "number", "url", "head_sha")},
        },
    }
    log = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, ensure_ascii=False, indent=2) + "\n"


def _finding_rules(view: dict[str, Any]) -> list[dict[str, Any]]:
    """One rule per finding kind, described by its first finding's message."""
    first: dict[str, dict[str, Any]] = {}
    for fd in view["findings"]:
        first.setdefault(fd["kind"], fd)
    return [
        {
            "id": kind,
            "name": _pascal(kind),
            "shortDescription": {"text": f"prreport finding {kind}"},
            "fullDescription": {"text": str(fd.get("message") or kind)},
            "helpUri": f"{INFORMATION_URI}#what-the-analyzers-recognise",
            "defaultConfiguration": {"level": "none"},
            "properties": {"tags": ["prreport", "finding", kind.split(".", 1)[0]]},
        }
        for kind, fd in sorted(first.items())
    ]


def _risk_rules(view: dict[str, Any]) -> list[dict[str, Any]]:
    """One rule per risk tag of the report, at its severity."""
    rules: dict[str, dict[str, Any]] = {}
    for risk in view["risks"]:
        rules.setdefault(
            f"risk/{risk['id']}",
            {
                "id": f"risk/{risk['id']}",
                "name": _pascal(risk["id"]),
                "shortDescription": {"text": risk["title"] or risk["id"]},
                "helpUri": f"{INFORMATION_URI}#what-the-analyzers-recognise",
                "defaultConfiguration": {"level": _LEVEL.get(risk["severity"], "note")},
                "properties": {
                    "tags": ["prreport", "risk", risk["severity"]],
                    "security-severity": _SECURITY.get(risk["severity"], "2.0"),
                },
            },
        )
    return list(rules.values())


def _result(risk: dict[str, Any], e: dict[str, Any], index: dict[str, int]) -> dict[str, Any]:
    """A result at one located piece of a risk's evidence."""
    rule_id = f"risk/{risk['id']}"
    detail = str(e.get("text") or e.get("symbol") or "")
    text = f"{risk['title']} ({risk['severity']} risk {risk['id']})"
    location: dict[str, Any] = {"artifactLocation": {"uri": quote(e["path"], safe="/")}}
    location["artifactLocation"]["uriBaseId"] = "%SRCROOT%"
    line = e.get("line")
    if isinstance(line, int) and line > 0:
        location["region"] = {"startLine": line}
    kind = e.get("kind")
    result: dict[str, Any] = {
        "ruleId": rule_id,
        "ruleIndex": index[rule_id],
        "level": _LEVEL.get(risk["severity"], "note"),
        "message": {"text": f"{text}: {detail}" if detail else text},
        "locations": [{"physicalLocation": location}],
        "properties": {"findingKinds": [kind] if kind in index else []},
    }
    if kind in index:
        result["relatedLocations"] = [
            {"id": 0, "physicalLocation": location, "message": {"text": f"finding {kind}"}}
        ]
    return result


def _pascal(identifier: str) -> str:
    """``cycle.risk`` -> ``CycleRisk``: SARIF rule names are identifiers."""
    parts = [p for p in identifier.replace("/", ".").replace("-", ".").split(".") if p]
    return "".join(p[:1].upper() + p[1:] for p in parts)
