"""The HTML "Review" section: the whole diff, proven lines folded into ``<details>``, the rest
highlighted with what each edit does, and a CSS-only switch to show only the lines left.

Drawn from the report model's review view (``model.diff``, made by ``report.lines``); every
piece of text is escaped here, and the wording (Markdown from ``templates/<lang>/review.md.j2``)
goes through the page's Markdown door (``inline``), so the section is as safe as the page.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

_Inline = Callable[[str], str]


def _esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _one(value: Any) -> str:
    return " ".join(str(value).split())


def review_section(
    files: tuple[dict[str, Any], ...],
    view: dict[str, Any],
    words: Any,
    inline: _Inline,
) -> str:
    """The section's HTML (after its heading): switch, count, then every file's hunks."""
    ledger = view.get("ledger") or {}
    links = _Links(view)
    parts = [
        '<div class="rv" id="review">',
        '<input type="radio" name="rv-mode" id="rv-all" class="rv-mode" checked>',
        '<input type="radio" name="rv-mode" id="rv-left" class="rv-mode">',
        '<div class="rv-bar">',
        f'<label for="rv-all">{_esc(_one(words.all_lines()))}</label>',
        f'<label for="rv-left">{_esc(_one(words.only_left()))} ({int(ledger.get("left", 0))})</label>',
        f'<span class="rv-count">{inline(_one(words.count(ledger)))}</span>',
        "</div>",
        f'<p class="rv-intro">{inline(_one(words.intro(ledger)))}</p>',
        '<div class="rv-files">',
    ]
    edits = ledger.get("edits") or []
    if not ledger.get("left"):
        # Shown by the "only lines left" switch alone, which would otherwise show nothing.
        parts.append(f'<p class="rv-empty">{inline(_one(words.none_left()))}</p>')
    for f in files:
        parts.append(_file(f, view, edits, words, inline, links))
    parts += ["</div>", "</div>"]
    return "\n".join(parts) + "\n"


class _Links:
    """Line links: added and context lines at the head commit, removed lines at the base."""

    def __init__(self, view: dict[str, Any]) -> None:
        pr = view["pr"]
        self.web = str((view.get("links") or {}).get("web") or "")
        self.head = str(pr.get("head_sha") or "")
        self.base = str(pr.get("base_sha") or "")

    def line(self, f: dict[str, Any], side: str, n: int | None) -> str:
        if not self.web or n is None:
            return ""
        if side == "-":
            if not self.base or f["change"] == "added":
                return ""
            return f"{self.web}/blob/{self.base}/{quote(f['old_path'] or f['path'])}#L{n}"
        if not self.head or f["change"] == "removed":
            return ""
        return f"{self.web}/blob/{self.head}/{quote(f['path'])}#L{n}"


def _file(
    f: dict[str, Any],
    view: dict[str, Any],
    edits: list[dict[str, Any]],
    words: Any,
    inline: _Inline,
    links: _Links,
) -> str:
    done = "" if f["left"] else " rv-done"
    name = _esc(f["path"])
    if f.get("old_path") and f["old_path"] != f["path"]:
        name = f"{_esc(f['old_path'])} → {name}"
    out = [
        f'<details class="rv-file{done}" open><summary><code>{name}</code> '
        f'<span class="rv-badge">{_esc(_one(words.file_badge(f)))}</span></summary>'
    ]
    if not f["hunks"]:
        out.append(f'<p class="rv-note">{inline(_one(words.no_text(f)))}</p>')
    for h in f["hunks"]:
        hdone = "" if h["left"] else " rv-done"
        head = f"@@ -{h['old_start']} +{h['new_start']} @@"
        section = f" {_esc(h['section'])}" if h.get("section") else ""
        out.append(
            f'<div class="rv-hunk{hdone}"><div class="rv-head">{_esc(head)}'
            f'<span class="rv-sec">{section}</span></div><div class="rv-code"><div class="rv-in">'
        )
        for b in h["blocks"]:
            out.append(_block(b, f, view, edits, words, inline, links))
        out.append("</div></div></div>")
    out.append("</details>")
    return "\n".join(out)


def _block(
    b: dict[str, Any],
    f: dict[str, Any],
    view: dict[str, Any],
    edits: list[dict[str, Any]],
    words: Any,
    inline: _Inline,
    links: _Links,
) -> str:
    rows = "".join(_row(r, f, links) for r in b["rows"])
    if b["type"] == "context":
        return rows
    if b["type"] == "fold":
        finding = view["findings"][b["finding"]] if b.get("finding") is not None else {}
        label = _one(words.fold(b["reason"], finding, len(b["rows"])))
        return (
            f'<details class="rv-fold"><summary>{inline(label)}</summary>'
            f'<div class="rv-folded">{rows}</div></details>'
        )
    e = edits[b["edit"]]
    # The edit is said once, above its first run of left lines.
    said = f'<div class="rv-edit">{inline(_one(words.edit(e)))}</div>' if b.get("first") else ""
    return f'<div class="rv-left{" rv-witnessed" if e["witnesses"] else ""}">{said}{rows}</div>'


def _row(r: dict[str, Any], f: dict[str, Any], links: _Links) -> str:
    cls = {"-": "del", "+": "add"}.get(r["sign"], "ctx")
    if r.get("witnessed"):
        cls += " wit"
    nums = []
    for side, n in (("-", r["old"]), ("+", r["new"])):
        url = links.line(f, side, n)
        if n is None:
            nums.append('<span class="n"></span>')
        elif url:
            nums.append(f'<a class="n" href="{_esc(url)}">{n}</a>')
        else:
            nums.append(f'<span class="n">{n}</span>')
    sign = r["sign"] if r["sign"] != " " else "&nbsp;"
    return (
        f'<div class="l {cls}">{"".join(nums)}<span class="s">{sign}</span>'
        f'<span class="t">{_esc(r["text"])}</span></div>'
    )
