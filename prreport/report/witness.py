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
- ``moved``: a statement with an effect removed and added a different number of times at
  another indentation (taken out of some branches and put once before them);
- ``text``: a line inside a string literal over several lines that reads differently;
- ``edit``: the same statement (keyword, callee or target) now holding a name, literal or
  operator the hunk's removed lines did not have (``if a:`` -> ``if a and b:``);
- ``removed`` / ``added``: a statement with an effect (a call, ``raise``, ``return``, a store
  into an attribute or an item) with no counterpart, whose names, literals and operators are not
  all on the other side of the hunk (a line moved or re-spelled within the hunk is no witness).

Anything else — statements split, merged, reordered or re-spelled — is a restructuring the
engine could not prove: left to review, never called a change; so is a line that differs only
in its annotations (a ``def`` header, ``x: T = v``) and any line of an ``if TYPE_CHECKING:``
block (it never runs). Pure: text in, data out.
"""

from __future__ import annotations

import ast
import difflib
import io
import keyword
import re
import token
import tokenize
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

_COMPARE = {"<", "<=", ">", ">=", "==", "!=", "is", "in"}
_ARITH = {"+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>"}
_BOOL = {"and", "or"}
_LITERAL_NAMES = {"True", "False", "None"}
_PUNCTUATION = {"(", ")", "[", "]", "{", "}", ",", ":", ".", ";"}
# Keywords that shape statements: the same names and values under another statement structure
# (a ``try``/``except`` written as ``with suppress``) are covered.
_STRUCTURE = frozenset(keyword.kwlist) - {"and", "or", "not", "is", "in", "True", "False", "None"}
# A statement with an effect, by its first token(s); an assignment to a plain name is not one.
_EFFECT_START = re.compile(r"^\s*(raise|return|yield|del|assert|global|nonlocal)\b")
_STORE_INTO = re.compile(r"^\s*[\w.]+(\.\w+|\[[^\]]*\])\s*(=|\+=|-=|\*=|/=|\|=|&=)(?!=)")
_CALL_STATEMENT = re.compile(r"^\s*(await\s+)?[\w.]+(\[[^\]]*\])?\s*\(.*\)\s*$")
_NEW_BRANCH = re.compile(r"^\s*(if|elif|except)\b")
_TYPE_CHECKING = re.compile(r"^\s*if\s+(typing\.)?TYPE_CHECKING\s*:\s*(#.*)?$")
# A name a line defines: ``def``/``class name`` or a store (``self.name: T =``, not ``==``).
_DEFINES = re.compile(
    r"\b(?:def|class)\s+([A-Za-z_]\w*)|([A-Za-z_]\w*)\s*(?::[^=]*)?(?:[-+*/|&]?=)(?!=)"
)
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


def witnesses(
    hunks: Sequence[Hunk],
    refactored: frozenset[str] = frozenset(),
    names: Callable[[], tuple[frozenset[str], frozenset[str]]] | None = None,
) -> list[Witness]:
    """Every witnessed behaviour change among the left-over lines of ``hunks``, in line order.

    ``refactored``: names of definitions a refactor finding of the PR is about (an extracted
    or inlined helper, a moved or renamed definition). A call of one of them in place of the
    code it replaced is that refactoring, unproven — not a witness.

    ``names``: gives every identifier of the PR's Python files before and after the change
    (their whole texts; asked only when some line differs by names alone). A name the PR replaces by another everywhere — the old one is on no after
    line, the new one on no before line (``_renames``) — is a rename, read as the new name on
    the removed lines; and a statement removed here and added elsewhere in the PR (or the
    reverse) is a re-placement: unproven, never a witness by itself."""
    renames = _renames(hunks, names) if names is not None else {}
    spell = _Speller(renames)
    elsewhere = (
        {spell.key(t) for h in hunks for _, t in h.removed if _code(t)},
        {_key(t) for h in hunks for _, t in h.added if _code(t)},
    )
    out: list[Witness] = []
    for hunk in hunks:
        out.extend(_of_hunk(hunk, refactored, spell, elsewhere))
    return sorted(set(out), key=lambda w: (w.path, w.line, w.side, w.kind, w.before, w.after))


class _Speller:
    """Removed lines spelled with the PR's consistent renames applied (``_renames``)."""

    def __init__(self, renames: dict[str, str]) -> None:
        self.renames = renames
        self._pattern = (
            re.compile(r"\b(" + "|".join(map(re.escape, sorted(renames))) + r")\b")
            if renames
            else None
        )

    def __call__(self, text: str) -> str:
        if self._pattern is None:
            return text
        return self._pattern.sub(lambda m: self.renames[m.group(1)], text)

    def key(self, text: str) -> tuple[str, ...] | None:
        return _key(self(text))


