"""Score prreport against the labelled corpus of real commits (tests/corpus/).

    python benchmarks/accuracy.py [--json] [--misses N] [ID ...]

Prints, per cohort and for the whole corpus, the verdict figures of issue 29: pure recall
(behaviour-preserving commits proven ``pure-refactor``), false pure (a commit that is not
behaviour-preserving called ``pure-refactor``), false change claims (behaviour-preserving
commits called ``behavior-change``/``refactor-with-behavior-change``), changes flagged
(behaviour-changing commits called one of those two, not merely unproven or unknown) and the
median share of changed lines left to review (no finding explains them) on behaviour-preserving
commits; then issue 31's review-view figures on behaviour-preserving commits (the median and mean
share of changed lines the report's review view leaves to read, all files and library source
only, and the median lines changed and left on the commits labelled with moves and with
extractions, beside RAID's field-study figures); then verdict accuracy (pure vs not pure), precision and recall per finding kind the
labels cover, analyzer crashes, and the worst misses. ``--json`` prints the figures as one JSON
object instead (tests/test_corpus.py reads it and holds them above tests/corpus/floors.json).

Then the mutation check of issue 30 (``tests/corpus_mutants.py``): every commit proven
``pure-refactor`` gets behaviour-changing mutants of its after side (a flipped comparison, a
changed constant, a call dropped or two reordered, two arguments swapped, a guard removed, an
``if`` negated), at most ``--mutants N`` per commit (12; a fixed seed chooses them), and none may
stay pure: the kill rate (goal 100%), every survivor with its commit, line, operator and the
findings that explained its line, and the time it took. ``--no-mutations`` skips it.

The corpus grows by cohorts (tests/corpus/floors.json): the commits labelled first keep the
floors they were held to, and the whole corpus has its own. A cohort is the first N labels
(``first``) or a range of them (``from``/``to``, 1-based, inclusive). ``--json`` also scores each
cohort (``cohorts``: name -> the same figures over its labels).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/ (the mutants)

from prreport.bundle import load_bundle  # noqa: E402
from prreport.config import Config  # noqa: E402
from prreport.findings import Finding  # noqa: E402
from prreport.pipeline import Analysis, analyse  # noqa: E402
from prreport.report.ledger import ledger_of  # noqa: E402
from prreport.report.reconcile import accounted  # noqa: E402
from prreport.report.verdict import witnesses_of  # noqa: E402
from tests import corpus_mutants  # noqa: E402

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus"

# Label refactoring kind -> the finding kind that reports it.
REFACTOR_KINDS = {
    "extracted": "code.extracted",
    "inlined": "code.inlined",
    "moved": "symbol.moved",
    "renamed": "symbol.renamed",
    "dead-removed": "code.dead-removed",
    "override-removed": "code.override-removed",
    "branches-collapsed": "code.branches-collapsed",
    "guard-dropped": "guard.dropped",
}
SCORED_KINDS = (
    "import.hoisted",
    "import.sunk",
    "import.moved",
    *REFACTOR_KINDS.values(),
)
# Misses in the order they hurt a reviewer: a wrong "pure refactor" is the worst, a "behaviour
# change" told of a behaviour-preserving commit the second worst (shared/DESIGN.md §2).
_MISS_RANK = {"false-pure": 0, "false-change-claim": 1, "refactor-called-change": 2}
# Verdicts that claim a behaviour change.
CHANGE_VERDICTS = ("behavior-change", "refactor-with-behavior-change")


def short(name: str) -> str:
    """``A.f.<locals>.g`` -> ``g``; ``urllib.request`` -> ``request``."""
    parts = [p for p in str(name).split(".") if p and p != "<locals>"]
    return parts[-1] if parts else str(name)


def import_kind(move: dict[str, Any]) -> str:
    """The finding kind a labelled import move should be reported as."""
    src, dst = move.get("from", ""), move.get("to", "")
    other_file = move.get("to_file") and move.get("to_file") != move.get("file")
    if not other_file and src != "module" and dst == "module":
        return "import.hoisted"
    if not other_file and src == "module" and dst != "module":
        return "import.sunk"
    return "import.moved"


def expected(label: dict[str, Any]) -> list[tuple[str, set[str]]]:
    """(finding kind, acceptable short symbols) for every labelled import move and refactoring."""
    out = []
    for m in label.get("import_moves", []):
        name = str(m.get("name", ""))
        out.append((import_kind(m), {short(name), name.split(".")[0]}))
    for r in label.get("refactorings", []):
        kind = REFACTOR_KINDS.get(r.get("kind", ""))
        if kind:
            names = {short(r.get("symbol", ""))}
            if r.get("kind") == "renamed" and r.get("to"):
                names.add(short(r["to"]))
            out.append((kind, names))
    return out


def _reordered(fd: Finding) -> bool:
    """A definition moved within its own file and scope: the labels' ``moved`` is to another
    file or class (tests/corpus/README.md), so a reorder is neither a hit nor a false one."""
    d = fd.details
    return (
        fd.kind == "symbol.moved"
        and d.get("old_path") == d.get("new_path")
        and d.get("old_qualname") == d.get("new_qualname")
    )


def finding_names(fd: Finding) -> set[str]:
    """Short names a finding can be matched by (a rename also by its old name)."""
    names = {short(fd.symbol)}
    if fd.kind.startswith("import."):
        # ``import a.b`` is named ``a.b`` and binds ``a``: a label may give either
        names.add(str(fd.symbol).split(".")[0])
    for key in ("old_qualname", "name", "helper"):
        if fd.details.get(key):
            names.add(short(str(fd.details[key])))
    return names


@dataclass
class CaseResult:
    """One commit: its label, prreport's verdict and findings."""

    label: dict[str, Any]
    verdict: str
    findings: list[Finding]
    crashes: list[str]
    seconds: float
    live_changes: list[str] = field(default_factory=list)
    changed_lines: int = 0
    explained_lines: int = 0
    # the review view (issue 31): lines left to read, all files and library source only
    review_left: int = 0
    source_changed: int = 0
    source_left: int = 0
    view_errors: list[str] = field(default_factory=list)
    # context the analyzers asked for that the saved bundle lacks (made by an older prreport)
    unfetched: list[str] = field(default_factory=list)

    @property
    def left_share(self) -> float:
        """The share of the commit's changed lines no finding explains (0 when none changed)."""
        if not self.changed_lines:
            return 0.0
        return (self.changed_lines - self.explained_lines) / self.changed_lines

    @property
    def review_share(self) -> float:
        """The share of the commit's changed lines its review view leaves to read."""
        return self.review_left / self.changed_lines if self.changed_lines else 0.0

    @property
    def source_share(self) -> float | None:
        """The same over library source files only (None when none changed)."""
        return self.source_left / self.source_changed if self.source_changed else None


