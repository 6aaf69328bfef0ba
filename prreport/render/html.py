"""HTML pages: the Markdown rendered by markdown-it-py, sanitised by nh3, code highlighted by Pygments."""

from __future__ import annotations

import html
import re
import secrets
from collections.abc import Sequence
from typing import Any

import jinja2
import nh3
from markdown_it import MarkdownIt
from markdown_it.token import Token
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from prreport.render.charts import chart_svg, mermaid_blocks, parse_mermaid
from prreport.render.markdown import render_digest_markdown, render_markdown
from prreport.render.review_html import review_section
from prreport.render.templates import environment, templates_dir
from prreport.render.view import report_view
from prreport.report.model import ReportModel


def _diff_lines(code: str) -> str:
    """A diff hunk, one span per line (removed, added, elided), the line break outside the span
    so that a line's background can span the whole width."""
    out = []
    for line in code.rstrip("\n").split("\n"):
        cls = {"-": "del", "+": "add"}.get(line[:1], "")
        if line.strip() == "...":
            cls = "gap"
        text = html.escape(line, quote=False)
        out.append(
            f'<span class="line {cls}">{text}</span>'
            if cls
            else f'<span class="line">{text}</span>'
        )
    return "\n".join(out) + "\n"


def _highlight(code: str, lang: str, _attrs: str) -> str:
    if lang == "diff":
        return _diff_lines(code)
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
    "nav",
}


def _markdown() -> MarkdownIt:
    return (
        MarkdownIt("commonmark", {"html": False, "linkify": False, "highlight": _highlight})
        .enable("table")
        .enable("strikethrough")
    )


def _clean(raw: str) -> str:
    """Sanitise rendered HTML: the allowed tags, the attributes the page's own markup uses."""
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
            "h1": {"id"},
            "h2": {"id"},
            "li": {"class"},
            "ol": {"class"},
            "details": {"class", "open"},
            "nav": {"class"},
        },
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )


def markdown_to_html_fragment(markdown: str) -> str:
    """Render Markdown with raw HTML disabled, then sanitise (no script, no javascript: links)."""
    return _clean(_markdown().render(markdown))


# A section whose text is longer than this is collapsible (open at first).
_LONG_SECTION = 1500
# The report's own ``<details>`` blocks (raw HTML in Markdown is off: only these exact paragraphs).
_DETAILS_OPEN = re.compile(r"<details>\n<summary>([^<>\n]+)</summary>")


def _html_block(content: str) -> Token:
    tok = Token("html_block", "", 0)
    tok.content = content
    return tok


def _plain(inline: Token) -> str:
    """The text of an inline token, without its Markdown (for the table of contents)."""
    return "".join(c.content for c in inline.children or [] if c.type in ("text", "code_inline"))


def _details_blocks(tokens: list[Token]) -> list[Token]:
    """Paragraphs ``<details>``/``<summary>…</summary>`` and ``</details>`` outside block quotes
    (at the top level, or in a list item of the report's own) as HTML.

    PR text cannot make them: it is quoted (in a block quote) or escaped (``\\<details\\>``)."""
    out: list[Token] = []
    k = 0
    quoted = 0
    while k < len(tokens):
        tok = tokens[k]
        quoted += {"blockquote_open": 1, "blockquote_close": -1}.get(tok.type, 0)
        if tok.type == "paragraph_open" and not quoted and k + 2 < len(tokens):
            content = tokens[k + 1].content
            m = _DETAILS_OPEN.fullmatch(content)
            if m:
                summary = html.escape(m.group(1), quote=False)
                out.append(_html_block(f'<details class="appendix"><summary>{summary}</summary>\n'))
                k += 3
                continue
            if content == "</details>":
                out.append(_html_block("</details>\n"))
                k += 3
                continue
        out.append(tok)
        k += 1
    return out


def _mark_risks(tokens: list[Token], risks: Sequence[tuple[str, str]]) -> None:
    """The list items of the risks (``**title** (severity)…``, in order) get a severity class."""
    pending = list(risks)
    for k, tok in enumerate(tokens):
        if not pending:
            return
        if tok.type != "list_item_open" or k + 2 >= len(tokens):
            continue
        inline = tokens[k + 2]
        title, severity = pending[0]
        if inline.type == "inline" and inline.content.startswith(f"**{title}**"):
            tok.attrSet("class", f"risk risk-{severity}")
            pending.pop(0)


def _sections(tokens: list[Token]) -> tuple[list[Token], list[tuple[str, int, str]]]:
    """Ids on the top-level headings, long sections made collapsible, and the contents list
    (id, level, text) of every heading but the page title."""
    starts = [
        k
        for k, t in enumerate(tokens)
        if t.type == "heading_open" and t.level == 0 and t.tag in ("h1", "h2")
    ]
    toc: list[tuple[str, int, str]] = []
    out: list[Token] = tokens[: starts[0]] if starts else list(tokens)
    for n, k in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(tokens)
        head, inline, close = tokens[k], tokens[k + 1], tokens[k + 2]
        body = tokens[k + 3 : end]
        sid = f"sec-{n}"
        head.attrSet("id", sid)
        if n:
            toc.append((sid, int(head.tag[1]), _plain(inline)))
        size = sum(len(t.content) for t in body if t.type in ("inline", "fence", "html_block"))
        if n and size > _LONG_SECTION:
            out += [_html_block('<details class="section" open><summary>'), head, inline, close]
            out += [_html_block("</summary>\n"), *body, _html_block("</details>\n")]
        else:
            out += [head, inline, close, *body]
    return out, toc


