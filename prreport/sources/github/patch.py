"""Rebuild a file's base text from its head text and its complete unified-diff patch.

GitHub's PR files listing carries each file's patch; reverse-applying it to the head text
gives the base text without a second request per file.
"""

from __future__ import annotations

import re

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
