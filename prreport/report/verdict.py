"""The verdict: pure refactor, refactor or behaviour change, or unknown, from the findings and the line ledger."""

from __future__ import annotations

from prreport.classify import category
from prreport.findings import Finding
from prreport.report.ledger import Ledger

# Refactor findings: a PR that has one is (also) a refactor. Incidental imports (``import.added``
# / ``import.removed``), imports left in loops and ``behavior.unchanged`` (formatting) are not:
# a bug fix that adds an import or reformats is a plain behaviour change.
_REFACTOR_KINDS = ("import.hoisted", "import.sunk", "import.moved", "loop.imports-removed")
_REFACTOR_PREFIXES = ("code.", "symbol.", "file.renamed")
# Findings that say behaviour changed, when they are about library code (not tests or docs).
_CHANGE_KINDS = {"behavior.changed", "guard.dropped", "cycle.risk", "names.unresolved"}


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


def _rebound(findings: list[Finding]) -> bool:
    """A name imported from one module before and from another after: every use now means another object."""
    removed = {
        (f.path, f.symbol): f.details.get("module") for f in findings if f.kind == "import.removed"
    }
    # Importing a definition from the new home a proven move gave it is the same object.
    moved = {
        f.symbol.rpartition(".")[2]
        for f in findings
        if f.kind in ("symbol.moved", "symbol.renamed")
    }
    return any(
        f.kind == "import.added"
        and category(f.path) == "source"
        and f.symbol not in moved
        and (f.path, f.symbol) in removed
        and removed[(f.path, f.symbol)] != f.details.get("module")
        for f in findings
    )


def verdict_of(findings: list[Finding], ledger: Ledger) -> str:
    """``pure-refactor`` | ``refactor-with-behavior-change`` | ``behavior-change`` | ``unknown``.

    ``unknown`` when nothing could be analysed, an analyzer failed, a Python file did not
    parse or a changed file was not seen (the analysis is incomplete), or when no library code changed (tests, docs only) or
    changed lines outside Python source (other languages, build and config files) are not
    explained. A behaviour change when a finding about library code says so or a changed code
    line of a Python source file is unexplained; ``refactor-with-`` when refactor findings
    exist too. Otherwise every changed source line is explained: ``pure-refactor``.
    ``findings`` are the live ones (``behavior.changed`` accounted for by a refactor left out).
    """
    if not ledger.analysed or ledger.incomplete:
        return "unknown"
    refactor = any(is_refactor_kind(f.kind) for f in findings)
    if ledger.unexplained or any(says_changed(f) for f in findings) or _rebound(findings):
        return "refactor-with-behavior-change" if refactor else "behavior-change"
    if ledger.other_unexplained or not ledger.source_changed or any(_unproven(f) for f in findings):
        return "unknown"
    return "pure-refactor"


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
