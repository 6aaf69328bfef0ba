"""Headline, recommended action, key symbols, impact and breakdown: the facts the summary is worded from."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from prreport.bundle import PullRequestBundle
from prreport.findings import Finding
from prreport.report.facts import mark_touching, retained_fact
from prreport.report.files import SYMBOL_PRIORITY, names_of
from prreport.report.model import FileEntry


def headline_of(findings: list[Finding], files: list[FileEntry], verdict: str) -> dict[str, Any]:
    """The facts the one-line summary is built from, dominant first."""
    kinds = Counter(fd.kind for fd in findings)
    hoisted_files = sorted({fd.path for fd in findings if fd.kind == "import.hoisted"})
    tests = {f.path for f in files if f.category == "test"}
    code = {k: names_of(findings, k) for k in sorted(kinds) if k.startswith(("code.", "symbol."))}
    # Headlines follow ``proven``: a branch rewrite not proven equivalent (a branch dropped, an
    # early return answering otherwise) is not called a collapse of duplicated branches.
    if "code.branches-collapsed" in code:
        unproven = [
            fd
            for fd in findings
            if fd.kind == "code.branches-collapsed"
            and (fd.details.get("proven") is not True or fd.details.get("behavior_change") is True)
        ]
        rewritten = names_of(unproven, "code.branches-collapsed")
        collapsed = [n for n in code.pop("code.branches-collapsed") if n not in rewritten]
        code |= {"code.branches-collapsed": collapsed} if collapsed else {}
        code |= {"code.branches-rewritten": rewritten} if rewritten else {}
        code = dict(sorted(code.items()))
    behavior = (
        "changed"
        if kinds["behavior.changed"]
        else ("unchanged" if kinds["behavior.unchanged"] else "unknown")
    )
    return {
        "verdict": verdict,
        "hoisted": names_of(findings, "import.hoisted"),
        "hoisted_files": len(hoisted_files),
        "sunk": names_of(findings, "import.sunk"),
        "moved": names_of(findings, "import.moved"),
        "loops_cleared": kinds["loop.imports-removed"],
        "loops_remaining": kinds["loop.imports-remaining"] + kinds["loop.imports-added"],
        "code": code,
        "behavior": behavior,
        # what the verdict rests on: behaviour changes in library code, not in its tests
        "behavior_changed": names_of(
            [fd for fd in findings if fd.path not in tests], "behavior.changed"
        ),
        # symbol.renamed as (old, new) pairs: a rename reads as "old → new", not just the new name.
        "renames": sorted(
            [str(fd.details.get("old_qualname", "")), fd.symbol]
            for fd in findings
            if fd.kind == "symbol.renamed"
        ),
        "files": len(files),
        "additions": sum(f.additions for f in files),
        "deletions": sum(f.deletions for f in files),
        "dominant": [
            k
            for k, _n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))
            if k in SYMBOL_PRIORITY
        ][:3],
    } | ({"made_lazy": lazy} if (lazy := names_of(findings, "import.made-lazy")) else {})


def action_of(risks: list[dict[str, Any]], findings: list[Finding] | None = None) -> dict[str, Any]:
    """Recommended action: its level from the risks (block on high, review medium spots, else
    skim), the spots worth a look and why, and what to do next, from the findings."""
    findings = findings or []
    action: dict[str, Any] = {
        "level": "skim",
        "blockers": [],
        "spots": [],
        "look_at": look_at_of(findings),
        "next_steps": next_steps_of(findings, risks),
    }
    high = [r["id"] for r in risks if r["severity"] == "high"]
    medium = [r for r in risks if r["severity"] == "medium"]
    if high:
        return {**action, "level": "block", "blockers": high}
    if medium:
        spots: list[dict[str, Any]] = []
        for r in medium:
            located = [e for e in r["evidence"] if e.get("path")]
            spots.extend(
                {"risk": r["id"], "path": e["path"], "line": e.get("line")} for e in located[:3]
            )
            if not located:
                spots.append({"risk": r["id"], "path": "", "line": None})
        return {**action, "level": "review", "spots": spots}
    return action


# A guard that switches a feature (``self.enable_staging``, ``is_npu()``), not a dispatch test.
_FLAG = re.compile(r"^(not )?[A-Za-z_][\w.]*(\(\))?$")


def look_at_of(findings: list[Finding]) -> list[dict[str, Any]]:
    """Spots a reviewer should read, with why: retained lazy imports the PR names, call sites of
    one function guarded by a feature flag in one place and not in another, unverified cycles."""
    out: list[dict[str, Any]] = []
    for fd in findings:
        if fd.kind == "lazy-import.retained" and fd.details.get("named_in_description"):
            out.append(
                {
                    "what": "kept-lazy",
                    "path": fd.path,
                    "line": fd.line,
                    "symbol": fd.symbol,
                    "scope": fd.details.get("scope"),
                    "reason": fd.details.get("reason"),
                    "guard": fd.details.get("guard"),
                }
            )
    out.extend(_guard_asymmetries(findings))
    for fd in findings:
        if fd.kind == "cycle.unchecked":
            out.append(
                {"what": "cycle-unchecked", "path": fd.path, "line": fd.line, "symbol": fd.symbol}
            )
    return out


def _guard_asymmetries(findings: list[Finding]) -> list[dict[str, Any]]:
    """A function whose call is under a feature flag at some sites and not at others."""
    sites: dict[str, list[tuple[Finding, set[str]]]] = {}
    for fd in findings:
        if fd.kind in ("guard.preserved", "guard.changed", "guard.dropped"):
            flags = {
                str(g.get("text", ""))
                for g in fd.details.get("after") or []
                if g.get("kind") == "if" and _FLAG.match(str(g.get("text", "")))
            }
            sites.setdefault(fd.symbol, []).append((fd, flags))
    grouped: dict[tuple[str, tuple[str, ...], tuple[str, ...]], dict[str, Any]] = {}
    for symbol, calls in sorted(sites.items()):
        if len(calls) < 2:
            continue
        for flag in sorted(set().union(*(f for _fd, f in calls))):
            with_flag = [fd for fd, f in calls if flag in f]
            without = [fd for fd, f in calls if flag not in f]
            if not (with_flag and without):
                continue
            # One spot per flag and pair of file sets: "a and b run under X in f, not in g".
            key = (
                flag,
                tuple(sorted({fd.path for fd in with_flag})),
                tuple(sorted({fd.path for fd in without})),
            )
            spot = grouped.setdefault(
                key,
                {
                    "what": "guard-asymmetry",
                    "flag": flag,
                    "symbols": [],
                    "path": without[0].path,
                    "line": without[0].line,
                    "guarded": {},
                    "unguarded": {},
                },
            )
            spot["symbols"].append(symbol)
            for side, fds in (("guarded", with_flag), ("unguarded", without)):
                for fd in fds:
                    spot[side].setdefault(fd.path, []).append(fd.line)
    return [
        {
            **spot,
            "guarded": [
                {"path": p, "lines": sorted(ls)} for p, ls in sorted(spot["guarded"].items())
            ],
            "unguarded": [
                {"path": p, "lines": sorted(ls)} for p, ls in sorted(spot["unguarded"].items())
            ],
        }
        for spot in grouped.values()
    ]


def next_steps_of(findings: list[Finding], risks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What to do after merging: write the contract the change relies on, finish the hoist, test."""
    out: list[dict[str, Any]] = []
    for fd in findings:
        if fd.kind == "contract.implicit":
            out.append(
                {
                    "what": "add-contract",
                    "module": fd.details.get("module") or fd.symbol,
                    "forbidden": fd.details.get("forbidden") or [],
                }
            )
    # Finishing the hoist is a next step only for a PR that hoists, in the files it hoists in:
    # elsewhere a hoistable import is not this PR's business.
    hoisting = {fd.path for fd in findings if fd.kind == "import.hoisted"}
    hoistable = [
        fd
        for fd in findings
        if fd.kind == "lazy-import.retained"
        and fd.details.get("reason") == "hoistable"
        and fd.path in hoisting
    ]
    if hoistable:
        out.append(
            {
                "what": "extend-hoist",
                "names": sorted({fd.symbol for fd in hoistable}),
                "paths": sorted({fd.path for fd in hoistable}),
            }
        )
    out.extend(_lazy_steps(findings))
    # An import-only change has no behaviour for a test to run: the contract test (above) is
    # the test it needs, not a generic one.
    if any(r["id"] == "no-tests" for r in risks) and not _imports_only(findings):
        out.append({"what": "add-tests"})
    return out


