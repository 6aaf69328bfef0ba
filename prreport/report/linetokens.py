"""One line of Python read as tokens, without parsing it: its significant tokens, the names,
literals and operators it holds, and what kind of token each is (the witness reader's input).
"""

from __future__ import annotations

import io
import keyword
import token
import tokenize
from collections.abc import Iterable

COMPARE = {"<", "<=", ">", ">=", "==", "!=", "is", "in"}
ARITH = {"+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>"}
BOOL = {"and", "or"}
LITERAL_NAMES = {"True", "False", "None"}
PUNCTUATION = {"(", ")", "[", "]", "{", "}", ",", ":", ".", ";"}
# Keywords that shape statements: the same names and values under another statement structure
# (a ``try``/``except`` written as ``with suppress``) are covered.
STRUCTURE = frozenset(keyword.kwlist) - {"and", "or", "not", "is", "in", "True", "False", "None"}


def line_tokens(text: str) -> list[tuple[int, str]] | None:
    """Significant tokens of one line (comments and layout dropped); None when it does not tokenize."""
    keep = (token.NAME, token.NUMBER, token.STRING, token.OP)
    out: list[tuple[int, str]] = []
    try:
        for t in tokenize.generate_tokens(io.StringIO(text.strip() + "\n").readline):
            if t.type in keep:
                out.append((t.type, t.string))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        # One line of a statement over several lines (``raise E(`` ...): its tokens so far.
        if not out:
            return None
    return out


def token_key(text: str) -> tuple[str, ...] | None:
    toks = line_tokens(text)
    return tuple(t for _k, t in toks) if toks else None


def atoms_of(lines: Iterable[str]) -> set[str]:
    """The names, literals and operators of some lines (layout, brackets and commas aside)."""
    out: set[str] = set()
    for text in lines:
        for _kind, tok in line_tokens(text) or []:
            if tok not in PUNCTUATION and tok not in STRUCTURE:
                out.add(tok)
    return out


def is_code(text: str) -> bool:
    stripped = text.strip()
    return bool(stripped) and not stripped.startswith("#")


def indent_of(text: str) -> int:
    return len(text) - len(text.lstrip())


def is_literal(tok: tuple[int, str]) -> bool:
    kind, text = tok
    return kind in (token.NUMBER, token.STRING) or (kind == token.NAME and text in LITERAL_NAMES)


def is_operator(tok: tuple[int, str]) -> bool:
    return tok[1] in COMPARE | ARITH | BOOL


def is_name(tok: tuple[int, str]) -> bool:
    return tok[0] == token.NAME and not keyword.iskeyword(tok[1]) and tok[1] not in LITERAL_NAMES
