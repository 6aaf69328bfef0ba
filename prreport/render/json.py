"""The JSON report: the model and its English wording (DESIGN §3)."""

from __future__ import annotations

import json

from prreport.render.view import report_view
from prreport.report.model import ReportModel


def render_json(model: ReportModel) -> str:
    """The JSON report (DESIGN §3); its wording (one_line, recommended_action, titles) is English."""
    return (
        json.dumps(report_view(model, "en"), ensure_ascii=False, indent=2, sort_keys=False) + "\n"
    )
