"""The Public API section: what callers of the changed library packages can no longer do."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prreport.findings import Finding
from prreport.report.model import FileEntry

# The analyzer's name in ``[analysis] disabled``.
ANALYZER = "public-api"
_FACT_KEYS = ("side", "parameter", "before", "after", "moved_to")


def public_api_of(
    findings: Sequence[Finding], disabled: Sequence[str], files: Sequence[FileEntry], scope: str
) -> dict[str, Any]:
    """``status``: ``changed`` (the list), ``unchanged`` (the packages compared), ``unchecked``
    (a changed module could not be read), ``not-compared`` (library Python files changed but no
    comparison speaks of them: scripts, examples, tool files), ``no-public-change`` (only private
    modules, tests or other files changed) or ``disabled``; each change as its witness reads it."""
    if ANALYZER in disabled:
        return {
            "status": "disabled",
            "scope": scope,
            "changes": [],
            "packages": [],
            "unchecked": [],
        }
    changes = [
        {
            "finding": fd.kind,
            "symbol": fd.symbol,
            "path": fd.path,
            "line": fd.line,
            **{k: str(fd.details.get(k) or "") for k in _FACT_KEYS},
        }
        for fd in findings
        if fd.kind.startswith("api.") and fd.kind not in ("api.unchanged", "api.unchecked")
    ]
    kept = [
        {"package": fd.symbol, "modules": list(fd.details.get("modules") or [])}
        for fd in findings
        if fd.kind == "api.unchanged"
    ]
    unchecked = [
        {"path": fd.path, "reason": str(fd.details.get("reason", ""))}
        for fd in findings
        if fd.kind == "api.unchecked"
    ]
    if changes:
        status = "changed"
    elif unchecked:
        status = "unchecked"
    elif kept:
        status = "unchanged"
    elif any(_public_source(f) for f in files):
        status = "not-compared"
    else:
        status = "no-public-change"
    return {
        "status": status,
        "scope": scope,
        "changes": changes,
        "packages": kept,
        "unchecked": unchecked,
    }


def _public_source(f: FileEntry) -> bool:
    """A changed library Python file with no private (``_``) directory or module name."""
    parts = f.path.split("/")
    private = any(p.startswith("_") and p != "__init__.py" for p in parts)
    return f.category == "source" and f.path.endswith(".py") and not private
