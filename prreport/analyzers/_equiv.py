"""What a behaviour comparison sees through: docstrings, annotations, and the spelling of an imported object.

``canonical(node, bindings, local)`` returns a normalised copy of a function (or module) so two
versions that differ only in

- a docstring (the first string statement of a module, class or function body) or any other
  string statement (an attribute docstring: a string after an assignment),
- annotations (parameters, return, ``x: T = v``; the type argument of ``cast``; string
  annotations made real),
- the spelling of the same imported object (``from m import X`` / ``m.X`` / ``import m as n; n.X``,
  ``typing.overload`` / ``t.overload``)

compare equal with :func:`prreport.analyzers._defs.same_tree`. Everything else (logic, messages,
defaults, decorators other than their spelling) stays.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from prreport.analyzers import copy_tree

_SCOPES = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
_LAYOUT_ROOTS = ("src", "lib", "python")


def module_of(path: str) -> str:
    """Dotted module of a repository path (``src/pkg/sub/mod.py`` -> ``pkg.sub.mod``)."""
    parts = path[:-3].split("/") if path.endswith(".py") else path.split("/")
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    while parts and parts[0] in _LAYOUT_ROOTS:
        parts = parts[1:]
    return ".".join(parts)


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    base = package.split(".") if package else []
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def bindings(statements: Iterable[ast.AST], path: str) -> dict[str, str]:
    """Name -> canonical dotted object for the import statements among ``statements`` (walked deep)."""
    module = module_of(path)
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    out: dict[str, str] = {}
    for root in statements:
        for node in ast.walk(root):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        out[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        out[top] = top
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(node, package)
                for alias in node.names:
                    if alias.name != "*":
                        out[alias.asname or alias.name] = f"{base}.{alias.name}"
    return out


def module_bindings(tree: ast.Module, path: str) -> dict[str, str]:
    """Imports of module-level code (inside ``if``/``try``/``with`` too, not inside defs or classes)."""
    stack: list[ast.stmt] = list(tree.body)
    top: list[ast.stmt] = []
    while stack:
        st = stack.pop()
        if isinstance(st, (ast.Import, ast.ImportFrom)):
            top.append(st)
        elif not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for name in ("body", "orelse", "finalbody", "handlers"):
                for sub in getattr(st, name, ()) or ():
                    stack.extend(sub.body if isinstance(sub, ast.ExceptHandler) else [sub])
    return bindings(top, path)


def imports_in(node: ast.AST) -> list[ast.stmt]:
    """Import statements anywhere inside ``node``."""
    return [n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))]


def locally_bound(fn: ast.AST) -> set[str]:
    """Names a function binds other than by import (parameters, assignments, loops, defs, ``as``)."""
    out: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        elif (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and node is not fn
        ):
            out.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            out.update(node.names)
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            out.add(node.name)
    return out


def _dotted(node: ast.AST) -> list[str] | None:
    """``a.b.c`` as ``["a", "b", "c"]`` when the expression is a plain name chain."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None


def _is_docstring(st: ast.stmt) -> bool:
    return (
        isinstance(st, ast.Expr)
        and isinstance(st.value, ast.Constant)
        and isinstance(st.value.value, str)
    )


class _Canon(ast.NodeTransformer):
    def __init__(self, names: dict[str, str], shadowed: set[str]) -> None:
        self.names = {k: v for k, v in names.items() if k not in shadowed}
        self._fields: set[int] = set()

    # Docstrings (a body's first string, and attribute docstrings: a string statement after
    # an assignment) and annotations say nothing about what the code does.
    def _strip_doc(self, node: ast.AST) -> None:
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and any(_is_docstring(st) for st in block):
                setattr(node, name, [st for st in block if not _is_docstring(st)] or [ast.Pass()])

    def generic_visit(self, node: ast.AST) -> ast.AST:
        if isinstance(node, ast.stmt | ast.ExceptHandler | ast.match_case):
            self._strip_doc(node)
        return super().generic_visit(node)

    def visit_Module(self, node: ast.Module) -> ast.AST:
        self._strip_doc(node)
        return self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        self._strip_doc(node)
        # Class-level annotations are fields (dataclasses, pydantic): kept, only their spelling
        # is normalised (a string annotation made real is the same annotation).
        for st in node.body:
            if isinstance(st, ast.AnnAssign):
                st.annotation = self._annotation(st.annotation)
        self._fields = {id(st) for st in node.body if isinstance(st, ast.AnnAssign)}
        return self.generic_visit(node)

    def _annotation(self, ann: ast.expr) -> ast.expr:
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            try:
                ann = ast.parse(ann.value, mode="eval").body
            except SyntaxError:
                return ann
        return self.visit(ann)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
        self._strip_doc(node)
        node.returns = None
        node.type_comment = None
        return self.generic_visit(node)

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.annotation = None
        node.type_comment = None
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        if id(node) in self._fields:
            node.target = self.visit(node.target)
            node.value = self.visit(node.value) if node.value is not None else None
            return node
        node.annotation = ast.Constant(value=None)
        return self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        parts = _dotted(node.func)
        if parts and parts[-1] == "cast" and len(node.args) == 2:
            # typing.cast(T, x) returns x whatever T is (a string or a real type).
            node.args = [ast.Constant(value=None), node.args[1]]
        return self.generic_visit(node)

    # The same imported object, however it is spelled, becomes one canonical name.
    def _canonical(self, node: ast.Name | ast.Attribute) -> ast.AST | None:
        parts = _dotted(node)
        if not parts or parts[0] not in self.names:
            return None
        full = ".".join([self.names[parts[0]], *parts[1:]])
        return ast.copy_location(ast.Name(id="@" + full, ctx=ast.Load()), node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.ctx, ast.Load):
            new = self._canonical(node)
            if new is not None:
                return new
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load):
            new = self._canonical(node)
            if new is not None:
                return new
        return node


def canonical(node: ast.AST, names: dict[str, str], shadowed: set[str] | None = None) -> ast.AST:
    """A normalised deep copy of ``node`` (see the module docstring); ``node`` is not changed."""
    return _Canon(names, shadowed or set()).visit(copy_tree(node))
