"""Characters that make code read otherwise than it runs ("Trojan Source", CVE-2021-42574):
bidi controls, invisible characters and identifiers that look like others."""

from __future__ import annotations

import io
import re
import tokenize
import unicodedata
from collections.abc import Iterable, Iterator

from prreport.analyzers import Analyzer, register
from prreport.bundle import FileChange, PullRequestBundle
from prreport.classify import category
from prreport.findings import Finding
from prreport.python.sources import SourceFiles
from prreport.textlines import split_lines

# Bidi embeddings, overrides, isolates and marks; zero-width and invisible operators; the
# Mongolian vowel separator; a byte-order mark past the start of a file; tag characters.
_HIDDEN = re.compile(
    "[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
    "\u180e\u200b-\u200d\u2060-\u2064\ufeff\U000e0000-\U000e007f]"
)
# Positions listed per file (a file full of them needs no more to be blocked).
_MAX_POSITIONS = 50
# Scripts that legitimately share an identifier (UTS #39 "highly restrictive").
_MIXABLE = (
    frozenset({"LATIN", "CJK", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "CJK", "HANGUL"}),
    frozenset({"LATIN", "CJK", "BOPOMOFO"}),
)
# Cyrillic and Greek letters drawn like Latin ones (the homoglyphs of a spoofed name).
_LOOKALIKE = dict(
    zip(
        "аеорсухѕіјԁԛԝһӏАВЕКМНОРСТХІЈЅҮԜοναιρυχκΑΒΕΖΗΙΚΜΝΟΡΤΥΧ",
        "aeopcyxsijdqwhlABEKMHOPCTXIJSYWovaipuxkABEZHIKMNOPTYX",
        strict=True,
    )
)


def _script(ch: str) -> str:
    """The script of a letter by its Unicode name (``LATIN``, ``CYRILLIC``; "" for digits,
    ``_`` and combining marks, which belong to no script of their own)."""
    if ch.isascii():
        return "LATIN" if ch.isalpha() else ""
    if unicodedata.category(ch).startswith(("M", "N", "P")):
        return ""
    return unicodedata.name(ch, "UNKNOWN").split(" ")[0]


def spelled(text: str) -> str:
    """``text`` with every non-ASCII character as its Python escape (``v\\u0430lidate``)."""
    return "".join(
        ch if ch.isascii() else (f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}")
        for ch in text
    )


def _confusable(name: str) -> dict[str, object] | None:
    """Why an identifier may be taken for another: Python reads it as its NFKC form, it mixes
    scripts, or it is spelt wholly in letters drawn like Latin ones; None when it is plain."""
    if name.isascii():
        return None
    looks = "".join(_LOOKALIKE.get(ch, ch) for ch in name)
    nfkc = unicodedata.normalize("NFKC", name)
    scripts = sorted({s for s in map(_script, name) if s})
    if nfkc != name:
        return {"reason": "nfkc", "looks_like": nfkc, "scripts": scripts}
    if len(scripts) > 1 and not any(set(scripts) <= ok for ok in _MIXABLE):
        return {
            "reason": "mixed-script",
            "looks_like": looks if looks.isascii() else "",
            "scripts": scripts,
        }
    if looks != name and looks.isascii():
        return {"reason": "whole-script", "looks_like": looks, "scripts": scripts}
    return None


def _names(text: str) -> Iterator[tuple[int, int, str]]:
    """(line, column, identifier) of every name token of a Python text that is not ASCII."""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.NAME and not tok.string.isascii():
                yield tok.start[0], tok.start[1] + 1, tok.string
    except (tokenize.TokenError, SyntaxError, ValueError):
        return


def _lines_of(sources: SourceFiles, f: FileChange) -> set[int] | None:
    """The added lines of a changed file (None: every line, the diff not being at hand)."""
    if f.status == "added" or f.patch is None:
        return None
    return set(sources.changed(f).added)


