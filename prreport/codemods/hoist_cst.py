"""The libcst side of hoist codemods (``_hoist``): the shapes not edited on the text.

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

from prreport.codemods.importblock import (
    COMPOUND,
    FIRST_BREAK,
    ModuleText,
    isort_key,
    section,
    span,
)


def _alias_name(a: cst.ImportAlias) -> str:
    return cst.Module([]).code_for_node(a.name)


def _module_text(node: cst.ImportFrom) -> str:
    dots = "".join("." for _ in node.relative)
    mod = cst.Module([]).code_for_node(node.module) if node.module is not None else ""
    return dots + mod


def _group(stmt: cst.BaseSmallStatement) -> int:
    """isort section: 0 future, 1 standard library, 2 third/first party, 3 relative."""
    if isinstance(stmt, cst.ImportFrom):
        return section(_module_text(stmt))
    if isinstance(stmt, cst.Import):
        return section(_alias_name(stmt.names[0]))
    return 2


def _order(stmt: cst.BaseSmallStatement) -> tuple[int, str]:
    """isort order within a section: ``import x`` lines first, then ``from x import``, by module."""
    if isinstance(stmt, cst.ImportFrom):
        return (1, _module_text(stmt).lower())
    if isinstance(stmt, cst.Import):
        return (0, _alias_name(stmt.names[0]).lower())
    return (2, "")


def _is_blank(line: cst.EmptyLine) -> bool:
    return line.comment is None


def _clean_comma(comma: cst.Comma) -> cst.Comma:
    """A separator comma without the trailing comment that belonged to another name."""
    ws = comma.whitespace_after
    if isinstance(ws, cst.ParenthesizedWhitespace):
        return comma.with_changes(
            whitespace_after=ws.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=[])
        )
    return comma


def _merge(node: cst.ImportFrom, new: Sequence[cst.ImportAlias]) -> cst.ImportFrom:
    """``node`` with the aliases of ``new`` added (separator style copied from the block)."""
    assert not isinstance(node.names, cst.ImportStar)
    names = list(node.names)
    have = {
        (_alias_name(a), a.asname and cst.Module([]).code_for_node(a.asname.name)) for a in names
    }
    add = [
        a
        for a in new
        if (_alias_name(a), a.asname and cst.Module([]).code_for_node(a.asname.name)) not in have
    ]
    if not add:
        return node
    if len(names) >= 2 and isinstance(names[0].comma, cst.Comma):
        sep = _clean_comma(names[0].comma)
    elif node.lpar is not None and isinstance(
        node.lpar.whitespace_after, cst.ParenthesizedWhitespace
    ):
        sep = cst.Comma(whitespace_after=node.lpar.whitespace_after)
    else:
        sep = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    last_comma = names[-1].comma
    keys = [isort_key(_alias_name(a)) for a in names]
    in_order = keys == sorted(keys)
    items = list(names)
    for a in add:
        a = a.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        if in_order:
            k = isort_key(_alias_name(a))
            pos = next(
                (i for i, x in enumerate(items) if isort_key(_alias_name(x)) > k), len(items)
            )
        else:
            pos = len(items)
        items.insert(pos, a)
    out = []
    for i, a in enumerate(items):
        if i == len(items) - 1:
            comma = last_comma
            if isinstance(comma, cst.Comma):
                comma = _clean_comma(comma) if a is not names[-1] else comma
            out.append(a.with_changes(comma=comma))
            continue
        own = a.comma
        comma = sep
        if (
            isinstance(own, cst.Comma)
            and isinstance(own.whitespace_after, cst.ParenthesizedWhitespace)
            and isinstance(sep.whitespace_after, cst.ParenthesizedWhitespace)
        ):
            # keep a name's own trailing comment on its line
            comma = sep.with_changes(
                whitespace_after=sep.whitespace_after.with_changes(
                    first_line=own.whitespace_after.first_line
                )
            )
        out.append(a.with_changes(comma=comma))
    return node.with_changes(names=out)


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
                while lines and _is_blank(lines[0]):
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
        return _with_import(updated, self.target)


def _with_import(module: cst.Module, target: cst.SimpleStatementLine) -> cst.Module:
    """``module`` with the import line ``target`` merged into (or added to) its import block:
    the statements before its first ``def`` or ``class``."""
    stmt = target.body[0]
    body = list(module.body)
    region: list[int] = []
    for i, s in enumerate(body):
        if isinstance(s, (cst.FunctionDef, cst.ClassDef)):
            break
        if isinstance(s, cst.SimpleStatementLine) and all(
            isinstance(x, (cst.Import, cst.ImportFrom)) for x in s.body
        ):
            region.append(i)
    if isinstance(stmt, cst.ImportFrom) and not isinstance(stmt.names, cst.ImportStar):
        for i in region:
            line = body[i]
            assert isinstance(line, cst.SimpleStatementLine)
            existing = line.body[0]
            if (
                len(line.body) == 1
                and isinstance(existing, cst.ImportFrom)
                and not isinstance(existing.names, cst.ImportStar)
                and _module_text(existing) == _module_text(stmt)
            ):
                body[i] = line.with_changes(body=[_merge(existing, stmt.names)])
                return module.with_changes(body=body)
    comments = [ln for ln in target.leading_lines if not _is_blank(ln)]
    new = target.with_changes(leading_lines=comments)
    group, order = _group(stmt), _order(stmt)
    keys = {i: (_group(_small(body[i])), _order(_small(body[i]))) for i in region}
    same = [i for i in region if keys[i][0] == group]
    earlier = [i for i in region if keys[i][0] <= group]
    later = [i for i in same if keys[i][1] > order]
    if later:
        # isort order inside the group; the group's leading blank lines/comments stay on top
        at = later[0]
        first = cast(cst.SimpleStatementLine, body[at])
        body[at] = first.with_changes(leading_lines=[])
        new = new.with_changes(leading_lines=[*first.leading_lines, *comments])
    elif same or earlier or region:
        at = (same or earlier or region)[-1] + 1
    else:
        at = 1 if body and _is_docstring(body[0]) else 0
    body.insert(at, new)
    return module.with_changes(body=body)


def _small(stmt: cst.BaseStatement) -> cst.BaseSmallStatement:
    """First small statement of an import line (import-block entries are simple lines)."""
    return cast(cst.SimpleStatementLine, stmt).body[0]


def _is_docstring(stmt: cst.BaseStatement) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


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
            head.code(_with_import(head.module, tr.target))
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
