"""Inlined helpers: a function removed and its body placed at its call sites."""

from __future__ import annotations

from collections.abc import Iterable

from prreport.analyzers import Analyzer, SourceFiles, register
from prreport.analyzers._defs import Definition, definition_changes, reference_request
from prreport.analyzers._expand import expansion_finding, site_pairs
from prreport.analyzers.symbols import moves
from prreport.bundle import PullRequestBundle
from prreport.findings import ContextRequest, Finding


def _candidates(sources: SourceFiles) -> list[Definition]:
    change = definition_changes(sources)
    added = {d.name for d in change.added}
    # A moved or renamed definition is not inlined (symbols.py follows its callers).
    moved = {(m.old.path, m.old.qualname) for m in moves(change)}
    return [
        d
        for d in change.removed
        if d.kind in ("function", "method")
        and d.name not in added
        and (d.path, d.qualname) not in moved
    ]


@register
class InlinedAnalyzer(Analyzer):
    """A helper removed and its body pasted where it was called.

    before: ``def _get(info, name): node = info.get(name); return node.node if node else None``
    and ``v = _get(info, name)`` · after: ``node = info.get(name); v = node.node if node else None``
    → ``code.inlined`` (proven when the expanded call equals the new code).
    """

    name = "inlined"

    def requests(self, bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
        """Search the repository for the removed helpers' names (callers outside the PR)."""
        return reference_request(bundle, {d.name for d in _candidates(sources)})

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``code.inlined`` for removed helpers whose callers now hold their body."""
        change = definition_changes(sources)
        changed = {f.path for f in bundle.files} | {f.before_path for f in bundle.files}
        for old in _candidates(sources):
            pairs = site_pairs(sources, old, "before")
            if isinstance(pairs, str) or not pairs:
                continue
            if not any(p.proof.proven or p.proof.similar for p in pairs):
                continue
            # A use outside the changed files would now fail: the helper is gone.
            stale = sorted(
                hit
                for hit in bundle.references.get(old.name, ())
                if hit.rsplit(":", 1)[0] not in changed
            )
            if old.parent:
                # A method is reached through its class (the grep cannot tell); a function
                # defined inside another is reachable only there.
                stale = []
            f = change.file_of[old.path]
            yield expansion_finding(sources, "code.inlined", old, f, pairs, "-", stale)
