"""Hoist codemods: a function-local import moved into the module's import block, as a diff.

A name joins an existing ``from X import ...`` of the same module when there is one (kept in
isort order when the block already is), otherwise the statement goes into its isort group.
Plain shapes (a one-line import alone on its lines, after code or opening its block; a new
line in the import block, or a name added to a one-line ``from X import a, b``) are edited
on the text at the ``ast``'s positions, exactly as libcst prints them; the others go through
libcst (``hoist_cst``), which is imported only then and parses only the parts it edits.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from prreport.codemods.importblock import (
    COMPOUND,
    ModuleText,
    isort_key,
    section,
    span,
)
from prreport.python.parse import parse as parse_quietly
from prreport.python.scopes import SIMPLE_STATEMENTS, child_blocks
from prreport.textlines import split_lines

if TYPE_CHECKING:
    from prreport.codemods.hoist_cst import CstParts

_BREAK_AT_END = re.compile(r"(\r\n|\r|\n)\Z")
# ``from <dots><module> import`` and ``import <module>``, spelled without inner spaces.
_FROM = re.compile(r"from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]")
_SEPARATOR = re.compile(r"[ \t]*,[ \t]*")


def _holder(body: list[ast.stmt], line: int) -> tuple[int, ast.stmt] | None:
    """(index of the top-level statement around ``line``, the statement a hoist of the import
    at ``line`` edits: the outermost function around it, else that top-level statement); None
    when ``line`` is not inside a compound statement. Two imports have the same holder or
    holders that do not overlap, so no line is parsed twice."""
    at = next((i for i, st in enumerate(body) if span(st)[0] <= line <= span(st)[1]), None)
    if at is None or type(body[at]) not in COMPOUND:
        return None
    node = body[at]
    while not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        inner = next(
            (
                st
                for block in child_blocks(node)
                for st in block
                if type(st) in COMPOUND and span(st)[0] <= line <= span(st)[1]
            ),
            None,
        )
        if inner is None:
            return at, body[at]
        node = inner
    return at, node


def _find(node: ast.stmt, line: int) -> tuple[list[ast.stmt], int] | None:
    """(block, index) of the import statement starting at ``line`` inside ``node``."""
    for block in child_blocks(node):
        for k, st in enumerate(block):
            if st.lineno == line and isinstance(st, (ast.Import, ast.ImportFrom)):
                return block, k
            if type(st) in COMPOUND and span(st)[0] <= line <= span(st)[1]:
                return _find(st, line)
    return None


def _plain_line(line: str) -> bool:
    """A line libcst keeps as plain whitespace, code and comment (no form feed, no ``\\``)."""
    return "\f" not in line and "\\" not in line


def _empty(line: str) -> bool:
    """A blank or comment-only line (an ``EmptyLine`` of libcst)."""
    stripped = line.strip(" \t\r\n")
    return not stripped or stripped.startswith("#")


@dataclass
class _Edit:
    """Lines ``start``-``end`` (0-based, end exclusive) of the text replaced by ``new``."""

    start: int
    end: int
    new: list[str]


class HoistSource(ModuleText):
    """A module prepared once for every hoist made in it: its text, lines and ``ast``.

    Plain shapes are edited on the lines; the others go to libcst (``hoist_cst``), which
    parses only the parts of the text a hoist edits, each at most once.
    """

    def __init__(self, text: str, tree: ast.Module) -> None:
        super().__init__(text, tree)
        self._cst: CstParts | None = None

    def hoist(self, line: int, lazy: bool = False) -> str | None:
        """The text with the import statement starting at ``line`` moved to the import block;
        ``lazy``: as a PEP 810 ``lazy`` import of its own (plain shapes only: never merged into
        an eager ``from X import``, which would make its other names lazy too)."""
        where = _holder(self.tree.body, line)
        if where is None:
            return None  # a module-level import, or no statement there
        at, holder = where
        if at >= self.top:
            plain = self._plain(holder, line, lazy)
            if plain is not None or lazy:
                return plain
        elif lazy:
            return None
        if self._cst is None:
            from prreport.codemods.hoist_cst import CstParts  # libcst: only for these

            self._cst = CstParts(self)
        return self._cst.hoist(at, holder, line)

    def _plain(self, holder: ast.stmt, line: int, lazy: bool = False) -> str | None:
        """The hoist edited on the lines, or None when its shape is not a plain one."""
        found = _find(holder, line)
        if found is None:
            return None
        block, k = found
        stmt = block[k]
        assert isinstance(stmt, (ast.Import, ast.ImportFrom))
        removal = self._removal(block, k)
        if removal is None or stmt.lineno != stmt.end_lineno:
            return None
        moved = self.source_lines[stmt.lineno - 1]
        indent = moved[: stmt.col_offset]
        comments = [
            ln[len(indent) :] if ln.startswith(indent) else ln
            for ln in self.source_lines[removal.start : stmt.lineno - 1]
            if ln.strip(" \t\r\n")
        ]
        head = "lazy " if lazy else ""
        insertion = self._insertion(stmt, [*comments, head + moved[len(indent) :]], lazy)
        if insertion is None:
            return None
        lines = list(self.source_lines)
        for edit in sorted((removal, insertion), key=lambda e: -e.start):
            lines[edit.start : edit.end] = edit.new
        return "".join(lines)

    def _removal(self, block: list[ast.stmt], k: int) -> _Edit | None:
        """The import ``block[k]`` taken out with the comment and blank lines above it (libcst's
        ``leading_lines``); ``pass`` when it was alone, the blank lines after it when it opened
        its block. None unless the lines around it are plain."""
        stmt = block[k]
        lines = self.source_lines
        first = stmt.lineno - 1
        row = lines[first]
        if row[: stmt.col_offset].strip(" \t") or not all(map(_plain_line, lines[first - 1 :][:2])):
            return None  # shares its line, or a line libcst would read otherwise
        start = first
        while start > 0 and _empty(lines[start - 1]) and _plain_line(lines[start - 1]):
            start -= 1
        if start == 0 or _empty(lines[start - 1]) or not _plain_line(lines[start - 1]):
            return None
        prev = block[k - 1] if k else None
        if prev is not None and prev.end_lineno != start:
            return None
        if prev is not None and type(prev) not in SIMPLE_STATEMENTS and start != first:
            return None  # lines after a block may belong to it: left to libcst
        end = first + 1
        nxt = block[k + 1] if k + 1 < len(block) else None
        if nxt is not None and nxt.lineno <= end:
            return None
        new: list[str] = []
        if nxt is None and prev is None:
            new = [row[: stmt.col_offset] + "pass" + self.newline]
        elif prev is None:
            # it opened its block: the next statement's blank lines above it go too
            assert nxt is not None
            gap = lines[end : nxt.lineno - 1]
            if not all(map(_plain_line, gap)) or not all(map(_empty, gap)):
                return None
            while end < nxt.lineno - 1 and not lines[end].strip(" \t\r\n"):
                end += 1
        if not _BREAK_AT_END.search(row):
            return None
        return _Edit(start, end, new)

    def _insertion(
        self, stmt: ast.Import | ast.ImportFrom, moved: list[str], lazy: bool = False
    ) -> _Edit | None:
        """Where the import block takes the statement (``moved``: its comment lines and its
        line, unindented), or the line of the one-line ``from X import`` it joins. None
        unless every import line of the block is one plain statement."""
        body = self.tree.body
        region: list[int] = []
        for i, st in enumerate(body[: self.top]):
            if not isinstance(st, (ast.Import, ast.ImportFrom)):
                continue
            shared = (i and body[i - 1].end_lineno == st.lineno) or (
                i + 1 < len(body) and body[i + 1].lineno == st.end_lineno
            )
            if shared or self._module(st) is None:
                return None  # ``import a; import b``, or a spelling the text does not show
            region.append(i)
        module = self._module(stmt)
        if module is None:
            return None
        if isinstance(stmt, ast.ImportFrom) and stmt.names[0].name != "*" and not lazy:
            for i in region:
                st = body[i]
                if isinstance(st, ast.ImportFrom) and st.names[0].name != "*":
                    if self._module(st) == module:
                        return self._merge(st, stmt)
        group, order = section(module), (isinstance(stmt, ast.ImportFrom), module.lower())
        keys = {}
        for i in region:
            name = self._module(body[i]) or ""
            keys[i] = (section(name), (isinstance(body[i], ast.ImportFrom), name.lower()))
        same = [i for i in region if keys[i][0] == group]
        earlier = [i for i in region if keys[i][0] <= group]
        later = [i for i in same if keys[i][1] > order]
        if later:
            at = body[later[0]].lineno - 1  # below the group's blank and comment lines
        elif same or earlier or region:
            at = body[(same or earlier or region)[-1]].end_lineno or 0
        elif body and _docstring(body[0]):
            at = body[0].end_lineno or 0
        else:
            return None  # the top of the module: its header comments are libcst's to place
        if at == 0 or not _BREAK_AT_END.search(self.source_lines[at - 1]):
            return None
        return _Edit(at, at, moved)

    def _module(self, st: ast.stmt) -> str | None:
        """The module ``st`` imports (``import a.b``: its first name), as libcst spells it, or
        None when the text spells it with inner spaces or over several lines."""
        if not isinstance(st, (ast.Import, ast.ImportFrom)) or st.lineno != st.end_lineno:
            return None
        row = self.source_lines[st.lineno - 1]
        if not _plain_line(row) or not row.isascii():
            return None  # (``ast`` columns count UTF-8 bytes)
        if isinstance(st, ast.ImportFrom):
            m = _FROM.match(row, st.col_offset)
            name = "." * st.level + (st.module or "")
            return name if m and m.group(1) + m.group(2) == name else None
        first = st.names[0]
        spelled = row[first.col_offset : first.end_col_offset].split()
        return first.name if spelled and spelled[0] == first.name else None

    def _merge(self, into: ast.ImportFrom, stmt: ast.ImportFrom) -> _Edit | None:
        """``stmt``'s names added to the one-line, unparenthesised ``from X import a, b``."""
        row = self.source_lines[into.lineno - 1]
        names = into.names
        head = row[: names[0].col_offset]
        if "(" in head or not _FROM.match(head, into.col_offset):
            return None
        texts = [row[a.col_offset : a.end_col_offset] for a in names]
        gaps = [
            row[a.end_col_offset : b.col_offset] for a, b in zip(names, names[1:], strict=False)
        ]
        if not all(_SEPARATOR.fullmatch(g) for g in gaps):
            return None
        own = self.source_lines[stmt.lineno - 1]
        if not own.isascii():
            return None
        have = {(a.name, a.asname) for a in names}
        add = [
            own[a.col_offset : a.end_col_offset]
            for a in stmt.names
            if (a.name, a.asname) not in have
        ]
        if not add:
            return _Edit(into.lineno - 1, into.lineno - 1, [])
        if any(" as " not in t and t != n.name for t, n in zip(texts, names, strict=True)):
            return None
        sep = gaps[0] if gaps else ", "
        keys = [isort_key(a.name) for a in names]
        items = list(texts)
        for text in add:
            if keys == sorted(keys):
                k = isort_key(text.split()[0])
                pos = next(
                    (i for i, x in enumerate(items) if isort_key(x.split()[0]) > k), len(items)
                )
            else:
                pos = len(items)
            items.insert(pos, text)
        tail = row[names[-1].end_col_offset :]
        return _Edit(into.lineno - 1, into.lineno, [head + sep.join(items) + tail])


