"""Two versions compared once both are rewritten: which rewrites made them equal, if any."""

from __future__ import annotations

import ast
from collections import Counter

from prreport.equivalence.rewrites.normalise import Normalise
from prreport.equivalence.rewrites.renamed import alpha
from prreport.equivalence.rewrites.rewrite import Inert, Rewrite
from prreport.python.definitions import same_tree

_IMPORTS = (ast.Import, ast.ImportFrom)


def see_through(
    before: ast.AST,
    after: ast.AST,
    low: tuple[int, ...] | None,
    inert: tuple[Inert, Inert] | None = None,
) -> list[Rewrite] | None:
    """The rewrites that make ``before`` and ``after`` equal, or None when they do not.

    Both trees are rewritten in place (pass copies). ``inert``: for each side, the fact that
    makes a call a construction that can neither act nor fail (``plainclass.constructions``).
    """
    norm_a = Normalise(low, inert[0] if inert else None)
    norm_b = Normalise(low, inert[1] if inert else None)
    done_a, done_b = norm_a.run(before), norm_b.run(after)
    facts = {**norm_b.trace.facts, **norm_a.trace.facts}
    renamed: list[Rewrite] = []
    if not same_tree(before, after, _IMPORTS):
        names_a, names_b = alpha(before), alpha(after)
        if names_a is None or names_b is None or not same_tree(before, after, _IMPORTS):
            return None
        renamed = [
            Rewrite("renamed-local", f"{a} → {b}")
            for a, b in zip(names_a, names_b, strict=True)
            if a != b
        ]
    both = Counter(done_a) & Counter(done_b)
    only = list(((Counter(done_a) - both) + (Counter(done_b) - both)).elements())
    # One chain merged step by step is one rewrite: keep the outermost merge.
    only = [
        r
        for r in only
        if not any(
            o.kind == r.kind and o is not r and r.text in o.text and r.text != o.text
            for o in only
            if r.kind in ("merged-if", "merged-elif")
        )
    ]
    # A moved assignment is told once, without the distances the two sides moved it.
    told = {
        (r.kind, r.text): Rewrite(r.kind, r.text, facts.get(r.text, ""))
        if r.kind == "moved-assignment"
        else r
        for r in [*only, *renamed]
    }
    return sorted(told.values(), key=lambda r: (r.kind, r.text))
