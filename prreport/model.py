"""ReportModel: everything templates need, computed, sorted and grouped (language-neutral)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from prreport.bundle import Comment, PullRequestBundle, to_jsonable
from prreport.classify import category, module_name
from prreport.config import Config
from prreport.findings import Diagnostic, Finding
from prreport.series import RELATION_ORDER

REPORT_SCHEMA = "prreport.report/1"


@dataclass(frozen=True)
class FileEntry:
    """A changed file as the report shows it."""

    path: str
    old_path: str | None
    status: str
    additions: int
    deletions: int
    module: str
    category: str
    change_type: str
    symbols: tuple[str, ...]
    binary: bool
    finding_kinds: tuple[str, ...]
    # What the findings say about this file, grouped for the breakdown and the description.
    facts: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Summary:
    """Verdict and headline facts.

    ``one_line`` and ``recommended_action`` are wording: the renderer fills them (in English
    for JSON) from ``headline`` and ``action``, which are the facts they are built from.
    """

    verdict: str
    one_line: str
    recommended_action: str
    changed_lines: int
    explained_lines: int
    kind_counts: dict[str, int] = field(default_factory=dict)
    headline: dict[str, Any] = field(default_factory=dict)
    action: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ReportModel:
    """The report, as data; the JSON output is this value."""

    pr: dict[str, Any]
    summary: Summary
    motivation: dict[str, Any]
    files: tuple[FileEntry, ...]
    findings: tuple[Finding, ...]
    key_symbols: tuple[str, ...]
    snippets: tuple[dict[str, Any], ...]
    review: dict[str, Any]
    risks: tuple[dict[str, Any], ...]
    impact: dict[str, Any]
    related: tuple[dict[str, Any], ...]
    diagnostics: tuple[Diagnostic, ...]
    source: str
    breakdown: dict[str, Any] = field(default_factory=dict)
    claims: tuple[dict[str, Any], ...] = ()
    schema: str = REPORT_SCHEMA

    def to_json(self) -> dict[str, Any]:
        """Plain JSON value of the report (DESIGN §3 names)."""
        return to_jsonable(self)


_BEHAVIOUR_CHANGE_KINDS = ("behavior.changed",)
# Structural refactor findings. ``behavior.unchanged`` explains lines (formatting, imports)
# but is not a refactor by itself: a feature PR that also reformats is a behaviour change.
_MECHANICAL_PREFIXES = (
    "import.",
    "loop.",
    "code.",
    "symbol.",
    "file.renamed",
)
_EQUIVALENT = ("byte-identical", "modulo-renames")


def _verdict(findings: list[Finding], changed: int, explained: int, code: _CodeLines) -> str:
    """``pure-refactor`` | ``refactor-with-behavior-change`` | ``behavior-change`` | ``unknown``.

    Pure: no finding says behaviour changed and every changed line is explained by a
    mechanical finding (so every changed function that still exists is ``behavior.unchanged``).
    Unexplained code lines in parsed Python source are new or changed logic: a behaviour change.
    ``findings`` are the live ones (``behavior.changed`` accounted for by a refactor left out).
    """
    kinds = {f.kind for f in findings}
    # Without parsed Python nothing can be claimed.
    if not code.analysed:
        return "unknown"
    changes = kinds & {"behavior.changed", "guard.dropped", "cycle.risk", "names.unresolved"}
    # Refactor findings that computed a behaviour change say so in details (code.*, symbol.*).
    changes |= {f.kind for f in findings if f.details.get("behavior_change") is True}
    mechanical = any(k.startswith(_MECHANICAL_PREFIXES) for k in kinds)
    if changes or code.unexplained:
        return "refactor-with-behavior-change" if mechanical else "behavior-change"
    if changed and explained >= changed:
        return "pure-refactor"
    # Unexplained lines only in formatting, comments, tests or other files: say so rather than guess.
    return "unknown"


def _proves_equivalence(fd: Finding) -> bool:
    """A ``code.*``/``symbol.*`` finding that verified the code it explains does the same thing."""
    if not fd.kind.startswith(("code.", "symbol.")) or not fd.explains:
        return False
    d = fd.details
    return (
        d.get("behavior_change") is not True
        and d.get("equality", "byte-identical") in _EQUIVALENT
        and d.get("proven", True) is True
        and d.get("call_sites_updated", True) is not False
    )


def _account(findings: list[Finding]) -> list[Finding]:
    """Mark ``behavior.changed`` whose residual lines a proven refactor finding explains (``accounted_by``).

    Extracting a helper, merging equal branches or renaming a callee changes the text of the
    functions involved; behavior.py sees a residual, the refactor analyzer proved it equivalent.
    """
    provers: dict[tuple[str, str, int], list[Finding]] = {}
    for fd in findings:
        if _proves_equivalence(fd):
            for e in fd.explains:
                provers.setdefault((e[0], e[1], e[2]), []).append(fd)
    out = []
    for fd in findings:
        lines = fd.details.get("residual_lines") if fd.kind == "behavior.changed" else None
        if lines:
            before_path = fd.details.get("before_path") or fd.path
            by: dict[tuple[str, str, str], None] = {}
            for side, n in lines:
                paths = (before_path, fd.path) if side == "-" else (fd.path,)
                hits = [p for path in paths for p in provers.get((path, side, int(n)), [])]
                if not hits:
                    by = {}
                    break
                by.update({(p.kind, p.path, p.symbol): None for p in hits})
            if by:
                accounted = [{"kind": k, "path": p, "symbol": sym} for k, p, sym in sorted(by)]
                fd = replace(fd, details={**fd.details, "accounted_by": accounted})
        out.append(fd)
    return out


def _accounted(fd: Finding) -> bool:
    return fd.kind == "behavior.changed" and bool(fd.details.get("accounted_by"))


@dataclass(frozen=True)
class _CodeLines:
    """Whether Python source was parsed, and whether some changed code line in it is unexplained."""

    analysed: bool
    unexplained: bool


def _code_lines(
    bundle: PullRequestBundle, findings: list[Finding], diagnostics: list[Diagnostic]
) -> _CodeLines:
    """Unexplained changed code lines in parsed Python source files (not comments, blanks, formatting)."""
    from prreport.diffparse import changed_lines

    unparsed = {d.path for d in diagnostics if d.path}
    # An analyzer that crashed explains nothing: its lines prove no change.
    crashed = any("analyzer failed" in d.message for d in diagnostics)
    explained = {(e[0], e[1], e[2]) for fd in findings for e in fd.explains}
    # Reformatted lines inside a function that is equal apart from formatting change nothing.
    same: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for fd in findings:
        if fd.kind == "behavior.unchanged":
            d = fd.details
            before_path = d.get("before_path") or fd.path
            if d.get("before_end"):
                same.setdefault((before_path, "-"), []).append((d["before_line"], d["before_end"]))
            if d.get("after_end"):
                same.setdefault((fd.path, "+"), []).append((d["after_line"], d["after_end"]))
    analysed = False
    unexplained = False
    for f in bundle.files:
        if (
            f.binary
            or not f.path.endswith(".py")
            or f.path in unparsed
            or f.before_path in unparsed
        ):
            continue
        analysed = True
        if crashed or category(f.path) != "source":
            continue
        cl = changed_lines(f.patch)
        sides = (("-", f.before_path, f.before, cl.removed), ("+", f.path, f.after, cl.added))
        for side, path, text, numbers in sides:
            rows = (text or "").splitlines()
            for n in numbers:
                row = rows[n - 1].strip() if 0 < n <= len(rows) else ""
                if not row or row.startswith("#"):
                    continue
                if (path, side, n) in explained or (f.path, side, n) in explained:
                    continue
                if any(a <= n <= b for a, b in same.get((path, side), ())):
                    continue
                unexplained = True
    return _CodeLines(analysed, unexplained)


def _explained(bundle: PullRequestBundle, findings: list[Finding]) -> tuple[int, int]:
    """(changed lines, changed lines some finding explains) over all text files of the PR."""
    from prreport.diffparse import changed_lines

    total: set[tuple[str, str, int]] = set()
    # A removed line may be named by the file's before path (renames) or its after path.
    alias: dict[tuple[str, str, int], tuple[str, str, int]] = {}
    for f in bundle.files:
        if f.binary:
            continue
        cl = changed_lines(f.patch)
        for n in cl.removed:
            total.add((f.path, "-", n))
            alias[(f.before_path, "-", n)] = (f.path, "-", n)
        total |= {(f.path, "+", n) for n in cl.added}
    explained = {alias.get(e, e) for fd in findings for e in fd.explains} & total
    return len(total), len(explained)


def build_model(
    bundle: PullRequestBundle,
    findings: list[Finding],
    diagnostics: list[Diagnostic],
    config: Config,
) -> ReportModel:
    """Compute the report model from a bundle and its findings."""
    pr = bundle.pr
    findings = _account(sorted(findings, key=Finding.sort_key))
    # Findings that speak for the change: a behaviour change a proven refactor accounts for is not one.
    live = [fd for fd in findings if not _accounted(fd)]
    moved_out = _moved_out(findings)
    by_path: dict[str, list[Finding]] = {}
    for fd in findings:
        by_path.setdefault(fd.path, []).append(fd)
    files = []
    for f in bundle.files:
        fds = by_path.get(f.path, [])
        cat = category(f.path)
        files.append(
            FileEntry(
                path=f.path,
                old_path=f.old_path,
                status=f.status,
                additions=f.additions,
                deletions=f.deletions,
                module=module_name(f.path, config.modules, bundle.head_paths),
                category=cat,
                change_type=_change_type(
                    cat,
                    [fd for fd in fds if not _accounted(fd)],
                    f.status,
                    bool(moved_out.get(f.path)),
                ),
                symbols=_file_symbols(fds),
                binary=f.binary,
                finding_kinds=tuple(sorted({fd.kind for fd in fds})),
                facts=_file_facts(fds, moved_out.get(f.path, [])),
            )
        )
    files.sort(key=_file_order)
    changed, explained = _explained(bundle, findings)
    verdict = _verdict(live, changed, explained, _code_lines(bundle, findings, list(diagnostics)))
    counts = dict(sorted(Counter(fd.kind for fd in findings).items()))
    all_diags = list(diagnostics) + [Diagnostic("source", "", note) for note in bundle.source_notes]
    review = _review(bundle)
    risks = _risks(bundle, live, files, verdict, review, all_diags)
    summary = Summary(
        verdict=verdict,
        one_line="",
        recommended_action="",
        changed_lines=changed,
        explained_lines=explained,
        kind_counts=counts,
        headline=_headline(live, files, verdict),
        action=_action(risks),
    )
    return ReportModel(
        pr={
            "repo": pr.repo,
            "number": pr.number,
            "title": pr.title,
            "author": pr.author,
            "url": pr.url,
            "state": pr.state,
            "created_at": pr.created_at,
            "merged_at": pr.merged_at,
            "merged_by": pr.merged_by,
            "base_sha": pr.base_sha,
            "head_sha": pr.head_sha,
            "labels": list(pr.labels),
            "target": pr.target,
        },
        summary=summary,
        # The renderer (the one Markdown door) splits ``body`` into the quoted sections.
        motivation={
            "body": pr.body.strip(),
            "source": "description" if pr.body.strip() else "none",
        },
        files=tuple(files),
        findings=tuple(findings),
        key_symbols=_key_symbols(live),
        snippets=tuple(
            _snippets(bundle, live, config.report.snippet_max_lines, config.report.max_snippets)
        ),
        review=review,
        risks=tuple(risks),
        impact=_impact(files, live, verdict),
        related=tuple(_related(bundle)),
        diagnostics=tuple(all_diags),
        source=bundle.source,
        breakdown=_breakdown(bundle, findings, files, review),
        claims=tuple(_claims(pr.title, pr.body, live, verdict)),
    )


# --- files ---------------------------------------------------------------------------------

_IMPORT_MOVES = ("import.hoisted", "import.sunk", "import.moved", "import.added", "import.removed")
# Kinds that only describe context (safety evidence) and never make a change "logic".
_CONTEXT_KINDS = {
    "behavior.unchanged",
    "cycle.safe",
    "contract.implicit",
    "guard.preserved",
    "lazy-import.retained",
    "names.unused-import",
}


def _change_type(cat: str, fds: list[Finding], status: str, moved_out: bool = False) -> str:
    if cat in ("test", "docs", "ci", "build", "config", "data"):
        return cat
    kinds = {fd.kind for fd in fds}
    if status == "renamed" and not kinds - {"file.renamed"}:
        return "rename"
    if "behavior.changed" in kinds or any(fd.details.get("behavior_change") is True for fd in fds):
        return "logic"
    if moved_out:
        return "refactor"
    moving = kinds - _CONTEXT_KINDS
    if moving and all(k.startswith(("import.", "loop.", "guard.")) for k in moving):
        return "dependency-wiring"
    if kinds & {"behavior.unchanged"} or any(k.startswith(("code.", "symbol.")) for k in kinds):
        return "refactor"
    return "change"


def _file_order(f: FileEntry) -> tuple[int, int, str]:
    """Source files with findings first, then other source, then the rest by category."""
    cat_rank = ("source", "test", "config", "build", "ci", "docs", "data")
    rank = cat_rank.index(f.category) if f.category in cat_rank else len(cat_rank)
    return (rank, 0 if f.finding_kinds else 1, f.path)


def _file_symbols(fds: list[Finding]) -> tuple[str, ...]:
    """Symbols of a file, most telling first (moved names and loop scopes), without duplicates."""
    order = {kind: i for i, kind in enumerate(_SYMBOL_PRIORITY)}
    ranked = sorted(
        (order.get(fd.kind, len(order)), fd.symbol)
        for fd in fds
        if fd.symbol and not fd.kind.startswith(("file.", "cycle.", "contract."))
    )
    seen: dict[str, None] = {}
    for _rank, sym in ranked:
        seen.setdefault(_short_scope(sym), None)
    return tuple(seen)


def _short_scope(scope: str) -> str:
    """Last two parts of a qualname without ``<locals>`` (``start_prefill_thread.bootstrap_thread``)."""
    parts = [p for p in scope.split(".") if p != "<locals>"]
    return ".".join(parts[-2:]) if parts else scope


def _guards(value: Any) -> list[str]:
    """Guard texts, without the enclosing loops (the loop is the same before and after)."""
    return [
        g.get("text", "") for g in value or [] if isinstance(g, dict) and g.get("kind") != "loop"
    ]


# Every key is always present (templates run with StrictUndefined).
_FACT_KEYS = (
    "hoisted",
    "sunk",
    "moved",
    "added",
    "removed",
    "imports_removed",
    "imports_remaining",
    "imports_added",
    "guards_preserved",
    "guards_changed",
    "guards_dropped",
    "behavior_unchanged",
    "behavior_changed",
    "code",
    "retained",
    "unresolved",
    "unused",
    "not_checkable",
    "behavior_accounted",
    "cycle_safe",
    "cycle_unchecked",
    "cycle_risk",
    "moved_out",
)


def _moved_out(findings: list[Finding]) -> dict[str, list[dict[str, Any]]]:
    """Definitions that left a file (``symbol.moved`` to another file), keyed by their old path."""
    out: dict[str, list[dict[str, Any]]] = {}
    for fd in findings:
        d = fd.details
        if fd.kind == "symbol.moved" and d.get("old_path") and d.get("old_path") != fd.path:
            out.setdefault(d["old_path"], []).append(
                {
                    "symbol": fd.symbol,
                    "old_qualname": d.get("old_qualname", fd.symbol),
                    "new_path": fd.path,
                    "new_module": d.get("new_module", ""),
                    "shim": bool(d.get("shim")),
                    "in_all": bool(d.get("in_all")),
                    "call_sites_updated": d.get("call_sites_updated") is not False,
                }
            )
    return out


def _code_fact(fd: Finding) -> dict[str, Any]:
    """A ``code.*``/``symbol.*`` finding as the description needs it: what, where, and whether proven."""
    d = fd.details
    sites = [
        {
            "scope": site.get("scope", ""),
            "class": site.get("class", ""),
            "equality": site.get("equality", ""),
            "call_lines": list(site.get("call_lines", [])),
            "inherits_new_home": site.get("inherits_new_home"),
        }
        for site in d.get("sites", [])
    ]
    return {
        "kind": fd.kind,
        "symbol": fd.symbol,
        "line": fd.line,
        "verified": _proves_equivalence(fd),
        "behavior_change": d.get("behavior_change") is True,
        "equality": d.get("equality", ""),
        # code.extracted
        "home_kind": d.get("home_kind", ""),
        "sites": sites,
        # code.branches-collapsed
        "pattern": d.get("pattern", ""),
        "proven": d.get("proven"),
        "method": d.get("method", ""),
        "subject": d.get("subject", ""),
        "subject_values": list(d.get("values", [])),
        "statement": d.get("statement", ""),
        "before_branches": d.get("before_branches"),
        "after_branches": d.get("after_branches"),
        # code.dead-removed
        "def_kind": d.get("kind", d.get("definition_kind", "")),
        "before_line": d.get("before_line"),
        "before_end": d.get("before_end"),
        "reference_scope": d.get("reference_scope", ""),
        # code.override-removed
        "body_kind": d.get("body_kind", ""),
        "base": d.get("base", ""),
        "base_path": d.get("base_path", ""),
        "base_line": d.get("base_line"),
        "base_provides": d.get("base_provides"),
        "base_body_kind": d.get("base_body_kind", ""),
        # symbol.moved / symbol.renamed
        "old_qualname": d.get("old_qualname", ""),
        "old_path": d.get("old_path", ""),
        "new_path": d.get("new_path", fd.path),
        "shim": bool(d.get("shim")),
        "in_all": bool(d.get("in_all")),
        "call_sites_updated": d.get("call_sites_updated"),
        "stale_references": list(d.get("stale_references", [])),
    }


def _file_facts(
    fds: list[Finding], moved_out: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Group one file's findings into the facts its description and breakdown item state."""
    facts: dict[str, Any] = {key: [] for key in _FACT_KEYS}
    facts["moved_out"] = list(moved_out or [])

    def add(key: str, value: Any) -> None:
        facts[key].append(value)

    for fd in fds:
        d = fd.details
        k = fd.kind
        if k in _IMPORT_MOVES:
            add(
                k.split(".")[1],
                {
                    "symbol": fd.symbol,
                    "module": d.get("module", ""),
                    "from_scope": d.get("from_scope", ""),
                    "to_scope": d.get("to_scope", ""),
                    "line": fd.line,
                    "merged_into_existing": bool(d.get("merged_into_existing", False)),
                    "from_context": list(d.get("from_context", [])),
                },
            )
        elif k.startswith("loop."):
            add(
                k.split(".")[1].replace("-", "_"),
                {
                    "scope": fd.symbol,
                    "loop": d.get("loop", ""),
                    "before": d.get("before", 0),
                    "after": d.get("after", 0),
                    "line": fd.line,
                },
            )
        elif k.startswith("guard."):
            add(
                "guards_" + k.split(".")[1],
                {
                    "symbol": fd.symbol,
                    "line": fd.line,
                    "scope": d.get("scope", ""),
                    "before": _guards(d.get("before")),
                    "after": _guards(d.get("after")),
                },
            )
        elif _accounted(fd):
            add(
                "behavior_accounted",
                {"symbol": fd.symbol, "line": fd.line, "by": list(d.get("accounted_by", []))},
            )
        elif k in ("behavior.unchanged", "behavior.changed"):
            add(
                k.replace(".", "_"),
                {"symbol": fd.symbol, "line": fd.line, "residual": list(d.get("residual", []))},
            )
        elif k.startswith(("code.", "symbol.")):
            add("code", _code_fact(fd))
        elif k in ("cycle.safe", "cycle.unchecked", "cycle.risk"):
            add(
                k.replace(".", "_"),
                {"symbol": fd.symbol, "line": fd.line, "chain": list(d.get("chain", []))},
            )
        elif k == "names.not-checkable":
            add(
                "not_checkable",
                {
                    "symbol": fd.symbol,
                    "line": fd.line,
                    "stars": [x.get("module", "") for x in d.get("star_imports", [])],
                },
            )
        elif k == "lazy-import.retained":
            add("retained", _retained(fd))
        elif k == "names.unresolved":
            add("unresolved", {"symbol": fd.symbol, "line": fd.line})
        elif k == "names.unused-import":
            add("unused", {"symbol": fd.symbol, "line": fd.line})
    facts["unused"].sort(key=lambda u: u["line"] or 0)
    facts["hoisted_merged"] = bool(facts["hoisted"]) and all(
        h["merged_into_existing"] for h in facts["hoisted"]
    )
    facts["hoisted_modules"] = sorted({h["module"] for h in facts["hoisted"]})
    return facts


