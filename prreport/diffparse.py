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


def changed_lines(patch: str | None) -> ChangedLines:
    """Parse a unified diff (one file) into removed/added line numbers."""
    removed: list[int] = []
    added: list[int] = []
    if not patch:
        return ChangedLines((), ())
    old = new = 0
    in_hunk = False
    for line in split_lines(patch):
        m = _HUNK.match(line)
        if m:
            old, new = int(m.group(1)), int(m.group(3))
            in_hunk = True
            continue
        if not in_hunk:
            continue
        if not line or line.startswith("\\"):
            if not line:
                old += 1
                new += 1
            continue
        tag = line[0]
        if tag == "-":
            removed.append(old)
            old += 1
        elif tag == "+":
            added.append(new)
            new += 1
        else:
            old += 1
            new += 1
    return ChangedLines(tuple(removed), tuple(added))
