"""Definitions paired across a change: moved to another file or class, renamed, or carried inside
another definition, with the proof that the pair is equal (``equality``: its body;
``relocation``: the globals it reads and the names it needs bound at import, in its new module).

A removed definition pairs with the added one of its name and family elsewhere (one equal body
decides among several), else with the one added definition of an equal body under another name,
else with a renamed-and-changed one (``renames``); a renamed module's definitions pair with
their namesakes. A new definition several removed ones map to is an extraction, and the members
of a moved class move with it.
"""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass

from prreport.classify import category
from prreport.equivalence.equality import equality
from prreport.equivalence.relocation import rebound_globals, unbound_at_import
from prreport.equivalence.renames import renamed_and_changed
from prreport.python.definitions import FAMILY, Change, Definition, file_index, module_of


@dataclass(frozen=True)
class Move:
    """A removed definition and the added one it became."""

    old: Definition
    new: Definition
    kind: str  # symbol.moved | symbol.renamed
    equality: str  # byte-identical | modulo-renames | different
    # Names its definition reads when the new module runs that the module binds only later.
    unbound: tuple[str, ...] = ()
    # Globals its body reads that name another object (or nothing) in its new module.
    rebound: tuple[str, ...] = ()


def moves(change: Change) -> list[Move]:
    """Pair removed and added definitions: same name elsewhere (moved), equal body (renamed),
    the same place or the same callers under a new name (renamed), or a renamed module (moved)."""
    return list(_paired(change)[0])


def carried(change: Change) -> frozenset[tuple[str, str]]:
    """``(path, qualname)`` of the removed and added definitions nested in a definition that moved
    or was renamed (a method of a moved class, a local class of a moved test): they travelled
    inside it, and are neither removed, added, nor moved on their own."""
    return _paired(change)[1]


def _paired(change: Change) -> tuple[tuple[Move, ...], frozenset[tuple[str, str]]]:
    sources = change.sources
    if sources is None:
        return _pair_with_parents(change)
    return sources.memo("", "", "symbol-moves", lambda: _pair_with_parents(change))


# Pairing rounds: each may find containers whose nested definitions then stop competing for
# names (a local ``__setitem__`` of a moved test made ``CaselessDict.__setitem__`` ambiguous).
_ROUNDS = 4


def _pair_with_parents(change: Change) -> tuple[tuple[Move, ...], frozenset[tuple[str, str]]]:
    """Pair the definitions, then again without those nested in a paired definition, until the
    nested ones no longer change."""
    removed = [d for d in change.removed if _pairable(d)]
    added = [d for d in change.added if _pairable(d)]
    inside: frozenset[tuple[str, str]] = frozenset()
    pairs: list[Move] = []
    for _ in range(_ROUNDS):
        pairs = _moves(
            change,
            [d for d in removed if (d.path, d.qualname) not in inside],
            [a for a in added if (a.path, a.qualname) not in inside],
        )
        now = _nested_in(pairs, change)
        if now == inside:
            break
        inside = now
    return tuple(pairs), inside


def _nested_in(pairs: list[Move], change: Change) -> frozenset[tuple[str, str]]:
    """The removed definitions nested in an old side of a pair, and the added ones in its new side."""
    out: set[tuple[str, str]] = set()
    for side, defs in (("old", change.removed), ("new", change.added)):
        homes = {(getattr(m, side).path, getattr(m, side).qualname + ".") for m in pairs}
        out |= {
            (d.path, d.qualname)
            for d in defs
            if any(d.path == p and d.qualname.startswith(q) for p, q in homes)
        }
    return frozenset(out)


def _pairable(d: Definition) -> bool:
    """Functions, methods, classes, and module-level constants other than dunders (``__all__``)."""
    if d.kind == "constant":
        return not d.parent and not (d.name.startswith("__") and d.name.endswith("__"))
    return d.kind in FAMILY