def _retained(fd: Finding) -> dict[str, Any]:
    d = fd.details
    return {
        "path": fd.path,
        "line": fd.line,
        "symbol": fd.symbol,
        "module": d.get("module", ""),
        "scope": d.get("scope", ""),
        "reason": d.get("reason", "hoistable"),
        "guard": d.get("guard", ""),
        "named_in_description": bool(d.get("named_in_description", False)),
    }


# --- summary -------------------------------------------------------------------------------

_SYMBOL_PRIORITY = (
    "import.hoisted",
    "import.sunk",
    "import.moved",
    "loop.imports-removed",
    "loop.imports-remaining",
    "loop.imports-added",
    "code.extracted",
    "code.dead-removed",
    "code.branches-collapsed",
    "code.override-removed",
    "symbol.moved",
    "symbol.renamed",
    "behavior.changed",
    "guard.dropped",
    "guard.changed",
    "import.added",
    "import.removed",
    "names.unresolved",
)


def _names(findings: list[Finding], kind: str) -> list[str]:
    return sorted({fd.symbol for fd in findings if fd.kind == kind and fd.symbol})


def _headline(findings: list[Finding], files: list[FileEntry], verdict: str) -> dict[str, Any]:
    """The facts the one-line summary is built from, dominant first."""
    kinds = Counter(fd.kind for fd in findings)
    hoisted_files = sorted({fd.path for fd in findings if fd.kind == "import.hoisted"})
    code = {k: _names(findings, k) for k in sorted(kinds) if k.startswith(("code.", "symbol."))}
    behavior = (
        "changed"
        if kinds["behavior.changed"]
        else ("unchanged" if kinds["behavior.unchanged"] else "unknown")
    )
    return {
        "verdict": verdict,
        "hoisted": _names(findings, "import.hoisted"),
        "hoisted_files": len(hoisted_files),
        "sunk": _names(findings, "import.sunk"),
        "moved": _names(findings, "import.moved"),
        "loops_cleared": kinds["loop.imports-removed"],
        "loops_remaining": kinds["loop.imports-remaining"] + kinds["loop.imports-added"],
        "code": code,
        "behavior": behavior,
        "behavior_changed": _names(findings, "behavior.changed"),
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
            if k in _SYMBOL_PRIORITY
        ][:3],
    }