def view_errors(analysis: Analysis) -> list[str]:
    """What breaks issue 31's promise in one report's review view: a changed line shown other
    than exactly once (folded or left), or a line a witness names folded. The witnesses are
    computed again from the findings, not read from the view."""
    model = analysis.model
    errors: list[str] = []
    placed: dict[tuple[str, str, int], list[str]] = {}
    for f in model.diff:
        for h in f["hunks"]:
            for b in h["blocks"]:
                for r in b["rows"]:
                    if r["sign"] in ("-", "+"):
                        n = r["old"] if r["sign"] == "-" else r["new"]
                        placed.setdefault((f["path"], r["sign"], n), []).append(b["type"])
    ledger = ledger_of(analysis.bundle, list(model.findings), analysis.diagnostics)
    for lf in ledger.files:
        if lf.status == "binary":
            continue
        for ln in lf.lines:
            got = placed.get((lf.path, ln.side, ln.line), [])
            if len(got) != 1:
                errors.append(f"{lf.path}:{ln.side}{ln.line} shown {len(got)} times")
    live = [fd for fd in model.findings if not accounted(fd)]
    for w in witnesses_of(live, ledger):
        sides = (w["side"],) if w.get("side") in ("-", "+") else ("+", "-")
        for side in sides:
            if "fold" in placed.get((w["path"], side, w["line"]), []):
                errors.append(f"{w['path']}:{side}{w['line']} witnessed ({w['kind']}) but folded")
    return errors