def _moves(change: Change, removed: list[Definition], added: list[Definition]) -> list[Move]:
    pairs: list[Move] = []
    for d in removed:
        same_name = [a for a in added if a.name == d.name and FAMILY[a.kind] == FAMILY[d.kind]]
        if d.kind == "constant":
            # A module-level name is only a move to another module, and only with an equal value
            # (``logger = getLogger(__name__)`` in two modules is two loggers).
            same_name = [
                a
                for a in same_name
                if change.file_of[a.path] is not change.file_of[d.path]
                and not _reads_module_dunder(d)
            ]
            if len(same_name) == 1 and equality(d, same_name[0]) != "different":
                pairs.append(Move(d, same_name[0], "symbol.moved", equality(d, same_name[0])))
            continue
        if len(same_name) > 1:
            # Several new definitions of that name: the one with an equal body is where it went
            # (the others are new code), when only one is equal.
            same_name = [a for a in same_name if equality(d, a) != "different"]
            if len(same_name) != 1:
                continue  # ambiguous: several new homes, or none equal
        if same_name:
            a = same_name[0]
            pairs.append(Move(d, a, "symbol.moved", equality(d, a)))
            continue
        equal = [
            a
            for a in added
            if FAMILY[a.kind] == FAMILY[d.kind]
            and a.kind != "constant"
            and a.name != d.name
            and equality(d, a) != "different"
            and not any(r.name == a.name for r in change.removed)
        ]
        if len(equal) == 1:
            pairs.append(Move(d, equal[0], "symbol.renamed", equality(d, equal[0])))
    found = renamed_and_changed(change, removed, added, [(m.old, m.new) for m in pairs])
    pairs += [Move(d, a, "symbol.renamed", equality(d, a)) for d, a in found]
    pairs += _module_renames(change)
    pairs = [_with_import_order(change, m) for m in pairs]
    pairs = [_with_globals(change, m, pairs) for m in pairs]
    # A function's local class or function that now sits in another function travelled with
    # the code around it (extracted or inlined): a local is no symbol anyone imports or calls.
    pairs = [
        m for m in pairs if not ("<locals>" in m.old.qualname and "<locals>" in m.new.qualname)
    ]
    # A new definition that several removed ones map to is an extraction (extracted.py).
    targets: dict[tuple[str, str], int] = {}
    for m in pairs:
        key = (m.new.path, m.new.qualname)
        targets[key] = targets.get(key, 0) + 1
    pairs = [m for m in pairs if targets[(m.new.path, m.new.qualname)] == 1]
    # Members of a moved class move with it.
    moved_classes = {(m.old.path, m.old.qualname) for m in pairs if m.old.kind == "class"}
    return [
        m
        for m in pairs
        if not any(m.old.path == p and m.old.qualname.startswith(q + ".") for p, q in moved_classes)
    ]


def _reads_module_dunder(d: Definition) -> bool:
    """A value that reads ``__name__``, ``__file__``...: it means something else in another module."""
    return any(
        isinstance(n, ast.Name) and n.id.startswith("__") and n.id.endswith("__")
        for n in ast.walk(d.node)
    )


def _module_renames(change: Change) -> list[Move]:
    """Definitions of a library module that was renamed (or moved to another package): each now
    lives in another module, under its own name (a renamed one is paired above)."""
    sources = change.sources
    if sources is None:
        return []
    out: list[Move] = []
    for f in sources.python_files():
        if f.before is None or f.after is None or f.before_path == f.path:
            continue
        if category(f.path) != "source" or module_of(f.before_path, sources) == module_of(
            f.path, sources
        ):
            continue
        before = file_index(sources, f.before_path, "before")
        after = file_index(sources, f.path, "after")
        for q, d in before.items():
            x = after.get(q)
            if d.parent or not _pairable(d) or x is None or x.kind != d.kind:
                continue
            out.append(Move(d, x, "symbol.moved", equality(d, x)))
    return out


def _with_import_order(change: Change, m: Move) -> Move:
    """``m`` with the names its new module-level definition reads as it runs that its new module
    binds only below it: the move raises NameError at import."""
    late = unbound_at_import(change.sources, m.old, m.new)
    return dataclasses.replace(m, unbound=late) if late else m


def _with_globals(change: Change, m: Move, pairs: list[Move]) -> Move:
    """``m`` with the global names its body reads that mean another object in its new module
    (the module-level definitions that moved along under their names excepted)."""
    if m.old.path == m.new.path:
        return m
    along = {
        x.old.name: x.new.name
        for x in pairs
        if x.old.path == m.old.path and x.new.path == m.new.path and not x.old.parent
    }
    bad = rebound_globals(change.sources, m.old, m.new, along)
    return dataclasses.replace(m, rebound=bad) if bad else m
