"""What expanding a helper at its callers proved, as data a plug-in turns into its finding.

Proven only when every caller, its helper calls expanded, equals its other version (and no
use of the helper is left outside the changed files): then the outcome explains the helper's
lines and every changed line of those callers. The outcome says nothing of wording: the
``code.extracted`` and ``code.inlined`` plug-ins word their findings.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from prreport.bundle import FileChange
from prreport.equivalence.expansion.sites import SitePair
from prreport.python.definitions import Definition, explains, file_index, lines_with_blanks
from prreport.python.scopes import is_string_statement
from prreport.python.sources import SourceFiles

# From the closest to the loosest equality a proof or a copy can have.
EQUALITY_ORDER = {"byte-identical": 0, "modulo-renames": 1, "different": 2}


@dataclass(frozen=True)
class ExpansionOutcome:
    """The proof of one helper's expansion: its finding's details and the lines it explains."""

    proven: bool
    equality: str
    details: dict[str, Any]
    explains: tuple[tuple[str, str, int], ...]
    scopes: str  # the callers' qualnames, sorted, comma-separated


def expansion_outcome(
    sources: SourceFiles,
    helper: Definition,
    f_helper: FileChange,
    pairs: list[SitePair],
    side: str,
    stale: Sequence[str] = (),
) -> ExpansionOutcome:
    """The outcome for a helper added (``side`` "+", extracted) or removed ("-", inlined),
    with its callers ``pairs`` and the uses of it left outside the changed files (``stale``)."""
    proven = all(p.proof.proven for p in pairs) and not stale
    ex = _explained(sources, helper, f_helper, pairs, side) if proven else []
    equality = (
        max((p.proof.equality for p in pairs), key=EQUALITY_ORDER.__getitem__)
        if proven
        else "different"
    )
    details = {
        "helper": helper.qualname,
        "new_home" if side == "+" else "old_home": helper.qualname,
        "helper_path": f_helper.path if side == "+" else f_helper.before_path,
        "helper_line": helper.start,
        "home_kind": helper.kind,
        "equality": equality,
        "proven": proven,
        # Expanded exactly yet different: the code does something else; not expandable: unknown.
        "behavior_change": True
        if stale or any(p.proof.sites and not p.proof.proven for p in pairs)
        else (False if proven else None),
        "stale_references": list(stale),
        "sites": [_site(p) for p in sorted(pairs, key=lambda p: (p.path, p.after.start))],
    }
    scopes = ", ".join(sorted({p.after.qualname for p in pairs}))
    return ExpansionOutcome(proven, equality, details, tuple(sorted(set(ex))), scopes)


def _explained(
    sources: SourceFiles,
    helper: Definition,
    f_helper: FileChange,
    pairs: list[SitePair],
    side: str,
) -> list[tuple[str, str, int]]:
    """The helper's changed lines and every changed line of its callers."""
    ex: list[tuple[str, str, int]] = []
    cl = sources.changed(f_helper)
    if side == "+":
        lines = lines_with_blanks(f_helper.after, helper.start, helper.end, cl.added)
        ex += explains(f_helper.path, "+", lines)
        ex += _placeholder_line(sources, f_helper, helper)
    else:
        lines = lines_with_blanks(f_helper.before, helper.start, helper.end, cl.removed)
        ex += explains(f_helper.before_path, "-", lines)
    for p in pairs:
        f = next(x for x in sources.python_files() if x.path == p.path)
        c = sources.changed(f)
        ex += explains(
            f.before_path,
            "-",
            lines_with_blanks(f.before, p.before.start, p.before.end, c.removed),
        )
        ex += explains(f.path, "+", lines_with_blanks(f.after, p.after.start, p.after.end, c.added))
    return ex


def _site(p: SitePair) -> dict[str, Any]:
    """One caller's record in the details."""
    return {
        "path": p.path,
        "scope": p.after.qualname,
        "before_line": p.before.start,
        "before_end": p.before.end,
        "after_line": p.after.start,
        "after_end": p.after.end,
        "calls": p.proof.sites,
        "call_lines": list(p.call_lines),
        "equality": p.proof.equality,
        "proven": p.proof.proven,
        "reason": p.proof.reason,
        "residual": list(p.proof.residual),
        "rewrites": list(p.proof.rewrites),
    }


def _placeholder_line(
    sources: SourceFiles, f: FileChange, helper: Definition
) -> tuple[tuple[str, str, int], ...]:
    """The removed ``pass``/``...`` of a class that was empty before the helper method was added."""
    if helper.kind != "method" or f.before is None:
        return ()
    cls = file_index(sources, f.before_path, "before").get(helper.parent)
    body = getattr(cls.node, "body", []) if cls is not None else []
    body = [st for st in body if not is_string_statement(st)]
    if len(body) != 1:
        return ()
    st = body[0]
    empty = isinstance(st, ast.Pass) or (
        isinstance(st, ast.Expr)
        and isinstance(st.value, ast.Constant)
        and st.value.value is Ellipsis
    )
    if empty and st.lineno in sources.changed(f).removed:
        return ((f.before_path, "-", st.lineno),)
    return ()