def run_case(label: dict[str, Any]) -> CaseResult:
    """Analyse one corpus bundle with the default configuration."""
    bundle = load_bundle(CORPUS / "bundles" / f"{label['id']}.json.gz")
    t0 = time.perf_counter()
    analysis = analyse(bundle, Config())
    seconds = time.perf_counter() - t0
    crashes = [
        f"{d.origin}: {d.message.splitlines()[0]}"
        for d in analysis.diagnostics
        if "analyzer failed" in d.message or "could not plan" in d.message
    ]
    model = analysis.model
    source = [f for f in model.ledger.get("files", []) if f["category"] == "source"]
    live = [
        f"{fd.kind} {fd.path}:{fd.line} {fd.symbol}"
        for fd in model.findings
        if fd.kind in ("behavior.changed", "guard.dropped", "cycle.risk", "names.unresolved")
        and not fd.details.get("accounted_by")
    ]
    return CaseResult(
        label,
        model.summary.verdict,
        list(model.findings),
        crashes,
        seconds,
        live,
        model.summary.changed_lines,
        model.summary.explained_lines,
        int(model.ledger.get("left", 0)),
        sum(f["changed"] for f in source),
        sum(f["left"] for f in source),
        view_errors(analysis),
        sorted(analysis.unfetched.files) + sorted(analysis.unfetched.references),
    )


def _rate(n: int, d: int) -> float | None:
    return round(n / d, 3) if d else None


def _median(values: list[float]) -> float | None:
    if not values:
        return None
    v = sorted(values)
    mid = len(v) // 2
    return round(v[mid] if len(v) % 2 else (v[mid - 1] + v[mid]) / 2, 3)


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def _labelled(r: CaseResult, kind: str) -> bool:
    return any(x.get("kind") == kind for x in r.label.get("refactorings", []))


def review_figures(results: list[CaseResult]) -> dict[str, Any]:
    """Issue 31's figures on behaviour-preserving commits: the share of changed lines the review
    view leaves to read (median, mean; library source only), and for the commits labelled with
    moves and with extractions the median lines changed and left (RAID's measure)."""
    keep = [r for r in results if r.label["behavior_preserving"]]
    src = [x for x in (r.source_share for r in keep) if x is not None]
    out: dict[str, Any] = {
        "median_review_left_share": _median([r.review_share for r in keep]),
        "mean_review_left_share": _mean([r.review_share for r in keep]),
        "median_source_left_share": _median(src),
        "mean_source_left_share": _mean(src),
        "view_errors": [f"{r.label['id']}: {e}" for r in results for e in r.view_errors],
    }
    for name, kind in (("moves", "moved"), ("extractions", "extracted")):
        group = [r for r in keep if _labelled(r, kind)]
        out[name] = {
            "commits": len(group),
            "median_lines_changed": _median([float(r.changed_lines) for r in group]),
            "median_lines_left": _median([float(r.review_left) for r in group]),
            "median_source_lines_left": _median([float(r.source_left) for r in group]),
            "median_share_left": _median([r.review_share for r in group]),
        }
    return out


# RAID (Brito and Valente, SANER 2021), field study: median lines to review without and with
# the refactorings folded away.
RAID = {"moves": (14.5, 2.0), "extractions": (113.0, 55.0)}