# Findings that make a PR one about where imports run: there, a PEP 810 ``lazy`` import the
# project's Pythons cannot have is worth a word.
_IMPORT_WORK = ("import.hoisted", "import.sunk", "import.made-lazy", "import.made-eager")


def _lazy_steps(findings: list[Finding]) -> list[dict[str, Any]]:
    """PEP 810: the function-local imports offered as module-level ``lazy`` ones, with their
    diffs (a project requiring Python 3.15), or, once, that ``lazy`` needs 3.15."""
    kept = [fd for fd in findings if fd.kind == "lazy-import.retained"]
    offered = [fd for fd in kept if fd.details.get("lazy_offer") == "offered"]
    out: list[dict[str, Any]] = []
    if offered:
        diffs: dict[str, str] = {}
        for fd in offered:
            diffs.setdefault(f"{fd.path}:{fd.line}", fd.details["lazy_followup_diff"])
        out.append(
            {
                "what": "use-lazy-import",
                "names": sorted({fd.symbol for fd in offered}),
                "paths": sorted({fd.path for fd in offered}),
                "requires_python": offered[0].details.get("requires_python", ""),
                # under -X lazy_imports=none a lazy import is eager: the cycle it avoids returns
                "cycles": sorted(
                    {fd.symbol for fd in offered if fd.details.get("reason") == "cycle-avoidance"}
                ),
                "diffs": [{"at": at, "diff": d} for at, d in sorted(diffs.items())],
            }
        )
    needs = [fd for fd in kept if fd.details.get("lazy_offer") == "needs-3.15"]
    if needs and any(fd.kind.startswith(_IMPORT_WORK) for fd in findings):
        out.append(
            {
                "what": "lazy-needs-3.15",
                "names": sorted({fd.symbol for fd in needs}),
                "requires_python": needs[0].details.get("requires_python", ""),
            }
        )
    return out


