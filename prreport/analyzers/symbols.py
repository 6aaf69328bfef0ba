"""Moved and renamed definitions: where they went, and whether every user followed."""

from __future__ import annotations

import ast
import dataclasses
import sys
from collections.abc import Iterable, Iterator

from prreport.analyzers import Analyzer, register
from prreport.bundle import FileChange, PullRequestBundle
from prreport.equivalence.equality import body_text
from prreport.equivalence.moves import Move, moves
from prreport.equivalence.reorder import reordered
from prreport.equivalence.uses import (
    all_entry_lines,
    all_lines,
    future_lines,
    shim_lines,
    stale_references,
    updated_lines,
)
from prreport.findings import ContextRequest, Finding
from prreport.python.definitions import (
    Change,
    Definition,
    definition_changes,
    explains,
    file_index,
    lines_with_blanks,
    module_of,
    residual,
)
from prreport.python.importtime import binds
from prreport.python.references import reference_request
from prreport.python.scopes import is_string_statement
from prreport.python.sources import SourceFiles

_Explains = list[tuple[str, str, int]]


def _home(d: Definition) -> tuple[str, str]:
    """The module file and class a definition lives in (a function's locals are no home)."""
    return d.path, "" if "<locals>" in d.parent else d.parent


@register
class SymbolsAnalyzer(Analyzer):
    """Definitions moved to another file/class or renamed with an equal body.

    before: ``a.py: def f(): ...`` · after: ``b.py: def f(): ...`` → ``symbol.moved``.
    """

    name = "symbols"

    def requests(self, bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
        """Search the repository for old names, then fetch the files they occur in."""
        return reference_request(bundle, {m.old.name for m in moves(definition_changes(sources))})

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``symbol.moved`` / ``symbol.renamed`` with call-site and shim evidence."""
        change = definition_changes(sources)
        for m in moves(change):
            fd = _finding(bundle, sources, change, m)
            yield fd
            # Moved and renamed at once: both facts, each its own finding.
            other = "symbol.moved" if m.kind == "symbol.renamed" else "symbol.renamed"
            if (other == "symbol.moved" and _home(m.old) != _home(m.new)) or (
                other == "symbol.renamed" and m.old.name != m.new.name
            ):
                yield dataclasses.replace(fd, kind=other)
        yield from _reordered(sources)


def _finding(bundle: PullRequestBundle, sources: SourceFiles, change: Change, m: Move) -> Finding:
    old, new = m.old, m.new
    old_file, new_file = change.file_of[old.path], change.file_of[new.path]
    old_mod = module_of(old_file.before_path, sources)
    new_mod = module_of(new_file.path, sources)
    old_tree = sources.tree(old_file.path, "after") if old_file.after is not None else None
    shim = shim_lines(old_tree, old.name, new.name, new_mod, m.kind)
    in_all = bool(all_lines(old_tree, old.name))
    stale, scope = stale_references(bundle, sources, m, old_mod, shim, old_file.path)
    # A use left on the old name with nothing re-exporting it now fails to import/resolve.
    broken = bool(stale) and not shim
    ex: _Explains = []
    if m.equality != "different" and not broken and not m.unbound and not m.rebound:
        ex = _explained(sources, m, old_file, new_file, old_mod, new_mod, shim, in_all, old_tree)
    details = {
        "old_path": old_file.before_path,
        "new_path": new_file.path,
        "old_qualname": old.qualname,
        "new_qualname": new.qualname,
        "old_module": old_mod,
        "new_module": new_mod,
        "before_line": old.start,
        "after_line": new.start,
        "definition_kind": new.kind,
        "equality": m.equality,
        "residual": residual(body_text(old), body_text(new)) if m.equality == "different" else [],
        "stale_references": stale,
        "call_sites_updated": not stale,
        "reference_scope": scope,
        "shim": bool(shim),
        "shim_lines": sorted(shim),
        "in_all": in_all,
        "old_class_inherits_new": _inherits(sources, old_file, m),
        "unbound_at_import": list(m.unbound),
        "globals_rebound": list(m.rebound),
        "behavior_change": broken
        or m.equality == "different"
        or bool(m.unbound)
        or bool(m.rebound),
    }
    where = f"{old_file.before_path}:{old.qualname} -> {new_file.path}:{new.qualname}"
    return Finding(
        m.kind, new_file.path, new.start, new.qualname, where, details, tuple(sorted(set(ex)))
    )


def _inherits(sources: SourceFiles, old_file: FileChange, m: Move) -> bool | None:
    """For a method moved to another class: whether its old class now inherits from the new
    one (None when it stayed in its class or is no method)."""
    old, new = m.old, m.new
    if not (old.parent and new.parent and old.parent != new.parent):
        return None
    old_cls = file_index(sources, old_file.path, "after").get(old.parent)
    new_cls_name = new.parent.rsplit(".", 1)[-1]
    return old_cls is not None and any(b.rsplit(".", 1)[-1] == new_cls_name for b in old_cls.bases)


def _explained(
    sources: SourceFiles,
    m: Move,
    old_file: FileChange,
    new_file: FileChange,
    old_mod: str,
    new_mod: str,
    shim: set[int],
    in_all: bool,
    old_tree: ast.Module | None,
) -> _Explains:
    """The lines a proven move explains: the definition on both sides, the uses retargeted to
    it, a deleted module's ``__future__`` imports, and the shim and ``__all__`` lines kept."""
    old, new = m.old, m.new
    ex: _Explains = []
    removed = sources.changed(old_file).removed
    ex += explains(
        old_file.path, "-", lines_with_blanks(old_file.before, old.start, old.end, removed)
    )
    added = sources.changed(new_file).added
    ex += explains(new_file.path, "+", lines_with_blanks(new_file.after, new.start, new.end, added))
    ex += updated_lines(sources, m, old_mod, new_mod)
    if old_file.after is None:
        # A deleted module's ``from __future__`` imports compiled only that module.
        before_tree = sources.tree(old_file.before_path, "before")
        ex += explains(old_file.before_path, "-", future_lines(before_tree))
    if new_file.before is None and new_file.after is not None:
        ex += explains(new_file.path, "+", _new_module_glue(sources, new_file, m.new))
    old_after = sources.text(old_file.path, "after") if old_file.after is not None else None
    if old_after is not None:
        # the ``__all__`` entries of the old name (kept), the new one and the module's other
        # names, each by its value: an entry naming nothing the module binds is no part of it
        kept = all_entry_lines(old_tree, {old.name, new.name}) if in_all else set()
        for n in sorted(shim | kept):
            lines = lines_with_blanks(old_after, n, n, sources.changed(old_file).added)
            ex += explains(old_file.path, "+", lines)
    return ex


def _new_module_glue(sources: SourceFiles, f: FileChange, moved: Definition) -> list[int]:
    """Lines of a module the PR created that only carry a definition moved into it: its
    docstring, an ``__all__`` of names the module defines, and the standard-library imports
    the moved definition reads (each stands where the moved code's own module has it)."""
    tree = sources.tree(f.path, "after")
    if tree is None:
        return []
    out: list[int] = []
    body = tree.body
    if body and is_string_statement(body[0]):
        out += range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1)
    defined = {n for st in body for n in binds(st)}
    reads = {
        n.id
        for n in ast.walk(moved.node)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }
    for st in body:
        names = _all_names(st)
        if names is not None and names <= defined:
            out += range(st.lineno, (st.end_lineno or st.lineno) + 1)
        elif isinstance(st, ast.Import | ast.ImportFrom) and not getattr(st, "level", 0):
            tops = {a.name.split(".")[0] for a in st.names} | {getattr(st, "module", "") or ""}
            bound = {a.asname or a.name.split(".")[0] for a in st.names}
            if tops - {""} <= _STDLIB and bound & reads:
                out += range(st.lineno, (st.end_lineno or st.lineno) + 1)
    return out