def verdict_figures(results: list[CaseResult]) -> dict[str, Any]:
    """Issue 29's figures: pure recall, false pure, false change claims, changes flagged and the
    median share of changed lines left to review on behaviour-preserving commits."""
    keep = [r for r in results if r.label["behavior_preserving"]]
    change = [r for r in results if not r.label["behavior_preserving"]]
    pure = sum(r.verdict == "pure-refactor" for r in keep)
    false_pure = sum(r.verdict == "pure-refactor" for r in change)
    claims = sum(r.verdict in CHANGE_VERDICTS for r in keep)
    flagged = sum(r.verdict in CHANGE_VERDICTS for r in change)
    return {
        "preserving": len(keep),
        "changing": len(change),
        "pure_proven": pure,
        "pure_recall": _rate(pure, len(keep)),
        "false_pure": false_pure,
        "false_change_claims": claims,
        "false_change_claim_rate": _rate(claims, len(keep)),
        "changes_flagged": flagged,
        "changes_flagged_rate": _rate(flagged, len(change)),
        "median_left_share": _median([r.left_share for r in keep]),
        # behaviour-changing commits not called a change: "id verdict"
        "unflagged_changes": [
            f"{r.label['id']} {r.verdict}" for r in change if r.verdict not in CHANGE_VERDICTS
        ],
        "verdicts": dict(sorted(Counter(r.verdict for r in results).items())),
    }


def score(results: list[CaseResult]) -> dict[str, Any]:
    """Verdict accuracy, per-kind precision/recall, crashes and misses over the results."""
    correct = 0
    per_kind: dict[str, dict[str, int]] = defaultdict(
        lambda: {"tp": 0, "fp": 0, "labelled": 0, "matched": 0, "found": 0}
    )
    misses = []
    fp_examples: dict[str, list[str]] = defaultdict(list)
    for r in results:
        pure = r.verdict == "pure-refactor"
        truth = bool(r.label["behavior_preserving"])
        if pure == truth:
            correct += 1
        else:
            if pure:
                kind = "false-pure"
            elif r.verdict in CHANGE_VERDICTS:
                kind = "false-change-claim"
            else:
                kind = "refactor-called-change"  # preserving, not proven: unknown or unproven
            misses.append(
                {
                    "id": r.label["id"],
                    "type": kind,
                    "verdict": r.verdict,
                    "label": r.label.get("reason", ""),
                    "left": f"{r.changed_lines - r.explained_lines} of {r.changed_lines}",
                    "why": (r.crashes + r.live_changes)[:4],
                }
            )
        want = expected(r.label)
        seen: set[tuple[str, str]] = set()
        for fd in r.findings:
            if fd.kind not in SCORED_KINDS or _reordered(fd):
                continue
            key = (fd.kind, short(fd.symbol))
            if key in seen:
                continue
            seen.add(key)
            per_kind[fd.kind]["found"] += 1
            names = finding_names(fd)
            if any(k == fd.kind and names & ok for k, ok in want):
                per_kind[fd.kind]["tp"] += 1
            else:
                per_kind[fd.kind]["fp"] += 1
                fp_examples[fd.kind].append(f"{r.label['id']} {fd.path}:{fd.line} {fd.symbol}")
        for kind, ok in want:
            per_kind[kind]["labelled"] += 1
            if any(fd.kind == kind and finding_names(fd) & ok for fd in r.findings):
                per_kind[kind]["matched"] += 1
    kinds = {}
    for kind in SCORED_KINDS:
        c = per_kind[kind]
        labelled = c["labelled"]
        kinds[kind] = {
            "labelled": labelled,
            "found": c["found"],
            # Precision over distinct (commit, kind, name) findings; recall over labelled items.
            "precision": round(c["tp"] / c["found"], 3) if c["found"] else None,
            "recall": round(c["matched"] / labelled, 3) if labelled else None,
            "false_positives": fp_examples[kind][:5],
        }
    misses.sort(key=lambda m: (_MISS_RANK[m["type"]], m["id"]))
    return {
        "cases": len(results),
        **verdict_figures(results),
        **review_figures(results),
        "verdict_accuracy": round(correct / len(results), 3) if results else None,
        # every behaviour-preserving commit not proven pure (false change claims included)
        "refactor_called_change": sum(1 for m in misses if m["type"] != "false-pure"),
        "crashes": sum(len(r.crashes) for r in results),
        "crash_cases": [f"{r.label['id']}: {c}" for r in results for c in r.crashes],
        # bundles a run on the live repository would see more of: rebuild them (build.py ID)
        "stale_bundles": sorted(r.label["id"] for r in results if r.unfetched),
        "kinds": kinds,
        "misses": misses,
        "seconds": round(sum(r.seconds for r in results), 2),
        # Every rewrite a finding relied on (``details.rewrites``, also per site): each needs
        # its own wording in the report templates.
        "rewrite_kinds": sorted(
            {k for r in results for fd in r.findings for k in corpus_mutants.rewrites(fd)}
        ),
    }


