"""One escaping function per output format for PR-supplied text (names, titles, bodies, labels, comments).

Markdown: ``md_text`` (inline prose), ``md_code`` (inline code), ``md_fence`` (a code block),
``md_quote`` (quoted PR text), ``md_url`` (a link target). HTML is the Markdown rendered with
raw HTML off and sanitised by nh3 (``prreport.render.html``). JSON needs none. The terminal:
``terminal_text`` (a whole document) and ``terminal_line`` (one message line).

What they defend against: a line break in a file name that opens a fake heading or fence,
Markdown links and entities (``&#64;user``) in titles, terminal control sequences (CSI, OSC,
BEL, C0/C1, bidi overrides) in anything printed (``terminal_json`` keeps printed JSON valid),
and GitHub Actions workflow commands
(``::error …``, ``##[…]``) at the start of a printed line.
"""

from __future__ import annotations

import re
from typing import Any

# C0 controls (tab and newline are handled per format), DEL, C1 controls (0x9b is a one-byte
# CSI), the Unicode line/paragraph separators, the bidi controls of "Trojan Source"
# (CVE-2021-42574) and the invisible characters (zero-width spaces and joiners, invisible
# operators, the Mongolian vowel separator, tag characters): none of them may reach a report
# or a terminal as they are.
_UNSAFE = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff"
    "\u180e\u200b-\u200d\u2060-\u2064\U000e0000-\U000e007f"
)
_UNSAFE_RE = re.compile(f"[{_UNSAFE}]")
_UNSAFE_OR_LF_RE = re.compile(f"[\n\t{_UNSAFE}]")
# Markdown-active ASCII punctuation in inline text (``&`` for entities such as ``&#64;``,
# ``~`` for strikethrough, ``!`` for images); CommonMark lets any of them be backslash-escaped.
# An underscore between two letters or digits never starts or ends emphasis (CommonMark
# "intraword"), so ``handle_staging_rsp`` stays as it is.
_MD_ACTIVE_RE = re.compile(r"([\\`*\[\]<>|#&~!]|(?<![^\W_])_|_(?![^\W_]))")
_URL_RE = re.compile(r"https?://[^\s<>()\"'`\\\x00-\x1f\x7f-\x9f]+\Z", re.IGNORECASE)
# A workflow command: ``::name …`` at the start of a line (the runner trims leading blanks),
# or the legacy ``##[name]`` anywhere in it.
_WORKFLOW_COMMAND_RE = re.compile(r"^([ \t]*)::", re.MULTILINE)
_LEGACY_COMMAND = "##["
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _visible(ch: str) -> str:
    """A control character as the Python escape that names it (``\\x1b``, ``\\u202e``)."""
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    if code > 0xFFFF:
        return f"\\U{code:08x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _one_line_breaks(text: str) -> str:
    """``\\r\\n`` and a lone ``\\r`` as ``\\n``: the line endings CommonMark and terminals act on."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def visible(value: Any, keep_newlines: bool = False) -> str:
    """``value`` with every control, bidi and separator character spelt out (tab and, if asked, newline kept)."""
    text = _text(value)
    if keep_newlines:
        return _UNSAFE_RE.sub(lambda m: _visible(m.group()), text)
    return _UNSAFE_OR_LF_RE.sub(lambda m: _visible(m.group()), text)


def md_text(value: Any) -> str:
    """Inline Markdown prose: one line, no markup, no entity, no raw HTML."""
    text = _one_line_breaks(_text(value)).replace("\n", " ")
    return _MD_ACTIVE_RE.sub(r"\\\1", visible(text))


def md_code(value: Any) -> str:
    """An inline code span of ``value`` on one line: line breaks and controls spelt out."""
    text = visible(value)
    fence = "`"
    while fence in text:
        fence += "`"
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip(" ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_fence(value: Any, lang: str = "") -> str:
    """A fenced code block longer than any backtick run inside; controls spelt out, lines kept."""
    text = visible(_text(value).replace("\r\n", "\n"), keep_newlines=True)
    fence = "```"
    while fence in text:
        fence += "`"
    info = re.sub(r"[^\w+.-]", "", _text(lang))
    return f"{fence}{info}\n{text.rstrip()}\n{fence}"


def md_quote(value: Any) -> str:
    """PR text block-quoted line by line: it stays Markdown but cannot leave the quote.

    Python dunders written bare in prose (``__init__``) stay names, never bold.
    """
    text = visible(_one_line_breaks(_text(value)).strip(), keep_newlines=True)
    lines, fenced = [], False
    for line in text.split("\n"):
        if _FENCE_LINE_RE.match(line):
            fenced = not fenced
        elif not fenced:
            parts = _CODE_SPAN_RE.split(line)
            line = "".join(
                p if i % 2 else _DUNDER_RE.sub(r"\\_\\_\1\\_\\_", p) for i, p in enumerate(parts)
            )
        lines.append("> " + line if line.strip() else ">")
    return "\n".join(lines)


_FENCE_LINE_RE = re.compile(r"^\s{0,3}(```|~~~)")
_CODE_SPAN_RE = re.compile(r"(`+[^`]*`+)")
_DUNDER_RE = re.compile(r"(?<![\w\\])__([A-Za-z0-9]\w*?)__(?!\w)")


def md_url(value: Any) -> str:
    """``value`` if it is a plain http(s) URL safe as a link target, else ``""``."""
    text = _text(value).strip()
    return text if _URL_RE.match(text) else ""


def terminal_text(value: Any) -> str:
    """A document for stdout: controls spelt out, no line a workflow command (``::``/``##[``)."""
    text = visible(_one_line_breaks(_text(value)), keep_newlines=True)
    # A backslash before ``:`` or ``#`` is a no-op in Markdown prose and visible in code.
    text = _WORKFLOW_COMMAND_RE.sub(r"\1\\::", text)
    return text.replace(_LEGACY_COMMAND, "#\\#[")


def terminal_json(value: Any) -> str:
    """JSON text for stdout: the same JSON value, its control and bidi characters as ``\\uXXXX``."""
    return _UNSAFE_RE.sub(lambda m: _json_escape(ord(m.group())), _text(value))


def _json_escape(code: int) -> str:
    """``\\uXXXX`` of a code point, as a surrogate pair past the Basic Multilingual Plane."""
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def terminal_line(value: Any) -> str:
    """One message line for stderr/stdout (``error: …``): line breaks and controls spelt out."""
    return terminal_text(visible(value))


# GitHub Actions workflow commands (``::warning file=…,line=…,title=…::message``): the runner
# decodes these escapes (actions/toolkit ``escapeData`` / ``escapeProperty``). Other control,
# bidi and invisible characters are spelt out first: the command line lands in the job log.
_COMMAND_DATA = {"%": "%25", "\r": "%0D", "\n": "%0A"}
_COMMAND_PROPERTY = {**_COMMAND_DATA, ":": "%3A", ",": "%2C"}
_UNSAFE_BUT_CR_RE = re.compile(
    f"[{_UNSAFE.replace(chr(11) + '-', chr(11) + chr(12) + chr(14) + '-')}]"
)


def _command_escape(value: Any, table: dict[str, str]) -> str:
    text = _UNSAFE_BUT_CR_RE.sub(lambda m: _visible(m.group()), _text(value))
    return "".join(table.get(ch, ch) for ch in text)


def command_data(value: Any) -> str:
    """The message of a workflow command: ``%``, ``\\r``, ``\\n`` escaped as GitHub decodes them."""
    return _command_escape(value, _COMMAND_DATA)


def command_property(value: Any) -> str:
    """A property value of a workflow command (``file=``, ``title=``): also ``:`` and ``,``."""
    return _command_escape(value, _COMMAND_PROPERTY)
