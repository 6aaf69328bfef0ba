"""Lines of source text, split by the rule Python's tokenizer (and a git diff) uses.

``str.splitlines()`` also breaks at form feed, ``\\x0b``, ``\\x1c``-``\\x1e``, ``\\x85`` and
U+2028/U+2029, which Python source and ``git diff``/``git grep`` keep inside a line: line
numbers computed with it drift from the real ones. Every line number in prreport comes from
these helpers instead.
"""

from __future__ import annotations

import codecs
import io
import re
import tokenize

_BREAK = re.compile(r"\r\n|\r|\n")
_LINE_KEEP = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
# Characters ``str.splitlines`` breaks at but Python does not: without any, it is safe (and fast).
# Looked for one by one with ``in`` (a fast search each; an ASCII text cannot hold the last three),
# not with a character-class regex, which costs several times more on a large module.
_ASCII_EXTRA_BREAKS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e")
_EXTRA_BREAKS = (*_ASCII_EXTRA_BREAKS, "\x85", "\u2028", "\u2029")
_LONE_CR = re.compile(r"\r(?!\n)")


def split_lines(text: str, keepends: bool = False) -> list[str]:
    """``text.splitlines(keepends)``, breaking only at ``\\n``, ``\\r\\n`` and ``\\r``."""
    extra = _ASCII_EXTRA_BREAKS if text.isascii() else _EXTRA_BREAKS
    if not any(c in text for c in extra):
        return text.splitlines(keepends)
    if keepends:
        return _LINE_KEEP.findall(text)
    lines = _BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()  # a final line break ends the last line, it does not start a new one
    return lines


def has_lone_cr(text: str) -> bool:
    """True when ``text`` has a ``\\r`` not followed by ``\\n`` (old Mac line ends).

    Python counts such a ``\\r`` as a line break, git does not: line numbers of the file's
    diff and of its syntax tree disagree.
    """
    return "\r" in text and _LONE_CR.search(text) is not None


def source_encoding(data: bytes) -> str:
    """The encoding Python reads source ``data`` in (PEP 263): the one a coding declaration in
    its first two lines or a UTF-8 byte-order mark names, else UTF-8."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        # No usable declaration (an unknown codec, non-UTF-8 bytes where one would have to be,
        # a byte-order mark with another declaration): the text is UTF-8 or unreadable.
        return "utf-8-sig"
    # A codec of bytes to bytes (``rot13``, ``hex``...) is no text encoding: Python refuses it.
    if not getattr(codecs.lookup(encoding), "_is_text_encoding", True):
        return "utf-8-sig"
    return encoding
