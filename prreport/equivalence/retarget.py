"""A use of a moved or renamed definition spelled the new way: the old name or module replaced
in a syntax tree (``f(x)`` -> ``x.m()`` for a function made a method of its first argument's
class, ``f(x)`` -> ``C.m(x)`` for one made a static or class method) or in a source line, and
``self.m`` spelled as the class the lookup finds it in."""

from __future__ import annotations

import ast
import re

from prreport.python.definitions import Definition


class Retarget(ast.NodeTransformer):
    """A before-side function with uses of the old name/module spelled the new way."""

    def __init__(self, old: Definition, new: Definition, old_mod: str, new_mod: str) -> None:
        self.old, self.new = old.name, new.name
        self.method = old.kind == "method"
        # A function that became a static or class method of C: f(x) -> C.m(x).
        self.home = static_home(old, new)
        # A function that became a method of its first argument's class: f(x, y) -> x.m(y).
        self.to_method = old.kind == "function" and new.kind == "method" and not self.home
        self.old_mod, self.new_mod = old_mod, new_mod

    def visit_Call(self, node: ast.Call) -> ast.AST:
        """``f(x, y)`` -> ``x.m(y)`` for a function made a method of its first argument."""
        self.generic_visit(node)
        if (
            self.to_method
            and isinstance(node.func, ast.Name)
            and node.func.id == self.old
            and node.args
            and not isinstance(node.args[0], ast.Starred)
        ):
            func = ast.Attribute(value=node.args[0], attr=self.new, ctx=ast.Load())
            return ast.Call(func=func, args=node.args[1:], keywords=node.keywords)
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        """``f`` -> ``C.m`` (a static/class method) or ``g`` (a rename)."""
        if self.home and node.id == self.old and isinstance(node.ctx, ast.Load):
            return ast.Attribute(
                value=ast.Name(id=self.home, ctx=ast.Load()), attr=self.new, ctx=ast.Load()
            )
        if not self.method and not self.to_method and node.id == self.old:
            node.id = self.new
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        """``obj.f`` -> ``obj.g``."""
        self.generic_visit(node)
        if node.attr == self.old:
            node.attr = self.new
        return node

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST:
        """``from old import f`` -> ``from new import g`` (or the class it now lives in)."""
        if node.module == self.old_mod:
            node.module = self.new_mod
        for a in node.names:
            if a.name == self.old:
                a.name = self.home or self.new
        return node


def static_home(old: Definition, new: Definition) -> str:
    """The class a module-level function became a static/class method of ("" otherwise)."""
    if old.kind != "function" or new.kind != "method":
        return ""
    decos = getattr(new.node, "decorator_list", [])
    if [d.id if isinstance(d, ast.Name) else "" for d in decos] not in (
        ["staticmethod"],
        ["classmethod"],
    ):
        return ""
    return new.parent.rsplit(".", 1)[-1]


def retargeted_row(row: str, old: Definition, new: Definition, old_mod: str, new_mod: str) -> str:
    """A source line with the old name (a rename) and the old module (a move, absolute or
    relative: ``from ._old import x``) spelled the new way."""
    if old.name != new.name:
        row = re.sub(rf"(?<![\w]){re.escape(old.name)}(?![\w])", new.name, row)
    if old_mod != new_mod:
        row = row.replace(old_mod, new_mod)
        old_last, new_last = old_mod.rsplit(".", 1)[-1], new_mod.rsplit(".", 1)[-1]
        same_package = old_mod.rpartition(".")[0] == new_mod.rpartition(".")[0]
        if same_package:
            row = re.sub(
                rf"^(from\s+\.+){re.escape(old_last)}(\s+import\b)", rf"\g<1>{new_last}\2", row
            )
    return row


class ThroughSelf(ast.NodeTransformer):
    """``self.m``/``cls.m`` spelled ``C.m``: where the instance's class finds ``m`` in ``C``."""

    def __init__(self, home: str, name: str) -> None:
        self.home, self.name = home, name

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        """``self.m`` -> ``C.m``."""
        self.generic_visit(node)
        if (
            node.attr == self.name
            and isinstance(node.value, ast.Name)
            and node.value.id in ("self", "cls")
        ):
            node.value = ast.Name(id=self.home, ctx=ast.Load())
        return node
