"""The motivation: sections of the PR description picked with markdown-it, quoted verbatim."""

from __future__ import annotations

import re
from typing import Any

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
# Git trailers (``Co-authored-by: A <a@x>``): who and how, never why.
_TRAILER = re.compile(
    r"^\s*(co-authored-by|signed-off-by|reviewed-by|acked-by|tested-by|reported-by|suggested-by"
    r"|helped-by|cc|change-id|pr-url|reviewed-on|differential revision):.*$",
    re.I | re.M,
)
_MAX_QUOTED_LINES = 40


def extract_motivation(body: str) -> dict[str, Any]:
    """Pick the motivation/summary sections of a PR description (or its first paragraphs), verbatim."""
    # Template hints in HTML comments are not the author's words.
    text = _TRAILER.sub("", _HTML_COMMENT.sub("", body or "")).strip()
    if not text:
        return {"source": "none", "sections": []}
    from markdown_it import MarkdownIt  # only for a PR with a description

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