_SEVERITY_ORDER = ("high", "medium", "low")


def _action(risks: list[dict[str, Any]]) -> dict[str, Any]:
    """Recommended action from the risks: block on high, review medium spots, else skim."""
    high = [r["id"] for r in risks if r["severity"] == "high"]
    medium = [r for r in risks if r["severity"] == "medium"]
    if high:
        return {"level": "block", "blockers": high, "spots": []}
    if medium:
        spots: list[dict[str, Any]] = []
        for r in medium:
            located = [e for e in r["evidence"] if e.get("path")]
            spots.extend(
                {"risk": r["id"], "path": e["path"], "line": e.get("line")} for e in located[:3]
            )
            if not located:
                spots.append({"risk": r["id"], "path": "", "line": None})
        return {"level": "review", "blockers": [], "spots": spots}
    return {"level": "skim", "blockers": [], "spots": []}


def _key_symbols(findings: list[Finding]) -> tuple[str, ...]:
    """Symbols that carry the change, most telling first (at most twelve)."""
    order = {kind: i for i, kind in enumerate(_SYMBOL_PRIORITY)}
    seen: dict[str, None] = {}
    for _rank, sym in sorted(
        (order[fd.kind], fd.symbol) for fd in findings if fd.kind in order and fd.symbol
    ):
        seen.setdefault(sym, None)
    return tuple(list(seen)[:12])