def _contents(toc: list[tuple[str, int, str]], label: str) -> Token:
    """The table of contents as a ``nav`` block."""
    items = "".join(
        f'<li class="toc-h{level}"><a href="#{sid}">{html.escape(text, quote=False)}</a></li>'
        for sid, level, text in toc
    )
    return _html_block(
        f'<nav class="toc"><details open><summary>{html.escape(label)}</summary>'
        f"<ul>{items}</ul></details></nav>\n"
    )


def report_fragment(markdown: str, risks: Sequence[tuple[str, str]], toc_label: str) -> str:
    """The report's Markdown as a sanitised page body: headings with ids and a table of contents
    after the header, long sections collapsible, risks coloured by severity, diffs by line."""
    md = _markdown()
    tokens = _details_blocks(md.parse(markdown))
    _mark_risks(tokens, risks)
    tokens, toc = _sections(tokens)
    first_hr = next((k for k, t in enumerate(tokens) if t.type == "hr" and t.level == 0), None)
    if toc:
        at = first_hr + 1 if first_hr is not None else 0
        tokens.insert(at, _contents(toc, toc_label))
    return _clean(md.renderer.render(tokens, md.options, {}))


def render_html(model: ReportModel, lang: str, markdown: str | None = None) -> str:
    """A standalone HTML page of the report: the Markdown report with its Review section (the
    whole diff, proven lines folded) where the Markdown lists the lines left.

    ``markdown``: the Markdown report already rendered; the page renders its own (with the
    Review section's place marked), so it is only a hint kept for callers."""
    del markdown
    view = report_view(model, lang)
    page = environment().get_template("page.html.j2")
    text: Any = environment().get_template(f"{lang}/text.md.j2").make_module({"r": view})
    label = text.toc_label()  # wording lives in the templates
    # The Review section is drawn here from the model and put in after sanitising (as the
    # digest's charts are): its place is a paragraph no PR text can spell (a fresh nonce).
    key = f"PRREPORTREVIEW{secrets.token_hex(8)}"
    body = report_fragment(
        render_markdown(model, lang, page=key),
        [(str(k["title"]), str(k["severity"])) for k in view["risks"]],
        str(label).strip(),
    )
    words: Any = environment().get_template(f"{lang}/review.md.j2").make_module({"r": view})
    body = body.replace(f"<p>{key}</p>", review_section(model.diff, view, words, _inline))
    # Pygments colours first, so style.css (plain code background, print rules) wins on conflicts.
    light = HtmlFormatter(style="friendly").get_style_defs("pre code")
    dark = HtmlFormatter(style="github-dark").get_style_defs("pre code")
    css = (
        light
        + "\n@media (prefers-color-scheme: dark) {\n"
        + dark
        + "\n}\n"
        + (templates_dir() / "style.css").read_text(encoding="utf-8")
    )
    title = f"{model.pr['repo']} " + (
        f"#{model.pr['number']}" if model.pr["number"] else str(model.pr["target"])
    )
    # autoescape the page shell explicitly: only ``body`` is trusted (already sanitised).
    return page.render(title=jinja2.utils.markupsafe.escape(title), lang=lang, css=css, body=body)


def _inline(markdown: str) -> str:
    """One line of wording (Markdown) as sanitised inline HTML."""
    return _clean(_markdown().renderInline(markdown))


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


# The digest page only: 1200 px wide (the attention table has six columns), cells wrap (paths and
# spots anywhere, only headers and the PR column stay on one line), so the table fits its box at
# 1200 px; on a phone a wide table still scrolls inside its box. Charts side by side when there
# is room.
DIGEST_MAX_WIDTH_PX = 1200
_DIGEST_CSS = f"""
main.report {{ max-width: {DIGEST_MAX_WIDTH_PX}px; }}
.table-wrap {{ overflow-x: auto; margin: 1rem 0; border: 1px solid var(--border); border-radius: 6px; }}
.table-wrap table {{ margin: 0; border: 0; }}
.table-wrap th, .table-wrap td {{ border-width: 0 1px 1px 0; }}
.table-wrap th, .table-wrap td:first-child {{ white-space: nowrap; }}
.table-wrap td, .table-wrap td code {{ overflow-wrap: anywhere; }}
.table-wrap td:last-child {{ min-width: 12em; }}
figure.chart {{ display: inline-block; margin: .5rem 1.5rem .5rem 0; max-width: 100%; vertical-align: top; }}
figure.chart svg {{ max-width: 100%; height: auto; font-family: inherit; }}
"""
