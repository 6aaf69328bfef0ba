"""Markdown renderers: the report and the weekly digest, from their templates."""

from __future__ import annotations

import re
from typing import Any

from prreport.render.templates import environment
from prreport.render.view import report_view
from prreport.report.model import ReportModel


def render_markdown(model: ReportModel, lang: str, page: str = "") -> str:
    """The Markdown report in ``lang``.

    ``page``: for the HTML page, a paragraph that stands where its Review section goes (in
    place of the "Lines left to review" list, which the section holds in full)."""
    tpl = environment().get_template(f"{lang}/report.md.j2")
    text = tpl.render(m=model, r=report_view(model, lang), page=page)
    if lang == "zh":
        text = _zh_spacing(text)
    return collapse_blank_lines(text).rstrip() + "\n"


def collapse_blank_lines(text: str) -> str:
    """Runs of blank lines made one, outside code fences (code keeps its own blank lines)."""
    out: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and not line.strip() and out and not out[-1].strip():
            continue
        out.append(line)
    return "\n".join(out)


# A counted noun runs into the Chinese word after it ("等 6 个为函数内导入", not "6 个 为").
_COUNT_SPACE = re.compile(r"(?<=\d 个) (?=[\u4e00-\u9fff])")


def _zh_spacing(text: str) -> str:
    """Chinese spacing outside code fences and quotes of the PR text: no space inside a phrase."""
    out, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and not line.lstrip().startswith(">"):
            line = _COUNT_SPACE.sub("", line)
        out.append(line)
    return "\n".join(out)


def render_comment(model: ReportModel, lang: str, gate: dict[str, Any] | None = None) -> str:
    """The PR comment in ``lang``: badge, summary table, then collapsible sections.

    ``gate`` is ``{"kinds": [...], "hits": [...]}`` when ``--fail-on`` was given.
    """
    tpl = environment().get_template(f"{lang}/comment.md.j2")
    text = tpl.render(m=model, r=report_view(model, lang), gate=gate)
    text = collapse_blank_lines(text).rstrip() + "\n"
    return _zh_spacing(text) if lang == "zh" else text


def render_digest_markdown(digest: dict[str, Any], lang: str) -> str:
    """The weekly digest in Markdown; ``digest`` is the digest's JSON value."""
    tpl = environment().get_template(f"{lang}/digest.md.j2")
    return tpl.render(d=digest).rstrip() + "\n"
