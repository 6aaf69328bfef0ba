"""Extracted code: duplicated statement runs or methods replaced by one new helper or mixin member,
and statements moved, edited, into a new helper (or a base method) that the code which ran them
now calls (or inherits)."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from prreport.analyzers import Analyzer, register
from prreport.bundle import FileChange, PullRequestBundle
from prreport.equivalence.expansion.module_code import module_extraction, module_level
from prreport.equivalence.expansion.outcome import EQUALITY_ORDER, expansion_outcome
from prreport.equivalence.expansion.sites import site_pairs
from prreport.equivalence.extraction.copies import Site, copy_sites
from prreport.equivalence.extraction.edited import edited_sites, grown_bases
from prreport.equivalence.extraction.items import Item, body_items, lost_items
from prreport.equivalence.extraction.members import member_sites, only_members
from prreport.equivalence.moves import moves
from prreport.findings import Finding
from prreport.python.definitions import (
    Change,
    Definition,
    definition_changes,
    explains,
    file_index,
    first_line,
    lines_with_blanks,
    strip_docstring,
)
from prreport.python.sources import SourceFiles

_Lines = list[tuple[str, str, int]]


@register
class ExtractedAnalyzer(Analyzer):
    """Duplicated code removed from ≥2 places and replaced by one new helper or mixin method.

    before: ``a(): x=load(); x.run()`` and ``b(): x=load(); x.run()`` · after: both call
    ``_run_loaded()`` → ``code.extracted``.
    """

    name = "extracted"

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``code.extracted`` for new helpers whose callers, expanded, equal their old code,
        for helpers and mixin members with at least two original copies, and ("different",
        with the residual) for helpers and base methods holding edited code that functions lost
        and now reach through a call or inheritance."""
        change = definition_changes(sources)
        renamed = {(m.new.path, m.new.qualname) for m in moves(change)}
        for new in change.added:
            if new.kind not in ("function", "method"):
                continue
            f_new = change.file_of[new.path]
            # A moved or renamed definition is no new helper (symbols.py follows its callers).
            moved = (new.path, new.qualname) in renamed
            expanded = None if moved else _expanded(sources, new, f_new)
            if expanded is None and not moved and new.kind == "function" and not new.parent:
                expanded = _module_finding(sources, new, f_new)
            if expanded is not None and expanded.details["proven"]:
                yield expanded
                continue
            sites = member_sites(sources, change, new) or copy_sites(sources, new)
            if len(sites) >= 2:
                # Copies compared window by window say which argument went where.
                yield _copies_finding(sources, change, new, f_new, sites)
            elif expanded is not None:
                yield expanded
            elif not moved and sources.tree(new.path, "after") is not None:
                body = body_items(strip_docstring(new.node.body))  # type: ignore[attr-defined]
                edited = _edited_finding(sources, change, new, f_new, body)
                if edited is not None:
                    yield edited
        for home, f_home, gained in grown_bases(sources, change):
            pulled = _edited_finding(sources, change, home, f_home, gained, inherited=True)
            if pulled is not None:
                yield pulled


# -- any new helper: callers expanded with its body equal their old version ----------------


def _expanded(sources: SourceFiles, new: Definition, f_new: FileChange) -> Finding | None:
    pairs = site_pairs(sources, new, "after")
    if isinstance(pairs, str) or not pairs:
        return None
    if not any(p.proof.proven or p.proof.similar for p in pairs):
        return None
    out = expansion_outcome(sources, new, f_new, pairs, "+")
    return Finding(
        "code.extracted",
        f_new.path,
        new.start,
        new.qualname,
        f"{out.scopes}: code extracted into {new.qualname} ({out.equality})",
        out.details,
        out.explains,
    )


# -- copies: statement runs replaced by a call, methods hoisted into a mixin ---------------