def _key(text: str) -> tuple[str, ...] | None:
    toks = _tokens(text)
    return tuple(t for _k, t in toks) if toks else None


def _renames(
    hunks: Sequence[Hunk], names: Callable[[], tuple[frozenset[str], frozenset[str]]]
) -> dict[str, str]:
    """Names the PR replaces by another everywhere (old -> new): lines replaced one for one
    that differ only by names; the old name on no after line, the new one on no before line
    and defined by the PR (``sys.stdout`` -> ``sys.stderr`` is no rename), one to one."""
    pairs: dict[str, set[str]] = {}
    for hunk in hunks:
        removed = [t for _, t in _running(list(hunk.removed)) if _code(t)]
        added = [t for _, t in _running(list(hunk.added)) if _code(t)]
        matcher = difflib.SequenceMatcher(
            a=[t.strip() for t in removed], b=[t.strip() for t in added], autojunk=False
        )
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "replace" or i2 - i1 != j2 - j1:
                continue
            for old_line, new_line in zip(removed[i1:i2], added[j1:j2], strict=True):
                for old, new in _name_swaps(old_line, new_line):
                    pairs.setdefault(old, set()).add(new)
    if not pairs:
        return {}
    before, after = names()
    sources = Counter(new for news in pairs.values() for new in news)
    defined = {
        m.group(1) or m.group(2)
        for hunk in hunks
        for _, t in hunk.added
        for m in _DEFINES.finditer(t)
    }
    return {
        old: news[0]
        for old, news in ((o, sorted(n)) for o, n in pairs.items())
        if len(news) == 1
        and sources[news[0]] == 1
        and old not in after
        and news[0] not in before
        and news[0] in defined
    }


def _name_swaps(before: str, after: str) -> list[tuple[str, str]]:
    """The (old, new) names of two lines that differ only by names replaced one for one."""
    b, a = _tokens(before), _tokens(after)
    if not b or not a or len(a) != len(b):
        return []
    swaps = [(x, y) for x, y in zip(b, a, strict=True) if x != y]
    if swaps and all(_name(x) and _name(y) for x, y in swaps):
        return [(x[1], y[1]) for x, y in swaps]
    return []


