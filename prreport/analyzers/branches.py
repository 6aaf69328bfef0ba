"""Collapsed branches: equal ``if``/``elif`` bodies merged, or a statement shared by every branch
hoisted (proofs: ``equivalence.branches``, ``equivalence.earlyreturn``, ``equivalence.flatten``)."""

from __future__ import annotations

import ast
import bisect
import dataclasses
import re
from collections.abc import Iterable

from prreport.analyzers import Analyzer, register
from prreport.bundle import FileChange, PullRequestBundle
from prreport.equivalence.branches import (
    enumerate_values,
    first_hoist_proven,
    hoisted,
    rerouted,
    same_set,
    same_test,
    structural,
    subject_text,
)
from prreport.equivalence.earlyreturn import Sides, early_return
from prreport.equivalence.flatten import flat, flattens
from prreport.findings import ContextRequest, Finding
from prreport.python.chains import Chain, chains, touches, within
from prreport.python.definitions import explains, file_index, lines_with_blanks, same_tree
from prreport.python.reach import callers_reach
from prreport.python.references import reference_request
from prreport.python.sources import SourceFiles

# An added ``if x == K:`` line: the file may answer K early (the callers are then looked up).
_EARLY_IF = re.compile(r"^\s*if\s.*==")


@register
class BranchesAnalyzer(Analyzer):
    """Duplicated conditional code consolidated.

    before: ``if m == "a": f() elif m == "b": f() else: g()`` · after: ``if m in ("a", "b"): f()
    else: g()`` → ``code.branches-collapsed`` (proven by enumerating m).
    """

    name = "branches"

    def requests(self, bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
        """Search the repository for each function that now answers some input differently
        early, and fetch the files it occurs in (its callers say whether they pass one)."""
        names = set()
        for f, bt, at in sources.modified():
            rows = (f.after or "").splitlines()
            added = sources.changed(f).added
            if not any(_EARLY_IF.match(rows[n - 1]) for n in added if 0 < n <= len(rows)):
                continue
            for found in _chain_findings(f, bt, at, sources):
                if found.details.get("inputs"):
                    names.add(found.symbol.rsplit(".", 1)[-1])
        return reference_request(bundle, names) if names else ContextRequest()

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Pair changed chains of the same scope and emit ``code.branches-collapsed``."""
        for f, bt, at in sources.modified():
            cl = sources.changed(f)
            yield from _flattened(f, sources, set(cl.removed), set(cl.added))
            for found in _chain_findings(f, bt, at, sources):
                yield _with_callers(found, bundle, sources)


def _chain_findings(
    f: FileChange, bt: ast.Module, at: ast.Module, sources: SourceFiles
) -> Iterable[Finding]:
    """``code.branches-collapsed`` for each changed chain of a file paired with its after chain."""
    cl = sources.changed(f)
    removed, added = set(cl.removed), set(cl.added)
    # Only statements spanning a removed line can hold a changed chain.
    befores = [
        c
        for c in chains(bt, "", touches(sorted(removed)))
        if any(n in removed for n in range(c.span[0], c.span[1] + 1))
    ]
    # The diff may keep an after chain as context (only the hoisted line is new).
    scopes = {c.scope for c in befores}
    afters = [c for c in chains(at, "", within(scopes)) if c.scope in scopes] if scopes else []
    used: set[int] = set()
    sides = Sides(bt, at)
    for b in befores:
        for a in afters:
            if id(a) in used or a.scope != b.scope:
                continue
            found = _match(f, b, a, (removed, added), sides)
            if found is not None:
                used.add(id(a))
                yield found
                break


def _with_callers(fd: Finding, bundle: PullRequestBundle, sources: SourceFiles) -> Finding:
    """An early return's inputs answered differently, each with whether a caller in the
    repository passes it (``python.reach``)."""
    d = fd.details
    fn = file_index(sources, fd.path, "after").get(fd.symbol) if d.get("inputs") else None
    if fn is None or fn.kind not in ("function", "method"):
        return fd
    argument = f"{d['subject']}={d['value']}"
    inputs = [
        {**i, "callers": callers_reach(bundle, sources, fn, i["when"], argument)}
        for i in d["inputs"]
    ]
    return dataclasses.replace(fd, details={**d, "inputs": inputs})


def _match(
    f: FileChange, b: Chain, a: Chain, changed: tuple[set[int], set[int]], sides: Sides
) -> Finding | None:
    """``code.branches-collapsed`` when after chain ``a`` is before chain ``b`` collapsed
    (``changed``: the removed and added lines of the file), or None."""
    if len(a.tests) > len(b.tests):
        return None  # a chain that grew is neither a merge nor a hoist
    details: dict = {
        "scope": b.scope or "<module>",
        "before_line": b.span[0],
        "after_line": a.span[0],
    }
    extra_after: list[int] = []
    extra_before: list[int] = []
    same_tests = all(same_test(x, y) for x, y in zip(a.tests, b.tests, strict=False))
    moved = hoisted(b, a) if same_tests and len(b.tests) - len(a.tests) in (0, 1) else None
    if moved is not None:
        found = _hoist_details(b, moved)
        if found is None:
            return None
        details.update(found)
        extra_after.append(moved[2])
    elif same_tests and (early := early_return(b, a, sides)) is not None:
        details.update(early)
        # The early if, and the code after the chain that the case analysis compared.
        extra_after += [a.stmts[a.index - 1].lineno, a.block_end]
        extra_before.append(b.block_end)
    elif len(a.tests) < len(b.tests):
        found = _merge_details(b, a, changed[1])
        if found is None:
            return None
        details.update(found)
    else:
        return None
    details["before_branches"] = len(b.tests)
    details["after_branches"] = len(a.tests)
    return _finding(f, b, a, details, (extra_before, extra_after), changed)


def _hoist_details(b: Chain, moved: tuple[str, ast.stmt, int]) -> dict | None:
    """The details of a statement common to every branch moved before (``first``) or after
    (``last``) the chain; None when the chain has no ``else`` (the paths that took no branch
    now run the statement too)."""
    where, stmt, _line = moved
    details: dict = {"pattern": f"hoisted-{where}", "statement": ast.unparse(stmt)}
    if not b.has_else:
        return None
    if where == "last":
        details.update(proven=True, method="every-branch-ends-with-it")
    else:
        proven = first_hoist_proven(b, stmt)
        details.update(proven=proven, method="tests-independent-of-statement" if proven else "none")
    return details


def _merge_details(b: Chain, a: Chain, added: set[int]) -> dict | None:
    """The details of a chain with fewer branches than before: merged (proven by enumeration or
    by structure), the same bodies (unproven), or a merge that reroutes some inputs; None when
    it is none of these."""
    details: dict = {"pattern": "merged-branches"}
    ok, _subject, values, _counter = enumerate_values(b, a)
    if ok is False:
        return None  # the merged condition sends some value to different code
    if ok:
        details.update(
            proven=True,
            method="enumeration",
            subject=subject_text(b, a),
            values=[repr(v) for v in values],
        )
    elif structural(b, a):
        details.update(proven=True, method="structural")
    elif same_set(a.bodies, b.bodies):
        details.update(proven=False, method="none")
    else:
        lost = rerouted(b, a, added)
        if lost is None:
            return None
        # A merged branch now runs another branch's code for the inputs of a branch
        # whose own code is gone: those inputs get a different result.
        details.update(
            proven=False,
            method="none",
            behavior_change=True,
            dropped=[
                {"test": ast.unparse(t) if t is not None else "else", "body": body}
                for t, body in lost
            ],
        )
    return details


def _finding(
    f: FileChange,
    b: Chain,
    a: Chain,
    details: dict,
    extra: tuple[list[int], list[int]],
    changed: tuple[set[int], set[int]],
) -> Finding:
    """``code.branches-collapsed`` with the lines it explains (``extra``: lines beyond the
    chains' own, before and after, that the proof read)."""
    (extra_before, extra_after), (removed, added) = extra, changed
    ex: list[tuple[str, str, int]] = []
    # An early return whose cost is named (the inputs answered differently) explains its lines.
    if details["proven"] or details.get("inputs"):
        end_b = max([b.span[1], *extra_before])
        ex += explains(f.path, "-", lines_with_blanks(f.before, b.span[0], end_b, removed))
        start = min([a.span[0], *extra_after])
        end = max([a.span[1], *extra_after])
        ex += explains(f.path, "+", lines_with_blanks(f.after, start, end, added))
    return Finding(
        "code.branches-collapsed",
        f.path,
        a.span[0],
        b.scope or "<module>",
        f"{details['pattern']} in {b.scope or '<module>'}: {len(b.tests)} branches -> {len(a.tests)}",
        details,
        tuple(sorted(set(ex))),
    )


def _flattened(
    f: FileChange, sources: SourceFiles, removed: set[int], added: set[int]
) -> Iterable[Finding]:
    """``code.branches-flattened`` for each changed function equal to its before version once
    every else after an exiting branch is moved after its ``if``, in both versions."""
    before = file_index(sources, f.before_path, "before")
    after = file_index(sources, f.path, "after")
    lines = sorted(removed)
    for qual, old in before.items():
        new = after.get(qual)
        if old.kind not in ("function", "method") or new is None or new.kind != old.kind:
            continue
        i = bisect.bisect_left(lines, old.start)
        if i == len(lines) or lines[i] > old.end:
            continue  # no removed line in it
        a, b = old.node, new.node
        assert isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef))
        assert isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef))
        if type(a) is not type(b) or same_tree(a.body, b.body):
            continue  # the body is the same: nothing of ours changed
        if not flattens(a.body) and not flattens(b.body):
            continue  # ``flat`` leaves both as they are: they stay different
        head_a = ast.FunctionDef(a.name, a.args, [], a.decorator_list, a.returns)
        head_b = ast.FunctionDef(b.name, b.args, [], b.decorator_list, b.returns)
        if not same_tree(head_a, head_b) or not same_tree(flat(a.body), flat(b.body)):
            continue
        ex = explains(f.path, "-", lines_with_blanks(f.before, old.start, old.end, removed))
        ex += explains(f.path, "+", lines_with_blanks(f.after, new.start, new.end, added))
        yield Finding(
            "code.branches-flattened",
            f.path,
            new.start,
            qual,
            f"else after an exiting branch flattened in {qual}",
            {
                "scope": qual,
                "before_line": old.start,
                "after_line": new.start,
                "proven": True,
                "method": "else-after-exit",
            },
            ex,
        )
