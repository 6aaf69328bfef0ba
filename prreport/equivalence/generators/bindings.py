"""What a function's own scope holds and binds: the facts both parts of the proof read."""

from __future__ import annotations

import ast
from collections.abc import Iterator

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_YIELDS = (ast.Yield, ast.YieldFrom)


def own(node: ast.AST) -> Iterator[ast.AST]:
    """Nodes of a function's own scope (nested functions, lambdas and classes not entered)."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, _SCOPES):
            stack.extend(ast.iter_child_nodes(n))


def yields(node: ast.AST) -> bool:
    return isinstance(node, _YIELDS) or any(isinstance(n, _YIELDS) for n in own(node))


def bound_in(fn: ast.AST) -> set[str]:
    """Names a function binds itself (parameters, stores, nested definitions, declarations)."""
    out: set[str] = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif isinstance(n, (*_SCOPES[:2], ast.ClassDef)) and n is not fn:
            out.add(n.name)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            out.update(n.names)
    return out


def binds_without_name(fn: ast.AST, name: str) -> bool:
    """Whether ``fn`` binds ``name`` other than through a ``Name`` node (``except E as name``,
    which also deletes it; ``import m as name``; a nested ``def``/``class``; a ``match``
    capture), which ``mentions`` cannot see."""
    for n in ast.walk(fn):
        if isinstance(n, ast.ExceptHandler) and n.name == name:
            return True
        if isinstance(n, ast.alias) and (n.asname or n.name.split(".")[0]) == name:
            return True
        if isinstance(n, (*_SCOPES[:2], ast.ClassDef)) and n is not fn and n.name == name:
            return True
        if isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name == name:
            return True
        if isinstance(n, ast.MatchMapping) and n.rest == name:
            return True
    return False


def mentions(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))
