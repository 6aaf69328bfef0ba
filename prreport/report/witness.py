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
import keyword
import re
import token
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from prreport.report.hunklines import (
    calls_any,
    expanded,
    kept_values,
    locals_of,
    mentions,
    outside_definitions,
    running,
    without_imports,
)
from prreport.report.linetokens import (
    atoms_of,
    indent_of,
    is_code,
    is_literal,
    is_name,
    is_operator,
    line_tokens,
    token_key,
)

# A statement with an effect, by its first token(s); an assignment to a plain name is not one.
_EFFECT_START = re.compile(r"^\s*(raise|return|yield|del|assert|global|nonlocal)\b")
_STORE_INTO = re.compile(r"^\s*[\w.]+(\.\w+|\[[^\]]*\])\s*(=|\+=|-=|\*=|/=|\|=|&=)(?!=)")
_CALL_STATEMENT = re.compile(r"^\s*(await\s+)?[\w.]+(\[[^\]]*\])?\s*\(.*\)\s*$")
_NEW_BRANCH = re.compile(r"^\s*(if|elif|except)\b")
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
    refactored: frozenset[str] | tuple[frozenset[str], frozenset[str]] = frozenset(),
    names: Callable[[], tuple[frozenset[str], frozenset[str]]] | None = None,
    elements: Callable[[str, str, int, str], bool] | None = None,
) -> list[Witness]:
    """Every witnessed behaviour change among the left-over lines of ``hunks``, in line order.

    ``refactored``: names of definitions a refactor finding of the PR is about (an extracted
    or inlined helper, a moved or renamed definition), or (those names, the extracted and
    inlined helpers among them). A call of one of them added in place of the code it replaced
    is that refactoring, unproven — not a witness; so are a helper's call replaced by its code
    and the removed body of a helper (an inlining).

    ``names``: gives every identifier of the PR's Python files before and after the change
    (their whole texts; asked only when some line differs by names alone). A name the PR replaces by another everywhere — the old one is on no after
    line, the new one on no before line (``_renames``) — is a rename, read as the new name on
    the removed lines; and a statement removed here and added elsewhere in the PR (or the
    reverse) is a re-placement: unproven, never a witness by itself.

    ``elements``: whether a line (path, side "-"/"+", number, text) holds whole elements of a
    value being built (``linekinds.element_lines``: a dict entry, a call's argument on its own
    line); such a line added or removed is a witness like a statement with an effect (asked
    only for a line that is no statement and whose atoms are not all on the other side)."""
    renames = _renames(hunks, names) if names is not None else {}
    spell = _Speller(renames)
    elsewhere = (
        {spell.key(t) for h in hunks for _, t in h.removed if is_code(t)},
        {token_key(t) for h in hunks for _, t in h.added if is_code(t)},
    )
    kept = kept_values([t for h in hunks for _, t in h.added])
    # (every refactored name, the helpers among them: extracted or inlined definitions)
    names_of = refactored if isinstance(refactored, tuple) else (refactored, refactored)
    out: list[Witness] = []
    for hunk in hunks:
        out.extend(_of_hunk(hunk, names_of, spell, elsewhere, elements or _no_elements, kept))
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
        return token_key(self(text))


def _renames(
    hunks: Sequence[Hunk], names: Callable[[], tuple[frozenset[str], frozenset[str]]]
) -> dict[str, str]:
    """Names the PR replaces by another everywhere (old -> new): lines replaced one for one
    that differ only by names; the old name on no after line, the new one on no before line
    and defined by the PR (``sys.stdout`` -> ``sys.stderr`` is no rename), one to one."""
    pairs: dict[str, set[str]] = {}
    for hunk in hunks:
        removed = [t for _, t in running(list(hunk.removed)) if is_code(t)]
        added = [t for _, t in running(list(hunk.added)) if is_code(t)]
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
    b, a = line_tokens(before), line_tokens(after)
    if not b or not a or len(a) != len(b):
        return []
    swaps = [(x, y) for x, y in zip(b, a, strict=True) if x != y]
    if swaps and all(is_name(x) and is_name(y) for x, y in swaps):
        return [(x[1], y[1]) for x, y in swaps]
    return []


