"""The line ledger: every changed line of the PR, what kind of line it is, and what explains it.

Computed once per report (``ledger_of``, in ``report/build.py``) from the bundle, the findings
and the diagnostics, then passed to whatever accounts for lines: the verdict and why it is
``unknown``, the explained share, the files with unexplained code, the risks, the snippets.

Each changed line (both sides: ``-`` removed, numbered in the before file; ``+`` added,
numbered in the after file) has a kind (``code``, ``blank``, ``comment``, or ``formatting``:
the same code as the line it replaced, another comment or spacing) and the findings that
explain it: those whose ``explains`` name it (a removed line is named by its file's before path
or by its path), and the ``behavior.unchanged`` findings whose function span holds it. A code
line nothing explains is *left* (``LedgerLine.left``, ``Ledger.left()``).

The verdict reads the files whose changes can alter what the shipped code does (source, build
and config files) and whose text could be read; the share counts every changed line of every
text file.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from prreport.bundle import FileChange, PullRequestBundle
from prreport.classify import category, tool_config_lines
from prreport.diffparse import ChangedLines, changed_lines
from prreport.findings import Diagnostic, Finding
from prreport.report.formatting import respaced
from prreport.textlines import split_lines

# Files whose changes can alter what the shipped code does even when they are not Python.
_BEHAVIOUR_CATEGORIES = ("source", "build", "config")

_Key = tuple[str, str, int]  # (path, side, line), as ``Finding.explains`` names a line


@dataclass(frozen=True, slots=True)
class LedgerLine:
    """One changed line and what explains it."""

    path: str  # the path of its file after the change
    side: str  # "-" removed (numbered in the before file) | "+" added (in the after file)
    line: int
    text: str  # the line ("" when that side's text is not known)
    # "code" | "blank" | "comment" (Python) | "formatting" (same code, other spacing) |
    # "tooling" (a build or config line that only configures development tools)
    kind: str
    explained_by: tuple[Finding, ...]  # findings whose ``explains`` name it
    unchanged_in: tuple[Finding, ...]  # ``behavior.unchanged`` findings whose span holds it
    # Counted in the explained share: some entry denotes it (``Ledger.explained_count``).
    counted: bool

    @property
    def left(self) -> bool:
        """Changed code that no finding explains."""
        return self.kind == "code" and not self.explained_by and not self.unchanged_in


@dataclass(frozen=True)
class LedgerFile:
    """One changed file's lines: its texts split once, its patch parsed once, its changed lines."""

    change: FileChange
    category: str
    # "text" | "binary" | "no-text" (no patch, or neither side's text) | "unparsed" (a Python
    # file a diagnostic names: its lines cannot be read as code)
    status: str
    before: tuple[str, ...] | None  # the before text's lines (None: no before text)
    after: tuple[str, ...] | None
    changed: ChangedLines
    lines: tuple[LedgerLine, ...]  # the removed lines, then the added lines, each in line order

    @property
    def path(self) -> str:
        """The file's path after the change."""
        return self.change.path

    @property
    def python(self) -> bool:
        """A Python file (by its path after the change)."""
        return self.change.path.endswith(".py")

    @property
    def read(self) -> bool:
        """Its lines are read for the verdict: text of a file that can change what ships."""
        return self.status == "text" and self.category in _BEHAVIOUR_CATEGORIES

    def hunks(self, lines: Sequence[LedgerLine]) -> tuple[tuple[LedgerLine, ...], ...]:
        """``lines`` (of this file, in ledger order) grouped by the patch hunk they are in."""
        starts = _hunk_starts(self.change.patch)
        old = [s[0] for s in starts]
        new = [s[1] for s in starts]
        groups: dict[int, list[LedgerLine]] = {}
        for ln in lines:
            at = bisect.bisect_right(old if ln.side == "-" else new, ln.line) - 1
            groups.setdefault(max(at, 0), []).append(ln)
        return tuple(tuple(groups[h]) for h in sorted(groups))


