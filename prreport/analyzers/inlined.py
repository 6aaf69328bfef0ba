"""Inlined helpers: a function removed and its body placed at its call sites."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from functools import partial

from prreport.analyzers import Analyzer, register
from prreport.bundle import FileChange, PullRequestBundle
from prreport.equivalence.expansion.outcome import expansion_outcome
from prreport.equivalence.expansion.sites import SitePair, site_pairs
from prreport.equivalence.moves import carried, moves
from prreport.equivalence.superfold import through_super
from prreport.findings import ContextRequest, Finding
from prreport.python.definitions import (
    Definition,
    definition_changes,
    file_index,
)
from prreport.python.hierarchy import overriding_subclasses
from prreport.python.references import reference_request
from prreport.python.sources import SourceFiles


def _candidates(sources: SourceFiles) -> list[Definition]:
    change = definition_changes(sources)
    # A definition nested in a moved one (a method of a moved test's local class) is no new home.
    inside_moved = carried(change)
    added = {d.name for d in change.added if (d.path, d.qualname) not in inside_moved}
    # A moved or renamed definition is not inlined (symbols.py follows its callers).
    moved = {(m.old.path, m.old.qualname) for m in moves(change)} | inside_moved
    return [
        d
        for d in change.removed
        if d.kind in ("function", "method")
        and d.name not in added
        and (d.path, d.qualname) not in moved
    ]


def _overrides_elsewhere(
    sources: SourceFiles, bundle: PullRequestBundle, old: Definition
) -> list[str]:
    """Direct subclasses of ``old``'s class that define ``old.name`` themselves: there
    ``self.m(...)`` ran their method, which the pasted body no longer reaches."""
    cls = file_index(sources, old.path, "before").get(old.parent)
    if cls is None or cls.kind != "class":
        return []
    return list(overriding_subclasses(bundle, sources, cls, old.name))


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
        found = _candidates(sources)
        # The classes of removed methods: their subclasses may override them.
        classes = {
            d.parent.rpartition(".")[2] for d in found if d.parent and "<locals>" not in d.parent
        }
        return reference_request(bundle, {d.name for d in found} | classes)

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``code.inlined`` for removed helpers whose callers now hold their body."""
        change = definition_changes(sources)
        changed = {f.path for f in bundle.files} | {f.before_path for f in bundle.files}
        for old in _candidates(sources):
            pairs = site_pairs(sources, old, "before", partial(through_super, sources, change, old))
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
            overridden: list[str] = []
            if old.parent and "<locals>" in old.parent:
                stale = []  # a function defined inside another is reachable only there
            elif old.parent:
                # ``self.m(...)`` dispatches on the instance: a subclass that overrides the
                # method no longer has its override run there (unproven, like a stale caller).
                # A method's name used elsewhere is left to the reader (the grep cannot tell
                # its class).
                stale = overridden = _overrides_elsewhere(sources, bundle, old)
            f = change.file_of[old.path]
            fd = _inlined(sources, old, f, pairs, stale)
            if overridden:
                details = {**fd.details, "stale_references": [], "overridden_by": overridden}
                fd = dataclasses.replace(fd, details=details)
            yield fd


def _inlined(
    sources: SourceFiles,
    helper: Definition,
    f_helper: FileChange,
    pairs: list[SitePair],
    stale: Sequence[str],
) -> Finding:
    """``code.inlined`` from the engine's expansion outcome of the removed helper."""
    out = expansion_outcome(sources, helper, f_helper, pairs, "-", stale)
    return Finding(
        "code.inlined",
        f_helper.path,
        None,
        helper.qualname,
        f"{out.scopes}: code inlined from {helper.qualname} ({out.equality})",
        out.details,
        out.explains,
    )