# --- snippets ------------------------------------------------------------------------------


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _import_block(lines: list[str], start: int) -> tuple[int, int]:
    """1-based inclusive range of the import statement starting at ``start`` (parenthesised or not)."""
    end = start
    depth = 0
    for i in range(start - 1, len(lines)):
        depth += lines[i].count("(") - lines[i].count(")")
        end = i + 1
        if depth <= 0 and not lines[i].rstrip().endswith("\\"):
            break
    return start, end


def _block_end(lines: list[str], start: int) -> int:
    """Last line (1-based) of the indented block headed by line ``start``."""
    base = _indent(lines[start - 1])
    end = start
    for i in range(start, len(lines)):
        text = lines[i]
        if not text.strip():
            continue
        if _indent(text) <= base:
            break
        end = i + 1
    return end


def _enclosing_def(lines: list[str], line: int, name: str, reach: int = 8) -> int:
    """Line of ``def name`` just above ``line`` (within ``reach`` lines), else ``line``."""
    pattern = re.compile(rf"^\s*(async\s+)?def\s+{re.escape(name)}\s*\(")
    for i in range(line - 2, max(line - 2 - reach, -1), -1):
        if pattern.match(lines[i]):
            return i + 1
    return line


_DEFINITION_SNIPPETS = (
    "code.extracted",
    "code.branches-collapsed",
    "symbol.moved",
    "symbol.renamed",
)


