"""The verdict: pure refactor, refactor or behaviour change, or unknown, from the findings and the line ledger."""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from prreport.classify import category
from prreport.findings import Finding
from prreport.python.linekinds import element_lines
from prreport.python.parse import parse
from prreport.report.ledger import Ledger
from prreport.report.witness import Hunk, witnesses

# Refactor findings: a PR that has one is (also) a refactor. Incidental imports (``import.added``
# / ``import.removed``), imports left in loops and ``behavior.unchanged`` (formatting) are not:
# a bug fix that adds an import or reformats is a plain behaviour change.
_REFACTOR_KINDS = (
    "import.hoisted",
    "import.sunk",
    "import.moved",
    "import.made-lazy",
    "import.made-eager",
    "loop.imports-removed",
)
_REFACTOR_PREFIXES = ("code.", "symbol.", "file.renamed")
# Findings that say behaviour changed, when they are about library code (not tests or docs).
_CHANGE_KINDS = {
    "behavior.changed",
    "guard.dropped",
    "cycle.risk",
    "names.unresolved",
    "import.lazy-forbidden",  # a SyntaxError when the module is compiled (PEP 810)
}


def is_refactor_kind(kind: str) -> bool:
    """Whether a finding kind is a structural refactor (a move, an extraction, a hoist...)."""
    return kind in _REFACTOR_KINDS or kind.startswith(_REFACTOR_PREFIXES)


def says_changed(fd: Finding) -> bool:
    """Whether a live finding says the library code behaves differently."""
    if category(fd.path) != "source" or fd.details.get("preexisting") is True:
        return False
    if fd.kind == "guard.dropped" and fd.details.get("proven") is True:
        return fd.details.get("behavior_change") is True  # a guard that could never fail
    return fd.kind in _CHANGE_KINDS or fd.details.get("behavior_change") is True


def _rebound_imports(findings: list[Finding]) -> list[Finding]:
    """Names imported from one module before and from another after: every use now means another object."""
    removed = {
        (f.path, f.symbol): f.details.get("module") for f in findings if f.kind == "import.removed"
    }
    # Importing a definition from the new home a proven move gave it is the same object.
    moved = {
        f.symbol.rpartition(".")[2]
        for f in findings
        if f.kind in ("symbol.moved", "symbol.renamed")
    }
    return [
        f
        for f in findings
        if f.kind == "import.added"
        and category(f.path) == "source"
        and f.symbol not in moved
        and (f.path, f.symbol) in removed
        and removed[(f.path, f.symbol)] != f.details.get("module")
        # A name no running code reads (annotations, TYPE_CHECKING): another object changes nothing.
        and not f.details.get("annotation_only")
    ]


def verdict_of(findings: list[Finding], ledger: Ledger, witnessed: Sequence[object] = ()) -> str:
    """``pure-refactor`` | ``refactor-unproven`` | ``refactor-with-behavior-change`` |
    ``behavior-change`` | ``unknown``, by evidence.

    ``unknown`` when nothing could be analysed, an analyzer failed, a Python file did not
    parse or a changed file was not seen (the analysis is incomplete), or when no library
    code changed (tests, docs only) or changed lines outside Python source (other languages,
    build and config files) are not explained; Python source changed only in its comments
    and layout (no statement differs) is ``pure-refactor``. A behaviour change only with a witness
    (``witnesses_of``): an edit that says what differs; ``refactor-with-`` when refactor
    findings exist too. Changed lines of Python source that no proof explains and no witness
    speaks for: ``refactor-unproven`` ("not proven" is never "changed"). Otherwise every
    changed source line is explained: ``pure-refactor``. ``findings`` are the live ones
    (``behavior.changed`` accounted for by a refactor left out).
    """
    if not ledger.analysed or ledger.incomplete:
        return "unknown"
    refactor = any(is_refactor_kind(f.kind) for f in findings)
    if witnessed:
        return "refactor-with-behavior-change" if refactor else "behavior-change"
    if ledger.unexplained or any(says_changed(f) for f in findings):
        return "refactor-unproven"
    if ledger.other_unexplained or any(_unproven(f) for f in findings):
        return "unknown"
    if not (ledger.source_changed or ledger.tests_only_explained or ledger.layout_only):
        return "unknown"
    return "pure-refactor"


def _witness_by_itself(fd: Finding) -> bool:
    """A finding that says what differs: a removed definition something still ran, a guard
    that could fail, an import cycle, an unbound name, a proof that found a difference. A
    behaviour comparison that only could not prove two versions equal is not one: its residual
    lines are left over, and read for witnesses like every other left-over line."""
    if not says_changed(fd):
        return False
    if fd.kind == "behavior.changed":
        return fd.details.get("removed") is True or fd.details.get("behavior_change") is True
    if fd.kind in _COMPARED:
        return _broken(fd)
    return True


