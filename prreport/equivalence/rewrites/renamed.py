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
    ``locals()``/``eval`` reading the frame; ``match`` captures; a nested def sharing a
    local's name).
    """
    if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    params = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    if reads_frame(fn):
        return None
    for node in ast.walk(fn):
        if isinstance(node, ast.ClassDef | ast.Global | ast.Nonlocal | ast.Match):
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
    for child in ast.iter_child_nodes(fn):
        _rename(child, new)
    return local


def _rename(node: ast.AST, new: dict[str, str]) -> None:
    """Rename the function's locals in ``node``, not where a nested scope binds the same name:
    a nested def's or lambda's parameters and own assignments, a comprehension's targets (its
    first iterable is read in the enclosing scope; decorators and defaults are too)."""
    if not new:
        return
    if isinstance(node, ast.Name):
        node.id = new.get(node.id, node.id)
        return
    if isinstance(node, ast.ExceptHandler) and node.name in new:
        node.name = new[node.name]
    if isinstance(node, _COMPREHENSIONS):
        first, *rest = node.generators
        _rename(first.iter, new)
        inner = _without(new, [g.target for g in node.generators])
        for part in (first.target, *first.ifs, *rest):
            _rename(part, inner)
        for field in ("elt", "key", "value"):
            if isinstance(getattr(node, field, None), ast.AST):
                _rename(getattr(node, field), inner)
        return
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        for outside in (
            *getattr(node, "decorator_list", []),
            *node.args.defaults,
            *[d for d in node.args.kw_defaults if d is not None],
        ):
            _rename(outside, new)
        params = [ast.Name(id=a.arg) for a in ast.walk(node.args) if isinstance(a, ast.arg)]
        body: list[ast.AST] = [*node.body] if isinstance(node.body, list) else [node.body]
        inner = _without(new, [*params, *_own_stores(body)])
        for st in body:
            _rename(st, inner)
        return
    for child in ast.iter_child_nodes(node):
        _rename(child, new)


def _without(new: dict[str, str], bound: list[ast.AST]) -> dict[str, str]:
    names = {n.id for b in bound for n in ast.walk(b) if isinstance(n, ast.Name)}
    return {k: v for k, v in new.items() if k not in names}


def _own_stores(body: list[ast.AST]) -> list[ast.AST]:
    """The names a nested scope binds itself (its nested scopes left out)."""
    out: list[ast.AST] = []
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            out.append(node)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.append(ast.Name(id=node.name))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.append(ast.Name(id=node.name))
            continue
        if isinstance(node, (ast.Lambda, *_COMPREHENSIONS)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return out


def reads_frame(fn: ast.AST) -> bool:
    """Whether code in ``fn`` may read its local variables by name: ``locals()``, ``vars()``
    with no argument, ``eval``/``exec`` without an explicit globals namespace, or one of them
    used as a value (called some other way). ``eval(code, ns)`` reads ``ns``, not the frame."""
    calls = {id(n.func): n for n in ast.walk(fn) if isinstance(n, ast.Call)}
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Name) and node.id in _FRAME_READERS):
            continue
        call = calls.get(id(node))
        if call is None or any(isinstance(a, ast.Starred) for a in call.args):
            return True
        given = len(call.args) + sum(1 for k in call.keywords if k.arg in ("globals", "locals"))
        if node.id == "locals" or given < _NAMESPACE_AT[node.id]:
            return True
    return False


_FRAME_READERS = ("locals", "vars", "eval", "exec")
# The number of arguments from which the call names its namespace instead of the frame's.
_NAMESPACE_AT = {"vars": 1, "eval": 2, "exec": 2, "locals": 99}
