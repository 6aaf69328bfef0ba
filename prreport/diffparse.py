"""Unified-diff hunks: which before/after lines a patch removed and added."""

from __future__ import annotations

import re
from dataclasses import dataclass

from prreport.textlines import split_lines

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class ChangedLines:
    """Line numbers removed from the before file and added in the after file."""

    removed: tuple[int, ...]
    added: tuple[int, ...]
    # (before line, after line): the k-th removed and the k-th added line of one change block
    # (a run of removed lines followed by a run of added lines): the line it was replaced by
    replaced: tuple[tuple[int, int], ...] = ()


def changed_lines(patch: str | None) -> ChangedLines:
    """Parse a unified diff (one file) into removed/added line numbers."""
    removed: list[int] = []
    added: list[int] = []
    replaced: list[tuple[int, int]] = []
    if not patch:
        return ChangedLines((), ())
    old = new = 0
    in_hunk = False
    block_removed: list[int] = []  # removed lines of the current change block
    block_added = 0  # added lines of it so far
    for line in split_lines(patch):
        m = _HUNK.match(line)
        if m:
            old, new = int(m.group(1)), int(m.group(3))
            in_hunk = True
            block_removed, block_added = [], 0
            continue
        if not in_hunk:
            continue
        if not line or line.startswith("\\"):
            if not line:
                old += 1
                new += 1
                block_removed, block_added = [], 0
            continue
        tag = line[0]
        if tag == "-":
            if block_added:
                block_removed, block_added = [], 0
            removed.append(old)
            block_removed.append(old)
            old += 1
        elif tag == "+":
            if block_added < len(block_removed):
                replaced.append((block_removed[block_added], new))
            block_added += 1
            added.append(new)
            new += 1
        else:
            old += 1
            new += 1
            block_removed, block_added = [], 0
    return ChangedLines(tuple(removed), tuple(added), tuple(replaced))
