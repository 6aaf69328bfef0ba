"""The view templates read: the model as JSON plus its wording in one language."""

from __future__ import annotations

from typing import Any

from prreport.render.motivation import extract_motivation
from prreport.render.templates import environment
from prreport.report.model import ReportModel


def _one(value: Any) -> str:
    """Collapse a macro's output to one line."""
    return " ".join(str(value).split())


def _text_module(r: dict[str, Any], lang: str) -> Any:
    return environment().get_template(f"{lang}/text.md.j2").make_module({"r": r})


def _summary_of(r: dict[str, Any], text: Any) -> dict[str, str]:
    return {
        "one_line": _one(text.one_line(r)),
        "recommended_action": _one(text.recommended_action(r)),
    }


def summary_texts(model: ReportModel, lang: str = "en") -> dict[str, str]:
    """The summary wording in ``lang``: ``one_line`` and ``recommended_action`` (for digests)."""
    r = model.to_json()
    return _summary_of(r, _text_module(r, lang))


def report_view(model: ReportModel, lang: str) -> dict[str, Any]:
    """The model as JSON plus its ``lang`` wording (summary, captions, risk titles) and motivation sections."""
    r = model.to_json()
    r["motivation"].update(extract_motivation(r["motivation"]["body"]))
    text = _text_module(r, lang)
    r["summary"].update(_summary_of(r, text))
    for s in r["snippets"]:
        s["caption"] = _one(text.caption(s))
    for risk in r["risks"]:
        risk["title"] = _one(text.risk_title(risk))
    return r