def mutation_figures(results: list[CaseResult], cap: int) -> dict[str, Any]:
    """Issue 30's mutation check over the commits proven pure: mutants tried, killed (verdict
    not ``pure-refactor``), per operator, every survivor, and the time it took."""
    t0 = time.perf_counter()
    pure = [r.label["id"] for r in results if r.verdict == "pure-refactor"]
    outcomes = [o for case in pure for o in corpus_mutants.check_case(case, cap)]
    by_op: dict[str, dict[str, int]] = {
        op: {"tried": 0, "killed": 0} for op in corpus_mutants.OPERATORS
    }
    for o in outcomes:
        by_op[o.mutant.operator]["tried"] += 1
        by_op[o.mutant.operator]["killed"] += o.killed
    killed = sum(o.killed for o in outcomes)
    known = corpus_mutants.KNOWN_SURVIVORS
    survivors = [o for o in outcomes if not o.killed]
    equivalent = [o for o in survivors if known.get(o.mutant.key, "").startswith("equivalent:")]
    return {
        "pure_commits": len(pure),
        "commits_mutated": len({o.mutant.case for o in outcomes}),
        "cap": cap,
        "mutants": len(outcomes),
        "on_added_lines": sum(o.mutant.where == "added" for o in outcomes),
        "killed": killed,
        "kill_rate": _rate(killed, len(outcomes)),
        # survivors that are behaviour-preserving after all (KNOWN_SURVIVORS says why)
        "equivalent": len(equivalent),
        # killed among the mutants that change behaviour: the goal is 1.0
        "kill_rate_of_changes": _rate(killed, len(outcomes) - len(equivalent)),
        "soundness_bugs": len(survivors) - len(equivalent),
        "operators": by_op,
        "survivors": [
            {
                "id": o.mutant.case,
                "at": f"{o.mutant.path}:{o.mutant.line}",
                "operator": o.mutant.operator,
                "where": o.mutant.where,
                "mutation": o.mutant.summary,
                "proved_by": list(o.proved_by),
                "known": known.get(o.mutant.key, ""),
            }
            for o in survivors
        ],
        "seconds": round(time.perf_counter() - t0, 1),
    }


def _print_mutations(m: dict[str, Any]) -> None:
    print(
        f"mutation check         {m['killed']}/{m['mutants']} mutants killed "
        f"({_pct(m['kill_rate'])}); {m['equivalent']} survivors equivalent, "
        f"{m['soundness_bugs']} soundness bugs: kill rate of behaviour changes "
        f"{_pct(m['kill_rate_of_changes'])} (goal 1.000)"
    )
    print(
        f"  {m['pure_commits']} pure commits, {m['commits_mutated']} with mutants "
        f"(<= {m['cap'] or 'all'} each), {m['on_added_lines']} mutants on added lines; "
        f"{m['seconds']} s"
    )
    for op, c in m["operators"].items():
        print(f"  {op:20} {c['killed']:>4}/{c['tried']:<4} killed")
    for s in m["survivors"]:
        print(f"  SURVIVED {s['id']} {s['at']} {s['operator']} ({s['where']}): {s['mutation']}")
        print(f"      proved by: {'; '.join(s['proved_by']) or '-'}")
        if s["known"]:
            print(f"      known:     {s['known']}")
    print()


