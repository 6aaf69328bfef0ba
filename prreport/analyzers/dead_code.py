"""Dead code removed: definitions deleted by the PR that nothing references any more."""

from __future__ import annotations

import re
from collections.abc import Iterable

from prreport.analyzers import Analyzer, SourceFiles, register
from prreport.analyzers._defs import (
    Change,
    Definition,
    definition_changes,
    explains,
    file_index,
    lines_with_blanks,
    pass_line,
    placeholder_kind,
    reference_request,
    word_hits,
)
from prreport.analyzers.symbols import moves
from prreport.bundle import PullRequestBundle
from prreport.findings import ContextRequest, Finding


def candidates(change: Change, sources: SourceFiles) -> list[Definition]:
    """Removed definitions that were not moved, renamed, extracted or dropped as overrides."""
    added_names = {d.name for d in change.added}
    added_bodies = {
        d.renamed for d in change.added if d.kind in ("function", "method") and d.renamed
    }
    removed_quals = {(d.path, d.qualname) for d in change.removed}
    # An import of a moved or renamed definition goes with it (symbols.py reports the callers).
    moved_names = {m.old.name for m in moves(change)}
    out = []
    for d in change.removed:
        if d.kind == "import" and (d.parent or d.name in moved_names):
            continue
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
        out.append(d)
    return out


def _prefixes(qual: str) -> list[str]:
    parts = qual.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def _definition_line(text: str, name: str) -> bool:
    return bool(re.match(rf"\s*(async\s+def|def|class)\s+{re.escape(name)}\b", text))


@register
class DeadCodeAnalyzer(Analyzer):
    """Removed definitions that nothing references at head.

    before: ``def unused(): ...`` (no caller anywhere) · after: gone → ``code.dead-removed``.
    """

    name = "dead-code"

    def requests(self, bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
        """Search the repository for every removed name, then fetch the files it was found in."""
        return reference_request(
            bundle, {d.name for d in candidates(definition_changes(sources), sources)}
        )

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``code.dead-removed`` for each unreferenced removed definition."""
        change = definition_changes(sources)
        for d in candidates(change, sources):
            f = change.file_of[d.path]
            refs, ignored, scope = self._references(bundle, sources, d.name)
            if refs:
                continue
            lines = lines_with_blanks(f.before, d.start, d.end, sources.changed(f).removed)
            ex = explains(f.path, "-", lines)
            cls = (
                file_index(sources, f.path, "after").get(d.parent)
                if d.kind == "method" and f.after is not None
                else None
            )
            if cls is not None:
                ex += pass_line(sources, f, cls)
            yield Finding(
                "code.dead-removed",
                f.path,
                d.start,
                d.qualname,
                f"{d.kind} {d.qualname} removed; no references remain ({scope})",
                {
                    "kind": d.kind,
                    "name": d.name,
                    "before_path": d.path,
                    "before_line": d.start,
                    "before_end": d.end,
                    "references": [],
                    "ignored_references": ignored,
                    "reference_scope": scope,
                },
                ex,
            )

    def _references(
        self, bundle: PullRequestBundle, sources: SourceFiles, name: str
    ) -> tuple[list[str], list[str], str]:
        """(references, ignored hits, scope searched) for a name at head."""
        if name in bundle.references:
            hits, scope = list(bundle.references[name]), bundle.reference_scope
        else:
            # The source could not search: fall back to the after text of changed files.
            hits = [
                f"{f.path}:{n}" for f in sources.python_files() for n in word_hits(f.after, name)
            ]
            scope = "changed-files"
        refs, ignored = [], []
        for hit in sorted(set(hits), key=_hit_key):
            path, _, line = hit.rpartition(":")
            text = sources.text(path, "head")
            row = (
                text.splitlines()[int(line) - 1]
                if text and line.isdigit() and int(line) <= len(text.splitlines())
                else None
            )
            if row is not None and (row.lstrip().startswith("#") or _definition_line(row, name)):
                ignored.append(hit)  # a comment, or another definition of the same name
            else:
                refs.append(hit)
        return refs, ignored, scope


def _hit_key(hit: str) -> tuple[str, int]:
    path, _, line = hit.rpartition(":")
    return path, int(line) if line.isdigit() else 0