def _of_hunk(
    hunk: Hunk,
    refactored: frozenset[str],
    spell: _Speller,
    elsewhere: tuple[set[tuple[str, ...] | None], set[tuple[str, ...] | None]],
) -> list[Witness]:
    removed = _running([(n, t) for n, t in hunk.removed if _code(t)])
    added = _running([(n, t) for n, t in hunk.added if _code(t)])
    spelt = [(n, spell(t)) for n, t in removed]
    removed_atoms = _atoms(t for _, t in spelt)
    added_atoms = _atoms(t for _, t in added)
    out = _regrouped(hunk.path, spelt, added)
    matcher = difflib.SequenceMatcher(
        a=[t.rstrip() for _, t in spelt], b=[t.rstrip() for _, t in added], autojunk=False
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        gone, new = removed[i1:i2], added[j1:j2]
        if tag == "replace" and len(gone) == len(new):
            for (_, before), (_, now), (an, after) in zip(gone, spelt[i1:i2], new, strict=True):
                w = _substitution(hunk.path, an, now, after, removed_atoms)
                if w is not None:
                    w = Witness(w.path, w.side, w.line, w.kind, _original(w, now, before), w.after)
                elif (
                    before == now
                    and before.strip() != after.strip()
                    and _tokens(before) == _tokens(after)
                ):
                    # Code lines whose difference no token shows: text inside a string literal
                    # that spans lines (the ledger read them as code, not as comments).
                    w = Witness(hunk.path, "+", an, "text", before.strip(), after.strip())
                if w is not None:
                    out.append(w)
            continue
        # Lines added or removed with no counterpart: an effect is a witness unless every name,
        # literal and operator it holds is on the other side of the hunk (moved or re-spelled),
        # the same statement is on the other side elsewhere in the PR (re-placed), or the added
        # side calls a definition the PR refactored (the code it replaced went there).
        if _atoms(t for _, t in new) & refactored:
            continue
        out += [
            Witness(hunk.path, "+", n, "added", "", t.strip())
            for n, t in new
            if _effect(t) and not _atoms([t]) <= removed_atoms and _key(t) not in elsewhere[0]
        ]
        out += [
            Witness(hunk.path, "-", n, "removed", t.strip(), "")
            for n, t in gone
            if _effect(t)
            and not _atoms([spell(t)]) <= added_atoms
            and spell.key(t) not in elsewhere[1]
        ]
    return out


def _original(w: Witness, spelt: str, before: str) -> str:
    """A witness's removed spelling as the diff has it (not renamed)."""
    return before.strip() if w.before == spelt.strip() else w.before


def _running(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The lines without ``if TYPE_CHECKING:`` blocks (never run: only type checkers read them)."""
    out: list[tuple[int, str]] = []
    inside: int | None = None  # the indentation of the ``if TYPE_CHECKING:`` being skipped
    for n, text in lines:
        if inside is not None and _indent(text) > inside:
            continue
        inside = _indent(text) if _TYPE_CHECKING.match(text) else None
        if inside is None:
            out.append((n, text))
    return out


def _same_but_annotations(before: str, after: str) -> bool:
    """Two lines that are one ``def`` header or one assignment differing only in annotations."""
    trees = []
    for text in (before.strip(), after.strip()):
        code = text + ("\n    pass" if text.endswith(":") else "")
        try:
            tree = ast.parse(code).body[0]
        except SyntaxError:
            return False
        trees.append(_unannotated(tree))
    return trees[0] is not None and trees[0] == trees[1]


def _unannotated(st: ast.stmt) -> str | None:
    if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef):
        st.returns = None
        for arg in ast.walk(st.args):
            if isinstance(arg, ast.arg):
                arg.annotation = None
        return ast.dump(st)
    if isinstance(st, ast.AnnAssign) and st.value is not None and st.simple:
        return ast.dump(ast.Assign(targets=[st.target], value=st.value))
    if isinstance(st, ast.Assign):
        return ast.dump(st)
    return None


def _regrouped(
    path: str, removed: list[tuple[int, str]], added: list[tuple[int, str]]
) -> list[Witness]:
    """A statement with an effect that the hunk removes and adds a different number of times at
    another indentation: it now runs under other conditions (``log(x)`` taken out of two of the
    branches of an ``if`` chain and put once before it runs on the paths that lacked it too)."""
    out = []
    for n, text in added:
        stripped = text.strip()
        if not _effect(text):
            continue
        gone = [r for r in removed if r[1].strip() == stripped]
        if gone and len(gone) != sum(1 for a in added if a[1].strip() == stripped):
            if all(_indent(r[1]) != _indent(text) for r in gone):
                out.append(Witness(path, "+", n, "moved", gone[0][1].strip(), stripped))
    return out


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _atoms(lines: Iterable[str]) -> set[str]:
    """The names, literals and operators of some lines (layout, brackets and commas aside)."""
    out: set[str] = set()
    for text in lines:
        for _kind, tok in _tokens(text) or []:
            if tok not in _PUNCTUATION and tok not in _STRUCTURE:
                out.add(tok)
    return out


def _code(text: str) -> bool:
    stripped = text.strip()
    return bool(stripped) and not stripped.startswith("#")


def _effect(text: str) -> bool:
    if _NEW_BRANCH.match(text):
        return True  # a branch or handler that decides what runs (``if x is None:``, ``except E:``)
    if _BLOCK_START.match(text):
        return False
    return bool(_EFFECT_START.match(text) or _STORE_INTO.match(text) or _CALL_STATEMENT.match(text))


def _tokens(text: str) -> list[tuple[int, str]] | None:
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


def _literal(tok: tuple[int, str]) -> bool:
    kind, text = tok
    return kind in (token.NUMBER, token.STRING) or (kind == token.NAME and text in _LITERAL_NAMES)


def _operator(tok: tuple[int, str]) -> bool:
    return tok[1] in _COMPARE | _ARITH | _BOOL


def _name(tok: tuple[int, str]) -> bool:
    return tok[0] == token.NAME and not keyword.iskeyword(tok[1]) and tok[1] not in _LITERAL_NAMES


def _substitution(
    path: str, line: int, before: str, after: str, removed_atoms: set[str]
) -> Witness | None:
    """The witness of a removed line replaced by one added line of the same shape, if any."""
    if _same_but_annotations(before, after):
        return None  # an annotation added, dropped or changed: no behaviour
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
            if (
                _name(old[0])
                and _name(new[0])
                and new[0][1] not in removed_atoms
                and not _stored(b, i1)
                and not _stored(a, j1)
            ):
                # One name read in place of another (an exception class, a constant), where
                # neither is the target being assigned (a renamed local reads the same).
                return Witness(path, "+", line, "edit", before.strip(), after.strip())
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
    # The same kind of statement (the same keyword, the same call or the same target) that now
    # holds a name, literal or operator the hunk did not have: a condition, argument or value
    # that is different, not re-spelled.
    if _shape(b) == _shape(a) and (_atoms([after]) - removed_atoms):
        return Witness(path, "+", line, "edit", before.strip(), after.strip())
    return None


def _shape(toks: list[tuple[int, str]]) -> tuple[str, ...]:
    """What kind of statement a line is: its keyword, or the callee or target it starts with."""
    if toks[0][0] == token.NAME and keyword.iskeyword(toks[0][1]):
        return (toks[0][1],)
    head: list[str] = []
    for _kind, tok in toks:
        if tok in ("(", "=", "+=", "-=", "*=", "/=", "|=", "&=", ":"):
            return (*head, tok)
        head.append(tok)
    return tuple(head)


def _after(text: str, lead: str) -> str:
    return text.strip()[len(lead) :].strip()


def _all_literal(toks: list[tuple[int, str]]) -> bool:
    return bool(toks) and all(_literal(t) or t[1] in ("-", "(", ")", ",") for t in toks)


def _stored(toks: list[tuple[int, str]], at: int) -> bool:
    """The name at ``at`` is assigned by the line (``name = ...``, ``name += ...``, ``for name in``)."""
    after = toks[at + 1][1] if at + 1 < len(toks) else ""
    before = toks[at - 1][1] if at > 0 else ""
    if after == "," or before == ",":
        # ``a, b = ...`` unpacks into it; ``f(a, b)`` or ``(E1, E2)`` only reads it
        return any(tok == "=" for _kind, tok in toks)
    return after in ("=", "+=", "-=", "*=", "/=", "|=", "&=", ":=") or before in ("for", "as")


def _called(toks: list[tuple[int, str]], at: int) -> bool:
    return at < len(toks) and toks[at][1] == "("