def _chain_end(lines: list[str], start: int) -> int:
    """Last line of the ``if``/``elif``/``else`` chain (or any block) headed by line ``start``."""
    end = _block_end(lines, start)
    base = _indent(lines[start - 1])
    while end < len(lines):
        nxt = next((i for i in range(end, len(lines)) if lines[i].strip()), None)
        if nxt is None or _indent(lines[nxt]) != base:
            break
        if not re.match(r"\s*(elif\b|else\s*:|except\b|finally\s*:)", lines[nxt]):
            break
        end = _block_end(lines, nxt + 1)
    return end


def _decorated_start(lines: list[str], start: int) -> int:
    """``start`` moved up over the decorators right above a definition."""
    while start > 1 and lines[start - 2].lstrip().startswith("@"):
        start -= 1
    return start


def _definition_caption(fd: Finding) -> dict[str, Any]:
    """Caption facts of the after-code of a refactored definition (new helper, merged branch, moved def)."""
    d = fd.details
    return {
        "kind": fd.kind.replace(".", "-"),
        "symbol": fd.symbol,
        "verified": _proves_equivalence(fd),
        "home_kind": d.get("home_kind", ""),
        "sites": [site.get("scope") or site.get("class", "") for site in d.get("sites", [])],
        "pattern": d.get("pattern", ""),
        "subject": d.get("subject", ""),
        "subject_values": list(d.get("values", [])),
        "statement": d.get("statement", ""),
        "old_qualname": d.get("old_qualname", ""),
        "old_path": d.get("old_path", ""),
        "equality": d.get("equality", ""),
    }


