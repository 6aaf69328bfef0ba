"""Where code can reach a class, or what a class namespace holds, without naming what it reads.

A class named only as a base, an annotation, the class of an ``isinstance`` test, an import
under its own name or an ``__all__`` entry never flows anywhere as a value; what reaches a class
object without its name (``__bases__``, ``__mro__``, ``__subclasses__``, ``get_type_hints``...),
what reads a namespace (``__dict__``, ``vars``, ``getmro``), a method name written as a string,
and ``super(X, obj)`` started anywhere but in ``class X`` itself can.
"""

from __future__ import annotations

import ast
import re

from prreport.python.hierarchy import base_name
from prreport.python.scopes import is_string_statement

# What reads a class namespace or walks an MRO (with a composed method name: not a lookup).
_REFLECTION = frozenset({"__dict__", "__mro__", "__bases__", "mro", "vars", "getmro", "delattr"})
# What yields a class object without naming it (``type(self).__bases__[0].m``): a file read
# that holds one of them could reach the removed method on the class itself.
_CLASS_VALUES = frozenset(
    {
        "__bases__",
        "__base__",
        "__mro__",
        "__orig_bases__",
        "__subclasses__",
        "__annotations__",
        "getmro",
        "get_type_hints",
        "get_annotations",
    }
)


def is_super_call(call: ast.Call) -> bool:
    """``super(...)``, with or without arguments."""
    return isinstance(call.func, ast.Name) and call.func.id == "super"


def _allowed(tree: ast.Module) -> set[int]:
    """Nodes of a file where a class name is no value: bases, annotations, ``isinstance``
    classes, ``__all__`` entries and docstrings."""
    keep: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            keep += [b.value if isinstance(b, ast.Subscript) else b for b in node.bases]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            params = [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
            keep += [p.annotation for p in params if p is not None and p.annotation is not None]
            keep += [node.returns] if node.returns is not None else []
        if isinstance(node, ast.AnnAssign):
            keep.append(node.annotation)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("isinstance", "issubclass")
            and len(node.args) == 2
        ):
            keep.append(node.args[1])
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            keep.append(node.value)
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and is_string_statement(body[0]):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                keep.append(body[0])
    return {id(n) for k in keep for n in ast.walk(k)}


def class_never_a_value(tree: ast.Module, cls: str, method: str, prefixes: set[str]) -> bool:
    """The class is named only where it is no value, the method name is no string in code,
    and a name composed from one of its prefixes is not looked up in a class namespace."""
    allowed = _allowed(tree)
    word_cls = re.compile(rf"(?<!\w){re.escape(cls)}(?!\w)")
    word_method = re.compile(rf"(?<!\w){re.escape(method)}(?!\w)")
    composed = [re.compile(rf"(?<!\w){re.escape(p)}(?!\w)") for p in prefixes]
    composes = False
    reflects = False
    parents: dict[int, ast.AST] | None = None
    for n in ast.walk(tree):
        if isinstance(n, ast.alias) and n.name.rpartition(".")[2] == cls and n.asname:
            return False  # imported under another name: its uses are not searched
        if id(n) in allowed:
            continue
        if (isinstance(n, ast.Attribute) and n.attr in _CLASS_VALUES) or (
            isinstance(n, ast.Name) and n.id in _CLASS_VALUES
        ):
            return False  # the class reached as a value without its name
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "mro":
            return False  # ``type(x).mro()``
        if isinstance(n, ast.Delete) and any(
            isinstance(t, ast.Attribute) and t.attr == method for t in n.targets
        ):
            return False  # ``del Sub.m`` makes the lookup go on to the removed method
        if isinstance(n, ast.Name) and n.id == cls:
            return False
        if isinstance(n, ast.Attribute) and n.attr == cls:
            return False
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            if word_cls.search(n.value) or word_method.search(n.value):
                return False
            composes = composes or any(p.search(n.value) for p in composed)
        if (isinstance(n, ast.Attribute) and n.attr in _REFLECTION) or (
            isinstance(n, ast.Name) and n.id in _REFLECTION
        ):
            reflects = True
        if isinstance(n, ast.Call) and is_super_call(n):
            if parents is None:
                parents = {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
            if not isinstance(parents.get(id(n)), ast.Attribute):
                reflects = True
    return not (composes and reflects)


def supers_start_at_home(tree: ast.Module) -> bool:
    """``super(X, ...)`` with arguments appears only as ``super(S, ...)`` (or
    ``super(mod.S, ...)``) inside ``class S`` itself (any other start, ``type(obj)``, an alias
    or a subclass named elsewhere, may skip a subclass that defines the method)."""

    def walk(node: ast.AST, inside: str) -> bool:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                if not walk(child, child.name):
                    return False
                continue
            if (
                isinstance(child, ast.Call)
                and is_super_call(child)
                and (child.args or child.keywords)
                and not (
                    child.args
                    and isinstance(child.args[0], ast.Name | ast.Attribute)
                    and base_name(child.args[0]) == inside
                )
            ):
                # ``super(S, obj)`` skips S; so may ``super(type(obj), obj)`` or
                # ``super(alias, obj)`` with ``alias = S``: only ``super(Enclosing, ...)`` in
                # ``class Enclosing`` itself names where it starts.
                return False
            if not walk(child, inside):
                return False
        return True

    return walk(tree, "")
