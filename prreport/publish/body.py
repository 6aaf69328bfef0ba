"""GitHub-safe Markdown bodies: mentions that notify no one, unique markers, a size limit kept.

Pure text helpers shared by both publishers (the PR comment and the digest issue) and the
job summary: nothing here talks to GitHub.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from prreport.errors import OutputError

# A marker-looking string inside the report (quoted PR text) is defused so ours stays unique.
_MARKER_TEXT_RE = re.compile(r"<!--(\s*)prreport:", re.IGNORECASE)
# GitHub links ``@user`` and ``@org/team`` when a letter or digit follows the ``@``; an entity
# (``&#64;``, ``&#x40;``, ``&commat;``) is decoded to an ``@`` before GitHub looks, and so may
# the next character be (``@&#97;dmin``).
_MENTION_RE = re.compile(r"@(?=[A-Za-z0-9&])")
_AT_ENTITY_RE = re.compile(r"&(?:#0*64|#[xX]0*40|commat);?")
# U+2060 WORD JOINER would also do; U+200D ZERO WIDTH JOINER is invisible and breaks the match.
_ZWJ = "\u200d"
_FENCE_OPEN_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_HEADING_RE = re.compile(r"^ {0,3}(#{1,2})[ \t]+(.*?)[ \t#]*$")

_NOTES = {
    "en": (
        "✂️ This report was cut to fit GitHub's {limit:,}-character limit: "
        "{cut:,} characters left out{sections}. The full report is in {where}."
    ),
    "zh": "✂️ 本报告超出 GitHub {limit:,} 字符上限，已截去 {cut:,} 个字符{sections}。完整报告见{where}。",
}
_SECTIONS_NOTE = {"en": ", from “{first}” on ({names})", "zh": "（自“{first}”起：{names}）"}


def utf16_len(text: str) -> int:
    """Length as GitHub counts it (UTF-16 code units; never less than Python's ``len``)."""
    return len(text.encode("utf-16-le")) // 2


def utf8_len(text: str) -> int:
    """Size in bytes, as the job-summary limit counts it."""
    return len(text.encode("utf-8"))


@dataclass
class _Fence:
    char: str
    length: int

    def closes(self, line: str) -> bool:
        stripped = line.strip()
        return (
            len(line) - len(line.lstrip(" ")) <= 3
            and len(stripped) >= self.length
            and set(stripped) == {self.char}
        )

    def closing(self) -> str:
        return self.char * self.length


def _fence_opening(line: str) -> _Fence | None:
    m = _FENCE_OPEN_RE.match(line)
    if not m:
        return None
    run, info = m.group(1), m.group(2)
    if run[0] == "`" and "`" in info:
        return None  # not a fence in CommonMark: a backtick fence's info string has no backticks
    return _Fence(run[0], len(run))


def _code_flags(lines: list[str], strict: bool = False) -> list[bool]:
    """For each line: is it inside (or delimiting) a top-level fenced code block?

    ``strict`` counts only fences GitHub surely renders as code: opened at the start or after
    a blank line (not inside an HTML block or a paragraph an injected line break began) and
    closed (text after an injected opening fence stays prose).
    """
    flags = []
    fence: _Fence | None = None
    start = 0
    for i, line in enumerate(lines):
        if fence is None:
            fence = _fence_opening(line)
            if fence is not None and strict and i > 0 and lines[i - 1].strip():
                fence = None
            start = i
            flags.append(fence is not None)
        else:
            flags.append(True)
            if fence.closes(line):
                fence = None
    if fence is not None and strict:
        flags[start:] = [False] * (len(lines) - start)
    return flags


def neutralise_mentions(text: str) -> str:
    """Make every ``@name`` outside fenced code unlinkable (no notification), keeping it readable.

    A zero-width joiner after the ``@`` stays invisible but GitHub's mention filter needs a
    letter or digit right after the ``@``; an ``@`` spelt as an HTML entity becomes a plain
    ``@`` with the joiner. Closed fenced code blocks that follow a blank line are left alone:
    GitHub never links there and a snippet's ``@decorator`` must stay copyable. Lines are split as CommonMark splits
    them (``\n``, ``\r\n``, ``\r``), so a lone ``\r`` cannot hide a fence line.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    flags = _code_flags(lines, strict=True)
    out = [
        ln if code else _MENTION_RE.sub("@" + _ZWJ, _AT_ENTITY_RE.sub("@" + _ZWJ, ln))
        for ln, code in zip(lines, flags, strict=True)
    ]
    return "\n".join(out)


# In untrusted text (a fork PR's artifact) only our own collapsible-section tags stay HTML.
_OUR_TAGS_RE = re.compile(r"^(?:<details>|</details>|<summary>[^<>]*</summary>)$")
_URL_SCHEME_RE = re.compile(r"(?i)\b(https?|ftp|mailto)(:)")
_WWW_RE = re.compile(r"(?i)\b(www)(\.)")


def neutralise_links(text: str) -> str:
    """Make links, images and raw HTML in untrusted Markdown inert, keeping the text readable.

    Outside closed code blocks: brackets are escaped (no link, image or reference can form),
    ``<`` becomes ``&lt;`` except on our own ``<details>``/``<summary>`` lines, and a joiner
    after a URL scheme or ``www`` stops GitHub's autolinker. Mentions are a separate step.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    flags = _code_flags(lines, strict=True)
    out = []
    for line, code in zip(lines, flags, strict=True):
        if code or _OUR_TAGS_RE.match(line.strip()):
            out.append(line)
            continue
        line = line.replace("[", "\\[").replace("]", "\\]").replace("<", "&lt;")
        line = _URL_SCHEME_RE.sub("\\1" + _ZWJ + "\\2", line)
        out.append(_WWW_RE.sub("\\1" + _ZWJ + "\\2", line))
    return "\n".join(out)


def defuse_markers(text: str) -> str:
    """Turn marker-looking comments inside the report into something no marker search matches."""
    return _MARKER_TEXT_RE.sub(r"<!--\1prreport-quoted:", text)


@dataclass(frozen=True)
class _Section:
    title: str
    lines: list[str]


def _sections(lines: list[str]) -> list[_Section]:
    """Split Markdown at top-level ``#``/``##`` headings outside code blocks."""
    flags = _code_flags(lines)
    sections = [_Section("", [])]
    for line, code in zip(lines, flags, strict=True):
        m = None if code else _HEADING_RE.match(line)
        if m:
            sections.append(_Section(m.group(2).strip(), []))
        sections[-1].lines.append(line)
    if not sections[0].lines:
        sections.pop(0)
    return sections


def _cut_lines(lines: list[str], budget: int, measure: Callable[[str], int]) -> list[str]:
    """The longest prefix of ``lines`` (preferring a blank-line boundary) that fits, fence closed."""
    flags = _code_flags(lines)
    best: tuple[int, _Fence | None] = (0, None)
    best_blank = 0
    fence: _Fence | None = None
    used = 0
    for i, line in enumerate(lines):
        if fence is None:
            fence = _fence_opening(line) if flags[i] else None
        elif fence.closes(line):
            fence = None
        used += measure(line) + 1
        if used + (measure(fence.closing()) + 1 if fence is not None else 0) > budget:
            break
        best = (i + 1, fence)
        if fence is None and not line.strip():
            best_blank = i + 1
    end, open_fence = best
    # A blank-line boundary keeps paragraphs and tables whole, unless it wastes most of the room.
    if best_blank and measure("\n".join(lines[:best_blank])) * 2 >= measure("\n".join(lines[:end])):
        return lines[:best_blank]
    return lines[:end] + ([open_fence.closing()] if open_fence is not None else [])


def fit(
    text: str,
    limit: int,
    where: str,
    lang: str = "en",
    measure: Callable[[str], int] = utf16_len,
) -> str:
    """Return ``text`` if it fits ``limit``, else a prefix cut at a section boundary plus a note.

    Whole sections are kept while they fit; the first that does not is cut at a block
    boundary when enough room is left (closing any open code fence) and the rest is dropped.
    The final line says how much was cut and where the full report is (``where``).
    """
    if measure(text) <= limit:
        return text
    note_tpl = _NOTES.get(lang, _NOTES["en"])
    sections = _sections(text.rstrip("\n").split("\n"))
    # Room for the note, generously sized so the real note (with names and counts) fits.
    names = [s.title for s in sections if s.title]
    worst_names = ", ".join(names)
    reserve = measure(
        "\n\n---\n\n> "
        + note_tpl.format(
            limit=limit,
            cut=measure(text),
            sections=_SECTIONS_NOTE.get(lang, _SECTIONS_NOTE["en"]).format(
                first=worst_names[:200], names=worst_names[:2000]
            ),
            where=where,
        )
        + "\n"
    )
    budget = limit - reserve
    if budget <= 0:
        raise OutputError(
            f"the truncation note alone exceeds the {limit}-character limit: shorten the pointer {where!r}"
        )
    kept, dropped = _keep_sections(sections, budget, measure)
    body = "\n".join(kept).rstrip("\n")
    sections_text = _dropped_note(dropped, lang)
    cut = measure(text) - measure(body)
    note = note_tpl.format(limit=limit, cut=cut, sections=sections_text, where=where)
    return f"{body}\n\n---\n\n> {note}\n"


def _keep_sections(
    sections: list[_Section], budget: int, measure: Callable[[str], int]
) -> tuple[list[str], list[_Section]]:
    """The lines kept within ``budget`` (whole sections, then maybe part of one), and the sections dropped."""
    kept: list[str] = []
    used = 0
    dropped: list[_Section] = []
    for idx, sec in enumerate(sections):
        size = measure("\n".join(sec.lines)) + 1
        if not dropped and used + size <= budget:
            kept.extend(sec.lines)
            used += size
            continue
        if not dropped:
            remaining = budget - used
            # Cut inside this section only when a useful share of the room is left.
            partial = (
                _cut_lines(sec.lines, remaining, measure)
                if remaining >= budget // 8 or not kept
                else []
            )
            if len(partial) > 1 or (partial and not sec.title):
                kept.extend(partial)
            dropped.extend(sections[idx:])
            continue
    return kept, dropped


def _dropped_note(dropped: list[_Section], lang: str) -> str:
    """The part of the truncation note that names the sections left out ("" when none has a title)."""
    titles = [s.title for s in dropped if s.title]
    if not titles:
        return ""
    names_text = ", ".join(f"“{t}”" if lang == "en" else t for t in titles)
    if len(names_text) > 2000:
        names_text = names_text[:1990] + "…"
    return _SECTIONS_NOTE.get(lang, _SECTIONS_NOTE["en"]).format(
        first=titles[0][:200], names=names_text
    )


_POINTER = {
    "en": {
        "summary": "the job summary of [the workflow run]({url})",
        "artifact": "the `{name}` artifact of that run",
        "file": "`{path}`",
        "join": " and ",
        "none": "the Markdown file prreport wrote (see --out)",
    },
    "zh": {
        "summary": "[工作流运行]({url}) 的 job summary",
        "artifact": "该运行的 `{name}` 构件（artifact）",
        "file": "`{path}`",
        "join": "以及",
        "none": "prreport 写出的 Markdown 文件（见 --out）",
    },
}


def full_report_pointer(lang: str, run_url: str = "", artifact: str = "", path: str = "") -> str:
    """Where the untruncated report is: the run's job summary, its artifact, or a local file."""
    words = _POINTER.get(lang, _POINTER["en"])
    parts = []
    if run_url:
        parts.append(words["summary"].format(url=run_url))
    if artifact:
        parts.append(words["artifact"].format(name=artifact.replace("`", "")))
    if path and not parts:
        parts.append(words["file"].format(path=path.replace("`", "")))
    return words["join"].join(parts) if parts else words["none"]