def _docstring(st: ast.stmt) -> bool:
    return (
        isinstance(st, ast.Expr)
        and isinstance(st.value, ast.Constant)
        and isinstance(st.value.value, (str, bytes))
    )


def parse_for_hoist(text: str, tree: ast.Module | None = None) -> HoistSource | None:
    """The module prepared once per file for every hoist made in it (``tree``: its ``ast``,
    parsed here when not given); None when it does not parse."""
    if tree is None:
        try:
            tree = parse_quietly(text)
        except (SyntaxError, ValueError):
            return None
    return HoistSource(text, tree)


def hoist(
    text: str, line: int, parsed: HoistSource | None = None, lazy: bool = False
) -> str | None:
    """The module text with the import statement starting at ``line`` moved to the import block
    (``lazy``: as a module-level ``lazy`` import)."""
    parsed = parsed if parsed is not None else parse_for_hoist(text)
    return parsed.hoist(line, lazy) if parsed is not None else None


def hoist_diff(
    path: str, text: str, line: int, parsed: HoistSource | None = None, lazy: bool = False
) -> str:
    """A unified diff (``a/path`` → ``b/path``) hoisting the import at ``line`` (``lazy``: made a
    module-level ``lazy`` import); "" if not possible."""
    parsed = parsed if parsed is not None else parse_for_hoist(text)
    new = hoist(text, line, parsed, lazy)
    if parsed is None or new is None or new == text:
        return ""
    return "".join(
        difflib.unified_diff(
            parsed.source_lines,
            split_lines(new, keepends=True),
            f"a/{path}",
            f"b/{path}",
        )
    )