def _all_names(st: ast.stmt) -> set[str] | None:
    """The names of an ``__all__ = [...]`` (or tuple) of string literals; None for another statement."""
    if not (
        isinstance(st, ast.Assign | ast.AnnAssign)
        and [
            getattr(t, "id", None)
            for t in ([st.target] if isinstance(st, ast.AnnAssign) else st.targets)
        ]
        == ["__all__"]
        and isinstance(st.value, ast.List | ast.Tuple)
        and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in st.value.elts)
    ):
        return None
    return {e.value for e in st.value.elts}  # type: ignore[attr-defined]


_STDLIB = frozenset(sys.stdlib_module_names)


def _reordered(sources: SourceFiles) -> Iterator[Finding]:
    """``behavior.unchanged`` for a function or class the diff shows removed and re-added,
    unchanged, in the same file and scope (reordered: no move to another file or class), when no
    code that runs at import time sees another order."""
    for f, b, a in reordered(sources):
        cl = sources.changed(f)
        ex = explains(f.before_path, "-", lines_with_blanks(f.before, b.start, b.end, cl.removed))
        ex += explains(f.path, "+", lines_with_blanks(f.after, a.start, a.end, cl.added))
        details = {
            "before_path": f.before_path,
            "before_line": b.start,
            "before_end": b.end,
            "after_line": a.start,
            "after_end": a.end,
            "residual": [],
            "reordered": True,
            "definition_kind": a.kind,
            "equal_modulo": "" if b.text == a.text else "formatting, comments",
        }
        where = f"{b.qualname} moved within the file (line {b.start} -> {a.start}), unchanged"
        yield Finding(
            "behavior.unchanged",
            f.path,
            a.start,
            b.qualname,
            where,
            details,
            tuple(sorted(set(ex))),
        )
