"""Dead code removed: definitions deleted by the PR that nothing references any more."""

from __future__ import annotations

from collections.abc import Iterable

from prreport.analyzers import Analyzer, register
from prreport.bundle import PullRequestBundle
from prreport.equivalence.moves import moves
from prreport.findings import ContextRequest, Finding
from prreport.python.callers import Caller, defining_class, implicit_callers
from prreport.python.definitions import (
    Change,
    Definition,
    definition_changes,
    explains,
    file_index,
    lines_with_blanks,
    removal_explains,
)
from prreport.python.hierarchy import find_in_bases
from prreport.python.placeholders import placeholder_kind
from prreport.python.references import reference_request, references_before, setup_lines
from prreport.python.sources import SourceFiles


def _candidates(change: Change, sources: SourceFiles) -> list[Definition]:
    """Removed definitions that were not moved, renamed, extracted or dropped as overrides,
    and that nothing calls without naming them (see ``implicit_callers``)."""
    return [d for d, caller in _removals(change, sources) if caller is None]


def _removals(change: Change, sources: SourceFiles) -> list[tuple[Definition, Caller | None]]:
    """Removed definitions that were not moved, renamed, extracted or dropped as overrides,
    each with what calls it without naming it (None when nothing does)."""
    added_names = {d.name for d in change.added}
    added_bodies = {
        d.renamed for d in change.added if d.kind in ("function", "method") and d.renamed
    }
    removed_quals = {(d.path, d.qualname) for d in change.removed}
    # An import of a moved or renamed definition goes with it (symbols.py reports the callers).
    paired = moves(change)
    moved = {(m.old.path, m.old.qualname) for m in paired}
    out = []
    for d in change.removed:
        if d.kind == "import":
            continue  # an import removed is import.removed; the code that used it says the rest
        if (d.path, d.qualname) in moved:
            continue  # moved or renamed (its body may have changed too): symbols.py
        parent = d.parent.removesuffix(".<locals>")
        if parent and any((d.path, q) in removed_quals for q in _prefixes(parent)):
            continue  # reported with its removed enclosing definition
        if d.name in added_names or (
            d.kind in ("function", "method") and d.renamed in added_bodies
        ):
            continue  # moved, renamed or extracted: symbols.py / extracted.py
        if d.kind == "method" and placeholder_kind(d.node):
            cls = file_index(sources, d.path, "before").get(d.parent)
            if cls is not None and cls.bases:
                continue  # a placeholder override: overrides.py
        if d.kind == "method" and _overrides_a_base(change, sources, d):
            continue  # calls now reach the base's method: an override dropped, overrides.py
        # Python or a base class outside the repository may call it with no reference to it.
        out.append((d, implicit_callers(sources, d)))
    return out


def _overrides_a_base(change: Change, sources: SourceFiles, d: Definition) -> bool:
    """A removed method that a base class of its (surviving) class defines too."""
    f = change.file_of[d.path]
    cls = file_index(sources, f.path, "after").get(d.parent) if f.after is not None else None
    if cls is None or cls.kind != "class" or not cls.bases:
        return False
    return find_in_bases(sources, f.path, "after", cls, d.name).base is not None


def _prefixes(qual: str) -> list[str]:
    parts = qual.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


@register
class DeadCodeAnalyzer(Analyzer):
    """Removed definitions that nothing referenced before the change either.

    before: ``def unused(): ...`` (no caller anywhere, before or after) · after: gone →
    ``code.dead-removed``. A definition removed with its last callers, inlined, moved or
    renamed was live: it is not dead code.
    """

    name = "dead-code"

    def requests(self, bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
        """Search the repository for every removed name, then fetch the files it was found in,
        and the files of the bases of classes that lost a method (a base may call it)."""
        change = definition_changes(sources)
        bases: set[str] = set()
        for d in change.removed:
            cls = defining_class(sources, d)
            if cls is not None:
                bases.update(find_in_bases(sources, d.path, "before", cls, d.name).wanted)
        found = reference_request(bundle, {d.name for d in _candidates(change, sources)})
        return found | ContextRequest(files=frozenset(bases))

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``code.dead-removed`` for each removed definition unreferenced before the change."""
        change = definition_changes(sources)
        # Only a whole-repository search proves "no reference anywhere". Without one (the GitHub
        # source), removals unreferenced in the changed files are reported as unproven.
        searched = bundle.reference_scope == "repository"
        removed = _removals(change, sources)
        cands = [
            d
            for d, caller in removed
            if caller is None and (d.name in bundle.references or not searched)
        ]
        refs = {id(d): references_before(bundle, sources, d) for d in cands}
        # Definitions referenced only by each other (and removed together) are dead together:
        # drop candidates with a reference outside the dead set until nothing changes.
        dead = list(cands)
        while True:
            spans = [(d.path, d.start, d.end) for d in dead]
            keep = [d for d in dead if all(_within(hit, spans) for hit in refs[id(d)])]
            if len(keep) == len(dead):
                break
            dead = keep
        for d in dead:
            yield self._finding(sources, change, d, searched)
        for d, caller in removed:
            if caller is not None and caller.via != "test-runner":
                yield _live_removal(sources, change, d, caller)

    def _finding(
        self, sources: SourceFiles, change: Change, d: Definition, searched: bool
    ) -> Finding:
        f = change.file_of[d.path]
        removed = sources.changed(f).removed
        lines = lines_with_blanks(f.before, d.start, d.end, removed)
        # ``_W = lib.W`` then ``_W.argtypes = [...]``: its own configuration goes with it.
        lines = (*lines, *setup_lines(f.before, d, removed))
        ex = removal_explains(sources, f, d, lines)
        return Finding(
            "code.dead-removed",
            f.path,
            d.start,
            d.qualname,
            f"{d.kind} {d.qualname} removed; nothing referenced it before the change either"
            + ("" if searched else " in the changed files (the repository was not searched)"),
            {
                "kind": d.kind,
                "name": d.name,
                "before_path": d.path,
                "before_line": d.start,
                "before_end": d.end,
                "references": [],
                "reference_scope": "repository" if searched else "changed-files",
                "proven": searched,
            },
            ex,
        )


_CALLER_WORDS = {
    "protocol": "Python calls it for {}",
    "override": "it overrides {}: callers of that method reached it",
    "base": "the base class {} (whose code was not read) may call it",
    "shim": "it is there for callers outside the repository ({} tells them the API is gone)",
    "decorator": "its decorator {} ran when it was defined and may have registered it",
    "tool": "{} reads the names of this file",
}


def _live_removal(sources: SourceFiles, change: Change, d: Definition, caller: Caller) -> Finding:
    """A removed definition something calls without naming it: what called it now does not."""
    f = change.file_of[d.path]
    lines = lines_with_blanks(f.before, d.start, d.end, sources.changed(f).removed)
    return Finding(
        "behavior.changed",
        f.path,
        d.start,
        d.qualname,
        f"{d.kind} {d.qualname} removed; it is not dead code: "
        + _CALLER_WORDS[caller.via].format(caller.what),
        {
            "removed": True,
            "called_by": caller.via,
            "caller": caller.what,
            "before_path": d.path,
            "before_line": d.start,
            "before_end": d.end,
            "behavior_change": True,
        },
        explains(f.path, "-", sorted(set(lines))),
    )


def _within(hit: tuple[str, int], spans: list[tuple[str, int, int]]) -> bool:
    path, line = hit
    return any(p == path and a <= line <= b for p, a, b in spans)
