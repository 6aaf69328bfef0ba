"""A module's import block edited with libcst: an import line merged into the ``from`` import of
the same module (in isort order when the block is), or inserted into its isort group.

Imported only by ``hoist_cst`` (libcst is loaded only for the shapes text edits cannot print).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import libcst as cst

from prreport.codemods.importblock import isort_key, section


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


def is_blank(line: cst.EmptyLine) -> bool:
    """A blank line (an empty line without a comment)."""
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


def with_import(module: cst.Module, target: cst.SimpleStatementLine) -> cst.Module:
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
    comments = [ln for ln in target.leading_lines if not is_blank(ln)]
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
