"""HTML pages: the Markdown rendered by markdown-it-py, sanitised by nh3, code highlighted by Pygments."""

from __future__ import annotations

from typing import Any

import jinja2
import nh3
from markdown_it import MarkdownIt
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

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
    """A standalone HTML page of the Markdown digest."""
    body = markdown_to_html_fragment(
        markdown if markdown is not None else render_digest_markdown(digest, lang)
    )
    css = (templates_dir() / "style.css").read_text(encoding="utf-8")
    page = environment().get_template("page.html.j2")
    title = f"{digest['repo']} {digest['window']['label']}"
    return page.render(title=jinja2.utils.markupsafe.escape(title), lang=lang, css=css, body=body)
