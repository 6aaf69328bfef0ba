"""Line ranges of Python statements read from a file's lines alone (no parse): an import
statement, an indented block and its header, an ``if``/``elif`` chain, the decorators above a
definition. The snippets use them to choose what after-code to show around a change.
"""

from __future__ import annotations

import re
from collections.abc import Sequence


def indent_width(line: str) -> int:
    """The width of a line's indentation."""
    return len(line) - len(line.lstrip())


def import_block(lines: Sequence[str], start: int) -> tuple[int, int]:
    """1-based inclusive range of the import statement starting at ``start`` (parenthesised or not)."""
    end = start
    depth = 0
    for i in range(start - 1, len(lines)):
        depth += lines[i].count("(") - lines[i].count(")")
        end = i + 1
        if depth <= 0 and not lines[i].rstrip().endswith("\\"):
            break
    return start, end


def block_end(lines: Sequence[str], start: int) -> int:
    """Last line (1-based) of the indented block headed by line ``start`` (a header spread over
    several lines, such as a long signature, counts as one)."""
    base = indent_width(lines[start - 1])
    end = _header_end(lines, start)
    for i in range(end, len(lines)):
        text = lines[i]
        if not text.strip():
            continue
        if indent_width(text) <= base:
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


def enclosing_def(lines: Sequence[str], line: int, name: str, reach: int = 8) -> int:
    """Line of ``def name`` just above ``line`` (within ``reach`` lines), else ``line``."""
    for i in range(line - 2, max(line - 2 - reach, -1), -1):
        m = DEF_LINE.match(lines[i])
        if m and m.group(1) == name:
            return i + 1
    return line


DEF_LINE = re.compile(r"^\s*(?:async\s+)?def\s+(\w+)\s*\(")


def chain_end(lines: Sequence[str], start: int) -> int:
    """Last line of the ``if``/``elif``/``else`` chain (or any block) headed by line ``start``."""
    end = block_end(lines, start)
    base = indent_width(lines[start - 1])
    while end < len(lines):
        nxt = next((i for i in range(end, len(lines)) if lines[i].strip()), None)
        if nxt is None or indent_width(lines[nxt]) != base:
            break
        if not re.match(r"\s*(elif\b|else\s*:|except\b|finally\s*:)", lines[nxt]):
            break
        end = block_end(lines, nxt + 1)
    return end


def decorated_start(lines: Sequence[str], start: int) -> int:
    """``start`` moved up over the decorators right above a definition."""
    while start > 1 and lines[start - 2].lstrip().startswith("@"):
        start -= 1
    return start
