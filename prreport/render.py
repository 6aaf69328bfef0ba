"""Renderers: Markdown (Jinja templates per language), HTML (markdown-it-py page), JSON (the model)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jinja2
import nh3
from markdown_it import MarkdownIt
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from prreport.model import ReportModel


def templates_dir() -> Path:
    """Templates shipped in the wheel (``prreport/templates``) or, in a checkout, ``templates/``."""
    here = Path(__file__).resolve().parent
    packaged = here / "templates"
    if packaged.is_dir():
        return packaged
    return here.parent / "templates"


def _md_escape(value: Any) -> str:
    """Neutralise Markdown-active characters in PR-supplied inline text."""
    text = "" if value is None else str(value)
    for ch in ("\\", "`", "*", "_", "[", "]", "<", ">", "|", "#"):
        text = text.replace(ch, "\\" + ch)
    return text.replace("\n", " ")


def _code(value: Any) -> str:
    """Inline code span that survives backticks inside the value."""
    text = "" if value is None else str(value)
    fence = "`"
    while fence in text:
        fence += "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _fence(value: Any, lang: str = "") -> str:
    """Fenced code block whose fence is longer than any backtick run inside."""
    text = "" if value is None else str(value)
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}{lang}\n{text.rstrip()}\n{fence}"


def _quote(value: Any) -> str:
    """Block-quote PR text line by line (it stays Markdown, but cannot break out of the quote)."""
    text = "" if value is None else str(value).strip()
    return "\n".join("> " + line if line else ">" for line in text.splitlines())


def environment() -> jinja2.Environment:
    """The Jinja environment: StrictUndefined, no autoescape (Markdown), our filters."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["md"] = _md_escape
    env.filters["code"] = _code
    env.filters["fence"] = _fence
    env.filters["quote"] = _quote
    return env


def render_markdown(model: ReportModel, lang: str) -> str:
    """The Markdown report in ``lang``."""
    tpl = environment().get_template(f"{lang}/report.md.j2")
    text = tpl.render(m=model, r=model.to_json())
    return text.rstrip() + "\n"


def render_json(model: ReportModel) -> str:
    """The JSON report (DESIGN §3)."""
    return json.dumps(model.to_json(), ensure_ascii=False, indent=2, sort_keys=False) + "\n"


def _highlight(code: str, lang: str, _attrs: str) -> str:
    try:
        lexer = get_lexer_by_name(lang or "text")
    except ClassNotFound:
        lexer = get_lexer_by_name("text")
    return highlight(code, lexer, HtmlFormatter(nowrap=True))


_ALLOWED_TAGS = {
    "h1", "h2", "h3", "h4", "h5", "h6", "p", "ul", "ol", "li", "blockquote", "pre", "code",
    "em", "strong", "a", "table", "thead", "tbody", "tr", "th", "td", "hr", "br", "span", "del",
    "details", "summary",
}


def markdown_to_html_fragment(markdown: str) -> str:
    """Render Markdown with raw HTML disabled, then sanitise (no script, no javascript: links)."""
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "highlight": _highlight}).enable("table").enable("strikethrough")
    raw = md.render(markdown)
    return nh3.clean(
        raw,
        tags=_ALLOWED_TAGS,
        attributes={"a": {"href", "title"}, "span": {"class"}, "code": {"class"}, "pre": {"class"}, "th": {"style"}, "td": {"style"}},
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )


def render_html(model: ReportModel, lang: str, markdown: str | None = None) -> str:
    """A standalone HTML page of the Markdown report."""
    body = markdown_to_html_fragment(markdown if markdown is not None else render_markdown(model, lang))
    css = (templates_dir() / "style.css").read_text(encoding="utf-8")
    pyg = HtmlFormatter(style="friendly").get_style_defs(".highlight, pre code")
    page = environment().get_template("page.html.j2")
    title = f"{model.pr['repo']} " + (f"#{model.pr['number']}" if model.pr["number"] else str(model.pr["target"]))
    # autoescape the page shell explicitly: only ``body`` is trusted (already sanitised).
    return page.render(title=jinja2.utils.markupsafe.escape(title), lang=lang, css=css + "\n" + pyg, body=body)