_FIGURES = (
    ("pure recall", lambda f: f"{f['pure_proven']}/{f['preserving']} {_pct(f['pure_recall'])}"),
    ("false pure", lambda f: f"{f['false_pure']}"),
    (
        "false change claims",
        lambda f: (
            f"{f['false_change_claims']}/{f['preserving']} {_pct(f['false_change_claim_rate'])}"
        ),
    ),
    (
        "changes flagged",
        lambda f: f"{f['changes_flagged']}/{f['changing']} {_pct(f['changes_flagged_rate'])}",
    ),
    ("median left share", lambda f: _pct(f["median_left_share"])),
    ("verdict accuracy", lambda f: _pct(f["verdict_accuracy"])),
)


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def _print_figures(report: dict[str, Any]) -> None:
    """One column per cohort and one for the whole corpus: issue 29's verdict figures."""
    columns = [(name, f) for name, f in report.get("cohorts", {}).items() if name != "all"]
    columns.append(("whole corpus", report))
    width = max(16, *(len(n) + 2 for n, _ in columns))
    print(f"{'':22}" + "".join(f"{n:>{width}}" for n, _ in columns))
    print(f"{'commits':22}" + "".join(f"{f['cases']:>{width}}" for _, f in columns))
    for title, fmt in _FIGURES:
        print(f"{title:22}" + "".join(f"{fmt(f):>{width}}" for _, f in columns))
    print()


def _print_review(report: dict[str, Any], floors: dict[str, dict[str, Any]]) -> None:
    """Issue 31's table: per cohort, the share of changed lines left to read, then moves and
    extractions beside RAID's figures."""
    columns = [(name, f) for name, f in report.get("cohorts", {}).items() if name != "all"]
    columns.append(("whole corpus", report))
    width = max(16, *(len(n) + 2 for n, _ in columns))
    print("Lines left to review (behaviour-preserving commits; the review view, issue 31)")
    print(f"{'':30}" + "".join(f"{n:>{width}}" for n, _ in columns))
    rows = (
        ("commits", lambda f: str(f["preserving"])),
        ("median share left", lambda f: _pct(f["median_review_left_share"])),
        ("mean share left", lambda f: _pct(f["mean_review_left_share"])),
        ("median share left, library", lambda f: _pct(f["median_source_left_share"])),
        ("mean share left, library", lambda f: _pct(f["mean_source_left_share"])),
        ("unexplained share (i29)", lambda f: _pct(f["median_left_share"])),
    )
    for title, fmt in rows:
        print(f"{title:30}" + "".join(f"{fmt(f):>{width}}" for _, f in columns))
    first = [
        _pct((floors.get(n, {}).get("first_contact") or {}).get("median_left_share"))
        for n, _ in columns
    ]
    print(f"{'  at first contact (i29)':30}" + "".join(f"{x:>{width}}" for x in first))
    # Issue 31's share at first contact: the cohort's first-contact code with the view grafted on.
    for title, key in (
        ("median share left, first contact", "median_review_left_share"),
        ("mean share left, first contact", "mean_review_left_share"),
    ):
        cells = [_pct((floors.get(n, {}).get("first_contact") or {}).get(key)) for n, _ in columns]
        print(f"{title:30}" + "".join(f"{x:>{width}}" for x in cells))
    for group in ("moves", "extractions"):
        before, after = RAID[group]
        print(
            f"{group + ' (labelled)':30}"
            + "".join(f"{f[group]['commits']:>{width}}" for _, f in columns)
        )
        for title, key in (
            ("  median lines changed", "median_lines_changed"),
            ("  median lines left", "median_lines_left"),
            ("  median library lines left", "median_source_lines_left"),
            ("  median share left", "median_share_left"),
        ):
            cells = [f[group][key] for _, f in columns]
            print(
                f"{title:30}"
                + "".join(f"{_pct(c) if 'share' in key else _num(c):>{width}}" for c in cells)
            )
        print(f"{'  RAID field study':30}{before:g} -> {after:g} median lines to review")
    errors = report["view_errors"]
    print(f"review view errors: {len(errors)}" + "".join(f"\n  {e}" for e in errors[:10]))
    print()


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:g}"


