"""Source snippets: the after-code around each important change, with real line numbers."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence
from typing import Any

from prreport.findings import Finding
from prreport.python.parse import parse as parse_quietly
from prreport.report.facts import site_labels
from prreport.report.ledger import Ledger, LedgerFile
from prreport.report.reconcile import proves_equivalence


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _import_block(lines: Sequence[str], start: int) -> tuple[int, int]:
    """1-based inclusive range of the import statement starting at ``start`` (parenthesised or not)."""
    end = start
    depth = 0
    for i in range(start - 1, len(lines)):
        depth += lines[i].count("(") - lines[i].count(")")
        end = i + 1
        if depth <= 0 and not lines[i].rstrip().endswith("\\"):
            break
    return start, end


def _block_end(lines: Sequence[str], start: int) -> int:
    """Last line (1-based) of the indented block headed by line ``start`` (a header spread over
    several lines, such as a long signature, counts as one)."""
    base = _indent(lines[start - 1])
    end = _header_end(lines, start)
    for i in range(end, len(lines)):
        text = lines[i]
        if not text.strip():
            continue
        if _indent(text) <= base:
            break
        end = i + 1
    return end


def _header_end(lines: Sequence[str], start: int) -> int:
    """Last line of the statement header starting at ``start``: where its brackets close."""
    depth = 0
    for i in range(start - 1, min(len(lines), start + 200)):
        code = re.sub(r"#.*", "", re.sub(r"'[^']*'|\"[^\"]*\"", "", lines[i]))
        depth += sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}")
        if depth <= 0:
            return i + 1
    return start


def _enclosing_def(lines: Sequence[str], line: int, name: str, reach: int = 8) -> int:
    """Line of ``def name`` just above ``line`` (within ``reach`` lines), else ``line``."""
    for i in range(line - 2, max(line - 2 - reach, -1), -1):
        m = _DEF_LINE.match(lines[i])
        if m and m.group(1) == name:
            return i + 1
    return line


_DEF_LINE = re.compile(r"^\s*(?:async\s+)?def\s+(\w+)\s*\(")


_DEFINITION_SNIPPETS = (
    "code.extracted",
    "code.branches-collapsed",
    "symbol.moved",
    "symbol.renamed",
)


def _chain_end(lines: Sequence[str], start: int) -> int:
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


def _decorated_start(lines: Sequence[str], start: int) -> int:
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
        snippet.update(_diff_hunk(changed, s, max_lines))
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
                if d.get("pattern") == "early-return" and 0 < int(d.get("early_line", 0)) < start:
                    lo = int(d["early_line"])  # the early ``if`` answered before the chain
                if d.get("pattern") == "hoisted-last":
                    hi = min(len(lines), hi + 1)
            else:
                lo = _decorated_start(lines, start)
                hi = _block_end(lines, start)
            wanted.append((0, fd.path, lo, hi, _definition_caption(fd)))
        elif fd.kind in ("guard.changed", "guard.dropped", "behavior.changed") and fd.line:
            caption = {"kind": fd.kind.replace(".", "-"), "symbol": fd.symbol}
            if fd.kind == "guard.dropped" and (fd.path, fd.symbol) in changed_functions:
                continue  # the function's behaviour snippet shows the same diff
            whole = _changed_function(lines, fd)
            if whole is not None:
                # The whole function: its diff shows where it changed, unchanged runs elided.
                wanted.append((2, fd.path, *whole, caption))
                continue
            if fd.kind == "guard.dropped" and "reason" in d:
                continue  # its line is a before line; the function is not found in the after
            line = int(d.get("after_line") or fd.line)
            if not 0 < line <= len(lines):
                continue
            wanted.append((2, fd.path, max(1, line - 3), min(len(lines), line + 3), caption))
    return wanted


def _changed_function(lines: Sequence[str], fd: Finding) -> tuple[int, int] | None:
    """(first, last) after line of the function a ``behavior.changed`` or a guard removed from
    changed code is about, or None (module level, or the function is not found)."""
    if fd.kind == "behavior.changed" and not fd.details.get("removed"):
        start = int(fd.line or 0)
        if 0 < start <= len(lines) and _DEF_LINE.match(lines[start - 1]):
            return _decorated_start(lines, start), _block_end(lines, start)
    if fd.kind == "guard.dropped" and "reason" in fd.details and fd.symbol != "<module>":
        name = fd.symbol.rpartition(".")[2]
        starts = [
            i + 1 for i, text in enumerate(lines) if (m := _DEF_LINE.match(text)) and m[1] == name
        ]
        if len(starts) == 1:
            return _decorated_start(lines, starts[0]), _block_end(lines, starts[0])
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


# --- the before/after hunk -------------------------------------------------------------------

# Context lines kept on each side of a change before widening to whole statements.
_CONTEXT = 1
_ELIDED = "..."

# One row of a hunk: tag (" ", "-", "+"), before line, after line (0 when absent), text.
_Row = tuple[str, int, int, str]


def _diff_hunk(changed: LedgerFile, s: dict[str, Any], max_lines: int) -> dict[str, Any]:
    """The snippet's lines as a diff hunk: removed and added lines, whole statements around them,
    the headers of the blocks they sit in, and unchanged runs elided as ``...``.

    Empty (``diff`` is "") when the patch does not line up with the file texts.
    """
    before = changed.before or ()
    after = changed.after or ()
    rows = _region_rows(changed, s["start_line"], s["end_line"])
    if rows is None or not any(tag != " " for tag, *_ in rows):
        return {"diff": "", "diff_truncated": False}
    b_lines = [r[1] for r in rows if r[1]]
    b_stmts = _statements(before, min(b_lines), max(b_lines)) if b_lines else None
    a_stmts = _statements(after, s["start_line"], s["end_line"])
    keep = _kept(rows, b_stmts, a_stmts)
    shown = _elide(rows, keep, b_stmts, a_stmts)
    truncated = len(shown) > max_lines
    if truncated:
        # Never stop inside a statement: drop back to the last row that ends one.
        body = _whole_tail(shown[: max(1, max_lines - 1)], b_stmts, a_stmts)
        rest = [r for r in shown[len(body) :] if r[3].strip()]
        indent = " " * _indent(rest[0][3]) if rest else ""
        shown = body + [(" ", 0, 0, indent + _ELIDED.strip())]
    dedent = min(
        (_indent(text) for _t, _b, _a, text in shown if text.strip() and text != _ELIDED),
        default=0,
    )
    lines = []
    for tag, _b, _a, text in shown:
        lines.append((tag + (text[dedent:] if text != _ELIDED else text)).rstrip())
    return {
        "diff": "\n".join(lines),
        "diff_truncated": truncated,
        "before_start_line": min(b_lines) if b_lines else None,
        "before_end_line": max(b_lines) if b_lines else None,
    }


def _region_rows(changed: LedgerFile, lo: int, hi: int) -> list[_Row] | None:
    """Rows of the patch whose after line is in ``lo..hi`` (and the removed lines between them)."""
    if not changed.change.patch or changed.before is None:
        return None
    before, after = changed.before, changed.after or ()
    cl = changed.changed
    removed, added = set(cl.removed), set(cl.added)
    replaced_by = dict(cl.replaced)
    rows: list[_Row] = []
    i = j = 1
    while j <= hi:
        if i in removed and i <= len(before):
            # removed lines between two region lines, not those just above its first unless
            # the region's own lines replace them (the old ``def`` line of a renamed function)
            if j > lo or lo <= replaced_by.get(i, 0) <= hi:
                rows.append(("-", i, 0, before[i - 1]))
            i += 1
        elif j in added and j <= len(after):
            if lo <= j <= hi:
                rows.append(("+", 0, j, after[j - 1]))
            j += 1
        elif i <= len(before) and j <= len(after):
            if before[i - 1].rstrip() != after[j - 1].rstrip():
                return None  # the patch does not describe these texts
            if lo <= j <= hi:
                rows.append((" ", i, j, after[j - 1]))
            i += 1
            j += 1
        else:
            break
    return rows


class _Statements:
    """Line spans of one text's statements: whole simple statements and compound headers (atoms),
    and compound statements (blocks) with their header span."""

    def __init__(self, atoms: list[tuple[int, int]], blocks: list[tuple[int, int, int]]) -> None:
        self.atoms = atoms
        self.blocks = blocks

    def atom_at(self, line: int) -> tuple[int, int]:
        """The smallest atom containing ``line`` (the line itself when none does)."""
        best = (line, line)
        for a, b in self.atoms:
            if a <= line <= b and (best == (line, line) or b - a < best[1] - best[0]):
                best = (a, b)
        return best

    def headers_around(self, line: int) -> list[tuple[int, int]]:
        """Header spans of the blocks that contain ``line`` below their header."""
        return [(a, h) for a, h, b in self.blocks if h < line <= b]


def _statements(lines: Sequence[str], lo: int, hi: int) -> _Statements | None:
    """Statement spans of lines ``lo..hi`` (file numbering), parsed on their own; None if they do not parse."""
    region = lines[lo - 1 : hi]
    indent = min((_indent(ln) for ln in region if ln.strip()), default=0)
    shift = 1 if indent else 0
    source = ("if 1:\n" if shift else "") + "\n".join(region) + "\n"
    try:
        tree = parse_quietly(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    atoms: list[tuple[int, int]] = []
    blocks: list[tuple[int, int, int]] = []

    def at(n: int) -> int:
        return n - shift + lo - 1

    for node in ast.walk(tree):
        if not isinstance(node, (ast.stmt, ast.excepthandler)) or node.end_lineno is None:
            continue
        if shift and node.lineno == 1:
            continue  # the ``if 1:`` wrapper
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.AST):
            first = min(getattr(body[0], "lineno", node.lineno), node.end_lineno)
            if first <= node.lineno:
                atoms.append((at(start), at(node.end_lineno)))  # ``if x: y`` on one line
                continue
            header = first - 1
            atoms.append((at(start), at(header)))
            blocks.append((at(start), at(header), at(node.end_lineno)))
        else:
            atoms.append((at(start), at(node.end_lineno)))
    return _Statements(atoms, blocks)


def _side_atoms(
    row: _Row, b_stmts: _Statements | None, a_stmts: _Statements | None
) -> list[tuple[str, tuple[int, int]]]:
    """Atoms containing a row, per side ("b" before, "a" after)."""
    out = []
    if row[1] and b_stmts is not None:
        out.append(("b", b_stmts.atom_at(row[1])))
    if row[2] and a_stmts is not None:
        out.append(("a", a_stmts.atom_at(row[2])))
    return out


def _kept(rows: list[_Row], b_stmts: _Statements | None, a_stmts: _Statements | None) -> set[int]:
    """Indexes of the rows to show: changes, a line of context, the headers of the blocks they sit in,
    then widened until no statement is shown in part."""
    keep: set[int] = set()
    for k, row in enumerate(rows):
        if row[0] != " ":
            keep.update(range(max(0, k - _CONTEXT), min(len(rows), k + _CONTEXT + 1)))
    by_b = {row[1]: k for k, row in enumerate(rows) if row[1]}
    by_a = {row[2]: k for k, row in enumerate(rows) if row[2]}
    for k in [k for k in keep if rows[k][0] != " "] + [k for k in keep if rows[k][0] == " "]:
        row = rows[k]
        for stmts, line, index in ((b_stmts, row[1], by_b), (a_stmts, row[2], by_a)):
            if stmts is None or not line:
                continue
            for a, h in stmts.headers_around(line):
                keep.update(index[n] for n in range(a, h + 1) if n in index)
    while True:
        grown = set(keep)
        for k in keep:
            for side, (a, b) in _side_atoms(rows[k], b_stmts, a_stmts):
                index = by_b if side == "b" else by_a
                grown.update(index[n] for n in range(a, b + 1) if n in index)
        if grown == keep:
            break
        keep = grown
    # A comment right above a shown line says what it is for: show it too.
    for k in sorted(keep):
        j = k - 1
        while j >= 0 and j not in keep and rows[j][3].lstrip().startswith("#"):
            keep.add(j)
            j -= 1
    return keep


def _elide(
    rows: list[_Row], keep: set[int], b_stmts: _Statements | None, a_stmts: _Statements | None
) -> list[_Row]:
    """The kept rows, each run of other rows replaced by one ``...`` (a lone whole line stays)."""
    out: list[_Row] = []
    k = 0
    while k < len(rows):
        if k in keep:
            out.append(rows[k])
            k += 1
            continue
        gap_end = k
        while gap_end < len(rows) and gap_end not in keep:
            gap_end += 1
        gap = rows[k:gap_end]
        text_rows = [r for r in gap if r[3].strip()]
        inner = 0 < k and gap_end < len(rows)
        if not text_rows:
            if inner:
                out.extend(gap)  # blank lines between shown statements
        elif inner and len(text_rows) == 1 and len(gap) <= 2:
            out.extend(gap)  # one whole line reads better than "..."
        else:
            indent = " " * _indent(text_rows[0][3])
            out.append((" ", 0, 0, indent + _ELIDED))
        k = gap_end
    return out


def _whole_tail(
    body: list[_Row], b_stmts: _Statements | None, a_stmts: _Statements | None
) -> list[_Row]:
    """``body`` cut back so that its last row ends a statement (an elided row ends one too)."""
    body = list(body)
    while body:
        last = body[-1]
        ends = all(
            (last[1] if side == "b" else last[2]) == b
            for side, (_a, b) in _side_atoms(last, b_stmts, a_stmts)
        )
        if ends:
            break
        body.pop()
    return body
