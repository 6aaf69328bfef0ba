"""HTML pages: the Markdown rendered by markdown-it-py, sanitised by nh3, code highlighted by Pygments."""

from __future__ import annotations

import secrets
from typing import Any

import jinja2
import nh3
from markdown_it import MarkdownIt
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from prreport.render.charts import chart_svg, mermaid_blocks, parse_mermaid
from prreport.render.markdown import render_digest_markdown, render_markdown
from prreport.render.templates import environment, templates_dir
from prreport.report.model import ReportModel


def _highlight(code: str, lang: str, _attrs: str) -> str:
    try:
        lexer = get_lexer_by_name(lang or "text")
    except ClassNotFound:
        lexer = get_lexer_by_name("text")
    return highlight(code, lexer, HtmlFormatter(nowrap=True))


_ALLOWED_TAGS = {
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "p",
    "ul",
    "ol",
    "li",
    "blockquote",
    "pre",
    "code",
    "em",
    "strong",
    "a",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "hr",
    "br",
    "span",
    "del",
    "details",
    "summary",
}


def markdown_to_html_fragment(markdown: str) -> str:
    """Render Markdown with raw HTML disabled, then sanitise (no script, no javascript: links)."""
    md = (
        MarkdownIt("commonmark", {"html": False, "linkify": False, "highlight": _highlight})
        .enable("table")
        .enable("strikethrough")
    )
    raw = md.render(markdown)
    return nh3.clean(
        raw,
        tags=_ALLOWED_TAGS,
        attributes={
            "a": {"href", "title"},
            "span": {"class"},
            "code": {"class"},
            "pre": {"class"},
            "th": {"style"},
            "td": {"style"},
        },
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )


def render_html(model: ReportModel, lang: str, markdown: str | None = None) -> str:
    """A standalone HTML page of the Markdown report."""
    body = markdown_to_html_fragment(
        markdown if markdown is not None else render_markdown(model, lang)
    )
    # Pygments colours first, so style.css (plain code background, print rules) wins on conflicts.
    pyg = HtmlFormatter(style="friendly").get_style_defs("pre code")
    css = pyg + "\n" + (templates_dir() / "style.css").read_text(encoding="utf-8")
    page = environment().get_template("page.html.j2")
    title = f"{model.pr['repo']} " + (
        f"#{model.pr['number']}" if model.pr["number"] else str(model.pr["target"])
    )
    # autoescape the page shell explicitly: only ``body`` is trusted (already sanitised).
    return page.render(title=jinja2.utils.markupsafe.escape(title), lang=lang, css=css, body=body)


def render_digest_html(digest: dict[str, Any], lang: str, markdown: str | None = None) -> str:
    """A standalone HTML page of the Markdown digest: Mermaid charts drawn as inline SVG, tables in
    boxes that scroll sideways on a narrow screen."""
    text = markdown if markdown is not None else render_digest_markdown(digest, lang)
    # Charts are cut out before Markdown rendering and put back after sanitising: the SVG is
    # drawn here from numbers and escaped labels, so it is trusted like the page shell.
    nonce = secrets.token_hex(8)
    charts: dict[str, str] = {}
    pieces: list[str] = []
    last = 0
    for start, end, source in mermaid_blocks(text):
        chart = parse_mermaid(source)
        if chart is None:
            continue
        key = f"PRREPORTCHART{nonce}N{len(charts)}"
        charts[key] = chart_svg(chart)
        pieces.extend([text[last:start], key])
        last = end
    pieces.append(text[last:])
    body = markdown_to_html_fragment("".join(pieces))
    for key, svg in charts.items():
        body = body.replace(f"<p>{key}</p>", svg)
    body = body.replace("<table>", '<div class="table-wrap"><table>').replace(
        "</table>", "</table></div>"
    )
    css = (templates_dir() / "style.css").read_text(encoding="utf-8") + _DIGEST_CSS
    page = environment().get_template("page.html.j2")
    title = f"{digest['repo']} {digest['window']['label']}"
    return page.render(title=jinja2.utils.markupsafe.escape(title), lang=lang, css=css, body=body)


def render_digest_report_html(markdown: str, title: str, lang: str) -> str:
    """A standalone HTML page of one PR's Markdown report, as the digest links to it."""
    body = markdown_to_html_fragment(markdown)
    pyg = HtmlFormatter(style="friendly").get_style_defs("pre code")
    css = pyg + "\n" + (templates_dir() / "style.css").read_text(encoding="utf-8")
    page = environment().get_template("page.html.j2")
    return page.render(title=jinja2.utils.markupsafe.escape(title), lang=lang, css=css, body=body)


# The digest page only: charts side by side when there is room, wide tables scroll in their box.
_DIGEST_CSS = """
.table-wrap { overflow-x: auto; margin: 1rem 0; border: 1px solid var(--border); border-radius: 6px; }
.table-wrap table { margin: 0; border: 0; }
.table-wrap th, .table-wrap td { border-width: 0 1px 1px 0; }
.table-wrap td:not(:last-child), .table-wrap th { white-space: nowrap; }
.table-wrap td:last-child { min-width: 14em; }
figure.chart { display: inline-block; margin: .5rem 1.5rem .5rem 0; max-width: 100%; vertical-align: top; }
figure.chart svg { max-width: 100%; height: auto; font-family: inherit; }
"""
