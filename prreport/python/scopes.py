"""Statements, scopes and bindings of a stdlib ``ast`` tree: the kinds of statements and their
nested blocks, the nodes that run in one scope, the names a tree binds, and the source lines
and fragments as the tree numbers them (ast columns are UTF-8 byte offsets).

The statement walk with guard chains is ``walk``; what it indexes is ``scopeindex`` (imports,
loops) and ``callsites``.
"""

from __future__ import annotations

import ast
import functools
import itertools
import re
import weakref
from collections.abc import Iterator, Sequence

from prreport.textlines import split_lines

MODULE_SCOPE = "<module>"

_SPACE_AFTER_OPEN = re.compile(r"([(\[{]) ")
_SPACE_BEFORE_CLOSE = re.compile(r",? ([)\]}])")


# Statements without nested bodies: the walk never descends into them.
SIMPLE_STATEMENTS: frozenset[type[ast.stmt]] = frozenset(
    {
        ast.Expr,
        ast.Assign,
        ast.AugAssign,
        ast.AnnAssign,
        ast.Return,
        ast.Import,
        ast.ImportFrom,
        ast.Pass,
        ast.Break,
        ast.Continue,
        ast.Raise,
        ast.Delete,
        ast.Global,
        ast.Nonlocal,
        ast.Assert,
    }
)
# Statements that hold other statements (definitions included), every Python version's.
COMPOUND_STATEMENTS: frozenset[type[ast.stmt]] = frozenset(
    {
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.ClassDef,
        ast.If,
        ast.For,
        ast.AsyncFor,
        ast.While,
        ast.With,
        ast.AsyncWith,
        ast.Try,
        ast.Match,
        *([getattr(ast, "TryStar")] if hasattr(ast, "TryStar") else []),  # noqa: B009
    }
)
# try/except and (3.11+) try/except*: the same fields.
TRY_STATEMENTS: tuple[type[ast.stmt], ...] = (
    (ast.Try, ast.TryStar) if hasattr(ast, "TryStar") else (ast.Try,)
)


class SourceText:
    """Source lines with byte-offset slicing (ast columns are UTF-8 byte offsets)."""

    def __init__(self, text: str) -> None:
        self.lines = split_lines(text)

    def segment(self, node: ast.AST) -> str:
        l0, l1 = node.lineno - 1, (node.end_lineno or node.lineno) - 1  # type: ignore[attr-defined]
        c0, c1 = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
        if l0 == l1:
            line = self.lines[l0]
            raw = line[c0:c1] if line.isascii() else line.encode()[c0:c1].decode("utf-8", "replace")
        else:
            first = self.lines[l0].encode()[c0:]
            last = self.lines[l1].encode()[:c1]
            mid = [ln.encode() for ln in self.lines[l0 + 1 : l1]]
            raw = b"\n".join([first, *mid, last]).decode("utf-8", "replace")
        return normalise(raw)


@functools.lru_cache(maxsize=64)
def source_text(text: str) -> SourceText:
    """One split per text for the index, the call-site walk and ``source_lines`` (a few
    analyzers each asked for the lines of the same file sides; a PR's sides all fit)."""
    return SourceText(text)


def source_lines(text: str) -> list[str]:
    """The lines of ``text`` as its syntax tree numbers them (shared: callers only read them)."""
    return source_text(text).lines


def normalise(text: str) -> str:
    """Collapse whitespace and line breaks of a source fragment into one line."""
    out = " ".join(text.split())
    if "\n" in text:
        out = _SPACE_BEFORE_CLOSE.sub(r"\1", _SPACE_AFTER_OPEN.sub(r"\1", out))
    return out