def _copies_finding(
    sources: SourceFiles, change: Change, new: Definition, f_new: FileChange, sites: list[Site]
) -> Finding:
    worst = max((s.equality for s in sites), key=EQUALITY_ORDER.__getitem__)
    mixin = bool(sites[0].cls)
    ex: _Lines = []
    # A mixin member explains the removed copies only where the MRO is proven to reach it.
    if worst != "different" and (
        not mixin
        or all(s.inherits is True and not s.class_relative and not s.rebound for s in sites)
    ):
        ex = _copies_explained(sources, change, new, f_new, sites, mixin)
    details = {
        "new_home": new.qualname,
        "method": new.name,
        "former_owners": sorted({s.cls for s in sites if s.cls}),
        "new_path": f_new.path,
        "new_line": new.start,
        "home_kind": "mixin" if mixin else new.kind,
        "equality": worst,
        "behavior_change": worst == "different" or any(s.inherits is False for s in sites),
        "sites": [
            {
                "path": s.path,
                "scope": s.scope,
                "before_line": s.start,
                "before_end": s.end,
                "equality": s.equality,
                "residual": list(s.residual),
                "call_lines": list(s.call_lines),
                "class": s.cls,
                "inherits_new_home": s.inherits,
                "shadowed_by": s.shadowed_by,
                "class_relative": list(s.class_relative),
                "rebound_globals": list(s.rebound),
            }
            for s in sorted(sites, key=lambda s: (s.path, s.start))
        ],
    }
    return Finding(
        "code.extracted",
        f_new.path,
        new.start,
        new.qualname,
        f"{len(sites)} copies replaced by {new.qualname} ({worst})",
        details,
        tuple(sorted(set(ex))),
    )


def _copies_explained(
    sources: SourceFiles,
    change: Change,
    new: Definition,
    f_new: FileChange,
    sites: list[Site],
    mixin: bool,
) -> _Lines:
    """The new helper's lines, the removed copies, the calls replacing them, the holders changed
    only by that and (a mixin) the import lines bringing in its home."""
    added_new = sources.changed(f_new).added
    ex: _Lines = []
    ex += explains(f_new.path, "+", lines_with_blanks(f_new.after, new.start, new.end, added_new))
    home = file_index(sources, f_new.path, "after").get(new.parent) if mixin else None
    if home is not None and home in change.added:
        ex += _home_lines(change, new, f_new, sites, home, added_new)
    for s in sites:
        f = change.file_of[s.path]
        cl = sources.changed(f)
        ex += explains(f.path, "-", lines_with_blanks(f.before, s.start, s.end, cl.removed))
        ex += explains(f.path, "+", s.call_lines)
        if s.holder_before and s.holder_after:
            ex += explains(f.path, "-", lines_with_blanks(f.before, *s.holder_before, cl.removed))
            ex += explains(f.path, "+", lines_with_blanks(f.after, *s.holder_after, cl.added))
        if mixin:
            ex += _import_lines(sources, f, new.parent.rsplit(".", 1)[-1])
    return ex


def _home_lines(
    change: Change,
    new: Definition,
    f_new: FileChange,
    sites: list[Site],
    home: Definition,
    added_new: Iterable[int],
) -> _Lines:
    """A new home holding only methods its users lost: its own lines (header, docstring) with
    this member; each other member is its own finding's."""
    owners = {(s.path, s.cls) for s in sites}
    lost = {d.name for d in change.removed if (change.file_of[d.path].path, d.parent) in owners}
    if not only_members(home, lost | {new.name}):
        return []
    others = {
        n
        for st in home.node.body  # type: ignore[attr-defined]
        if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef) and st.name != new.name
        for n in range(first_line(st), (st.end_lineno or st.lineno) + 1)
    }
    own = lines_with_blanks(f_new.after, home.start, home.end, added_new)
    return list(explains(f_new.path, "+", [n for n in own if n not in others]))


def _import_lines(sources: SourceFiles, f: FileChange, name: str) -> _Lines:
    """Added module-level import lines that only bring in the new home class."""
    tree = sources.tree(f.path, "after") if f.after is not None else None
    added = set(sources.changed(f).added)
    out = []
    for st in tree.body if tree else []:
        if isinstance(st, ast.ImportFrom) and [a.asname or a.name for a in st.names] == [name]:
            out += [
                (f.path, "+", n)
                for n in range(st.lineno, (st.end_lineno or st.lineno) + 1)
                if n in added
            ]
    return out


# -- module-level code extracted into a function called once at import ---------------------


