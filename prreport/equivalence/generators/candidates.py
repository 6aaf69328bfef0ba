"""The candidates: module-level private functions a change made generators, and their references.

A candidate was not a generator before and is one after, is defined once at module level,
undecorated, with a name that starts with ``_`` (not a dunder), and the change touches it.
``generator_requests`` asks for every reference to a candidate in the repository: the proof
(``consumers``) reads them all.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from prreport.bundle import PullRequestBundle
from prreport.equivalence.generators.bindings import own, yields
from prreport.findings import ContextRequest
from prreport.python.references import reference_request
from prreport.python.scopes import single_binding
from prreport.python.sources import SourceFiles


@dataclass(frozen=True)
class Candidate:
    path: str
    before_path: str
    name: str
    old: ast.FunctionDef
    new: ast.FunctionDef
    before: ast.Module
    after: ast.Module


def _private(name: str) -> bool:
    return name.startswith("_") and not name.endswith("__")


def candidates(sources: SourceFiles) -> list[Candidate]:
    """Module-level private functions changed by the PR that were not generators and now are."""

    def build() -> list[Candidate]:
        out = []
        for f, before, after in sources.modified():
            added = sources.changed(f).added
            if not added or "yield" not in (f.after or ""):
                continue
            olds = {
                st.name: st
                for st in before.body
                if isinstance(st, ast.FunctionDef) and _private(st.name)
            }
            for st in after.body:
                if not isinstance(st, ast.FunctionDef) or st.name not in olds:
                    continue
                end = st.end_lineno or st.lineno
                if not any(st.lineno <= n <= end for n in added):
                    continue
                old = olds[st.name]
                if old.decorator_list or st.decorator_list:
                    continue
                if not yields(st) or yields(old) or any(isinstance(n, ast.Await) for n in own(old)):
                    continue
                if (
                    single_binding(before, st.name) is not old
                    or single_binding(after, st.name) is not st
                ):
                    continue
                out.append(Candidate(f.path, f.before_path, st.name, old, st, before, after))
        return out

    result: list[Candidate] = sources.memo("", "", "generator-candidates", build)
    return result


def generator_requests(bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
    """The whole-repository references of every candidate, and the files they are in."""
    names = {c.name for c in candidates(sources)}
    return reference_request(bundle, names) if names else ContextRequest()
