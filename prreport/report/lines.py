"""The review view: every changed line of the PR, hunk by hunk, folded (explained) or left.

Built once per report from the line ledger, the findings and the witnesses (``build.py``). Each
changed line of every text file is placed exactly once: in a *fold* (the lines a finding
explains, or blank lines, comments and formatting-only lines, one fold per run) or in a *left*
block (code no finding explains, and every line a witness names, even one a finding explains:
a witnessed behaviour change is never folded away). Each run of left lines in a patch hunk is
one *edit* (``id``, where, how many lines it removes and adds, its first line, the witnesses
in it) — what a reviewer still has to read.

Two values come out: ``ledger`` (the JSON interface: per changed line its file, side, number,
kind, the indexes in ``findings`` of the findings that explain it, and the edit it is left in)
and ``diff`` (the same lines with their text and the patch's context lines, for the HTML and
Markdown views; not in the JSON, which has the bundle's patches for that).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from prreport.findings import Finding
from prreport.report.ledger import Ledger, LedgerFile, LedgerLine
from prreport.textlines import split_lines

_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@ ?(.*)$")
# Longest first line of an edit the view quotes.
_TEXT_MAX = 120


@dataclass
class _Build:
    """What one pass over the files collects."""

    edits: list[dict[str, Any]] = field(default_factory=list)
    ledger_files: list[dict[str, Any]] = field(default_factory=list)
    diff_files: list[dict[str, Any]] = field(default_factory=list)


def review_lines(
    ledger: Ledger,
    findings: Sequence[Finding],
    witnessed: Sequence[dict[str, Any]],
) -> tuple[dict[str, Any], tuple[dict[str, Any], ...]]:
    """``(ledger, diff)``: the JSON line ledger and the review view (see the module docstring).

    ``findings`` are those the ledger was built from, in the report's order (a line's ``by``
    are indexes into it); ``witnessed`` the witnesses of ``witnesses_of``."""
    ids = {id(fd): i for i, fd in enumerate(findings)}
    marks = _witness_keys(ledger, witnessed)
    out = _Build()
    for lf in ledger.files:
        _file(lf, ids, marks.get(lf.path, {}), witnessed, out)
    changed = sum(f["changed"] for f in out.ledger_files)
    left = sum(f["left"] for f in out.ledger_files)
    order = sorted(range(len(out.diff_files)), key=lambda k: -out.diff_files[k]["left"])
    return (
        {
            "changed": changed,
            "left": left,
            "folded": changed - left,
            "edit_count": len(out.edits),
            "edits": out.edits,
            "files": out.ledger_files,
        },
        # Files with most lines left first (a stable sort: diff order among equals).
        tuple(out.diff_files[k] for k in order),
    )


def _witness_keys(
    ledger: Ledger, witnessed: Sequence[dict[str, Any]]
) -> dict[str, dict[tuple[str, int], list[int]]]:
    """By path, the changed (side, line) each witness names -> the witnesses' indexes. A witness
    without a side (a finding) names its line on both sides: neither is folded."""
    out: dict[str, dict[tuple[str, int], list[int]]] = {}
    for k, w in enumerate(witnessed):
        lf = ledger.file(str(w.get("path") or ""))
        line = w.get("line")
        if lf is None or not isinstance(line, int):
            continue
        have = {(ln.side, ln.line) for ln in lf.lines}
        sides = (w["side"],) if w.get("side") in ("-", "+") else ("+", "-")
        for side in sides:
            if (side, line) in have:
                out.setdefault(lf.path, {}).setdefault((side, line), []).append(k)
    return out


def _rows(patch: str | None) -> list[tuple[str, str, int | None, int | None, str]]:
    """The patch as rows: ("@", header, old start, new start, section) for a hunk header, else
    (sign, text, before line, after line, "") with sign " ", "-" or "+"."""
    out: list[tuple[str, str, int | None, int | None, str]] = []
    old = new = 0
    in_hunk = False
    for line in split_lines(patch or ""):
        m = _HUNK.match(line)
        if m:
            old, new = int(m.group(1)), int(m.group(2))
            out.append(("@", line, old, new, m.group(3)))
            in_hunk = True
            continue
        if not in_hunk or line.startswith("\\"):
            continue
        sign = line[:1] if line[:1] in ("-", "+") else " "
        text = line[1:]
        if sign == "-":
            out.append(("-", text, old, None, ""))
            old += 1
        elif sign == "+":
            out.append(("+", text, None, new, ""))
            new += 1
        else:
            out.append((" ", text, old, new, ""))
            old += 1
            new += 1
    return out


def _explainers(ln: LedgerLine, ids: dict[int, int]) -> list[int]:
    """The indexes of the findings that explain a line, each once, in the report's order."""
    seen: dict[int, None] = {}
    for fd in (*ln.explained_by, *ln.unchanged_in):
        if id(fd) in ids:
            seen.setdefault(ids[id(fd)], None)
    return list(seen)


