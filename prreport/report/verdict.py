"""The verdict and the explained-line accounting: which changed lines the findings explain."""

from __future__ import annotations

import io
import tokenize
from dataclasses import dataclass, replace

from prreport.bundle import PullRequestBundle
from prreport.classify import category
from prreport.findings import Diagnostic, Finding
from prreport.textlines import split_lines

# Refactor findings: a PR that has one is (also) a refactor. Incidental imports (``import.added``
# / ``import.removed``), imports left in loops and ``behavior.unchanged`` (formatting) are not:
# a bug fix that adds an import or reformats is a plain behaviour change.
_REFACTOR_KINDS = ("import.hoisted", "import.sunk", "import.moved", "loop.imports-removed")
_REFACTOR_PREFIXES = ("code.", "symbol.", "file.renamed")
# Findings that say behaviour changed, when they are about library code (not tests or docs).
_CHANGE_KINDS = {"behavior.changed", "guard.dropped", "cycle.risk", "names.unresolved"}
_EQUIVALENT = ("byte-identical", "modulo-renames")


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


def verdict_of(findings: list[Finding], code: CodeLines) -> str:
    """``pure-refactor`` | ``refactor-with-behavior-change`` | ``behavior-change`` | ``unknown``.

    ``unknown`` when nothing could be analysed, an analyzer failed, a Python file did not
    parse or a changed file was not seen (the analysis is incomplete), or when no library
    code changed (tests, docs only) or changed lines outside Python source (other languages,
    build and config files) are not explained. A behaviour change when a finding about library code says so or a changed code
    line of a Python source file is unexplained; ``refactor-with-`` when refactor findings
    exist too. Otherwise every changed source line is explained: ``pure-refactor``.
    ``findings`` are the live ones (``behavior.changed`` accounted for by a refactor left out).
    """
    if not code.analysed or code.incomplete:
        return "unknown"
    refactor = any(is_refactor_kind(f.kind) for f in findings)
    if code.unexplained or any(says_changed(f) for f in findings) or _rebound(findings):
        return "refactor-with-behavior-change" if refactor else "behavior-change"
    if code.other_unexplained or not code.source_changed or any(_unproven(f) for f in findings):
        return "unknown"
    return "pure-refactor"


def _unproven(fd: Finding) -> bool:
    """A removal the source could not check against the whole repository (dead or not: unknown)."""
    return fd.kind == "code.dead-removed" and fd.details.get("proven") is False


def proves_equivalence(fd: Finding) -> bool:
    """A ``code.*``/``symbol.*`` finding that verified the code it explains does the same thing."""
    proven_guard = fd.kind == "guard.dropped" and fd.details.get("proven") is True
    if not (fd.kind.startswith(("code.", "symbol.")) or proven_guard) or not fd.explains:
        return False
    d = fd.details
    return (
        d.get("behavior_change") is not True
        and d.get("equality", "byte-identical") in _EQUIVALENT
        and d.get("proven", True) is True
        and d.get("call_sites_updated", True) is not False
    )


def confirm_by_behavior(findings: list[Finding]) -> list[Finding]:
    """A branch merge the branch analysis could not prove, in a function the behaviour
    comparison found equal to its old version (through a rewrite the branch analysis does not
    know, e.g. a tuple given to ``startswith``), is proven: ``method: behaviour``."""
    same = {(f.path, f.symbol): f for f in findings if f.kind == "behavior.unchanged"}
    return [
        replace(
            fd,
            details={**fd.details, "proven": True, "method": "behaviour"},
            explains=tuple(sorted({*fd.explains, *same[(fd.path, fd.symbol)].explains})),
        )
        if fd.kind == "code.branches-collapsed"
        and fd.details.get("proven") is False
        and fd.details.get("behavior_change") is not True
        and (fd.path, fd.symbol) in same
        else fd
        for fd in findings
    ]