_IMPORT_ONLY = ("import.", "loop.", "guard.preserved", "cycle.", "contract.", "lazy-import.")


def _imports_only(findings: list[Finding]) -> bool:
    """Every finding is about imports (or says a function is unchanged apart from them)."""
    kinds = {fd.kind for fd in findings} - {"behavior.unchanged", "api.unchanged"}
    return bool(kinds) and all(k.startswith(_IMPORT_ONLY) for k in kinds)


def key_symbols_of(findings: list[Finding]) -> tuple[str, ...]:
    """Symbols that carry the change, most telling first (at most twelve)."""
    order = {kind: i for i, kind in enumerate(SYMBOL_PRIORITY)}
    seen: dict[str, None] = {}
    for _rank, sym in sorted(
        (order[fd.kind], fd.symbol) for fd in findings if fd.kind in order and fd.symbol
    ):
        seen.setdefault(sym, None)
    return tuple(list(seen)[:12])


def impact_of(files: list[FileEntry], findings: list[Finding], verdict: str) -> dict[str, Any]:
    """Who and what is affected: modules, file kinds, behaviour."""
    kinds = {fd.kind for fd in findings}
    return {
        "files": len(files),
        "modules": sorted({f.module for f in files}),
        "paths": [f.path for f in files],
        "categories": dict(sorted(Counter(f.category for f in files).items())),
        "verdict": verdict,
        "behavior": "changed"
        if "behavior.changed" in kinds
        or verdict in ("behavior-change", "refactor-with-behavior-change")
        else (
            "unchanged"
            if "behavior.unchanged" in kinds or verdict == "pure-refactor"
            else "unknown"
        ),
        "refactors": sorted(
            {fd.kind for fd in findings if fd.kind.startswith(("code.", "symbol."))}
        ),
        "changed_functions": names_of(findings, "behavior.changed"),
        "loops_cleared": sum(1 for fd in findings if fd.kind == "loop.imports-removed"),
        "imports_removed_from_loops": sum(
            int(fd.details.get("before", 0)) - int(fd.details.get("after", 0))
            for fd in findings
            if fd.kind == "loop.imports-removed"
        ),
        "public_api_touched": sorted(
            {fd.symbol for fd in findings if fd.kind in ("symbol.moved", "symbol.renamed")}
        ),
    }


def breakdown_of(
    bundle: PullRequestBundle,
    findings: list[Finding],
    files: list[FileEntry],
    review: dict[str, Any],
) -> dict[str, Any]:
    """Numbered areas: entry points, one per source file, other file groups, retained lazies, checks."""
    entry = [
        {
            "path": fd.path,
            "scope": fd.symbol,
            "loop": fd.details.get("loop", ""),
            "line": fd.line,
            "kind": fd.kind,
        }
        for fd in findings
        if fd.kind.startswith("loop.")
    ]
    groups: dict[str, dict[str, Any]] = {}
    for f in files:
        if f.category == "source":
            continue
        g = groups.setdefault(
            f.category, {"category": f.category, "paths": [], "additions": 0, "deletions": 0}
        )
        g["paths"].append(f.path)
        g["additions"] += f.additions
        g["deletions"] += f.deletions
    retained = mark_touching(
        [retained_fact(fd) for fd in findings if fd.kind == "lazy-import.retained"], findings
    )
    return {
        "entry_points": entry,
        "source_files": [f.path for f in files if f.category == "source"],
        "other_groups": [groups[k] for k in sorted(groups)],
        "retained": retained,
        "verification": {
            "tests_changed": sum(1 for f in files if f.category == "test"),
            "unresolved": len([fd for fd in findings if fd.kind == "names.unresolved"]),
            "cycle_safe": sorted({fd.symbol for fd in findings if fd.kind == "cycle.safe"}),
            "ci_available": review["available"],
            "ci_failing": review["ci_summary"]["failing"],
            "ci_passing": len(review["ci_summary"]["passing"]),
        },
    }