# Refactor findings that compare the code they moved, extracted, inlined or merged: "different"
# only says no proof was found — their lines are left over and read for witnesses.
_COMPARED = {
    "code.extracted",
    "code.inlined",
    "code.branches-collapsed",
    "symbol.moved",
    "symbol.renamed",
}


_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def _identifiers(ledger: Ledger) -> tuple[frozenset[str], frozenset[str]]:
    """Every identifier of the PR's Python files before and after the change (comments and
    strings included: a name a string still spells is not renamed everywhere)."""
    sides: tuple[set[str], set[str]] = (set(), set())
    for lf in ledger.files:
        if lf.python:
            for names, text in zip(sides, (lf.before, lf.after), strict=True):
                for line in text or ():
                    names.update(_IDENTIFIER.findall(line))
    return frozenset(sides[0]), frozenset(sides[1])


class _Elements:
    """Whether a line of a file side holds whole elements of a value being built (parsed on
    first asking, once per file side; a line whose text is not the file's is none)."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.memo: dict[tuple[str, str], frozenset[int]] = {}

    def __call__(self, path: str, side: str, line: int, text: str) -> bool:
        lf = self.ledger.file(path)
        rows = None if lf is None else (lf.before if side == "-" else lf.after)
        if lf is None or rows is None or not 0 < line <= len(rows) or rows[line - 1] != text:
            return False
        if (path, side) not in self.memo:
            source = lf.change.before if side == "-" else lf.change.after
            try:
                self.memo[path, side] = element_lines(parse(source or ""))
            except (SyntaxError, ValueError):
                self.memo[path, side] = frozenset()
        return line in self.memo[path, side]


def compared(fd: Finding) -> list[Hunk]:
    """The residual of a refactor finding's comparison (the old and new code, renamed alike,
    with the lines both share dropped) as hunks at the finding's line: the witness reader sees
    the difference the move, extraction or inlining carries, not only the lines left over."""
    if _broken(fd):
        return []
    details = fd.details
    rows = [(fd.line, details.get("residual"))] + [
        (site.get("after_line") or fd.line, site.get("residual"))
        for site in details.get("sites") or []
    ]
    out = []
    for line, residual in rows:
        if not isinstance(residual, list) or not residual:
            continue
        at = int(line or 0)
        removed = tuple((at, str(r)[1:]) for r in residual if str(r).startswith("-"))
        added = tuple((at, str(r)[1:]) for r in residual if str(r).startswith("+"))
        out.append(Hunk(fd.path, removed, added))
    return out


def _broken(fd: Finding) -> bool:
    """A refactoring that fails whatever the code it carries: a use left on the old name with
    nothing re-exporting it, a name unbound at import or a global rebound in the new home, a
    class that no longer inherits the member it lost, a call binding a parameter to another
    local than the copy it replaced used."""
    d = fd.details
    return bool(
        (d.get("stale_references") and not d.get("shim"))
        or d.get("unbound_at_import")
        or d.get("globals_rebound")
        or any(s.get("inherits_new_home") is False for s in d.get("sites") or [])
        or any(_fact(r) for s in d.get("sites") or [] for r in s.get("residual") or [])
        or bool(d.get("inputs"))  # an input the comparison found answered otherwise
    )


def _fact(residual: object) -> bool:
    """A residual entry that states a difference (a call binding a parameter to another local
    than the copy used), not a line of code the comparison left."""
    return isinstance(residual, str) and not residual.startswith(("-", "+", " "))


def witnesses_of(findings: list[Finding], ledger: Ledger) -> list[dict[str, Any]]:
    """Every witnessed behaviour change of the PR (library code only), in file and line order:
    from the findings that are witnesses by themselves, an import now bound to another object,
    and the left-over lines of Python source (``report.witness``)."""
    out: list[dict[str, Any]] = [
        {
            "kind": "finding",
            "finding": fd.kind,
            "path": fd.path,
            "line": fd.line,
            "symbol": fd.symbol,
            # the inputs now answered otherwise, where the finding could name them
            "inputs": list(fd.details.get("inputs") or [])[:2],
            **_api_facts(fd),
            # PEP 810: a fallback an import made lazy escapes (analyzers/lazy_fallbacks.py)
            **({"lazy_modules": fd.details["lazy_modules"]} if "escaped_by" in fd.details else {}),
        }
        for fd in findings
        if _witness_by_itself(fd)
    ]
    out += [
        {
            "kind": "rebound",
            "finding": "import.added",
            "path": fd.path,
            "line": fd.line,
            "symbol": fd.symbol,
        }
        for fd in _rebound_imports(findings)
    ]
    # The left-over lines, and the lines a behaviour comparison found different even where
    # another finding explains them (a renamed function whose caller also changed an argument).
    residual = {
        (fd.path, side, line)
        for fd in findings
        if fd.kind == "behavior.changed"
        for side, line in _residual_lines(fd)
    }
    hunks = []
    for lf in ledger.python_source():
        rest = [
            ln
            for ln in lf.lines
            if ln.kind == "code" and (ln.left or (lf.path, ln.side, ln.line) in residual)
        ]
        for group in lf.hunks(rest):
            hunks.append(
                Hunk(
                    lf.path,
                    tuple((ln.line, ln.text) for ln in group if ln.side == "-"),
                    tuple((ln.line, ln.text) for ln in group if ln.side == "+"),
                )
            )
    # A comparison that found its two versions different: what differs is its residual.
    hunks += [
        h for fd in findings if fd.kind in _COMPARED and says_changed(fd) for h in compared(fd)
    ]
    out += [
        {
            "kind": w.kind,
            "finding": "",
            "path": w.path,
            "line": w.line,
            "side": w.side,
            "symbol": "",
            "before": w.before,
            "after": w.after,
        }
        for w in witnesses(
            hunks,
            (_refactored_names(findings), _refactored_names(findings, _HELPERS)),
            partial(_identifiers, ledger),
            _Elements(ledger),
        )
    ]
    return sorted(out, key=lambda w: (w["path"], w["line"] or 0, w["kind"]))


def _api_facts(fd: Finding) -> dict[str, Any]:
    """What a public API change's witness says: the side its line is on, the parameter, the old
    and new value, where a removed name is defined now."""
    if not fd.kind.startswith("api."):
        return {}
    keys = ("side", "parameter", "before", "after", "moved_to")
    return {k: str(fd.details.get(k) or "") for k in keys}


def mark_witnessed(fd: Finding, witnessed: Sequence[dict[str, Any]]) -> Finding:
    """A ``behavior.changed`` finding with ``details.witnessed``: whether a witness falls in
    its function (a line it left over, or its span), so the report says "behaves differently"
    only then and "not proven equal" otherwise."""
    if fd.kind != "behavior.changed":
        return fd
    if _witness_by_itself(fd):
        return replace(fd, details={**fd.details, "witnessed": True})
    lines = set(_residual_lines(fd))
    start, end = fd.details.get("after_line"), fd.details.get("after_end")
    hit = any(
        w["path"] == fd.path
        and (
            (w.get("side", "+"), w["line"]) in lines
            or (w["kind"] == "finding" and w["symbol"] == fd.symbol)
            or (
                w.get("side", "+") == "+"
                and start is not None
                and end is not None
                and int(start) <= (w["line"] or 0) <= int(end)
            )
        )
        for w in witnessed
    )
    return replace(fd, details={**fd.details, "witnessed": hit})


def _residual_lines(fd: Finding) -> list[tuple[str, int]]:
    """The (side, line) pairs a behaviour comparison left over (a list, or its text in a bundle)."""
    raw = fd.details.get("residual_lines") or []
    if isinstance(raw, str):
        try:
            raw = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            return []
    return [(str(s), int(n)) for s, n in raw if isinstance(n, int)]


_HELPERS = ("code.extracted", "code.inlined")


def _refactored_names(
    findings: list[Finding], kinds: tuple[str, ...] = ("code.", "symbol.")
) -> frozenset[str]:
    """Short names of the definitions the PR's refactor findings (of ``kinds``) are about."""
    return frozenset(
        fd.symbol.rpartition(".")[2] for fd in findings if fd.symbol and fd.kind.startswith(kinds)
    )


