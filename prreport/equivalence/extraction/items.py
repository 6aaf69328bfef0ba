"""A function body flattened into items: its simple statements and the headers of its compound
ones, in order, each with its depth, its weight (syntax nodes) and the names, attributes and
constants it spells; and the items one version of a function has that the other does not.

A local assigned a constant and read once, by the next statement only, is read as that
constant (``msg = "…"; log(msg)`` as ``log("…")``): a spelling, for comparing, never a proof.
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Sequence
from dataclasses import dataclass

from prreport.python.definitions import Definition, strip_docstring
from prreport.python.parse import copy_tree

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_COMPOUND = (ast.If, ast.While, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.Try, *_SCOPES)
_BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "decorator_list")
_CODE = (ast.expr, ast.stmt, ast.arg, ast.keyword, ast.excepthandler, ast.withitem)


@dataclass(frozen=True)
class Item:
    """A simple statement, or the header of a compound one, of a flattened function body."""

    node: ast.AST  # the statement; a header: the statement with its blocks emptied
    text: str
    line: int
    end: int
    depth: int
    block_end: int  # the last line of the whole statement (a compound one: of its blocks)
    weight: int  # syntax nodes: a call with arguments outweighs ``return False``
    tokens: frozenset[str]  # names, attributes and constants it spells


def _weight(node: ast.AST) -> int:
    return sum(1 for n in ast.walk(node) if isinstance(n, _CODE))


def token_set(node: ast.AST, free: frozenset[str] = frozenset()) -> frozenset[str]:
    """The names (but ``free`` ones), attributes and constants a statement spells: code that
    unifies with it spells them all too (a quick test before unifying)."""
    out: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id not in free:
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(f".{n.attr}")
        elif isinstance(n, ast.Constant):
            out.add(repr(n.value))
    return frozenset(out)


class _Put(ast.NodeTransformer):
    """Write an expression in place of a name."""

    def __init__(self, name: str, value: ast.expr) -> None:
        self.name, self.value = name, value

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return copy_tree(self.value) if node.id == self.name else node


def _constant_local(st: ast.stmt) -> str | None:
    if (
        isinstance(st, ast.Assign)
        and len(st.targets) == 1
        and isinstance(st.targets[0], ast.Name)
        and isinstance(st.value, ast.Constant)
    ):
        return st.targets[0].id
    return None


def _uses(node: ast.AST, name: str) -> list[ast.Name]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == name]


def _read_later(stmts: Sequence[ast.stmt], name: str) -> bool:
    """True when ``name`` may be read by ``stmts`` before they assign it again (a block that
    may not run assigns it for itself only)."""
    for st in stmts:
        if not _uses(st, name):
            continue
        if isinstance(st, ast.Assign) and not _uses(st.value, name):
            if all(isinstance(t, ast.Name) and t.id == name for t in st.targets):
                return False
        if not isinstance(st, (ast.If, ast.While, ast.For, ast.AsyncFor, ast.Try)):
            return True
        if any(_uses(getattr(st, f), name) for f in ("test", "target", "iter") if hasattr(st, f)):
            return True
        blocks = [st.body, st.orelse, *[h.body for h in getattr(st, "handlers", [])]]
        if any(_read_later(b, name) for b in blocks) or _uses_any(st, "finalbody", name):
            return True
    return False


def _uses_any(st: ast.stmt, field: str, name: str) -> bool:
    return any(_uses(x, name) for x in getattr(st, field, None) or [])


def _inline_constants(stmts: Sequence[ast.stmt]) -> list[ast.stmt]:
    """``msg = "…"; log(msg)`` read as ``log("…")``: a local assigned a constant and read once,
    by the next statement only (a spelling, for comparing; never for a proof)."""
    out: list[ast.stmt] = []
    i = 0
    while i < len(stmts):
        st, name = stmts[i], _constant_local(stmts[i])
        nxt = stmts[i + 1] if i + 1 < len(stmts) else None
        if (
            name is not None
            and nxt is not None
            and [isinstance(n.ctx, ast.Load) for n in _uses(nxt, name)] == [True]
            and not _read_later(stmts[i + 2 :], name)
        ):
            assert isinstance(st, ast.Assign)
            out.append(_Put(name, st.value).visit(copy_tree(nxt)))
            i += 2
            continue
        out.append(st)
        i += 1
    return out


def _header(st: ast.AST) -> ast.AST:
    head = copy_tree(st)
    for block in _BLOCK_FIELDS:
        if hasattr(head, block):
            setattr(head, block, [])
    return head


def body_items(stmts: Sequence[ast.stmt], depth: int = 0) -> list[Item]:
    """A body flattened into simple statements and compound-statement headers, in order (a
    nested function or class is its header only: its body is its own definition's)."""
    out: list[Item] = []

    def add(node: ast.AST, st: ast.stmt | ast.excepthandler, end: int) -> None:
        text = ast.unparse(node).splitlines()
        last = st.end_lineno or end
        first = text[0] if text else ""
        out.append(Item(node, first, st.lineno, end, depth, last, _weight(node), token_set(node)))

    def header_end(st: ast.stmt | ast.excepthandler) -> int:
        body = getattr(st, "body", None) or []
        return max(st.lineno, body[0].lineno - 1) if body else st.lineno

    for st in _inline_constants(stmts):
        if isinstance(st, (ast.Import, ast.ImportFrom, ast.Pass)):
            continue
        if not isinstance(st, _COMPOUND):
            add(st, st, st.end_lineno or st.lineno)
            continue
        add(_header(st), st, header_end(st))
        if isinstance(st, _SCOPES):
            continue
        out += body_items(st.body, depth + 1)
        for h in getattr(st, "handlers", None) or []:
            add(_header(h), h, header_end(h))
            out += body_items(h.body, depth + 1)
        for block in ("orelse", "finalbody"):
            rest = getattr(st, block, None) or []
            if rest:
                n = rest[0].lineno
                mark = ast.Name(id=f"<{block}>")
                out.append(Item(mark, f"{block}:", n, n, depth, n, 1, frozenset({mark.id})))
                out += body_items(rest, depth + 1)
    return out


def lost_items(one: Definition, other: Definition | None) -> list[Item]:
    """Statements of one version of a function that the other version does not have (all of
    them when there is no other version)."""
    old = body_items(strip_docstring(one.node.body))  # type: ignore[attr-defined]
    if other is None:
        return old
    new = body_items(strip_docstring(other.node.body))  # type: ignore[attr-defined]
    sm = difflib.SequenceMatcher(None, [x.text for x in old], [x.text for x in new], autojunk=False)
    kept = {b.a + k for b in sm.get_matching_blocks() for k in range(b.size)}
    return [x for i, x in enumerate(old) if i not in kept]
