"""The libcst side of hoist codemods (``hoist``): the shapes not edited on the text.

The tree is lossless, so comments and formatting elsewhere survive. libcst parses only the
parts of the module a hoist edits (the function around the import, the import block), each
at most once per file.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Sequence
from typing import Any, cast

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from prreport.codemods.cstblock import is_blank, with_import
from prreport.codemods.importblock import (
    COMPOUND,
    FIRST_BREAK,
    ModuleText,
    span,
)


class _Hoist(cst.CSTTransformer):
    """Removes the one-statement import line starting at ``line`` from its block and, when
    ``insert``, adds it to the module's import block (else ``target`` is left to the caller)."""

    def __init__(
        self, line: int, lines: Callable[[cst.CSTNode], tuple[int, int]], insert: bool = True
    ) -> None:
        super().__init__()
        self.line = line
        self.lines = lines  # (first, last) line of a statement, its leading blank lines left out
        self.insert = insert
        self.target: cst.SimpleStatementLine | None = None
        self.removed = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        # Only the compound statements around ``line`` can hold the import: skip the rest of
        # the module (a transform of every node of a large file costs more than the hoist).
        if isinstance(node, cst.BaseCompoundStatement):
            first, last = self.lines(node)
            if not first <= self.line <= last:
                return False
        return super().on_visit(node)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        if self.target is None and self.lines(node)[0] == self.line:
            if len(node.body) == 1 and isinstance(node.body[0], (cst.Import, cst.ImportFrom)):
                self.target = node
        return False

    def leave_IndentedBlock(
        self, original: cst.IndentedBlock, updated: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        if self.target is None or self.removed or not any(s is self.target for s in original.body):
            return updated
        body: list[cst.BaseStatement] = []
        drop_next_blanks = False
        for orig, upd in zip(original.body, updated.body, strict=True):
            if orig is self.target:
                self.removed = True
                drop_next_blanks = not body  # it opened the block: no blank line before the rest
                continue
            if drop_next_blanks and isinstance(
                upd, (cst.SimpleStatementLine, cst.BaseCompoundStatement)
            ):
                lines = list(upd.leading_lines)
                while lines and is_blank(lines[0]):
                    lines.pop(0)
                upd = upd.with_changes(leading_lines=lines)
                drop_next_blanks = False
            body.append(upd)
        if not body:
            body = [cst.SimpleStatementLine([cst.Pass()])]
        return updated.with_changes(body=body)

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        if self.target is None or not self.removed or not self.insert:
            return updated
        return with_import(updated, self.target)


_KINDS: dict[type[cst.CSTNode], tuple[type[ast.stmt], ...]] = {
    cst.FunctionDef: (ast.FunctionDef, ast.AsyncFunctionDef),
    cst.ClassDef: (ast.ClassDef,),
    cst.If: (ast.If,),
    cst.For: (ast.For, ast.AsyncFor),
    cst.While: (ast.While,),
    cst.With: (ast.With, ast.AsyncWith),
    cst.Try: (ast.Try,),
    cst.Match: (ast.Match,),
}
if sys.version_info >= (3, 11):
    _KINDS[cst.TryStar] = (ast.TryStar,)


def _follow(
    body: Sequence[cst.BaseStatement],
    stmts: list[ast.stmt],
    line: int,
    found: dict[int, tuple[int, int]],
) -> bool:
    """Lines of the libcst statements of ``body`` from their ``ast`` twins (``stmts``), and of
    the statements inside those that hold ``line``; False when the two trees do not line up."""
    i = 0
    for node in body:
        if isinstance(node, cst.SimpleStatementLine):
            group = stmts[i : i + len(node.body)]
            i += len(node.body)
            if len(group) != len(node.body) or any(type(a) in COMPOUND for a in group):
                return False
            found[id(node)] = (group[0].lineno, max(a.end_lineno or a.lineno for a in group))
            continue
        if i >= len(stmts) or not isinstance(stmts[i], _KINDS.get(type(node), ())):
            return False
        a = stmts[i]
        i += 1
        decorators = getattr(a, "decorator_list", [])
        start = min([a.lineno, *(d.lineno for d in decorators)])
        found[id(node)] = (start, a.end_lineno or a.lineno)
        if start <= line <= (a.end_lineno or a.lineno) and not _inner(node, a, line, found):
            return False
    return i == len(stmts)


def _inner(node: cst.CSTNode, a: Any, line: int, found: dict[int, tuple[int, int]]) -> bool:
    """``_follow`` into the blocks of one compound statement (its body, else, handlers...)."""
    pairs: list[tuple[Any, list[ast.stmt]]] = [(getattr(node, "body", None), a.body)]
    if isinstance(node, cst.If) and isinstance(node.orelse, cst.If):
        elif_ = a.orelse[0] if len(a.orelse) == 1 and isinstance(a.orelse[0], ast.If) else None
        if elif_ is None:
            return False
        found[id(node.orelse)] = (elif_.lineno, elif_.end_lineno or elif_.lineno)
        if elif_.lineno <= line <= (elif_.end_lineno or elif_.lineno):
            if not _inner(node.orelse, elif_, line, found):
                return False
    elif getattr(node, "orelse", None) is not None:
        pairs.append((node.orelse.body, a.orelse))  # type: ignore[attr-defined]
    if isinstance(node, (cst.Try, cst.TryStar)):
        if len(node.handlers) != len(a.handlers):
            return False
        pairs += [
            (getattr(h, "body", None), ah.body)
            for h, ah in zip(node.handlers, a.handlers, strict=True)
        ]
        if node.finalbody is not None:
            pairs.append((node.finalbody.body, a.finalbody))
    if isinstance(node, cst.Match):
        if len(node.cases) != len(a.cases):
            return False
        pairs = [(c.body, ac.body) for c, ac in zip(node.cases, a.cases, strict=True)]
    for block, stmts in pairs:
        if isinstance(block, cst.IndentedBlock) and not _follow(block.body, stmts, line, found):
            return False
    return True


class _Part:
    """Whole lines ``begin``-``end`` (1-based) of a module's text parsed by libcst alone, an
    indented statement under an ``if 1:`` line (``wrap``) that its print leaves out again."""

    def __init__(self, text: str, begin: int, end: int, wrap: str) -> None:
        self.begin = begin
        self.end = end
        self.wrap = wrap
        self.module = cst.parse_module(wrap + text)

    def statements(self) -> Sequence[cst.BaseStatement]:
        """The part's own statements (inside the ``if 1:`` when wrapped)."""
        if not self.wrap:
            return self.module.body
        block = cast(cst.If, self.module.body[0]).body
        return cast(cst.IndentedBlock, block).body

    def lines(self, stmts: list[ast.stmt], line: int) -> dict[int, tuple[int, int]]:
        """Lines of the part's statements (as ``_follow`` gives them) around ``line``: from the
        ``ast`` twins ``stmts`` when the trees line up, else by libcst's position pass."""
        found: dict[int, tuple[int, int]] = {}
        if self.wrap:
            found[id(self.module.body[0])] = (self.begin, self.end)
        if _follow(self.statements(), stmts, line, found):
            return found
        offset = self.begin - 1 - (1 if self.wrap else 0)
        positions = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        return {
            id(node): (pos.start.line + offset, pos.end.line + offset)
            for node, pos in positions.items()
            if isinstance(node, (cst.BaseStatement, cst.BaseSmallStatement))
        }

    def code(self, updated: cst.Module) -> str:
        """The text of ``updated`` (the part's module after an edit), without the ``if 1:``."""
        code = updated.code
        if not code.startswith(self.wrap):
            raise ValueError("the wrapping line did not print back")
        return code[len(self.wrap) :]


class CstParts:
    """The libcst parts of one module's text (``source``), each parsed at most once.

    A hoist removes an import from the function around it and adds it to the import block
    (the statements before the first ``def`` or ``class``): libcst parses those two parts of
    the text, cut at the lines the ``ast`` gives, and the rest of the text is kept as is. The
    whole module is parsed only when the import is inside the import block itself or a part
    cannot stand alone; a part libcst does not print back verbatim makes no codemod.
    """

    def __init__(self, source: ModuleText) -> None:
        self.source = source
        self._parts: dict[tuple[int, int], _Part | None] = {}

    def part(self, begin: int, end: int, statement: bool = False) -> _Part | None:
        """Lines ``begin``-``end`` parsed by libcst (once; ``statement``: they are one statement,
        maybe indented), or None when they do not parse alone or would print with another line
        break than the whole module."""
        key = (begin, end)
        if key not in self._parts:
            lines, newline = self.source.source_lines, self.source.newline
            first = lines[begin - 1] if statement else ""
            wrap = f"if 1:{newline}" if first[:1] in (" ", "\t", "\f") else ""
            text = "".join(lines[begin - 1 : end])
            try:
                part: _Part | None = _Part(text, begin, end, wrap)
            except cst.ParserSyntaxError:
                part = None
            if part is not None and part.module.code != wrap + text:
                part = None  # libcst would rewrite some of it (e.g. ``except (A, B) :``)
            if part is not None and part.module.default_newline != newline:
                if FIRST_BREAK.search(text):
                    part = None  # another first line break: its default newline differs
                else:
                    part.module = part.module.with_changes(default_newline=newline)
            self._parts[key] = part
        return self._parts[key]

    def hoist(self, at: int, holder: ast.stmt, line: int) -> str | None:
        """The text with the import at ``line`` (inside ``holder``, in the ``at``-th top-level
        statement) moved to the import block."""
        top = self.source.top
        if at >= top:
            try:
                out = self._hoist_in_parts(holder, line)
            except ValueError:
                out = None
            if out is not None:
                return out or None
        return self._hoist_in_prefix(line, len(self.source.tree.body) if at >= top else top)

    def _hoist_in_parts(self, holder: ast.stmt, line: int) -> str | None:
        """Hoist from the statement ``holder`` into the import block, each parsed alone; ""
        when no import line could be removed there, None when a part cannot be used."""
        begin, end = span(holder)
        lines, top_end = self.source.source_lines, self.source.top_end
        piece, head = self.part(begin, end, statement=True), self.part(1, top_end)
        if piece is None or head is None:
            return None
        spans = piece.lines([holder], line)
        tr = _Hoist(line, lambda node: spans.get(id(node), (0, -1)), insert=False)
        edited = piece.module.visit(tr)
        if not tr.removed or tr.target is None:
            return ""
        return (
            head.code(with_import(head.module, tr.target))
            + "".join(lines[top_end : begin - 1])
            + piece.code(edited)
            + "".join(lines[end:])
        )

    def _hoist_in_prefix(self, line: int, count: int) -> str | None:
        """Hoist within the first ``count`` top-level statements parsed as one module (all of
        them: the whole text)."""
        src = self.source
        end = src.top_end if count == src.top else len(src.source_lines)
        head = self.part(1, end)
        if head is None:
            return None
        spans = head.lines(src.tree.body[:count], line)
        tr = _Hoist(line, lambda node: spans.get(id(node), (0, -1)))
        out = head.module.visit(tr)
        if not tr.removed:
            return None
        return head.code(out) + "".join(src.source_lines[end:])
