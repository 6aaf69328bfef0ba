"""Which left-over lines of a hunk the witness reader reads, and what a line stands for:
import statements, ``if TYPE_CHECKING:`` blocks and the bodies of definitions the PR refactored
are left out; a local a hunk introduces stands for the value it is assigned.
"""

from __future__ import annotations

import re

from prreport.report.linetokens import atoms_of, indent_of

_TYPE_CHECKING = re.compile(r"^\s*if\s+(typing\.)?TYPE_CHECKING\s*:\s*(#.*)?$")


_IMPORT = re.compile(r"^\s*(from\s+[\w.]+\s+)?import\b")


def without_imports(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The lines without import statements (a parenthesised one over several lines too): what
    an import binds, from which module however spelled, is the import analyzers' to tell (an
    import now bound to another object is a witness of its own, ``import.added``/``removed``)."""
    out: list[tuple[int, str]] = []
    open_import = False
    for n, text in lines:
        if open_import:
            open_import = ")" not in text
            continue
        if _IMPORT.match(text):
            open_import = "(" in text and ")" not in text
            continue
        out.append((n, text))
    return out


_LOCAL_ASSIGN = re.compile(r"^\s*([A-Za-z_]\w*)\s*=(?!=)(.+)$")


def locals_of(lines: list[tuple[int, str]], other: set[str]) -> dict[str, set[str]]:
    """Plain names these lines assign that the other side of the hunk never spells, each with
    the atoms of the value assigned."""
    out: dict[str, set[str]] = {}
    for _, text in lines:
        m = _LOCAL_ASSIGN.match(text)
        if m and m.group(1) not in other:
            out[m.group(1)] = atoms_of([m.group(2)])
    return out


def expanded(text: str, local: dict[str, set[str]]) -> set[str]:
    """The atoms of a line, each local of ``local`` read as the atoms of its value (and
    ``self._kept`` as the value kept: ``self`` with it)."""
    atoms = atoms_of([text])
    for name in atoms & local.keys():
        atoms = (atoms - {name}) | local[name]
        if name.startswith("_") and f"self.{name}" in text:
            atoms.discard("self")
    return atoms


def mentions(names: frozenset[str], *lines: str) -> bool:
    return bool(names) and bool(atoms_of(lines) & names)


def outside_definitions(
    lines: list[tuple[int, str]], names: frozenset[str]
) -> list[tuple[int, str]]:
    """The lines that are not the header or body of a ``def`` of one of ``names`` (a helper the
    PR inlined, moved or renamed: its removed body is that refactoring)."""
    out: list[tuple[int, str]] = []
    inside: int | None = None  # the indentation of the definition being skipped
    for n, text in lines:
        if inside is not None and indent_of(text) > inside:
            continue
        m = _DEF_NAME.match(text)
        special = m is not None and m.group(1).startswith("__")  # ``__init__`` of another class
        inside = indent_of(text) if m and m.group(1) in names and not special else None
        if inside is None:
            out.append((n, text))
    return out


_DEF_NAME = re.compile(r"^\s*(?:async\s+)?def\s+(\w+)")


def running(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The lines without ``if TYPE_CHECKING:`` blocks (never run: only type checkers read them)."""
    out: list[tuple[int, str]] = []
    inside: int | None = None  # the indentation of the ``if TYPE_CHECKING:`` being skipped
    for n, text in lines:
        if inside is not None and indent_of(text) > inside:
            continue
        inside = indent_of(text) if _TYPE_CHECKING.match(text) else None
        if inside is None:
            out.append((n, text))
    return out


_KEPT = re.compile(r"^\s*self\.(_(?!_)\w*)\s*(?::[^=]+)?=\s*([A-Za-z_]\w*)\s*$")


def kept_values(lines: list[str]) -> dict[str, set[str]]:
    """Private attributes the PR sets to a plain name (``self._styles = styles``), each with
    that name: a line reading ``self._styles`` reads the value ``styles`` held."""
    out: dict[str, set[str]] = {}
    for text in lines:
        m = _KEPT.match(text)
        if m:
            out.setdefault(m.group(1), set()).add(m.group(2))
    return {k: v for k, v in out.items() if len(v) == 1}


def calls_any(lines: list[tuple[int, str]], names: frozenset[str]) -> bool:
    """Whether some line (not a ``def`` header) calls one of ``names`` (``x.name(``, ``name(``)."""
    if not names:
        return False
    call = re.compile(r"\b(" + "|".join(map(re.escape, sorted(names))) + r")\s*\(")
    return any(call.search(t) for _, t in lines if not _DEF_NAME.match(t))