def child_blocks(st: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists of a compound statement in source order: body, handlers, else,
    finally, match cases."""
    if type(st) in SIMPLE_STATEMENTS:
        return []
    out = [getattr(st, "body", None) or []]
    out += [h.body for h in getattr(st, "handlers", ())]
    out += [getattr(st, "orelse", None) or [], getattr(st, "finalbody", None) or []]
    out += [c.body for c in getattr(st, "cases", ())]
    return [b for b in out if b]


def all_statements(body: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of ``body`` and of the blocks nested in it, definitions included, in
    source order; expressions are not walked (a statement can only sit in a statement list)."""
    stack: list[Iterator[ast.stmt]] = [iter(body)]
    while stack:
        for st in stack[-1]:
            yield st
            blocks = child_blocks(st)
            if blocks:
                stack.append(itertools.chain.from_iterable(blocks))
                break
        else:
            stack.pop()


def module_level_statements(body: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of module-level code: ``body`` and the blocks of its ``if``/``try``/
    ``with``/loops, not the bodies of definitions (which are yielded, not entered)."""
    stack = list(reversed(body))
    while stack:
        st = stack.pop()
        yield st
        if not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for block in reversed(child_blocks(st)):
                stack.extend(reversed(block))


_OWN_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_OWN_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def own_nodes(stmts: Sequence[ast.AST]) -> Iterator[ast.AST]:
    """Nodes of ``stmts`` in their own scope, in order: nested functions, classes and lambdas are
    not entered, but their decorators, defaults and bases (run in this scope) are."""
    stack = list(reversed(stmts))
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, _OWN_SCOPES):
            # Decorators and defaults run in the enclosing scope; the body does not.
            if isinstance(n, (*_OWN_FUNCS, ast.Lambda)):
                stack.extend(n.args.defaults)
                stack.extend(d for d in n.args.kw_defaults if d is not None)
            if isinstance(n, (*_OWN_FUNCS, ast.ClassDef)):
                stack.extend(n.decorator_list)
            if isinstance(n, ast.ClassDef):
                stack.extend(n.bases)
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(n))))


def is_string_statement(st: ast.AST) -> bool:
    """A statement that is only a str literal: a docstring or an attribute docstring."""
    return (
        isinstance(st, ast.Expr)
        and isinstance(st.value, ast.Constant)
        and isinstance(st.value.value, str)
    )


def single_binding(tree: ast.Module, name: str) -> ast.stmt | None:
    """The one module-level statement binding ``name`` when nothing else anywhere rebinds it."""
    found = _bindings(tree).get(name, [])
    if len(found) != 1 or not any(found[0] is st for st in tree.body):
        return None
    return found[0]  # type: ignore[return-value]


_BINDINGS: weakref.WeakKeyDictionary[ast.Module, dict[str, list[ast.AST]]] = (
    weakref.WeakKeyDictionary()
)
_PARAMETERS: weakref.WeakKeyDictionary[ast.Module, frozenset[str]] = weakref.WeakKeyDictionary()


def bindings_of(tree: ast.Module, name: str) -> list[ast.AST]:
    """Every statement or node anywhere in the module that binds ``name``."""
    return list(_bindings(tree).get(name, []))


def bound_anywhere(tree: ast.Module) -> frozenset[str]:
    """Every name ``tree`` binds anywhere: definitions, imports, stores and deletes,
    ``global``/``nonlocal`` names and parameters (from the same one walk as ``single_binding``)."""
    return frozenset(_bindings(tree)) | _PARAMETERS[tree]


def _bindings(tree: ast.Module) -> dict[str, list[ast.AST]]:
    """Every node that binds each name anywhere in ``tree`` (one walk per tree, kept while the
    tree lives): definitions, imports, stores and deletes, ``global``/``nonlocal``; the
    parameters' names are kept aside (``bound_anywhere``)."""
    index = _BINDINGS.get(tree)
    if index is not None:
        return index
    index = {}
    parameters: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            parameters.add(node.arg)
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            index.setdefault(node.name, []).append(node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                index.setdefault(a.asname or a.name.split(".")[0], []).append(node)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            index.setdefault(node.id, []).append(node)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for n in node.names:
                index.setdefault(n, []).append(node)
    _BINDINGS[tree] = index
    _PARAMETERS[tree] = frozenset(parameters)
    return index
