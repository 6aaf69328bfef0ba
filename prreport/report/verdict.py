"""The verdict and the explained-line accounting: which changed lines the findings explain."""

from __future__ import annotations

from dataclasses import dataclass, replace

from prreport.bundle import PullRequestBundle
from prreport.classify import category
from prreport.findings import Diagnostic, Finding

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


def verdict_of(findings: list[Finding], changed: int, explained: int, code: _CodeLines) -> str:
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


def proves_equivalence(fd: Finding) -> bool:
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


def account(findings: list[Finding]) -> list[Finding]:
    """Mark ``behavior.changed`` whose residual lines a proven refactor finding explains (``accounted_by``).

    Extracting a helper, merging equal branches or renaming a callee changes the text of the
    functions involved; behavior.py sees a residual, the refactor analyzer proved it equivalent.
    """
    provers: dict[tuple[str, str, int], list[Finding]] = {}
    for fd in findings:
        if proves_equivalence(fd):
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


def accounted(fd: Finding) -> bool:
    return fd.kind == "behavior.changed" and bool(fd.details.get("accounted_by"))


@dataclass(frozen=True)
class _CodeLines:
    """Whether Python source was parsed, and whether some changed code line in it is unexplained."""

    analysed: bool
    unexplained: bool


def code_lines(
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


def explained_lines(bundle: PullRequestBundle, findings: list[Finding]) -> tuple[int, int]:
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
