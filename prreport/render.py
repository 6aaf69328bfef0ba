"""Renderers: Markdown (Jinja templates per language), HTML (markdown-it-py page), JSON (the model)."""

from __future__ import annotations

import json
import re
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
    env.filters["shortscope"] = _shortscope
    env.filters["when"] = _when
    env.filters["shortpath"] = _shortpath
    env.globals["loc"] = _loc
    return env


def _shortscope(value: Any) -> str:
    """``A.f.<locals>.g`` -> ``f.g``: the last two parts of a qualname, for prose."""
    parts = [p for p in str(value or "").split(".") if p != "<locals>"]
    return ".".join(parts[-2:])


def _when(value: Any) -> str:
    """ISO timestamp -> ``YYYY-MM-DD HH:MM`` (as the exemplar prints it); other text unchanged."""
    text = "" if value is None else str(value)
    m = re.match(r"(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})", text)
    return f"{m.group(1)} {m.group(2)}" if m else text


def _shortpath(value: Any) -> str:
    """Last two components of a path (``mooncake/conn.py``), for dense evidence lists."""
    return "/".join(str(value or "").split("/")[-2:])


def _loc(path: Any, line: Any = None) -> str:
    """``path:line`` as inline code."""
    return _code(f"{path}:{line}" if line else f"{path}")


# --- motivation: the PR description, split with markdown-it (the Markdown door) -------------

# Headings of common PR templates whose sections say why and what; in order of preference.
_MOTIVATION_HEADINGS = (
    r"motivation",
    r"summary",
    r"description",
    r"why\b.*",
    r"background",
    r"context",
    r"problem( statement)?",
    r"purpose",
    r"overview",
    r"what does this pr do\??",
    r"what( and why)?",
    r"modifications?",
    r"changes?( made| proposed)?",
    r"what changed\??",
)
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
_MAX_QUOTED_LINES = 40


def extract_motivation(body: str) -> dict[str, Any]:
    """Pick the motivation/summary sections of a PR description (or its first paragraphs), verbatim."""
    # Template hints in HTML comments are not the author's words.
    text = _HTML_COMMENT.sub("", body or "").strip()
    if not text:
        return {"source": "none", "sections": []}
    lines = text.splitlines()
    tokens = MarkdownIt("commonmark").parse(text)
    headings = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.map:
            headings.append((tok.map[0], tok.map[1], tokens[i + 1].content.strip()))
    sections = []
    for n, (start, body_start, title) in enumerate(headings):
        end = headings[n + 1][0] if n + 1 < len(headings) else len(lines)
        rank = next(
            (
                r
                for r, pat in enumerate(_MOTIVATION_HEADINGS)
                if re.fullmatch(pat, title.strip(" :#*").lower())
            ),
            None,
        )
        content = "\n".join(lines[body_start:end]).strip()
        if rank is not None and content:
            sections.append((rank, start, title, content))
    if sections:
        picked = sorted(sections, key=lambda s: s[1])
        return {
            "source": "sections",
            "sections": [
                {"heading": title, "text": _clip(content)} for _r, _s, title, content in picked
            ],
        }
    # No template headings: the paragraphs before the first heading, else the first two paragraphs.
    first_heading = headings[0][0] if headings else len(lines)
    paras = [
        t.map
        for t in tokens
        if t.type == "paragraph_open" and t.map and t.level == 0 and t.map[0] < first_heading
    ]
    if not paras:
        paras = [t.map for t in tokens if t.type == "paragraph_open" and t.map and t.level == 0]
    chosen = paras[:2]
    if not chosen:
        return {"source": "none", "sections": []}
    content = "\n\n".join("\n".join(lines[a:b]).strip() for a, b in chosen)
    return {"source": "paragraphs", "sections": [{"heading": "", "text": _clip(content)}]}


def _clip(text: str) -> str:
    lines = text.splitlines()
    return "\n".join(lines[:_MAX_QUOTED_LINES]) + ("\n…" if len(lines) > _MAX_QUOTED_LINES else "")


# --- the view: model JSON plus wording filled from the language's text macros ---------------


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


def render_markdown(model: ReportModel, lang: str) -> str:
    """The Markdown report in ``lang``."""
    tpl = environment().get_template(f"{lang}/report.md.j2")
    text = tpl.render(m=model, r=report_view(model, lang))
    return re.sub(r"\n{3,}", "\n\n", text).rstrip() + "\n"


def render_json(model: ReportModel) -> str:
    """The JSON report (DESIGN §3); its wording (one_line, recommended_action, titles) is English."""
    return (
        json.dumps(report_view(model, "en"), ensure_ascii=False, indent=2, sort_keys=False) + "\n"
    )


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


# --- weekly digest (prreport.digest) ------------------------------------------------------


def render_digest_markdown(digest: dict[str, Any], lang: str) -> str:
    """The weekly digest in Markdown; ``digest`` is the digest's JSON value."""
    tpl = environment().get_template(f"{lang}/digest.md.j2")
    return tpl.render(d=digest).rstrip() + "\n"


def render_digest_html(digest: dict[str, Any], lang: str, markdown: str | None = None) -> str:
    """A standalone HTML page of the Markdown digest."""
    body = markdown_to_html_fragment(
        markdown if markdown is not None else render_digest_markdown(digest, lang)
    )
    css = (templates_dir() / "style.css").read_text(encoding="utf-8")
    page = environment().get_template("page.html.j2")
    title = f"{digest['repo']} {digest['window']['label']}"
    return page.render(title=jinja2.utils.markupsafe.escape(title), lang=lang, css=css, body=body)