def left_edits(ledger: Ledger) -> list[dict[str, Any]]:
    """One entry per left-over hunk of Python source code, in diff order: where it is (the
    after lines when it adds any, else the removed ones), how many code lines it removes and
    adds, and its first added (else removed) line — the edits a reviewer still has to read."""
    out = []
    for lf in ledger.python_source():
        path = lf.path
        for group in lf.hunks([ln for ln in lf.lines if ln.left]):
            code = [ln for ln in group if ln.kind == "code"]
            if not code:
                continue
            added = [ln for ln in code if ln.side == "+"]
            removed = [ln for ln in code if ln.side == "-"]
            shown = added or removed
            out.append(
                {
                    "path": path,
                    "side": shown[0].side,
                    "start": shown[0].line,
                    "end": shown[-1].line,
                    "removed": len(removed),
                    "added": len(added),
                    "text": shown[0].text.strip()[:120],
                }
            )
    return out


def _unproven(fd: Finding) -> bool:
    """A removal the source could not check against the whole repository (dead or not: unknown)."""
    return fd.kind == "code.dead-removed" and fd.details.get("proven") is False


def unknown_reason(verdict: str, ledger: Ledger) -> str:
    """Why the verdict is ``unknown`` (``""`` otherwise), for the summary to say."""
    if verdict != "unknown":
        return ""
    if ledger.unseen:
        return "unseen-files"
    if ledger.failed:
        return "analyzer-failed"
    if ledger.unparsed:
        return "unread" if set(ledger.unparsed) <= set(ledger.unread) else "unparsed"
    if not ledger.analysed:
        return "no-python"
    if not ledger.source_changed:
        return "no-source-change"
    if ledger.other_unexplained:
        return "other-files"
    return "references-unchecked"
