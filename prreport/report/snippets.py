"""Source snippets: the after-code around each important change, with real line numbers."""

from __future__ import annotations

import re
from typing import Any

from prreport.bundle import PullRequestBundle
from prreport.findings import Finding
from prreport.report.verdict import proves_equivalence
from prreport.textlines import split_lines


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
        "verified": proves_equivalence(fd),
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


# (priority, path, first line, last line, caption facts) of one wanted snippet.
_Wanted = tuple[int, str, int, int, dict[str, Any]]


def snippets_of(
    bundle: PullRequestBundle, findings: list[Finding], max_lines: int, max_snippets: int
) -> list[dict[str, Any]]:
    """After-code around each important change: merged import blocks, cleared loops, changed guards."""
    after = _after_lines(bundle)
    merged = _merge(_wanted(after, findings))
    return [_cut(after[s["path"]], s, max_lines) for s in merged[:max_snippets]]


def _after_lines(bundle: PullRequestBundle) -> dict[str, list[str]]:
    """The after lines of every changed text file, split once per file (not once per finding)."""
    return {f.path: split_lines(f.after) for f in bundle.files if f.after is not None}


def _wanted(after: dict[str, list[str]], findings: list[Finding]) -> list[_Wanted]:
    """The line range each important finding wants shown, with its caption facts."""
    wanted: list[_Wanted] = []
    blocks: dict[tuple[str, int], tuple[int, int]] = {}  # many hoists share one import block
    for fd in findings:
        lines = after.get(fd.path)
        if lines is None:
            continue
        d = fd.details
        if fd.kind == "import.hoisted":
            start = int(d.get("block_line") or d.get("to_line") or fd.line or 0)
            if not 0 < start <= len(lines):
                continue
            if (fd.path, start) not in blocks:
                blocks[(fd.path, start)] = _import_block(lines, start)
            lo, hi = blocks[(fd.path, start)]
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
    return wanted


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


def _cut(lines: list[str], s: dict[str, Any], max_lines: int) -> dict[str, Any]:
    """The snippet's code, at most ``max_lines`` lines, common indentation dropped."""
    full_end = s["end_line"]
    end = min(full_end, s["start_line"] + max_lines - 1)
    shown = lines[s["start_line"] - 1 : end]
    # Drop the common indentation (a nested loop reads better flush left); ``dedent`` says how much.
    dedent = min((_indent(ln) for ln in shown if ln.strip()), default=0)
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
