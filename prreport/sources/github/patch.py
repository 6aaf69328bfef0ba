"""Unified-diff patches: rebuild a file's base text from its head text and patch, or write one.

GitHub's PR files listing carries each file's patch; reverse-applying it to the head text
gives the base text without a second request per file. A file the listing leaves out (past
its 3000 files) has no patch: ``unified_patch`` writes one, in the form git writes.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _lines(text: str) -> list[str]:
    """Split keeping ``\\n`` (only ``\\n``: a ``\\r`` stays part of its line, as in a patch)."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def reverse_apply(after: str, patch: str, additions: int, deletions: int) -> str | None:
    """The before text, or None when the patch does not fit ``after`` or is incomplete."""
    # Long: one pass over the patch lines with shared cursors (pos, counts); split, it reads worse.
    head = _lines(after)
    before: list[str] = []
    pos = 0  # next unread index in head
    plus = minus = 0
    last = ""  # the kind of the previous patch line, for "\ No newline at end of file"
    body = patch[:-1] if patch.endswith("\n") else patch
    lines = body.split("\n") if body else []
    i = 0
    while i < len(lines):
        m = _HUNK.match(lines[i])
        if not m:
            return None
        old_len = int(m.group(2)) if m.group(2) is not None else 1
        new_start = int(m.group(3))
        new_len = int(m.group(4)) if m.group(4) is not None else 1
        # With an empty new side, new_start names the line *before* the hunk.
        start = new_start if new_len == 0 else new_start - 1
        if start < pos or start > len(head):
            return None
        before.extend(head[pos:start])
        pos = start
        olds = news = 0
        i += 1
        while i < len(lines) and not lines[i].startswith("@@ "):
            line = lines[i]
            tag, text = line[:1], line[1:]
            if tag == " ":
                if pos >= len(head) or head[pos].rstrip("\n") != text:
                    return None
                before.append(head[pos])
                pos += 1
                olds += 1
                news += 1
            elif tag == "-":
                before.append(text + "\n")
                olds += 1
                minus += 1
            elif tag == "+":
                if pos >= len(head) or head[pos].rstrip("\n") != text:
                    return None
                pos += 1
                news += 1
                plus += 1
            elif tag == "\\":
                if last in (" ", "-") and before and before[-1].endswith("\n"):
                    before[-1] = before[-1][:-1]
            elif line == "":
                # An empty context line whose leading space was lost.
                if pos >= len(head) or head[pos].rstrip("\n") != "":
                    return None
                before.append(head[pos])
                pos += 1
                olds += 1
                news += 1
                tag = " "
            else:
                return None
            last = tag if tag != "\\" else last
            i += 1
        if olds != old_len or news != new_len:
            return None
    if plus != additions or minus != deletions:
        return None  # a truncated patch: the caller fetches the base instead
    before.extend(head[pos:])
    return "".join(before)


def _range(start: int, stop: int) -> str:
    """A hunk range as git writes it: ``start,length``, ``start`` alone for one line, the line
    before for none."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start if length == 0 else start + 1},{length}"


def _row(tag: str, line: str) -> str:
    if line.endswith("\n"):
        return tag + line
    return f"{tag}{line}\n\\ No newline at end of file\n"


def unified_patch(before: str, after: str, context: int = 3) -> tuple[str, int, int]:
    """(patch, additions, deletions) from ``before`` to ``after``: hunks only, as git writes them
    (three lines of context, "\\ No newline at end of file"); ``""`` when the texts are equal."""
    a, b = _lines(before), _lines(after)
    out: list[str] = []
    plus = minus = 0
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_range(i1, i2)} +{_range(j1, j2)} @@\n")
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                out.extend(_row(" ", line) for line in a[x1:x2])
                continue
            out.extend(_row("-", line) for line in a[x1:x2])
            out.extend(_row("+", line) for line in b[y1:y2])
            minus += x2 - x1
            plus += y2 - y1
    return "".join(out), plus, minus
