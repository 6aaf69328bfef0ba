"""PEP 810 ``lazy`` imports where Python refuses to compile them."""

from __future__ import annotations

from collections.abc import Iterable

from prreport.analyzers import Analyzer, register
from prreport.bundle import PullRequestBundle
from prreport.findings import Finding
from prreport.python.lazyimports import forbidden
from prreport.python.scopeindex import scope_index
from prreport.python.sources import SourceFiles

_WHERE = {
    "function": "inside a function",
    "class": "in a class body",
    "try": "inside a try statement",
    "star": "as a star import",
    "future": "of __future__",
}


@register
class LazySyntaxAnalyzer(Analyzer):
    """``lazy`` imports Python 3.15 rejects when it compiles the module.

    before: ``def f():\\n    import json`` · after: ``def f():\\n    lazy import json``
    → ``import.lazy-forbidden`` (reason ``function``): a SyntaxError, although ``ast.parse``
    reads it.
    """

    name = "lazy-syntax"

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``import.lazy-forbidden`` for each such statement on an added line."""
        findings = []
        for f in sources.python_files():
            tree = sources.tree(f.path, "after") if f.after is not None else None
            if tree is None:
                continue
            ix = scope_index(sources, f.path, "after")  # every import statement, kept per file
            if ix is not None and not any(b.lazy for b in ix.imports):
                continue  # no lazy import at all: no walk of the tree for one
            added = set(sources.changed(f).added)
            for bad in forbidden(tree):
                if bad.line not in added:
                    continue  # not this PR's
                findings.append(
                    Finding(
                        "import.lazy-forbidden",
                        f.path,
                        bad.line,
                        bad.name,
                        f"lazy import {_WHERE[bad.reason]}: a SyntaxError when the module is "
                        "compiled",
                        {"reason": bad.reason, "statement": bad.statement},
                        ((f.path, "+", bad.line),),
                    )
                )
        return sorted(findings, key=Finding.sort_key)