def account(findings: list[Finding]) -> list[Finding]:
    """Mark ``behavior.changed`` whose residual lines a proven refactor finding explains (``accounted_by``),
    or give it the ``inputs`` a refactor finding that explains them says it answers differently.

    Extracting a helper, merging equal branches or renaming a callee changes the text of the
    functions involved; behavior.py sees a residual, the refactor analyzer proved it equivalent.
    """
    provers: dict[tuple[str, str, int], list[Finding]] = {}
    for fd in findings:
        # A refactor that names the inputs it answers differently explains its lines too.
        if proves_equivalence(fd) or _names_inputs(fd):
            for e in fd.explains:
                provers.setdefault((e[0], e[1], e[2]), []).append(fd)
    out = []
    for fd in findings:
        lines = fd.details.get("residual_lines") if fd.kind == "behavior.changed" else None
        if lines:
            before_path = fd.details.get("before_path") or fd.path
            by: dict[int, Finding] = {}
            for side, n in lines:
                paths = (before_path, fd.path) if side == "-" else (fd.path,)
                hits = [p for path in paths for p in provers.get((path, side, int(n)), [])]
                if not hits:
                    by = {}
                    break
                by.update({id(p): p for p in hits})
            inputs = [i for p in by.values() if _names_inputs(p) for i in p.details["inputs"]]
            if inputs:
                # Still a change, now with exactly the inputs answered differently.
                fd = replace(fd, details={**fd.details, "inputs": inputs})
            elif by:
                keys = sorted({(p.kind, p.path, p.symbol) for p in by.values()})
                accounted = [{"kind": k, "path": p, "symbol": sym} for k, p, sym in keys]
                fd = replace(fd, details={**fd.details, "accounted_by": accounted})
        out.append(fd)
    return out


def _names_inputs(fd: Finding) -> bool:
    """A refactor finding that says which inputs its change answers differently."""
    return (
        fd.kind.startswith("code.")
        and fd.details.get("behavior_change") is True
        and bool(fd.details.get("inputs"))
        and bool(fd.explains)
    )


def accounted(fd: Finding) -> bool:
    return fd.kind == "behavior.changed" and bool(fd.details.get("accounted_by"))


@dataclass(frozen=True)
class CodeLines:
    """What the changed lines of the PR tell the verdict."""

    analysed: bool  # some Python file was parsed on both sides
    incomplete: bool  # an analyzer failed, a Python file did not parse or a file was not seen
    unexplained: bool  # a changed code line of a Python source file is unexplained
    other_unexplained: bool  # a changed line of other source, build or config files is unexplained
    source_changed: bool  # some line of a Python source file changed
    failed: tuple[str, ...] = ()  # analyzers that failed
    unparsed: tuple[str, ...] = ()  # Python source files that did not parse or could not be read
    # the unexplained changed code lines of Python source files: (path, side, line, text)
    lines: tuple[tuple[str, str, int, str], ...] = ()
    unseen: int = 0  # changed files the source could not see (their lines are unknown)


# Files whose changes can alter what the shipped code does even when they are not Python.
_BEHAVIOUR_CATEGORIES = ("source", "build", "config")


def code_lines(
    bundle: PullRequestBundle, findings: list[Finding], diagnostics: list[Diagnostic]
) -> CodeLines:
    """Unexplained changed code lines (not comments, blanks, formatting) by kind of file."""
    from prreport.diffparse import changed_lines

    unparsed = {d.path for d in diagnostics if d.path}
    # An analyzer that crashed explains nothing and may have missed a change: incomplete.
    failed = sorted({d.origin for d in diagnostics if is_failure(d)})
    # A changed file nobody saw may hold any change: nothing can be called explained.
    incomplete = bool(failed) or bundle.unseen_files > 0
    unreadable: list[str] = []
    explained = {(e[0], e[1], e[2]) for fd in findings for e in fd.explains}
    same = _unchanged_spans(findings)
    analysed = unexplained = other = source_changed = False
    lines: list[tuple[str, str, int, str]] = []
    for f in bundle.files:
        cat = category(f.path)
        python = f.path.endswith(".py")
        if python and (f.path in unparsed or f.before_path in unparsed):
            if cat == "source":
                incomplete = True
                unreadable.append(f.path)
            continue
        if cat not in _BEHAVIOUR_CATEGORIES:
            analysed = analysed or python
            continue
        if f.binary or f.patch is None or (f.before is None and f.after is None):
            # No text to compare: unreadable Python source leaves the analysis incomplete.
            if python and cat == "source" and not f.binary:
                incomplete = True
                unreadable.append(f.path)
            else:
                other = True
            continue
        analysed = analysed or python
        cl = changed_lines(f.patch)
        before_rows, after_rows = split_lines(f.before or ""), split_lines(f.after or "")
        # A line replaced by the same code with another comment or spacing changes nothing.
        respaced = _respaced(cl.replaced, before_rows, after_rows) if python else set()
        sides = (
            ("-", f.before_path, before_rows, cl.removed),
            ("+", f.path, after_rows, cl.added),
        )
        for side, path, rows, numbers in sides:
            for n in numbers:
                if (side, n) in respaced:
                    continue
                row = rows[n - 1].strip() if 0 < n <= len(rows) else ""
                if python and cat == "source":
                    source_changed = True
                if not row or (python and row.startswith("#")):
                    continue
                if (path, side, n) in explained or (f.path, side, n) in explained:
                    continue
                if any(a <= n <= b for a, b in same.get((path, side), ())):
                    continue
                if python and cat == "source":
                    unexplained = True
                    lines.append((f.path, side, n, row))
                else:
                    other = True
    return CodeLines(
        analysed,
        incomplete,
        unexplained,
        other,
        source_changed,
        tuple(failed),
        tuple(unreadable),
        tuple(lines),
        bundle.unseen_files,
    )


