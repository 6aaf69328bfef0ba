"""Helpers whose code is found, edited, among the statements their callers lost.

A helper that is no verbatim copy (a statement added, a guard moved in, a caller's local or
constant made a parameter, a default) is still extracted when a substantial share of its body
is found among the statements some function lost, and the code that ran those statements now
calls the helper there (or, for a body pulled up into a base method, the classes whose
override was removed now inherit it). Never proven: a "different" site with its residual (what
the helper does that the lost statements did not, and the reverse), so the verdict follows from
the callers' own findings.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from prreport.bundle import FileChange
from prreport.equivalence.extraction.cover import (
    COVERED,
    MIN_ITEMS,
    MIN_WEIGHT,
    cover,
    edit_residual,
)
from prreport.equivalence.extraction.items import Item, lost_items
from prreport.equivalence.extraction.losses import Link, Losses, links, losses
from prreport.equivalence.moves import moves
from prreport.python.definitions import Change, Definition, file_index
from prreport.python.mro import mro_reaches
from prreport.python.sources import SourceFiles


@dataclass(frozen=True)
class EditedSite:
    """A function that lost statements found, edited, in the helper, and what runs them now."""

    path: str
    scope: str
    scope_removed: bool  # removed with the change (replaced), or still there, having lost code
    before_line: int
    before_end: int
    callers: tuple[str, ...]  # functions calling the helper where they ran the statements
    call_lines: tuple[int, ...]
    via: tuple[str, ...]  # new functions the calls pass through
    calls: int
    share: float  # of the helper's code found there
    bindings: dict[str, str]  # helper parameter/local -> the caller expression, where renamed
    line_map: tuple[tuple[int, int], ...]  # (lost line, helper line)
    residual: tuple[str, ...]


def edited_sites(
    sources: SourceFiles,
    change: Change,
    helper: Definition,
    body: list[Item],
    inherited: bool = False,
) -> list[EditedSite]:
    """The functions whose lost statements are, in a substantial share and edited, the helper's
    statements ``body``, and whose code now calls it (or, with ``inherited``, removed overrides
    whose classes now inherit it: a body pulled up), by path and line."""
    if len(body) < MIN_ITEMS:
        return []
    travelled = {(m.old.path, m.old.qualname) for m in moves(change)}
    sites = []
    for f in sources.python_files():
        for loss in losses(sources, f):
            if (loss.before.path, loss.before.qualname) in travelled:
                continue
            if inherited and (loss.after is not None or loss.before.name != helper.name):
                continue
            if not inherited and loss.after is None and _same_place(loss.before, f, helper):
                continue  # renamed with edits, not extracted
            site = _edited_site(sources, change, helper, body, f, loss, inherited)
            if site is not None:
                sites.append(site)
    sites.sort(key=lambda s: (s.path, s.before_line))
    return sites


def _edited_site(
    sources: SourceFiles,
    change: Change,
    helper: Definition,
    body: list[Item],
    f: FileChange,
    loss: Losses,
    inherited: bool,
) -> EditedSite | None:
    """The helper's code found in one function's lost statements, or None (too little of it,
    or nothing runs it in their place)."""
    found_cover = cover(helper.node, body, loss.items)
    if (
        found_cover.share < COVERED
        or len(found_cover.pairs) < MIN_ITEMS
        or sum(body[i].weight for i, _ in found_cover.pairs) < MIN_WEIGHT
    ):
        return None
    if inherited:
        cls = file_index(sources, f.path, "after").get(loss.before.parent)
        if cls is None or mro_reaches(sources, f.path, cls, helper)[0] is not True:
            return None
        runs = [Link(cls.qualname)]
    else:
        runs = links(sources, change, f, loss, helper)
    if not runs:
        return None
    found = [loss.items[j] for _, j in found_cover.pairs]
    return EditedSite(
        f.path,
        loss.before.qualname,
        loss.after is None,
        found[0].line,
        found[-1].end,
        tuple(sorted({x.caller for x in runs})),
        tuple(sorted({n for x in runs for n in x.call_lines})),
        tuple(sorted({g for x in runs for g in x.via})),
        sum(len(x.call_lines) for x in runs),
        found_cover.share,
        {k: v for k, v in sorted(found_cover.bound.items()) if k != v},
        tuple((loss.items[j].line, body[i].line) for i, j in found_cover.pairs),
        tuple(edit_residual(body, loss.items, found_cover.pairs, loss.after is None)),
    )


def _same_place(old: Definition, f: FileChange, new: Definition) -> bool:
    """True when a removed definition and a new one are the same kind in the same scope of the
    same file: the new one stands in the old one's place (a rename, possibly edited)."""
    return (f.path, old.parent, old.kind) == (new.path, new.parent, new.kind)


def grown_bases(
    sources: SourceFiles, change: Change
) -> Iterator[tuple[Definition, FileChange, list[Item]]]:
    """Methods on both sides that gained statements while same-named methods were removed
    elsewhere (a body pulled up into a base): each with the statements it gained."""
    names = {d.name for d in change.removed if d.kind == "method"}
    for f in sources.python_files():
        if f.before is None or f.after is None or not names:
            continue
        before = file_index(sources, f.before_path, "before")
        for q, d in file_index(sources, f.path, "after").items():
            old = before.get(q)
            if d.kind != "method" or d.name not in names or old is None or old.kind != "method":
                continue
            gained = lost_items(d, old)
            if gained:
                yield d, f, gained