def _snippets(
    bundle: PullRequestBundle, findings: list[Finding], max_lines: int, max_snippets: int
) -> list[dict[str, Any]]:
    """After-code around each important change: merged import blocks, cleared loops, changed guards."""
    wanted: list[tuple[int, str, int, int, dict[str, Any]]] = []
    for fd in findings:
        f = bundle.file(fd.path)
        if f is None or f.after is None:
            continue
        lines = f.after.splitlines()
        d = fd.details
        if fd.kind == "import.hoisted":
            start = int(d.get("block_line") or d.get("to_line") or fd.line or 0)
            if not 0 < start <= len(lines):
                continue
            lo, hi = _import_block(lines, start)
            wanted.append(
                (
                    0,
                    fd.path,
                    lo,
                    hi,
                    {
                        "kind": "import-block",
                        "names": [fd.symbol],
                        "module": d.get("module", ""),
                        "merged_into_existing": bool(d.get("merged_into_existing")),
                    },
                )
            )
        elif fd.kind in ("loop.imports-removed", "loop.imports-remaining", "loop.imports-added"):
            loop_line = int(d.get("after_line") or fd.line or 0)
            if not 0 < loop_line <= len(lines):
                continue
            scope = d.get("scope") or fd.symbol
            lo = _enclosing_def(lines, loop_line, scope.split(".")[-1])
            hi = _block_end(lines, loop_line)
            wanted.append(
                (
                    1,
                    fd.path,
                    lo,
                    hi,
                    {
                        "kind": "loop",
                        "loop": d.get("loop", ""),
                        "scope": scope,
                        "before": d.get("before", 0),
                        "after": d.get("after", 0),
                        "change": fd.kind.split(".")[1],
                    },
                )
            )
        elif fd.kind in _DEFINITION_SNIPPETS:
            start = int(d.get("new_line") or d.get("after_line") or fd.line or 0)
            if not 0 < start <= len(lines):
                continue
            if fd.kind == "code.branches-collapsed":
                # The statement hoisted before the chain, then the chain itself.
                hi = _chain_end(lines, start)
                lo = start - 1 if d.get("pattern") == "hoisted-first" and start > 1 else start
                if d.get("pattern") == "hoisted-last":
                    hi = min(len(lines), hi + 1)
            else:
                lo = _decorated_start(lines, start)
                hi = _block_end(lines, start)
            wanted.append((0, fd.path, lo, hi, _definition_caption(fd)))
        elif fd.kind in ("guard.changed", "guard.dropped", "behavior.changed") and fd.line:
            line = int(d.get("after_line") or fd.line)
            if not 0 < line <= len(lines):
                continue
            wanted.append(
                (
                    2,
                    fd.path,
                    max(1, line - 3),
                    min(len(lines), line + 3),
                    {"kind": fd.kind.replace(".", "-"), "symbol": fd.symbol},
                )
            )
    merged: list[dict[str, Any]] = []
    for _prio, path, lo, hi, caption in sorted(wanted, key=lambda w: (w[0], w[1], w[2])):
        prev = next(
            (
                s
                for s in merged
                if s["path"] == path
                and lo <= s["end_line"] + 1
                and hi >= s["start_line"] - 1
                and s["caption_facts"]["kind"] == caption["kind"]
            ),
            None,
        )
        if prev is not None:
            prev["start_line"], prev["end_line"] = (
                min(prev["start_line"], lo),
                max(prev["end_line"], hi),
            )
            if caption["kind"] == "import-block":
                prev["caption_facts"]["names"] = sorted(
                    {*prev["caption_facts"]["names"], *caption["names"]}
                )
            continue
        merged.append({"path": path, "start_line": lo, "end_line": hi, "caption_facts": caption})
    out = []
    for s in merged[:max_snippets]:
        f = bundle.file(s["path"])
        assert f is not None and f.after is not None
        lines = f.after.splitlines()
        full_end = s["end_line"]
        end = min(full_end, s["start_line"] + max_lines - 1)
        shown = lines[s["start_line"] - 1 : end]
        # Drop the common indentation (a nested loop reads better flush left); ``dedent`` says how much.
        dedent = min((_indent(ln) for ln in shown if ln.strip()), default=0)
        out.append(
            {
                "path": s["path"],
                "start_line": s["start_line"],
                "end_line": end,
                "truncated": end < full_end,
                "language": "python" if s["path"].endswith(".py") else "",
                "code": "\n".join(ln[dedent:] for ln in shown),
                "dedent": dedent,
                "caption": "",
                "caption_facts": s["caption_facts"],
            }
        )
    return out


# --- review --------------------------------------------------------------------------------

# Bot commands and CI re-run requests: process, not discussion.
_PROCESS = re.compile(
    r"^\s*(/[\w-]+|@\w[\w-]*bot\b|(re)?test this please|retest|rerun|/retest|ok to test)", re.I
)
_APPROVAL = re.compile(r"^\s*(lgtm|looks good( to me)?|approved?|ship it|\+1|👍)[\s.!]*$", re.I)
_HIGHLIGHT_CHARS = 400


# prreport's own report comments open with a hidden marker (see publish.py): not review data.
_OWN_REPORT = re.compile(r"^\s*<!-- prreport:")


def _classify_comment(c: Comment) -> str:
    body = c.body.strip()
    if not body:
        return "empty"
    if _OWN_REPORT.match(body):
        return "prreport"
    if _PROCESS.match(body) and len(body.splitlines()) <= 2:
        return "process"
    if _APPROVAL.match(body):
        return "approval"
    if c.author.endswith("[bot]") or c.author.endswith("-bot"):
        return "bot"
    return "substantive"


