"""The JSON report: the model and its English wording (DESIGN §3)."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone

from prreport import __version__
from prreport.render.view import report_view
from prreport.report.model import ReportModel


def render_json(model: ReportModel, *, stamped: bool = True) -> str:
    """The JSON report (DESIGN §3); its wording (one_line, recommended_action, titles) is English.

    ``stamped`` adds ``prreport_version`` and ``generated_at`` (``$SOURCE_DATE_EPOCH`` when set,
    for reproducible output); golden files leave them out.
    """
    view = report_view(model, "en")
    if stamped:
        view = {
            "schema": view.pop("schema"),
            "prreport_version": __version__,
            "generated_at": _now(),
            **view,
        }
    return json.dumps(view, ensure_ascii=False, indent=2, sort_keys=False) + "\n"


def _now() -> str:
    """UTC now, or ``$SOURCE_DATE_EPOCH``, as ``2026-08-24T10:00:00Z``."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    when = (
        datetime.fromtimestamp(int(epoch), timezone.utc)
        if epoch.isdigit()
        else datetime.now(timezone.utc)
    )
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")
