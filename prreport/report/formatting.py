"""Formatting-only lines: a replaced line whose code is the same, only its comment or spacing differs.

The line ledger asks this of the replaced lines of Python files the verdict reads: such a line
changes nothing, so no finding needs to explain it.
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Sequence


def respaced(
    pairs: tuple[tuple[int, int], ...], before: Sequence[str], after: Sequence[str]
) -> set[tuple[str, int]]:
    """Lines of ``pairs`` (before, after) whose code is the same: same indentation, same tokens
    once comments and spacing are set aside, neither inside a multi-line string."""
    same = []
    for o, n in pairs:
        if not (0 < o <= len(before) and 0 < n <= len(after)):
            continue
        b, a = before[o - 1], after[n - 1]
        if b == a or _indent(b) != _indent(a):
            continue
        tb = _code_tokens(b)
        if tb is not None and tb == _code_tokens(a):
            same.append((o, n))
    if not same:
        return set()
    # Confirm on the whole files: a line inside a multi-line string is text, not code.
    in_b, in_a = _in_multiline_tokens(before), _in_multiline_tokens(after)
    return {x for o, n in same if o not in in_b and n not in in_a for x in (("-", o), ("+", n))}


def _in_multiline_tokens(rows: Sequence[str]) -> set[int]:
    """Line numbers covered by a token that spans lines (a multi-line string), or every line
    when the file does not tokenize."""
    covered: set[int] = set()
    try:
        for t in tokenize.generate_tokens(io.StringIO("\n".join(rows) + "\n").readline):
            if t.start[0] != t.end[0] and t.type not in (tokenize.NL, tokenize.NEWLINE):
                covered.update(range(t.start[0], t.end[0] + 1))
    except (tokenize.TokenError, SyntaxError):
        return set(range(1, len(rows) + 1))
    return covered


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


_NOT_CODE = frozenset(
    (
        tokenize.COMMENT,
        tokenize.NL,
        tokenize.NEWLINE,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.ENDMARKER,
    )
)


def _code_tokens(line: str) -> list[tuple[int, str]] | None:
    """The code tokens of one line, or None when it does not tokenize on its own (a line inside
    a multi-line string or bracket)."""
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(line.strip() + "\n").readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    if any(t.type == tokenize.ERRORTOKEN for t in toks):
        return None
    return [(t.type, t.string) for t in toks if t.type not in _NOT_CODE]
