"""Witnesses: left-over edits under which some input observably behaves differently.

A changed line that no proof explains is *unproven*, not *changed*. It becomes a witnessed
behaviour change only when the edit itself says what differs, read token by token from the
removed and added lines of one hunk:

- ``value``: one literal replaced by another (``timeout=30`` -> ``timeout=60``), or a
  ``return``/``raise``/default whose value is a literal on one side (``return user.is_admin``
  -> ``return True``);
- ``operator``: a comparison, arithmetic or boolean operator replaced, or ``not`` added or
  dropped (``if n > 0`` -> ``if n >= 0``);
- ``call``: the same statement now calls another function (``self._read(p)`` ->
  ``self.read_all(p)``) — a proof that the two are equal would have explained the line;
- ``removed`` / ``added``: a hunk that only deletes (or only adds) lines, among them a
  statement with an effect (a call, ``raise``, ``return``, a store into an attribute or an item).

Anything else — statements split, merged, reordered or re-spelled — is a restructuring the
engine could not prove: left to review, never called a change. Pure: text in, data out.
"""

from __future__ import annotations

import difflib
import io
import keyword
import re
import token
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass

_COMPARE = {"<", "<=", ">", ">=", "==", "!=", "is", "in"}
_ARITH = {"+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>"}
_BOOL = {"and", "or"}
_LITERAL_NAMES = {"True", "False", "None"}
# A statement with an effect, by its first token(s); an assignment to a plain name is not one.
_EFFECT_START = re.compile(r"^\s*(raise|return|yield|del|assert|global|nonlocal)\b")
_STORE_INTO = re.compile(r"^\s*[\w.]+(\.\w+|\[[^\]]*\])\s*(=|\+=|-=|\*=|/=|\|=|&=)(?!=)")
_CALL_STATEMENT = re.compile(r"^\s*(await\s+)?[\w.]+(\[[^\]]*\])?\s*\(.*\)\s*$")
_BLOCK_START = re.compile(r"^\s*(if|elif|else|for|while|try|except|finally|with|def|class|async)\b")


@dataclass(frozen=True)
class Witness:
    """One edit that changes behaviour: its line (after side when it has one) and what differs."""

    path: str
    side: str  # "+" or "-"
    line: int
    kind: str  # value | operator | call | removed | added
    before: str  # the removed spelling (a token, an expression or a statement), "" for added
    after: str  # the added spelling, "" for removed


@dataclass(frozen=True)
class Hunk:
    """Left-over lines of one diff hunk: (line number, text) removed and added."""

    path: str
    removed: tuple[tuple[int, str], ...]
    added: tuple[tuple[int, str], ...]


def witnesses(hunks: Sequence[Hunk]) -> list[Witness]:
    """Every witnessed behaviour change among the left-over lines of ``hunks``, in line order."""
    out: list[Witness] = []
    for hunk in hunks:
        out.extend(_of_hunk(hunk))
    return sorted(set(out), key=lambda w: (w.path, w.line, w.side, w.kind, w.before, w.after))


def _of_hunk(hunk: Hunk) -> list[Witness]:
    removed = [(n, t) for n, t in hunk.removed if _code(t)]
    added = [(n, t) for n, t in hunk.added if _code(t)]
    if removed and not added:
        return [
            Witness(hunk.path, "-", n, "removed", t.strip(), "") for n, t in removed if _effect(t)
        ][:1]
    if added and not removed:
        return [Witness(hunk.path, "+", n, "added", "", t.strip()) for n, t in added if _effect(t)][
            :1
        ]
    if len(removed) != len(added):
        return []  # statements split or merged: a restructuring, not read as a change
    out = []
    for (_, before), (an, after) in zip(removed, added, strict=True):
        w = _substitution(hunk.path, an, before, after)
        if w is None and _tokens(before) != _tokens(after):
            return []  # one pair is not a plain substitution: the hunk is a restructuring
        if w is not None:
            out.append(w)
    return out[:1]


def _code(text: str) -> bool:
    stripped = text.strip()
    return bool(stripped) and not stripped.startswith("#")


def _effect(text: str) -> bool:
    if _BLOCK_START.match(text):
        return False
    return bool(_EFFECT_START.match(text) or _STORE_INTO.match(text) or _CALL_STATEMENT.match(text))


def _tokens(text: str) -> list[tuple[int, str]] | None:
    """Significant tokens of one line (comments and layout dropped); None when it does not tokenize."""
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(text.strip() + "\n").readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    keep = (token.NAME, token.NUMBER, token.STRING, token.OP)
    return [(t.type, t.string) for t in toks if t.type in keep]


def _literal(tok: tuple[int, str]) -> bool:
    kind, text = tok
    return kind in (token.NUMBER, token.STRING) or (kind == token.NAME and text in _LITERAL_NAMES)


def _operator(tok: tuple[int, str]) -> bool:
    return tok[1] in _COMPARE | _ARITH | _BOOL


def _name(tok: tuple[int, str]) -> bool:
    return tok[0] == token.NAME and not keyword.iskeyword(tok[1]) and tok[1] not in _LITERAL_NAMES


def _substitution(path: str, line: int, before: str, after: str) -> Witness | None:
    """The witness of a removed line replaced by one added line of the same shape, if any."""
    b, a = _tokens(before), _tokens(after)
    if not b or not a or b == a:
        return None
    ops = [
        op
        for op in difflib.SequenceMatcher(a=b, b=a, autojunk=False).get_opcodes()
        if op[0] != "equal"
    ]
    if len(ops) == 1:
        tag, i1, i2, j1, j2 = ops[0]
        old, new = b[i1:i2], a[j1:j2]
        if tag == "replace" and len(old) == 1 and len(new) == 1:
            if _literal(old[0]) and _literal(new[0]):
                return Witness(path, "+", line, "value", old[0][1], new[0][1])
            if _operator(old[0]) and _operator(new[0]):
                return Witness(path, "+", line, "operator", old[0][1], new[0][1])
            if _name(old[0]) and _name(new[0]) and _called(a, j2) and _called(b, i2):
                return Witness(path, "+", line, "call", old[0][1], new[0][1])
        if tag in ("insert", "delete") and [t[1] for t in old + new] == ["not"]:
            return Witness(
                path,
                "+",
                line,
                "operator",
                " ".join(t[1] for t in old),
                " ".join(t[1] for t in new),
            )
    lead = b[0][1]
    if lead in ("return", "raise", "yield") and a[0][1] == lead:
        old_value, new_value = b[1:], a[1:]
        if _all_literal(old_value) or _all_literal(new_value):
            return Witness(path, "+", line, "value", _after(before, lead), _after(after, lead))
    return None


def _after(text: str, lead: str) -> str:
    return text.strip()[len(lead) :].strip()


def _all_literal(toks: list[tuple[int, str]]) -> bool:
    return bool(toks) and all(_literal(t) or t[1] in ("-", "(", ")", ",") for t in toks)


def _called(toks: list[tuple[int, str]], at: int) -> bool:
    return at < len(toks) and toks[at][1] == "("