def _place(
    ln: LedgerLine, by: list[int], witnessed: bool, current: tuple[str, Any] | None
) -> tuple[str, Any]:
    """The block a changed line goes in: ("left", None), ("fold", finding index) or
    ("fold", "blank" | "comment" | "formatting" | "tooling")."""
    if witnessed or ln.left:
        return ("left", None)
    if by:
        # Keep the run going when the line is also explained by the finding of the fold it is in.
        if current is not None and current[0] == "fold" and current[1] in by:
            return current
        return ("fold", by[0])
    return ("fold", ln.kind if ln.kind in (*_QUIET, "tooling") else "code")


def _file(
    lf: LedgerFile,
    ids: dict[int, int],
    marks: dict[tuple[str, int], list[int]],
    witnessed: Sequence[dict[str, Any]],
    out: _Build,
) -> None:
    """Add one file's ledger entry, edits and view."""
    hunks, lines_json, placed = _hunks(lf, ids, marks)
    by_key = {(ln.side, ln.line): ln for ln in lf.lines}
    for h in hunks:
        _absorb(h)
        edit: dict[str, Any] | None = None
        for b in h["blocks"]:
            if b["type"] != "left":
                continue
            if edit is None:
                edit = _new_edit(lf, len(out.edits))
                out.edits.append(edit)
                b["first"] = True
            b["edit"] = edit["id"]
            for r in b["rows"]:
                key = (r["sign"], r["old"] if r["sign"] == "-" else r["new"])
                if r.pop("counted"):
                    _grow(edit, by_key[key], [witnessed[k] for k in marks.get(key, [])])
                    lines_json[key]["left"] = edit["id"]
                    h["left"] += 1
    # Lines the patch rows did not reach (none in a well-formed patch): listed, so none is lost.
    for ln in lf.lines:
        if (ln.side, ln.line) not in placed:
            lines_json[(ln.side, ln.line)] = {
                "side": ln.side,
                "line": ln.line,
                "kind": ln.kind,
                "by": [],
                "left": None,
            }
    left = sum(1 for x in lines_json.values() if x["left"] is not None)
    entry = {
        "path": lf.path,
        "old_path": lf.change.old_path,
        "status": lf.status,
        "category": lf.category,
        "changed": len(lines_json),
        "left": left,
    }
    out.ledger_files.append({**entry, "lines": list(lines_json.values())})
    out.diff_files.append({**entry, "change": lf.change.status, "hunks": hunks})