def _review(bundle: PullRequestBundle) -> dict[str, Any]:
    """Counts, classified comments, the substantive ones to quote, and CI at head."""
    comments = [*bundle.reviews, *bundle.review_comments, *bundle.issue_comments]
    classified = [(c, _classify_comment(c)) for c in comments]
    highlights = []
    for c, cls in classified:
        if cls in ("empty", "prreport"):
            continue
        body = c.body.strip()
        highlights.append(
            {
                "kind": c.kind,
                "author": c.author,
                "class": cls,
                "state": c.state,
                "path": c.path,
                "line": c.line,
                "url": c.url,
                "body": body[:_HIGHLIGHT_CHARS],
                "truncated": len(body) > _HIGHLIGHT_CHARS,
            }
        )
    checks = [to_jsonable(c) for c in bundle.checks]
    failing = sorted(
        c.name
        for c in bundle.checks
        if c.conclusion in ("failure", "timed_out", "cancelled", "action_required")
    )
    pending = sorted(c.name for c in bundle.checks if c.status != "completed")
    passing = sorted(c.name for c in bundle.checks if c.conclusion == "success")
    states = Counter(c.state for c in bundle.reviews if c.state)
    merged = bundle.pr.state == "merged" or bool(bundle.pr.merged_at)
    return {
        "available": bundle.review_data_available,
        "review_comments_count": len(bundle.review_comments),
        "issue_comments_count": sum(
            1 for c in bundle.issue_comments if not _OWN_REPORT.match(c.body)
        ),
        "reviews_count": len(bundle.reviews),
        "review_states": dict(sorted(states.items())),
        "class_counts": dict(sorted(Counter(cls for _c, cls in classified).items())),
        "highlights": highlights,
        "ci": checks,
        "ci_summary": {
            "total": len(checks),
            "passing": passing,
            "failing": failing,
            "pending": pending,
        },
        "merged": merged,
        "merged_with_failures": merged and bool(failing),
        "self_merged": bool(
            merged and bundle.pr.merged_by and bundle.pr.merged_by == bundle.pr.author
        ),
    }


# --- risks ---------------------------------------------------------------------------------


def _ev(fd: Finding, **extra: Any) -> dict[str, Any]:
    return {"kind": fd.kind, "path": fd.path, "line": fd.line, "symbol": fd.symbol, **extra}


def _risks(
    bundle: PullRequestBundle,
    findings: list[Finding],
    files: list[FileEntry],
    verdict: str,
    review: dict[str, Any],
    diagnostics: list[Diagnostic],
) -> list[dict[str, Any]]:
    """Risk tags from findings and metadata, each with its evidence; highest severity first."""
    risks: list[dict[str, Any]] = []

    def add(rid: str, severity: str, evidence: list[dict[str, Any]]) -> None:
        if evidence:
            risks.append({"id": rid, "severity": severity, "title": "", "evidence": evidence})

    of = lambda *kinds: [fd for fd in findings if fd.kind in kinds]  # noqa: E731
    add(
        "import-cycle",
        "high",
        [
            _ev(
                fd,
                chain=list(fd.details.get("chain", [])),
                target_path=fd.details.get("target_path", ""),
            )
            for fd in of("cycle.risk")
        ],
    )
    add(
        "guard-dropped",
        "high",
        [
            _ev(
                fd, before=_guards(fd.details.get("before")), after=_guards(fd.details.get("after"))
            )
            for fd in of("guard.dropped")
        ],
    )
    add("unresolved-name", "high", [_ev(fd) for fd in of("names.unresolved")])
    add(
        "refactor-not-equivalent",
        "high",
        [
            _ev(fd, **_not_equivalent(fd))
            for fd in findings
            if fd.kind.startswith(("code.", "symbol."))
            and fd.details.get("behavior_change") is True
        ],
    )
    # Only the PR's own words make a behaviour change a broken promise (a high risk): a
    # "refactor" title or a no-behaviour-change / pure-refactor claim in the description.
    pr_text = f"{bundle.pr.title}\n{bundle.pr.body}"
    claims_refactor = bool(re.search(r"\brefactor", bundle.pr.title, re.I)) or any(
        re.search(pattern, pr_text, re.I)
        for cid, pattern in _CLAIMS
        if cid in ("no-behavior-change", "pure-refactor")
    )
    if claims_refactor:
        add(
            "behavior-change-in-refactor",
            "high",
            [
                _ev(fd, residual=list(fd.details.get("residual", []))[:5])
                for fd in of("behavior.changed")
            ],
        )
    add(
        "guard-changed",
        "medium",
        [
            _ev(
                fd, before=_guards(fd.details.get("before")), after=_guards(fd.details.get("after"))
            )
            for fd in of("guard.changed")
        ],
    )
    add(
        "import-in-loop",
        "medium",
        [
            _ev(fd, loop=fd.details.get("loop", ""), after=fd.details.get("after", 0))
            for fd in of("loop.imports-added", "loop.imports-remaining")
        ],
    )
    add(
        "unparseable",
        "medium",
        [
            {
                "kind": "diagnostic",
                "path": d.path,
                "line": d.line,
                "symbol": "",
                "origin": d.origin,
                "message": d.message,
            }
            for d in diagnostics
            if d.path
        ]
        + [_ev(fd, reason=fd.details.get("reason", "")) for fd in of("file.unreadable")],
    )
    if review["merged_with_failures"]:
        add(
            "ci-failing-at-merge",
            "medium",
            [
                {"kind": "ci", "path": "", "line": None, "symbol": name}
                for name in review["ci_summary"]["failing"]
            ],
        )
    if review["available"] and not review["reviews_count"] and not review["review_comments_count"]:
        add(
            "no-review",
            "medium",
            [
                {
                    "kind": "review",
                    "path": "",
                    "line": None,
                    "symbol": "",
                    "issue_comments": review["issue_comments_count"],
                }
            ],
        )
    add(
        "cycle-unchecked",
        "medium",
        [
            _ev(fd, unavailable=list(fd.details.get("unavailable", [])))
            for fd in of("cycle.unchecked")
        ],
    )
    add(
        "names-not-checkable",
        "low",
        [
            _ev(fd, stars=[x.get("module", "") for x in fd.details.get("star_imports", [])])
            for fd in of("names.not-checkable")
        ],
    )
    add(
        "implicit-contract",
        "low",
        [
            _ev(
                fd,
                module=fd.details.get("module", fd.symbol),
                forbidden=list(fd.details.get("forbidden", [])),
                importers=list(fd.details.get("importers", [])) or [fd.path],
                contract=fd.details.get("contract", ""),
            )
            for fd in of("contract.implicit")
        ],
    )
    source = [f for f in files if f.category == "source" and f.path.endswith(".py")]
    tests = [f for f in files if f.category == "test"]
    if source and not tests:
        add(
            "no-tests",
            "low",
            [{"kind": "files", "path": f.path, "line": None, "symbol": ""} for f in source],
        )
    risks.sort(key=lambda r: _SEVERITY_ORDER.index(r["severity"]))
    return risks