def _respaced(
    pairs: tuple[tuple[int, int], ...], before: list[str], after: list[str]
) -> set[tuple[str, int]]:
    """Lines of ``pairs`` (before, after) whose code is the same: same indentation, same tokens
    once comments and spacing are set aside, neither inside a multi-line string."""
    same = []
    for o, n in pairs:
        if not (0 < o <= len(before) and 0 < n <= len(after)):
            continue
        b, a = before[o - 1], after[n - 1]
        if b == a or _indent(b) != _indent(a):
            continue
        tb = _code_tokens(b)
        if tb is not None and tb == _code_tokens(a):
            same.append((o, n))
    if not same:
        return set()
    # Confirm on the whole files: a line inside a multi-line string is text, not code.
    in_b, in_a = _in_multiline_tokens(before), _in_multiline_tokens(after)
    return {x for o, n in same if o not in in_b and n not in in_a for x in (("-", o), ("+", n))}


def _in_multiline_tokens(rows: list[str]) -> set[int]:
    """Line numbers covered by a token that spans lines (a multi-line string), or every line
    when the file does not tokenize."""
    covered: set[int] = set()
    try:
        for t in tokenize.generate_tokens(io.StringIO("\n".join(rows) + "\n").readline):
            if t.start[0] != t.end[0] and t.type not in (tokenize.NL, tokenize.NEWLINE):
                covered.update(range(t.start[0], t.end[0] + 1))
    except (tokenize.TokenError, SyntaxError):
        return set(range(1, len(rows) + 1))
    return covered


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


_NOT_CODE = frozenset(
    (
        tokenize.COMMENT,
        tokenize.NL,
        tokenize.NEWLINE,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.ENDMARKER,
    )
)


def _code_tokens(line: str) -> list[tuple[int, str]] | None:
    """The code tokens of one line, or None when it does not tokenize on its own (a line inside
    a multi-line string or bracket)."""
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(line.strip() + "\n").readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    if any(t.type == tokenize.ERRORTOKEN for t in toks):
        return None
    return [(t.type, t.string) for t in toks if t.type not in _NOT_CODE]


def is_failure(d: Diagnostic) -> bool:
    """A diagnostic that says an analyzer crashed (its findings are missing)."""
    return "analyzer failed" in d.message or "could not plan" in d.message


def unknown_reason(verdict: str, code: CodeLines) -> str:
    """Why the verdict is ``unknown`` (``""`` otherwise), for the summary to say."""
    if verdict != "unknown":
        return ""
    if code.unseen:
        return "unseen-files"
    if code.failed:
        return "analyzer-failed"
    if code.unparsed:
        return "unparsed"
    if not code.analysed:
        return "no-python"
    if not code.source_changed:
        return "no-source-change"
    if code.other_unexplained:
        return "other-files"
    return "references-unchecked"


def _unchanged_spans(findings: list[Finding]) -> dict[tuple[str, str], list[tuple[int, int]]]:
    """Line spans of functions equal apart from formatting: their changed lines change nothing."""
    same: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for fd in findings:
        if fd.kind == "behavior.unchanged":
            d = fd.details
            before_path = d.get("before_path") or fd.path
            if d.get("before_end"):
                same.setdefault((before_path, "-"), []).append((d["before_line"], d["before_end"]))
            if d.get("after_end"):
                same.setdefault((fd.path, "+"), []).append((d["after_line"], d["after_end"]))
    return same


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