def _hunks(
    lf: LedgerFile, ids: dict[int, int], marks: dict[tuple[str, int], list[int]]
) -> tuple[list[dict[str, Any]], dict[tuple[str, int], dict[str, Any]], set[tuple[str, int]]]:
    """The file's patch as hunks of blocks (context, folds, left runs), each changed line once;
    its ledger entries by (side, line); the (side, line) placed."""
    by_key = {(ln.side, ln.line): ln for ln in lf.lines}
    lines_json: dict[tuple[str, int], dict[str, Any]] = {}
    hunks: list[dict[str, Any]] = []
    block: dict[str, Any] | None = None
    for sign, text, old, new, section in _rows(lf.change.patch):
        if sign == "@":
            hunks.append(
                {"old_start": old, "new_start": new, "section": section, "left": 0, "blocks": []}
            )
            block = None
            continue
        blocks = hunks[-1]["blocks"]
        if sign == " ":
            if block is None or block["type"] != "context":
                block = {"type": "context", "key": None, "rows": []}
                blocks.append(block)
            block["rows"].append({"sign": " ", "old": old, "new": new, "text": text})
            continue
        number = old if sign == "-" else new
        assert number is not None
        key = (sign, number)
        ln = by_key.get(key)
        if ln is None or key in lines_json:
            continue
        by = _explainers(ln, ids)
        marked = bool(marks.get(key))
        # A line whose text the source could not read (one side unread): nothing explains it.
        unread = lf.status == "no-text" and not ln.text and bool(text.strip()) and not by
        where = _place(ln, by, marked or unread, (block["type"], block["key"]) if block else None)
        if block is None or (block["type"], block["key"]) != where:
            block = {"type": where[0], "key": where[1], "rows": []}
            if where[0] == "fold":
                block["finding"] = where[1] if isinstance(where[1], int) else None
                block["reason"] = "finding" if isinstance(where[1], int) else where[1]
            blocks.append(block)
        block["rows"].append(
            {
                "sign": sign,
                "old": old,
                "new": new,
                "text": text,
                "kind": ln.kind,
                "witnessed": marked,
                "counted": where[0] == "left",
            }
        )
        lines_json[key] = {"side": sign, "line": key[1], "kind": ln.kind, "by": by, "left": None}
    for h in hunks:
        for b in h["blocks"]:
            b.pop("key", None)
    return hunks, lines_json, set(lines_json)


# Lines that say nothing: a fold of them beside a left run is shown inside it (not counted).
_QUIET = ("blank", "comment", "formatting")


def _absorb(hunk: dict[str, Any]) -> None:
    """A fold of blank lines, comments or formatting only (whatever explains them) next to or
    between left lines joins the left run (shown, not counted as left), and left runs that then
    touch are one."""
    blocks = hunk["blocks"]
    out: list[dict[str, Any]] = []
    for k, b in enumerate(blocks):
        quiet = b["type"] == "fold" and all(r["kind"] in _QUIET for r in b["rows"])
        beside = (out and out[-1]["type"] == "left") or (
            k + 1 < len(blocks) and blocks[k + 1]["type"] == "left"
        )
        if quiet and beside:
            for r in b["rows"]:
                r["counted"] = False
            b = {"type": "left", "rows": b["rows"]}
        if b["type"] == "left" and out and out[-1]["type"] == "left":
            out[-1]["rows"].extend(b["rows"])
        else:
            out.append(b)
    hunk["blocks"] = out


def _new_edit(lf: LedgerFile, k: int) -> dict[str, Any]:
    """A new left-over edit of ``lf``, numbered ``k``."""
    return {
        "id": k,
        "path": lf.path,
        "category": lf.category,
        "side": "",
        "start": 0,
        "end": 0,
        "removed": 0,
        "added": 0,
        "text": "",
        "witnesses": [],
    }


def _grow(edit: dict[str, Any], ln: LedgerLine, witnesses: list[dict[str, Any]]) -> None:
    """Add a left line to its edit: where it is shown is its added lines when it has any."""
    edit["removed" if ln.side == "-" else "added"] += 1
    if ln.side == "+" and edit["side"] != "+":
        edit.update(side="+", start=ln.line, end=ln.line, text=ln.text.strip()[:_TEXT_MAX])
    elif ln.side == edit["side"] or not edit["side"]:
        if not edit["side"]:
            edit.update(side=ln.side, start=ln.line, text=ln.text.strip()[:_TEXT_MAX])
        edit["end"] = ln.line
    for w in witnesses:
        if w not in edit["witnesses"]:
            edit["witnesses"].append(w)
