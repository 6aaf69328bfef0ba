"""Removed methods that no attribute lookup could reach: every subclass shadows them (the proof,
and why it holds, is ``prreport.equivalence.shadowing``'s)."""

from __future__ import annotations

from collections.abc import Iterable

from prreport.analyzers import Analyzer, register
from prreport.bundle import PullRequestBundle
from prreport.equivalence.shadowing import (
    candidates,
    search_names,
    shadowed_by,
    subclass_context,
)
from prreport.findings import ContextRequest, Finding
from prreport.python.definitions import definition_changes, lines_with_blanks, removal_explains
from prreport.python.references import reference_request
from prreport.python.sources import SourceFiles


@register
class ShadowedAnalyzer(Analyzer):
    """Removed methods every subclass defines itself, of a class never used as a value.

    before: ``class Base: def visit_var(self, o): pass`` and ``class Sub(Base): def
    visit_var(self, o): ...``, ``Base`` only ever a base or an annotation · after: ``Base``
    without ``visit_var`` → ``behavior.unchanged`` (no lookup reached it).
    """

    name = "shadowed"

    def requests(self, bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
        """Search the repository for the class, the method and its prefixes (then read the
        files), for the bases written before the class in its subclasses, and for
        ``super(Sub`` of each subclass found."""
        cands = candidates(sources)
        if not cands:
            return ContextRequest()
        names: set[str] = set()
        for c in cands:
            names |= search_names(c)
        request = reference_request(bundle, names)
        wanted, supers = subclass_context(bundle, sources, cands)
        return request | ContextRequest(files=wanted, references=supers)

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``behavior.unchanged`` for each removed method no lookup could reach."""
        if bundle.reference_scope != "repository":
            return
        change = definition_changes(sources)
        for c in candidates(sources):
            subs = shadowed_by(bundle, sources, c)
            if not subs:
                continue
            d = c.method
            f = change.file_of[d.path]
            lines = lines_with_blanks(f.before, d.start, d.end, sources.changed(f).removed)
            ex = removal_explains(sources, f, d, lines)
            yield Finding(
                "behavior.unchanged",
                f.path,
                d.start,
                d.qualname,
                f"method {d.qualname} removed; no lookup reached it: every subclass in the "
                f"repository defines {d.name} itself ({', '.join(subs)}) and {d.parent} is "
                "never instantiated or read as a value",
                {
                    "removed": True,
                    "class": d.parent,
                    "method": d.name,
                    "shadowed_by": list(subs),
                    "before_path": d.path,
                    "before_line": d.start,
                    "before_end": d.end,
                    "residual": [],
                    "reference_scope": "repository",
                    "equal_modulo": "an unreachable method",
                    # Shown to the reader like a rewrite, with the assumption it rests on.
                    "rewrites": [
                        {"kind": "unreached-method", "text": d.name, "detail": ", ".join(subs)}
                    ],
                },
                ex,
            )
