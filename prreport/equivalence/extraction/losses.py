"""Functions that lost statements in a change, and the functions that ran those statements
before and call a helper where they did now (directly, or through new functions).
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from prreport.bundle import FileChange
from prreport.equivalence.expansion.sites import (
    call_matcher,
    called_names,
    calls_in,
    imports_by_stem,
)
from prreport.equivalence.extraction.items import Item, lost_items
from prreport.python.definitions import Change, Definition, file_index
from prreport.python.sources import SourceFiles

_FUNCTION_KINDS = ("function", "method")
# New functions a call may pass through on its way to the helper (caller -> new -> helper).
_VIA_DEPTH = 2


@dataclass(frozen=True)
class Losses:
    """A function of a file's before side that lost statements in the change."""

    before: Definition
    after: Definition | None  # None: removed
    items: list[Item]


def losses(sources: SourceFiles, f: FileChange) -> list[Losses]:
    """Functions of a changed file that lost statements (removed, or changed), with those."""

    def build() -> list[Losses]:
        if f.before is None:
            return []
        removed = sorted(sources.changed(f).removed)
        before = file_index(sources, f.before_path, "before")
        after = file_index(sources, f.path, "after") if f.after is not None else {}
        out = []
        for q, d in before.items():
            k = bisect.bisect_left(removed, d.start)
            if d.kind not in _FUNCTION_KINDS or k == len(removed) or removed[k] > d.end:
                continue
            a = after.get(q)
            lost = lost_items(d, a if a is not None and a.kind == d.kind else None)
            if lost:
                out.append(Losses(d, a if a is not None and a.kind == d.kind else None, lost))
        return out

    found: list[Losses] = sources.memo(f.path, "change", "extracted-losses", build)
    return found


def _matcher(
    sources: SourceFiles, target: Definition, caller: Definition, path: str, side: str
) -> Callable[[ast.Call], bool] | None:
    """Which calls in ``caller`` (in the file side ``path``/``side``) reach ``target``."""
    stem = target.path.rsplit("/", 1)[-1].removesuffix(".py")
    if stem == "__init__" and "/" in target.path:
        stem = target.path.rsplit("/", 2)[-2]
    same = path == target.path
    imported = (
        frozenset()
        if same
        else sources.memo(
            path, side, "imports-by-stem", partial(imports_by_stem, sources.tree(path, side))
        ).get(stem, frozenset())
    )
    return call_matcher(target, caller, file_index(sources, path, side), same, imported)


def _call_lines(
    sources: SourceFiles,
    target: Definition,
    caller: Definition,
    path: str,
    side: str,
    lines: set[int] | None,
) -> list[int]:
    """Lines (among ``lines``, when given) where ``caller`` calls ``target``."""
    index = file_index(sources, path, side)
    called = sources.memo(path, side, "called-names", partial(called_names, index))
    if target.name not in called.get(caller.qualname, ()):
        return []  # no call through that name at all
    m = _matcher(sources, target, caller, path, side)
    if m is None:
        return []
    return sorted(
        {c.lineno for c in calls_in(caller.node, m) if lines is None or c.lineno in lines}
    )


def _reaches(
    sources: SourceFiles,
    change: Change,
    caller: Definition,
    path: str,
    helper: Definition,
    lines: set[int] | None,
    depth: int = _VIA_DEPTH,
) -> tuple[list[int], list[str]] | None:
    """The lines (among ``lines``) where ``caller`` calls the helper, directly or through new
    functions that do (their qualnames), or None."""
    hits = _call_lines(sources, helper, caller, path, "after", lines)
    if hits:
        return hits, []
    if depth <= 1:
        return None
    for g in change.added:
        if g.kind not in _FUNCTION_KINDS or g is helper or g is caller:
            continue
        hits = _call_lines(sources, g, caller, path, "after", lines)
        further = _reaches(sources, change, g, g.path, helper, None, depth - 1) if hits else None
        if further is not None:
            return hits, [g.qualname, *further[1]]
    return None


@dataclass(frozen=True)
class Link:
    """A function that ran lost statements before and calls the helper now."""

    caller: str  # qualname (a class: it inherits the helper in place of its own method)
    call_lines: tuple[int, ...] = ()
    via: tuple[str, ...] = ()  # new functions the calls pass through


def links(
    sources: SourceFiles, change: Change, f: FileChange, loss: Losses, helper: Definition
) -> list[Link]:
    """The functions that ran ``loss``'s statements before and call the helper where they did:
    the function itself (its new lines call it), or a caller of it whose call was replaced."""
    out = []
    added = set(sources.changed(f).added)
    if loss.after is not None:
        r = _reaches(sources, change, loss.after, f.path, helper, added)
        if r is not None:
            out.append(Link(loss.after.qualname, tuple(r[0]), tuple(r[1])))
    for g in sources.python_files():
        if g.before is None or g.after is None:
            continue
        before = file_index(sources, g.before_path, "before")
        after = file_index(sources, g.path, "after")
        removed, new_lines = set(sources.changed(g).removed), set(sources.changed(g).added)
        for q, c in before.items():
            if c.kind not in _FUNCTION_KINDS or c is loss.before:
                continue
            if not _call_lines(sources, loss.before, c, g.before_path, "before", removed):
                continue
            a = after.get(q)
            if (
                a is None
                or a.kind != c.kind
                or (a.path, a.qualname) == (helper.path, helper.qualname)
            ):
                continue
            r = _reaches(sources, change, a, g.path, helper, new_lines)
            if r is not None:
                out.append(Link(q, tuple(r[0]), tuple(r[1])))
    return out