@register
class UnicodeAnalyzer(Analyzer):
    """Bidi controls, invisible characters and confusable identifiers on changed lines.

    before: ``def validate(u): ...`` · after: ``def v\\u0430lidate(u): ...`` (a Cyrillic ``а``)
    and every caller renamed → ``unicode.confusable`` (mixed-script, looks like ``validate``);
    a ``\\u202e`` in an added comment → ``unicode.hidden`` with its line and column.
    """

    name = "unicode"

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``unicode.hidden`` per line and ``unicode.confusable`` per identifier spelling."""
        out: list[Finding] = []
        for f in bundle.files:
            text = f.after
            # Prose (docs) may need joiners (emoji sequences, Persian, Indic scripts); code may not.
            if f.binary or text is None or text.isascii() or category(f.path) in _PROSE:
                continue
            wanted = _lines_of(sources, f)
            out.extend(_hidden(f.path, text, wanted))
            if f.path.endswith((".py", ".pyi")) and _may_hold_names(text, wanted):
                out.extend(_confusables(f.path, text, wanted))
        return sorted(out, key=Finding.sort_key)


_PROSE = ("docs", "data")
# A non-ASCII letter: what a confusable identifier needs (the tokenizer runs only then).
_LETTER = re.compile(r"[^\W\d_]")


def _may_hold_names(text: str, wanted: set[int] | None) -> bool:
    """Whether a changed line has a non-ASCII letter (else no identifier on it can be one)."""
    for n, row in enumerate(split_lines(text), 1):
        if (wanted is None or n in wanted) and not row.isascii():
            if any(not ch.isascii() and _LETTER.match(ch) for ch in row):
                return True
    return False


def _joiner_in_text(row: str, at: int) -> bool:
    """A zero-width (non-)joiner right after a non-ASCII character: part of an emoji sequence
    or of a script that needs it, not something hidden in ASCII code."""
    return row[at] in "\u200c\u200d" and at > 0 and not row[at - 1].isascii()


def _hidden(path: str, text: str, wanted: set[int] | None) -> Iterator[Finding]:
    listed = 0
    for n, row in enumerate(split_lines(text), 1):
        if (wanted is not None and n not in wanted) or row.isascii():
            continue
        chars = [
            {
                "column": m.start() + 1,
                "codepoint": f"U+{ord(m.group()):04X}",
                "name": unicodedata.name(m.group(), "TAG CHARACTER"),
            }
            for m in _HIDDEN.finditer(row)
            if not (n == 1 and m.start() == 0 and m.group() == "\ufeff")  # the byte-order mark
            and not _joiner_in_text(row, m.start())
        ]
        if not chars or listed >= _MAX_POSITIONS:
            continue
        listed += 1
        names = sorted({str(c["name"]) for c in chars})
        yield Finding(
            "unicode.hidden",
            path,
            n,
            "",
            f"line {n} holds {len(chars)} invisible or bidi character(s): {', '.join(names)}",
            {
                "characters": chars,
                "bidi": any(unicodedata.bidirectional(_char(c)) in _BIDI for c in chars),
                "text": spelled(row.strip())[:200],
            },
        )


_BIDI = {"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI", "LRM", "RLM", "ALM"}


def _char(c: dict[str, object]) -> str:
    return chr(int(str(c["codepoint"])[2:], 16))


def _confusables(path: str, text: str, wanted: set[int] | None) -> Iterator[Finding]:
    seen: set[str] = set()
    for line, column, name in _names(text):
        if (wanted is not None and line not in wanted) or name in seen:
            continue
        why = _confusable(name)
        if why is None:
            continue
        seen.add(name)
        looks = str(why["looks_like"])
        yield Finding(
            "unicode.confusable",
            path,
            line,
            name,
            f"identifier {spelled(name)} ({why['reason']})"
            + (f" looks like {looks}" if looks else ""),
            {**why, "column": column, "spelled": spelled(name)},
        )