@dataclass(frozen=True)
class Ledger:
    """Every changed line of the PR by file (diff order), and what the analysis could not see."""

    files: tuple[LedgerFile, ...]
    # Analyzers that failed: their findings, and the lines they would explain, are missing.
    failed: tuple[str, ...] = ()
    # Changed files the source could not see (GitHub lists at most 3000): their lines are unknown.
    unseen: int = 0
    _by_path: Mapping[str, LedgerFile] = field(default_factory=dict, repr=False, compare=False)
    _named: Mapping[_Key, tuple[LedgerLine, ...]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def file(self, path: str) -> LedgerFile | None:
        """The changed file at ``path`` (after the change), if any."""
        return self._by_path.get(path)

    def explained_by(self, finding: Finding) -> tuple[LedgerLine, ...]:
        """The changed lines ``finding`` explains (those its ``explains`` name)."""
        seen: dict[int, LedgerLine] = {}
        for e in finding.explains:
            for ln in self._named.get((e[0], e[1], e[2]), ()):
                seen.setdefault(id(ln), ln)
        return tuple(seen.values())

    def left(self) -> dict[str, tuple[tuple[LedgerLine, ...], ...]]:
        """The left-over lines of the files the verdict reads, by file (diff order) and hunk."""
        out = {}
        for f in self.files:
            if f.read:
                rest = [ln for ln in f.lines if ln.left]
                if rest:
                    out[f.path] = f.hunks(rest)
        return out

    @cached_property
    def changed_count(self) -> int:
        """Changed lines of the PR's text files."""
        return len({(ln.path, ln.side, ln.line) for f in self.files for ln in f.lines})

    @cached_property
    def explained_count(self) -> int:
        """Changed lines some finding explains, each entry counted for the one line it denotes.

        A removed line is denoted by its file's before path (of several files with one before
        path, the last), or else by its path; where the PR's paths do not collide this is the
        same as ``explained_by``.
        """
        return len(
            {(ln.path, ln.side, ln.line) for f in self.files for ln in f.lines if ln.counted}
        )

    @cached_property
    def unexplained(self) -> tuple[LedgerLine, ...]:
        """The left-over lines of Python source files, in diff order: the verdict's evidence."""
        return tuple(ln for f in self.python_source() for ln in f.lines if ln.left)

    @cached_property
    def other_unexplained(self) -> bool:
        """A change the verdict cannot account for outside Python source: a left-over line of
        another source, build or config file, or such a file without text."""
        for f in self.files:
            if f.category not in _BEHAVIOUR_CATEGORIES or f.status == "unparsed":
                continue
            if f.status == "text":
                if not (f.python and f.category == "source") and any(ln.left for ln in f.lines):
                    return True
            elif not (f.python and f.category == "source" and f.status == "no-text"):
                return True
        return False

    @cached_property
    def analysed(self) -> bool:
        """Some Python file was parsed on both sides."""
        return any(
            f.python
            and f.status != "unparsed"
            and (f.category not in _BEHAVIOUR_CATEGORIES or f.status == "text")
            for f in self.files
        )

    @cached_property
    def unparsed(self) -> tuple[str, ...]:
        """Python source files that did not parse or could not be read."""
        return tuple(
            f.path
            for f in self.files
            if f.python
            and f.category == "source"
            and (f.status == "unparsed" or f.status == "no-text")
        )

    @cached_property
    def unread(self) -> tuple[str, ...]:
        """Those of ``unparsed`` with a side the source could not read (not UTF-8, too large)."""
        return tuple(p for p in self.unparsed if self._by_path[p].change.unread_sides)

    @property
    def incomplete(self) -> bool:
        """The analysis missed something: an analyzer failed, a Python source file is unread or
        a changed file was not seen."""
        return bool(self.failed) or bool(self.unparsed) or self.unseen > 0

    @cached_property
    def source_changed(self) -> bool:
        """Some line of a Python source file changed (not only its formatting)."""
        return any(ln.kind != "formatting" for f in self.python_source() for ln in f.lines)

    @cached_property
    def tests_only_explained(self) -> bool:
        """Only test code changed (no line of Python source), some test Python line did, and a
        finding explains every changed line of the test Python files: such a PR is judged on
        that code (the shipped code is untouched)."""
        if self.source_changed:
            return False
        tests = [f for f in self.files if f.status == "text" and f.python and f.category == "test"]
        lines = [ln for f in tests for ln in f.lines]
        return any(ln.kind == "code" for ln in lines) and not any(ln.left for ln in lines)

    @cached_property
    def layout_only(self) -> bool:
        """Python source files changed only in their layout and comments (no statement differs:
        the lines read as the same tokens), and no test code line is left over."""
        if self.source_changed or not any(f.lines for f in self.python_source()):
            return False
        tests = [f for f in self.files if f.status == "text" and f.python and f.category == "test"]
        return not any(ln.left for f in tests for ln in f.lines)

    def python_source(self) -> list[LedgerFile]:
        """The files the verdict reads that are Python source (not tests, docs or config)."""
        return [f for f in self.files if f.read and f.python and f.category == "source"]


def is_failure(d: Diagnostic) -> bool:
    """A diagnostic that says an analyzer crashed (its findings are missing)."""
    return "analyzer failed" in d.message or "could not plan" in d.message


def ledger_of(
    bundle: PullRequestBundle, findings: Sequence[Finding], diagnostics: Sequence[Diagnostic]
) -> Ledger:
    """The ledger of a PR: its changed lines, their kinds and the findings that explain them."""
    unparsed = {d.path for d in diagnostics if d.path}
    naming: dict[_Key, list[Finding]] = {}
    for fd in findings:
        for e in fd.explains:
            named = naming.setdefault((e[0], e[1], e[2]), [])
            if not named or named[-1] is not fd:
                named.append(fd)
    parsed = [(f, changed_lines(f.patch)) for f in bundle.files]
    denoted = _denoted(parsed, findings)
    spans = _unchanged_spans(findings)
    files = tuple(_file(f, cl, unparsed, naming, denoted, spans) for f, cl in parsed)
    named_lines: dict[_Key, list[LedgerLine]] = {}
    for lf in files:
        for ln in lf.lines:
            keys = {(lf.change.before_path, "-", ln.line), (ln.path, "-", ln.line)}
            for key in keys if ln.side == "-" else ((ln.path, "+", ln.line),):
                named_lines.setdefault(key, []).append(ln)
    failed = tuple(sorted({d.origin for d in diagnostics if is_failure(d)}))
    return Ledger(
        files,
        failed,
        bundle.unseen_files,
        {lf.path: lf for lf in files},
        {k: tuple(v) for k, v in named_lines.items()},
    )


def _file(
    f: FileChange,
    cl: ChangedLines,
    unparsed: set[str],
    naming: Mapping[_Key, list[Finding]],
    denoted: set[object],
    spans: Mapping[tuple[str, str], list[tuple[Finding, int, int]]],
) -> LedgerFile:
    """One file of the ledger: its status, split texts, parsed patch and classified lines."""
    cat = category(f.path)
    python = f.path.endswith(".py")
    if python and (f.path in unparsed or f.before_path in unparsed):
        status = "unparsed"
    elif f.binary:
        status = "binary"
    elif f.patch is None or (f.before is None and f.after is None) or f.unread_sides:
        # No text to compare (or one side only, which is no removal or addition).
        status = "no-text"
    else:
        status = "text"
    before = tuple(split_lines(f.before)) if f.before is not None else None
    after = tuple(split_lines(f.after)) if f.after is not None else None
    if f.binary:
        return LedgerFile(f, cat, status, before, after, cl, ())
    # A line replaced by the same code with another comment or spacing changes nothing (told
    # apart in the Python files the verdict reads).
    reads = status == "text" and cat in _BEHAVIOUR_CATEGORIES
    same = respaced(cl.replaced, before or (), after or ()) if python and reads else set()
    tooling = {
        side: tool_config_lines(f.path, text) if reads and not python and text else frozenset()
        for side, text in (("-", f.before), ("+", f.after))
    }
    lines: list[LedgerLine] = []
    for side, path, rows, numbers in (
        ("-", f.before_path, before or (), cl.removed),
        ("+", f.path, after or (), cl.added),
    ):
        covers = _covers(numbers, spans.get((path, side), ()))
        for i, n in enumerate(numbers):
            text = rows[n - 1] if 0 < n <= len(rows) else ""
            code = text.strip()
            if (side, n) in same:
                kind = "formatting"
            elif not code:
                kind = "blank"
            elif python and code.startswith("#"):
                kind = "comment"
            elif n in tooling[side]:
                kind = "tooling"
            else:
                kind = "code"
            by = naming.get((path, side, n), [])
            if side == "-" and path != f.path:
                by = by + [fd for fd in naming.get((f.path, side, n), []) if not _has(by, fd)]
            key = (f.path, side, n)
            lines.append(
                LedgerLine(f.path, side, n, text, kind, tuple(by), covers[i], key in denoted)
            )
    return LedgerFile(f, cat, status, before, after, cl, tuple(lines))


def _has(fds: list[Finding], fd: Finding) -> bool:
    return any(x is fd for x in fds)


def _denoted(
    parsed: Sequence[tuple[FileChange, ChangedLines]], findings: Sequence[Finding]
) -> set[object]:
    """The lines the ``explains`` entries denote, for the share: a removed line's entry may name
    it by the file's before path (renames) or by its path."""
    alias: dict[object, _Key] = {}
    for f, cl in parsed:
        if not f.binary:
            for n in cl.removed:
                alias[(f.before_path, "-", n)] = (f.path, "-", n)
    return {alias.get(e, e) for fd in findings for e in fd.explains}


def _unchanged_spans(
    findings: Sequence[Finding],
) -> dict[tuple[str, str], list[tuple[Finding, int, int]]]:
    """Line spans of functions equal apart from formatting: their changed lines change nothing."""
    spans: dict[tuple[str, str], list[tuple[Finding, int, int]]] = {}
    for fd in findings:
        if fd.kind == "behavior.unchanged":
            d = fd.details
            before_path = d.get("before_path") or fd.path
            if d.get("before_end"):
                spans.setdefault((before_path, "-"), []).append(
                    (fd, d["before_line"], d["before_end"])
                )
            if d.get("after_end"):
                spans.setdefault((fd.path, "+"), []).append((fd, d["after_line"], d["after_end"]))
    return spans


def _covers(
    numbers: Sequence[int], spans: Sequence[tuple[Finding, int, int]]
) -> list[tuple[Finding, ...]]:
    """For each of ``numbers``, the span findings whose lines hold it."""
    out: list[list[Finding]] = [[] for _ in numbers]
    if spans:
        order = sorted(range(len(numbers)), key=numbers.__getitem__)
        sorted_numbers = [numbers[i] for i in order]
        for fd, lo, hi in spans:
            start = bisect.bisect_left(sorted_numbers, lo)
            for k in range(start, bisect.bisect_right(sorted_numbers, hi)):
                if not _has(out[order[k]], fd):
                    out[order[k]].append(fd)
    return [tuple(x) for x in out]


_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def _hunk_starts(patch: str | None) -> list[tuple[int, int]]:
    """(before, after) first line of each hunk of a patch, in patch order."""
    return [
        (int(m.group(1)), int(m.group(2)))
        for line in split_lines(patch or "")
        if (m := _HUNK.match(line))
    ]