def _of_hunk(
    hunk: Hunk,
    refactored_names: tuple[frozenset[str], frozenset[str]],
    spell: _Speller,
    elsewhere: tuple[set[tuple[str, ...] | None], set[tuple[str, ...] | None]],
    elements: Callable[[str, str, int, str], bool],
    kept: dict[str, set[str]],
) -> list[Witness]:
    refactored, helpers = refactored_names
    removed = running(without_imports([(n, t) for n, t in hunk.removed if is_code(t)]))
    added = running(without_imports([(n, t) for n, t in hunk.added if is_code(t)]))
    spelt = [(n, spell(t)) for n, t in removed]
    removed_atoms = atoms_of(t for _, t in spelt)
    # A value the PR keeps in a private attribute (``kept_values``) is read through it; a local
    # the hunk introduces (``parent = self.get(node)``) stands for what it is assigned: a line
    # reading it holds that expression's atoms (a value named once, read twice).
    added_atoms = set().union(*(expanded(t, kept) for _, t in added))
    new_locals = {**kept, **locals_of(added, removed_atoms)}
    old_locals = locals_of(spelt, added_atoms)
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
                if w is not None and w.kind in ("call", "edit") and mentions(helpers, now, after):
                    continue  # a call of a helper the PR inlined or extracted, in its place
                if w is not None:
                    w = Witness(w.path, w.side, w.line, w.kind, _original(w, now, before), w.after)
                elif (
                    before == now
                    and before.strip() != after.strip()
                    and line_tokens(before) == line_tokens(after)
                ):
                    # Code lines whose difference no token shows: text inside a string literal
                    # that spans lines (the ledger read them as code, not as comments).
                    w = Witness(hunk.path, "+", an, "text", before.strip(), after.strip())
                if w is not None:
                    out.append(w)
            continue
        # Lines added or removed with no counterpart: an effect is a witness unless every name,
        # literal and operator it holds is on the other side of the hunk (moved or re-spelled),
        # the same statement is on the other side elsewhere in the PR (re-placed), or one side
        # calls a definition the PR refactored (the code went there, or came from there).
        if atoms_of(t for _, t in new) & refactored or calls_any(gone, helpers):
            continue  # a helper the PR extracted called in place of code, or inlined
        gone = outside_definitions(gone, helpers)
        out += [
            Witness(hunk.path, "+", n, "added", "", t.strip())
            for n, t in new
            if not expanded(t, new_locals) <= removed_atoms
            and token_key(t) not in elsewhere[0]
            and (_effect(t) or elements(hunk.path, "+", n, t))
        ]
        out += [
            Witness(hunk.path, "-", n, "removed", t.strip(), "")
            for n, t in gone
            if not expanded(spell(t), old_locals) <= added_atoms
            and spell.key(t) not in elsewhere[1]
            and (_effect(t) or elements(hunk.path, "-", n, t))
        ]
    return out


def _no_elements(_path: str, _side: str, _line: int, _text: str) -> bool:
    return False


def _original(w: Witness, spelt: str, before: str) -> str:
    """A witness's removed spelling as the diff has it (not renamed)."""
    return before.strip() if w.before == spelt.strip() else w.before


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
            if all(indent_of(r[1]) != indent_of(text) for r in gone):
                out.append(Witness(path, "+", n, "moved", gone[0][1].strip(), stripped))
    return out


def _effect(text: str) -> bool:
    if _NEW_BRANCH.match(text):
        return True  # a branch or handler that decides what runs (``if x is None:``, ``except E:``)
    if _BLOCK_START.match(text):
        return False
    private = _PRIVATE_STORE.match(text)
    if private:
        # A value the code already had (a parameter, a local) kept in a private attribute of
        # the object, or no longer kept: state only its own class reads, so what those reads do
        # is the witness, not the store. A literal stored (a flag) or a value computed by a
        # call is an effect.
        value = text[private.end() :]
        return bool(_CALLS.search(value)) or any(is_literal(t) for t in line_tokens(value) or [])
    return bool(_EFFECT_START.match(text) or _STORE_INTO.match(text) or _CALL_STATEMENT.match(text))


_PRIVATE_STORE = re.compile(r"^\s*self\._(?!_)\w*\s*(:[^=]+)?=(?!=)")
_CALLS = re.compile(r"[\w\])]\s*\(")


def _substitution(
    path: str, line: int, before: str, after: str, removed_atoms: set[str]
) -> Witness | None:
    """The witness of a removed line replaced by one added line of the same shape, if any."""
    if _same_but_annotations(before, after):
        return None  # an annotation added, dropped or changed: no behaviour
    b, a = line_tokens(before), line_tokens(after)
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
            if is_literal(old[0]) and is_literal(new[0]):
                return Witness(path, "+", line, "value", old[0][1], new[0][1])
            if is_operator(old[0]) and is_operator(new[0]):
                return Witness(path, "+", line, "operator", old[0][1], new[0][1])
            if is_name(old[0]) and is_name(new[0]) and _called(a, j2) and _called(b, i2):
                return Witness(path, "+", line, "call", old[0][1], new[0][1])
            if (
                is_name(old[0])
                and is_name(new[0])
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
    if _shape(b) == _shape(a) and (atoms_of([after]) - removed_atoms):
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
    return bool(toks) and all(is_literal(t) or t[1] in ("-", "(", ")", ",") for t in toks)


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
