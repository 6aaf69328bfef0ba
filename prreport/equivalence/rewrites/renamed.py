"""``renamed-local``: a function's own local variable renamed everywhere it is used.

Its parameters are not renamed: they are part of its signature. Each side's locals are renamed
to ``%0``, ``%1``... in the order they first occur, so two functions that differ only in the
names of their locals compare equal.
"""

from __future__ import annotations

import ast

_COMPREHENSIONS = (
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def alpha(fn: ast.AST) -> list[str] | None:
    """Rename ``fn``'s own locals (not its parameters) to ``%0``, ``%1``... in the order they
    first occur; the original names in that order, or None when renaming could change what
    the code does (a nested class, whose names are attributes; ``global``/``nonlocal``;
    ``locals()``/``eval``; ``match`` captures; a nested def sharing a local's name).
    """
    if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    params = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    for node in ast.walk(fn):
        if isinstance(node, ast.ClassDef | ast.Global | ast.Nonlocal | ast.Match):
            return None
        if isinstance(node, ast.Name) and node.id in ("locals", "vars", "eval", "exec"):
            return None
        if isinstance(node, _COMPREHENSIONS) and any(
            isinstance(n, ast.NamedExpr) for n in ast.walk(node)
        ):
            return None  # ``:=`` in a comprehension binds in the function: keep it simple
    order: list[str] = []
    defs: set[str] = set()
    # Only the function's own scope decides what is local: a name a nested def assigns
    # is that def's (and may be a global read here).
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop(0)
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            order.append(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            order.append(node.name)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            defs.add(node.name)
            continue
        if isinstance(node, (ast.Lambda, *_COMPREHENSIONS)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    local = [n for n in dict.fromkeys(order) if n not in params]
    if defs & set(local):
        return None
    new = {name: f"%{i}" for i, name in enumerate(local)}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id in new:
            node.id = new[node.id]
        elif isinstance(node, ast.ExceptHandler) and node.name in new:
            node.name = new[node.name]
    return local
