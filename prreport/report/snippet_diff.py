"""A snippet's before/after hunk: the removed and added lines of its region, widened to whole
statements and the headers of the blocks they sit in, unchanged runs elided as ``...``.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Any

from prreport.python.parse import parse as parse_quietly
from prreport.report.blocks import indent_width
from prreport.report.ledger import LedgerFile

# Context lines kept on each side of a change before widening to whole statements.
_CONTEXT = 1
_ELIDED = "..."

# One row of a hunk: tag (" ", "-", "+"), before line, after line (0 when absent), text.
_Row = tuple[str, int, int, str]


def diff_hunk(changed: LedgerFile, s: dict[str, Any], max_lines: int) -> dict[str, Any]:
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
        indent = " " * indent_width(rest[0][3]) if rest else ""
        shown = body + [(" ", 0, 0, indent + _ELIDED.strip())]
    dedent = min(
        (indent_width(text) for _t, _b, _a, text in shown if text.strip() and text != _ELIDED),
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
    indent = min((indent_width(ln) for ln in region if ln.strip()), default=0)
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
    todo = list(keep)  # each row and each statement widened once
    widened: set[tuple[str, int, int]] = set()
    while todo:
        k = todo.pop()
        for side, (a, b) in _side_atoms(rows[k], b_stmts, a_stmts):
            if (side, a, b) in widened:
                continue
            widened.add((side, a, b))
            index = by_b if side == "b" else by_a
            for n in range(a, b + 1):
                j = index.get(n)
                if j is not None and j not in keep:
                    keep.add(j)
                    todo.append(j)
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
            indent = " " * indent_width(text_rows[0][3])
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