def _not_equivalent(fd: Finding) -> dict[str, Any]:
    """Why a refactor finding is not behaviour-preserving, as evidence fields."""
    d = fd.details
    return {
        "equality": d.get("equality", ""),
        "proven": d.get("proven"),
        "different_sites": [
            site.get("scope") or site.get("class", "")
            for site in d.get("sites", [])
            if site.get("equality") == "different"
        ],
        "not_inheriting": [
            site.get("class", "")
            for site in d.get("sites", [])
            if site.get("inherits_new_home") is False
        ],
        "stale_references": list(d.get("stale_references", []))[:5],
        "base_provides": d.get("base_provides"),
        "base": d.get("base", ""),
        "base_body_kind": d.get("base_body_kind", ""),
        "old_qualname": d.get("old_qualname", ""),
    }


def _impact(files: list[FileEntry], findings: list[Finding], verdict: str) -> dict[str, Any]:
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
        "changed_functions": _names(findings, "behavior.changed"),
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


# --- breakdown, related, claims ------------------------------------------------------------


def _breakdown(
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
    retained = [_retained(fd) for fd in findings if fd.kind == "lazy-import.retained"]
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


def _related(bundle: PullRequestBundle) -> list[dict[str, Any]]:
    rank = {r: i for i, r in enumerate(RELATION_ORDER)}
    items = [to_jsonable(r) for r in bundle.related]
    return sorted(items, key=lambda r: (rank.get(r["relation"], len(rank)), r["number"]))


# Claim id -> pattern over the PR title and body (English phrasing of common PR texts).
_CLAIMS = (
    (
        "no-behavior-change",
        r"no (functional |behaviou?ral |behaviou?r |logic |semantic )?changes? (in|to) behaviou?r"
        r"|no (functional|behaviou?ral|behaviou?r|logic|semantic) changes?|behaviou?r[- ]preserving|does not change (the )?behaviou?r",
    ),
    (
        "pure-refactor",
        r"\bpure(ly)?( a)? refactor|refactor[- ]only|\bno-op refactor|mechanical (refactor|change)",
    ),
    (
        "no-import-cycle",
        r"no (import |circular )?(cycle|circular import)s?|no cycle-avoidance reason|without (an )?import cycle",
    ),
    (
        "zero-imports-in-loop",
        r"zero imports?|no imports? (inside|in) the loops?|no (more )?in-loop imports?",
    ),
    ("names-resolve", r"\bF821\b|no undefined names?"),
)


def _claim_sentence(text: str, match: re.Match[str]) -> str:
    """The sentence of ``text`` containing the match, whitespace collapsed (a quote, never rewritten)."""
    bounds = re.compile(r"(?<=[.!?])\s+|\n\s*\n|\n\s*[-*+]\s|\n#+\s")
    start = 0
    for b in bounds.finditer(text, 0, match.start()):
        start = b.end()
    nxt = bounds.search(text, match.end())
    sentence = text[start : nxt.start() if nxt else len(text)]
    sentence = re.sub(r"^\s*([-*+]\s+)?(\[[ xX]\]\s+)?", "", sentence)
    return " ".join(sentence.split())


def _claims(title: str, body: str, findings: list[Finding], verdict: str) -> list[dict[str, Any]]:
    """Statements in the PR text, checked against the findings: supported, contradicted or not checkable."""
    text = f"{title}\n{body}"
    kinds = Counter(fd.kind for fd in findings)
    out = []
    for cid, pattern in _CLAIMS:
        m = re.search(pattern, text, re.I)
        if not m:
            continue
        status, evidence = _check_claim(cid, findings, kinds, verdict)
        out.append(
            {"id": cid, "quote": _claim_sentence(text, m), "status": status, "evidence": evidence}
        )
    return out


def _check_claim(
    cid: str, findings: list[Finding], kinds: Counter[str], verdict: str
) -> tuple[str, list[dict[str, Any]]]:
    def ev(*ks: str) -> list[dict[str, Any]]:
        return [_ev(fd) for fd in findings if fd.kind in ks][:6]

    against = {
        "no-behavior-change": ("behavior.changed", "guard.dropped", "guard.changed"),
        "pure-refactor": ("behavior.changed", "guard.dropped", "guard.changed", "cycle.risk"),
        "no-import-cycle": ("cycle.risk",),
        "zero-imports-in-loop": ("loop.imports-remaining", "loop.imports-added"),
        "names-resolve": ("names.unresolved",),
    }[cid]
    support = {
        "no-behavior-change": ("behavior.unchanged",),
        "pure-refactor": ("behavior.unchanged",),
        "no-import-cycle": ("cycle.safe",),
        "zero-imports-in-loop": ("loop.imports-removed",),
        # A clean name check leaves no finding, so only a contradiction is checkable.
        "names-resolve": (),
    }[cid]
    if any(kinds[k] for k in against):
        return "contradicted", ev(*against)
    if cid == "pure-refactor" and verdict != "pure-refactor":
        return "not-checkable", []
    if support and any(kinds[k] for k in support):
        return "supported", ev(*support)
    return "not-checkable", []