def _print(report: dict[str, Any], n_misses: int) -> None:
    _print_figures(report)
    _print_review(report, cohorts())
    print(f"cases                  {report['cases']}")
    print(f"verdicts               {report['verdicts']}")
    print(f"verdict accuracy       {report['verdict_accuracy']}  (pure vs not pure)")
    print(f"  wrong 'pure'         {report['false_pure']}")
    print(f"  refactor called change {report['refactor_called_change']}")
    print(f"analyzer crashes       {report['crashes']}")
    for c in report["crash_cases"]:
        print(f"  {c}")
    stale = report["stale_bundles"]
    print(f"stale bundles          {len(stale)}  (lack context the analyzers ask for today)")
    if stale:
        print(
            f"  rebuild: python tests/corpus/build.py {' '.join(stale[:8])}{' ...' if len(stale) > 8 else ''}"
        )
    print(f"analysis time          {report['seconds']} s")
    print()
    if "mutations" in report:
        _print_mutations(report["mutations"])
    print(f"{'kind':26} {'labelled':>8} {'found':>6} {'precision':>9} {'recall':>7}")
    for kind, k in report["kinds"].items():
        p = "-" if k["precision"] is None else f"{k['precision']:.2f}"
        r = "-" if k["recall"] is None else f"{k['recall']:.2f}"
        print(f"{kind:26} {k['labelled']:>8} {k['found']:>6} {p:>9} {r:>7}")
        for ex in k["false_positives"][:3]:
            print(f"    false positive: {ex}")
    print()
    print(f"worst {n_misses} misses:")
    for m in report["misses"][:n_misses]:
        print(f"  {m['id']:22} {m['type']:24} verdict={m['verdict']} left={m['left']}")
        print(f"      label: {m['label']}")
        for w in m["why"]:
            print(f"      why:   {w}")


def cohorts() -> dict[str, dict[str, Any]]:
    """The cohorts of tests/corpus/floors.json: name -> floors (``first``: its first N labels;
    ``from``/``to``: labels from..to, 1-based and inclusive; neither: the whole corpus)."""
    floors = json.loads((CORPUS / "floors.json").read_text(encoding="utf-8"))
    return {k: v for k, v in floors["cohorts"].items() if isinstance(v, dict)}


def members(cohort: dict[str, Any], items: list[Any]) -> list[Any]:
    """The labels (or their results, in label order) a cohort is made of."""
    if cohort.get("first"):
        return items[: cohort["first"]]
    if cohort.get("from") or cohort.get("to"):
        return items[cohort.get("from", 1) - 1 : cohort.get("to", len(items))]
    return items


def main(argv: list[str] | None = None) -> int:
    """Run the corpus and print (or emit as JSON) the scores."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("ids", nargs="*", help="only these corpus ids")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--misses", type=int, default=10, help="how many misses to list")
    ap.add_argument("--no-mutations", action="store_true", help="skip the mutation check")
    ap.add_argument("--mutants", type=int, default=12, help="mutants per pure commit (0: all)")
    ap.add_argument(
        "--verdicts",
        metavar="FILE",
        help="also write each commit's verdict (id -> verdict) as JSON",
    )
    args = ap.parse_args(argv)
    labels = [
        json.loads(line)
        for line in (CORPUS / "labels.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    if args.ids:
        labels = [lb for lb in labels if lb["id"] in args.ids]
    results = [run_case(lb) for lb in labels]
    if args.verdicts:
        verdicts = {r.label["id"]: r.verdict for r in results}
        Path(args.verdicts).write_text(json.dumps(verdicts, indent=1) + "\n", encoding="utf-8")
    report = score(results)
    if not args.ids:
        report["cohorts"] = {name: score(members(c, results)) for name, c in cohorts().items()}
    if not args.no_mutations:
        report["mutations"] = mutation_figures(results, args.mutants)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        _print(report, args.misses)
    return 0


if __name__ == "__main__":
    sys.exit(main())
