"""A libcst codemod that moves a function-local import into the module's import block.

The tree is lossless, so comments and formatting elsewhere survive; a name joins an existing
``from X import (...)`` of the same module when there is one (kept in isort order when the
block already is), otherwise the statement goes after the last import of its group.
"""

from __future__ import annotations

import ast
import difflib
import sys
from collections.abc import Callable, Sequence
from typing import Any, cast

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from prreport.textlines import split_lines

_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))


def _isort_key(name: str) -> tuple[int, str]:
    """isort's ``order_by_type``: CONSTANTS, then Classes, then functions."""
    if name.isupper() and len(name) > 1:
        return (0, name.lower())
    if name[:1].isupper():
        return (1, name.lower())
    return (2, name.lower())


def _alias_name(a: cst.ImportAlias) -> str:
    return cst.Module([]).code_for_node(a.name)


def _module_text(node: cst.ImportFrom) -> str:
    dots = "".join("." for _ in node.relative)
    mod = cst.Module([]).code_for_node(node.module) if node.module is not None else ""
    return dots + mod


def _group(stmt: cst.BaseSmallStatement) -> int:
    """isort section: 0 future, 1 standard library, 2 third/first party, 3 relative."""
    if isinstance(stmt, cst.ImportFrom):
        text = _module_text(stmt)
        if text.startswith("."):
            return 3
        top = text.split(".")[0]
        return 0 if top == "__future__" else 1 if top in _STDLIB else 2
    if isinstance(stmt, cst.Import):
        top = _alias_name(stmt.names[0]).split(".")[0]
        return 1 if top in _STDLIB else 2
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
    keys = [_isort_key(_alias_name(a)) for a in names]
    in_order = keys == sorted(keys)
    items = list(names)
    for a in add:
        a = a.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        if in_order:
            k = _isort_key(_alias_name(a))
            pos = next(
                (i for i, x in enumerate(items) if _isort_key(_alias_name(x)) > k), len(items)
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
    def __init__(self, line: int, lines: Callable[[cst.CSTNode], tuple[int, int]]) -> None:
        super().__init__()
        self.line = line
        self.lines = lines  # (first, last) line of a statement, its leading blank lines left out
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
        if self.target is None or not self.removed:
            return updated
        stmt = self.target.body[0]
        body = list(updated.body)
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
                    return updated.with_changes(body=body)
        comments = [ln for ln in self.target.leading_lines if not _is_blank(ln)]
        new = self.target.with_changes(leading_lines=comments)
        group = _group(stmt)
        same = [i for i in region if _group(_small(body[i])) == group]
        earlier = [i for i in region if _group(_small(body[i])) <= group]
        later = [i for i in same if _order(_small(body[i])) > _order(stmt)]
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
        return updated.with_changes(body=body)


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
_COMPOUND = frozenset(t for kinds in _KINDS.values() for t in kinds)


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
            if len(group) != len(node.body) or any(type(a) in _COMPOUND for a in group):
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


def _blank_or_comment(line: str) -> bool:
    stripped = line.strip(" \t\f\r\n")
    return not stripped or stripped.startswith("#")


def _cut(text: str, module: cst.Module, tree: ast.Module) -> tuple[str, dict[int, str], str] | None:
    """(header, text of each top-level statement by id, footer) cut from ``text`` at the lines the
    ``ast`` gives, less each statement's leading blank and comment lines; None when the two
    trees or the lines do not agree (then libcst prints the pieces)."""
    lines = split_lines(text, keepends=True)
    begins: list[int] = []  # 0-based index of the first line of each statement's text
    i = 0
    for st in module.body:
        k = len(st.body) if isinstance(st, cst.SimpleStatementLine) else 1
        if i + k > len(tree.body):
            return None
        a = tree.body[i]
        i += k
        start = min([a.lineno, *(d.lineno for d in getattr(a, "decorator_list", []))]) - 1
        begin = start - len(st.leading_lines)
        if begin < (begins[-1] + 1 if begins else 0) or start >= len(lines):
            return None
        if _blank_or_comment(lines[start]) or not all(
            _blank_or_comment(ln) for ln in lines[begin:start]
        ):
            return None
        begins.append(begin)
    end = len(lines) - len(module.footer)
    if i != len(tree.body) or not begins or begins[0] != len(module.header) or end < begins[-1]:
        return None
    if not all(_blank_or_comment(ln) for ln in lines[end:]):
        return None
    bounds = [*begins, end]
    pieces = {id(st): "".join(lines[bounds[j] : bounds[j + 1]]) for j, st in enumerate(module.body)}
    return "".join(lines[: begins[0]]), pieces, "".join(lines[end:])


class HoistSource:
    """A module parsed once for every hoist made in it, with the text of each top-level statement.

    libcst keeps untouched nodes, so after a hoist only the replaced top-level statements are
    printed; the others are cut from the original text. Line numbers come from those texts;
    position metadata is computed only for the one top-level statement holding an import
    (a whole-module metadata pass costs more than the hoists themselves).
    """

    def __init__(self, text: str, module: cst.Module, tree: ast.Module | None = None) -> None:
        self.text = text
        self.module = module
        self.tree = tree  # the ``ast`` of the same text: statement lines without a libcst pass
        cut = _cut(text, module, tree) if tree is not None else None
        if cut is not None:
            # libcst prints a parsed module back to its text: cut the pieces from the text
            self.header, self.pieces, self.footer = cut
        else:
            self.header = "".join(module.code_for_node(line) for line in module.header)
            self.footer = "".join(module.code_for_node(line) for line in module.footer)
            self.pieces = {id(st): module.code_for_node(st) for st in module.body}
        # A layout the per-statement texts do not reproduce: print whole modules instead.
        self.exact = self.header + "".join(self.pieces.values()) + self.footer == text
        self._spans: dict[
            int, tuple[int, int, cst.BaseStatement]
        ] = {}  # id -> (first line of its text, last, node)
        self._nested: dict[int, tuple[int, int]] = {}
        self._done: set[int] = set()
        if self.exact:
            line = 1 + self.header.count("\n")
            for st in module.body:
                n = self.pieces[id(st)].count("\n")
                self._spans[id(st)] = (line, line + max(n, 1) - 1, st)
                line += n
        else:
            positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
            self._nested = {id(k): (v.start.line, v.end.line) for k, v in positions.items()}

    def lines(self, node: cst.CSTNode) -> tuple[int, int]:
        """First and last line of a statement (as libcst's ``PositionProvider`` gives them);
        inside a top-level statement only once ``prepare`` was called for a line in it."""
        if id(node) in self._nested:
            return self._nested[id(node)]
        span = self._spans.get(id(node))
        if span is None:
            return (0, -1)  # not a statement of this module's text
        start, end, st = span
        return (start + len(getattr(st, "leading_lines", ())), end)

    def prepare(self, line: int) -> None:
        """Compute the positions inside the top-level statement that holds ``line``: from the
        ``ast`` when its statements line up with libcst's, else by libcst's position pass."""
        if self.tree is not None and line not in self._done:
            found: dict[int, tuple[int, int]] = {}
            if _follow(self.module.body, self.tree.body, line, found):
                self._nested.update(found)
                self._done.add(line)
                return
        for start, end, st in self._spans.values():
            if start <= line <= end and id(st) not in self._done:
                self._done.add(id(st))
                self._positions(st, start - 1)

    def _positions(self, st: cst.BaseStatement, offset: int) -> None:
        """Positions inside one top-level statement, printed alone (a one-statement module)."""
        alone = self.module.with_changes(body=[st], header=[], footer=[])
        positions = MetadataWrapper(alone, unsafe_skip_copy=True).resolve(PositionProvider)
        for node, pos in positions.items():
            if isinstance(node, (cst.BaseStatement, cst.BaseSmallStatement)):
                self._nested[id(node)] = (pos.start.line + offset, pos.end.line + offset)

    def code(self, updated: cst.Module) -> str:
        """``updated.code``, printing only the statements that are not the original ones."""
        if not self.exact:
            return updated.code
        body = [self.pieces.get(id(st)) or updated.code_for_node(st) for st in updated.body]
        return self.header + "".join(body) + self.footer


def parse_for_hoist(text: str, tree: ast.Module | None = None) -> HoistSource | None:
    """The module parsed once per file and reused for every hoist made in it (``tree``: its
    ``ast``, which gives the lines of the statements around an import)."""
    try:
        return HoistSource(text, cst.parse_module(text), tree)
    except cst.ParserSyntaxError:
        return None


def hoist(text: str, line: int, parsed: HoistSource | None = None) -> str | None:
    """The module text with the import statement starting at ``line`` moved to the import block."""
    parsed = parsed if parsed is not None else parse_for_hoist(text)
    if parsed is None:
        return None
    parsed.prepare(line)
    tr = _Hoist(line, parsed.lines)
    out = parsed.module.visit(tr)
    return parsed.code(out) if tr.removed else None


def hoist_diff(path: str, text: str, line: int, parsed: HoistSource | None = None) -> str:
    """A unified diff (``a/path`` → ``b/path``) hoisting the import at ``line``; "" if not possible."""
    new = hoist(text, line, parsed)
    if new is None or new == text:
        return ""
    return "".join(
        difflib.unified_diff(
            split_lines(text, keepends=True),
            split_lines(new, keepends=True),
            f"a/{path}",
            f"b/{path}",
        )
    )
