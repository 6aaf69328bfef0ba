"""Source snippets: the after-code around each important change, with real line numbers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from prreport.findings import Finding
from prreport.report.blocks import (
    DEF_LINE,
    block_end,
    chain_end,
    decorated_start,
    enclosing_def,
    import_block,
    indent_width,
)
from prreport.report.facts import site_labels
from prreport.report.ledger import Ledger
from prreport.report.reconcile import proves_equivalence
from prreport.report.snippet_diff import diff_hunk

_DEFINITION_SNIPPETS = (
    "code.extracted",
    "code.branches-collapsed",
    "symbol.moved",
    "symbol.renamed",
)


def _definition_caption(fd: Finding) -> dict[str, Any]:
    """Caption facts of the after-code of a refactored definition (new helper, merged branch, moved def)."""
    d = fd.details
    return {
        "kind": fd.kind.replace(".", "-"),
        "symbol": fd.symbol,
        "verified": proves_equivalence(fd),
        "home_kind": d.get("home_kind", ""),
        # an existing base method that gained the code its subclasses' overrides had
        "pulled_up": d.get("method") == "pulled-up",
        "sites": site_labels(list(d.get("sites", []))),
        "pattern": d.get("pattern", ""),
        "subject": d.get("subject", ""),
        "subject_values": list(d.get("values", [])),
        "statement": d.get("statement", ""),
        "value": d.get("value", ""),
        "old_qualname": d.get("old_qualname", ""),
        "old_path": d.get("old_path", ""),
        "equality": d.get("equality", ""),
    }


# (priority, path, first line, last line, caption facts) of one wanted snippet.
_Wanted = tuple[int, str, int, int, dict[str, Any]]


def snippets_of(
    ledger: Ledger, findings: list[Finding], max_lines: int, max_snippets: int
) -> list[dict[str, Any]]:
    """After-code around each important change: merged import blocks, cleared loops, changed guards."""
    after = {f.path: f.after for f in ledger.files if f.after is not None}
    merged = _merge(_wanted(after, findings))[:max_snippets]
    # Snippets of one file together, in the order their files first come (the priority order).
    first: dict[str, int] = {}
    for s in merged:
        first.setdefault(s["path"], len(first))
    merged.sort(key=lambda s: first[s["path"]])
    out = []
    for s in merged:
        snippet = _cut(after[s["path"]], s, max_lines)
        changed = ledger.file(s["path"])
        assert changed is not None  # a snippet is of a changed file's after text
        snippet.update(diff_hunk(changed, s, max_lines))
        out.append(snippet)
    return out


def _wanted(after: Mapping[str, Sequence[str]], findings: list[Finding]) -> list[_Wanted]:
    """The line range each important finding wants shown, with its caption facts."""
    wanted: list[_Wanted] = []
    blocks: dict[tuple[str, int], tuple[int, int]] = {}  # many hoists share one import block
    changed_functions = {(f.path, f.symbol) for f in findings if f.kind == "behavior.changed"}
    for fd in findings:
        lines = after.get(fd.path)
        if lines is None:
            continue
        w: _Wanted | None = None
        if fd.kind == "import.hoisted":
            w = _import_wanted(lines, fd, blocks)
        elif fd.kind in ("loop.imports-removed", "loop.imports-remaining", "loop.imports-added"):
            w = _loop_wanted(lines, fd)
        elif fd.kind in _DEFINITION_SNIPPETS:
            w = _definition_wanted(lines, fd)
        elif fd.kind in ("guard.changed", "guard.dropped", "behavior.changed") and fd.line:
            if fd.kind == "guard.dropped" and (fd.path, fd.symbol) in changed_functions:
                continue  # the function's behaviour snippet shows the same diff
            w = _change_wanted(lines, fd)
        if w is not None:
            wanted.append(w)
    return wanted


def _import_wanted(
    lines: Sequence[str], fd: Finding, blocks: dict[tuple[str, int], tuple[int, int]]
) -> _Wanted | None:
    """The import block a hoisted name went into."""
    d = fd.details
    start = int(d.get("block_line") or d.get("to_line") or fd.line or 0)
    if not 0 < start <= len(lines):
        return None
    if (fd.path, start) not in blocks:
        blocks[(fd.path, start)] = import_block(lines, start)
    lo, hi = blocks[(fd.path, start)]
    caption = {
        "kind": "import-block",
        "names": [fd.symbol],
        "module": d.get("module", ""),
        "merged_into_existing": bool(d.get("merged_into_existing")),
    }
    return (0, fd.path, lo, hi, caption)


def _loop_wanted(lines: Sequence[str], fd: Finding) -> _Wanted | None:
    """The loop whose imports changed, from the function it is in."""
    d = fd.details
    loop_line = int(d.get("after_line") or fd.line or 0)
    if not 0 < loop_line <= len(lines):
        return None
    scope = d.get("scope") or fd.symbol
    lo = enclosing_def(lines, loop_line, scope.split(".")[-1])
    hi = block_end(lines, loop_line)
    caption = {
        "kind": "loop",
        "loop": d.get("loop", ""),
        "scope": scope,
        "before": d.get("before", 0),
        "after": d.get("after", 0),
        "change": fd.kind.split(".")[1],
    }
    return (1, fd.path, lo, hi, caption)


def _definition_wanted(lines: Sequence[str], fd: Finding) -> _Wanted | None:
    """A refactored definition: the new helper, the merged branches, the moved definition."""
    d = fd.details
    start = int(d.get("new_line") or d.get("after_line") or fd.line or 0)
    if not 0 < start <= len(lines):
        return None
    if fd.kind == "code.branches-collapsed":
        # The statement hoisted before the chain, then the chain itself.
        hi = chain_end(lines, start)
        lo = start - 1 if d.get("pattern") == "hoisted-first" and start > 1 else start
        if d.get("pattern") == "early-return" and 0 < int(d.get("early_line", 0)) < start:
            lo = int(d["early_line"])  # the early ``if`` answered before the chain
        if d.get("pattern") == "hoisted-last":
            hi = min(len(lines), hi + 1)
    else:
        lo = decorated_start(lines, start)
        hi = block_end(lines, start)
    return (0, fd.path, lo, hi, _definition_caption(fd))


def _change_wanted(lines: Sequence[str], fd: Finding) -> _Wanted | None:
    """A changed guard or function: the whole function where it is found, else the lines around."""
    caption = {"kind": fd.kind.replace(".", "-"), "symbol": fd.symbol}
    whole = _changed_function(lines, fd)
    if whole is not None:
        # The whole function: its diff shows where it changed, unchanged runs elided.
        return (2, fd.path, *whole, caption)
    if fd.kind == "guard.dropped" and "reason" in fd.details:
        return None  # its line is a before line; the function is not found in the after
    line = int(fd.details.get("after_line") or fd.line or 0)
    if not 0 < line <= len(lines):
        return None
    return (2, fd.path, max(1, line - 3), min(len(lines), line + 3), caption)


def _changed_function(lines: Sequence[str], fd: Finding) -> tuple[int, int] | None:
    """(first, last) after line of the function a ``behavior.changed`` or a guard removed from
    changed code is about, or None (module level, or the function is not found)."""
    if fd.kind == "behavior.changed" and not fd.details.get("removed"):
        start = int(fd.line or 0)
        if 0 < start <= len(lines) and DEF_LINE.match(lines[start - 1]):
            return decorated_start(lines, start), block_end(lines, start)
    if fd.kind == "guard.dropped" and "reason" in fd.details and fd.symbol != "<module>":
        name = fd.symbol.rpartition(".")[2]
        starts = [
            i + 1 for i, text in enumerate(lines) if (m := DEF_LINE.match(text)) and m[1] == name
        ]
        if len(starts) == 1:
            return decorated_start(lines, starts[0]), block_end(lines, starts[0])
    return None


def _merge(wanted: list[_Wanted]) -> list[dict[str, Any]]:
    """Overlapping or adjacent ranges of the same caption kind merged into one snippet, by priority."""
    merged: list[dict[str, Any]] = []
    # A caption kind has one priority, so ranges of one (path, kind) come by first line: only
    # the last snippet of that (path, kind) can overlap the next range (linear, not quadratic).
    last: dict[tuple[str, str], dict[str, Any]] = {}
    for _prio, path, lo, hi, caption in sorted(wanted, key=lambda w: (w[0], w[1], w[2])):
        prev = last.get((path, caption["kind"]))
        if prev is not None and lo <= prev["end_line"] + 1 and hi >= prev["start_line"] - 1:
            prev["start_line"], prev["end_line"] = (
                min(prev["start_line"], lo),
                max(prev["end_line"], hi),
            )
            if caption["kind"] == "import-block":
                prev["caption_facts"]["names"] = sorted(
                    {*prev["caption_facts"]["names"], *caption["names"]}
                )
            continue
        snippet = {"path": path, "start_line": lo, "end_line": hi, "caption_facts": caption}
        merged.append(snippet)
        last[(path, caption["kind"])] = snippet
    return merged


def _cut(lines: Sequence[str], s: dict[str, Any], max_lines: int) -> dict[str, Any]:
    """The snippet's code, at most ``max_lines`` lines, common indentation dropped."""
    full_end = s["end_line"]
    end = min(full_end, s["start_line"] + max_lines - 1)
    shown = lines[s["start_line"] - 1 : end]
    # Drop the common indentation (a nested loop reads better flush left); ``dedent`` says how much.
    dedent = min((indent_width(ln) for ln in shown if ln.strip()), default=0)
    return {
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
