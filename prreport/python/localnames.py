"""The names a function binds, reads and takes: its parameters, its own locals (nested ``def``
and ``class`` names included), the names it reads freely (globals, closures), every name it
spells, the ``return``/``yield`` of its own scope, the nested scopes that may read its names
later (closures), and whether it can see its locals another way (``locals()``, ``eval``).

Facts of one syntax tree, used by call-site expansion (``prreport.equivalence.expansion``) to
keep a spliced helper's names from capturing or clobbering its caller's.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from prreport.python.definitions import Definition
from prreport.python.scopes import own_nodes

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_OPAQUE = frozenset({"locals", "vars", "eval", "exec"})


def names_in(node: ast.AST) -> set[str]:
    """Every identifier a subtree reads, binds or defines."""
    out: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, (*_FUNCS, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.add(n.name)
    return out


def locals_of(stmts: Sequence[ast.stmt]) -> set[str]:
    """Names a statement list binds in its own scope (nested def/class names included)."""
    out: set[str] = set()
    for n in own_nodes(stmts):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.id)
        elif isinstance(n, (*_FUNCS, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            out |= {a.asname or a.name.split(".")[0] for a in n.names}
    return out


def local_names(d: Definition) -> frozenset[str]:
    """Names a function definition binds in its own scope, parameters included."""
    return frozenset(locals_of(getattr(d.node, "body", [])) | {a.arg for a in params_of(d.node)})


def free_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Names a function reads that it neither binds nor takes as parameters (globals, closures)."""
    params = {a.arg for a in params_of(fn)}
    local = locals_of(fn.body) | params
    reads = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    inner = set()
    for n in ast.walk(fn):
        if n is not fn and isinstance(n, (*_FUNCS, ast.Lambda)):
            body = n.body if isinstance(n.body, list) else []  # a lambda's body is an expression
            inner |= {a.arg for a in params_of(n)} | locals_of(body)
    return reads - local - inner


def params_of(fn: ast.AST) -> list[ast.arg]:
    """Every parameter of a function or lambda: positional-only, ordinary, keyword-only, then
    ``*args`` and ``**kwargs``."""
    a = fn.args  # type: ignore[attr-defined]
    out = [*a.posonlyargs, *a.args, *a.kwonlyargs]
    return out + [x for x in (a.vararg, a.kwarg) if x is not None]


def returns_in(stmts: Sequence[ast.stmt]) -> list[ast.Return]:
    """The ``return`` statements of a body's own scope (not of nested functions)."""
    return [n for n in own_nodes(stmts) if isinstance(n, ast.Return)]


def yields_in(stmts: Sequence[ast.stmt]) -> bool:
    """Whether a body's own scope yields (a generator's body)."""
    return any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in own_nodes(stmts))


# Code that may run later than where it is written, reading names of the enclosing scope when it
# does: nested functions, lambdas, classes, and comprehensions (a generator expression's body
# runs when it is consumed; the others are taken along to keep the rule simple).
_CLOSURES = (
    *_FUNCS,
    ast.ClassDef,
    ast.Lambda,
    ast.GeneratorExp,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
)


def inner_scopes(node: ast.AST) -> list[ast.AST]:
    """Nested functions, lambdas, classes and comprehensions strictly inside ``node``."""
    body = getattr(node, "body", None)
    stmts = body if isinstance(body, list) else [node]
    return [n for n in own_nodes(stmts) if isinstance(n, _CLOSURES) and n is not node]


def name_in(node: ast.AST, name: str) -> bool:
    """Whether ``name`` is spelled anywhere in ``node`` (nested scopes included)."""
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def opaque(fn: ast.AST) -> bool:
    """The function can see its locals another way (``locals()``, ``eval``...) or rebinds
    names of other scopes."""
    return any(
        (isinstance(n, ast.Name) and n.id in _OPAQUE) or isinstance(n, (ast.Global, ast.Nonlocal))
        for n in ast.walk(fn)
    )