def _module_finding(sources: SourceFiles, new: Definition, f_new: FileChange) -> Finding | None:
    """``code.extracted`` for import-time code of a module moved into a new module-level function
    that the module calls once at import (``HEADERS = {"User-Agent": default_user_agent()}``)."""
    found = module_extraction(sources, new, f_new)
    if found is None:
        return None
    f, proof = found.file, found.proof
    cl = sources.changed(f)
    ex: _Lines = []
    if proof.proven:
        ex += explains(
            f_new.path,
            "+",
            lines_with_blanks(f_new.after, new.start, new.end, sources.changed(f_new).added),
        )
        ex += explains(f.before_path, "-", _code_lines(found.before, cl.removed))
        ex += explains(f.path, "+", _code_lines(found.after, cl.added))
    state = "modulo-renames" if proof.proven else "different"
    details = {
        "helper": new.qualname,
        "new_home": new.qualname,
        "helper_path": f_new.path,
        "helper_line": new.start,
        "home_kind": "function",
        "equality": state,
        "proven": proof.proven,
        "behavior_change": False if proof.proven else True if proof.residual else None,
        "stale_references": [],
        "dropped_module_globals": list(proof.dropped_globals),
        "sites": [
            {
                "path": f.path,
                "scope": "<module>",
                "calls": 1,
                "call_lines": list(proof.call_lines),
                "equality": state,
                "proven": proof.proven,
                "reason": proof.reason,
                "residual": list(proof.residual),
            }
        ],
    }
    return Finding(
        "code.extracted",
        f_new.path,
        new.start,
        new.qualname,
        f"{f.path}:<module>: import-time code extracted into {new.qualname} ({state})",
        details,
        tuple(sorted(set(ex))),
    )


def _code_lines(tree: ast.Module, changed: Iterable[int]) -> list[int]:
    """Changed lines inside a module's import-time statements (not imports, not functions)."""
    spans = [(st.lineno, st.end_lineno or st.lineno) for st in module_level(tree)]
    return [n for n in changed if any(a <= n <= b for a, b in spans)]


# -- helpers whose code is found, edited, among the statements their callers lost ----------


def _edited_finding(
    sources: SourceFiles,
    change: Change,
    helper: Definition,
    f_helper: FileChange,
    body: list[Item],
    inherited: bool = False,
) -> Finding | None:
    """``code.extracted`` ("different") for a helper whose statements ``body`` are, in a
    substantial share and edited, statements functions lost whose code now calls it (or, with
    ``inherited``, removed overrides whose classes now inherit it: a body pulled up)."""
    found = edited_sites(sources, change, helper, body, inherited)
    if not found:
        return None
    sites = [
        {
            "path": s.path,
            "scope": s.scope,
            "scope_removed": s.scope_removed,
            "before_line": s.before_line,
            "before_end": s.before_end,
            "callers": list(s.callers),
            "call_lines": list(s.call_lines),
            "via": list(s.via),
            "calls": s.calls,
            "equality": "different",
            "proven": False,
            "reason": "the helper's code is found, edited, among the statements "
            f"{s.scope} lost ({round(s.share * 100)}% of it)",
            "coverage": round(s.share, 2),
            "bindings": s.bindings,
            "line_map": [list(pair) for pair in s.line_map],
            "residual": list(s.residual),
        }
        for s in found
    ]
    def_line = int(getattr(helper.node, "lineno", helper.start))  # ``def``, below decorators
    details = {
        "helper": helper.qualname,
        "new_home": helper.qualname,
        "helper_path": f_helper.path,
        "helper_line": def_line,
        "home_kind": helper.kind,
        "equality": "different",
        "proven": False,
        "method": "pulled-up" if inherited else "edited",
        # Not expanded: what the residual does is for the callers' findings to say.
        "behavior_change": None,
        "stale_references": [],
        "sites": sites,
    }
    if inherited:
        # The base method's old body: every class inheriting it without an override of its
        # own (not only the former owners) ran that, and now runs the pulled-up body instead.
        old = file_index(sources, f_helper.before_path, "before").get(helper.qualname)
        details["home_before"] = [x.text for x in lost_items(old, None)] if old else []
    scopes = ", ".join(sorted({str(s["scope"]) for s in sites}))
    return Finding(
        "code.extracted",
        f_helper.path,
        def_line,
        helper.qualname,
        f"{scopes}: code extracted into {helper.qualname}, edited (different)",
        details,
        (),
    )
