"""Binding a call of a helper: which helper a definition is, how a call reaches its first
parameter, and which argument each parameter gets.

A call is expanded only where Python's semantics let the binding be read off the call: no
``*args``/``**kwargs`` on either side, keywords naming parameters, defaults that are constants,
and a method reached through ``self``/``cls`` (or ``super()``). The parameters are then
replaced by the arguments (:class:`Subst`) where the argument is :func:`pure`.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass

from prreport.python.definitions import Definition

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Helper:
    """The helper whose calls are expanded: its node, and how a call reaches its first parameter."""

    node: ast.FunctionDef | ast.AsyncFunctionDef
    receiver: str  # "static" (no implicit parameter) | "method" | "class" | "function"
    # Reached by ``super().name(...)`` from a method whose first parameter is this name (the
    # helper's own first parameter is bound to it); "" when calls go through ``self``/``cls``.
    super_self: str = ""


def helper_of(d: Definition) -> Helper | None:
    """How calls reach a function/method definition, or None when it cannot be inlined (decorators)."""
    node = d.node
    if not isinstance(node, _FUNCS) or d.kind not in ("function", "method"):
        return None
    names = [x.id if isinstance(x, ast.Name) else "?" for x in node.decorator_list]
    if not names:
        return Helper(node, "method" if d.kind == "method" else "function")
    if names == ["staticmethod"]:
        return Helper(node, "static")
    if names == ["classmethod"]:
        return Helper(node, "class")
    return None


def pure(e: ast.expr) -> bool:
    """A name, a constant or an attribute chain on one: reading it again gives the same object
    as long as nothing rebinds it."""
    if isinstance(e, (ast.Name, ast.Constant)):
        return True
    return isinstance(e, ast.Attribute) and pure(e.value)


def class_bound(node: ast.AST) -> list[str]:
    """What in a method means the class it is written in: ``super()``, the bare name
    ``__class__`` (``self.__class__`` is the instance's), private ``__names`` (mangled with the
    class name), sorted."""
    out: set[str] = set()
    for n in ast.walk(node):
        if is_super(n):
            out.add("super()")
        name = n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else ""
        if (name == "__class__" and isinstance(n, ast.Name)) or (
            name.startswith("__") and not name.endswith("__")
        ):
            out.add(name)
    return sorted(out)


def is_super(node: ast.AST) -> bool:
    """``super()`` (no arguments: the class the code is written in, and its first parameter)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "super"
        and not node.args
        and not node.keywords
    )


def bind(helper: Helper, call: ast.Call) -> list[tuple[str, ast.expr]] | None:
    """(parameter, argument) in evaluation order, defaults filled in; None when it cannot be said."""
    fn = helper.node
    a = fn.args
    if a.vararg or a.kwarg:
        return None
    if any(isinstance(x, ast.Starred) for x in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None
    positional = [*a.posonlyargs, *a.args]
    bound: list[tuple[str, ast.expr]] = []
    if helper.receiver in ("method", "class"):
        if not isinstance(call.func, ast.Attribute) or not positional:
            return None
        recv = call.func.value
        want = "cls" if helper.receiver == "class" else "self"
        if helper.super_self and is_super(recv):
            recv = ast.Name(id=helper.super_self, ctx=ast.Load())
        elif not (isinstance(recv, ast.Name) and recv.id == want):
            return None
        bound.append((positional[0].arg, recv))
        positional = positional[1:]
    if len(call.args) > len(positional):
        return None
    bound += [(p.arg, x) for p, x in zip(positional, call.args, strict=False)]
    names = {p.arg for p in positional} | {p.arg for p in a.kwonlyargs}
    for k in call.keywords:
        if k.arg not in names or any(k.arg == b for b, _ in bound):
            return None
        if k.arg in {p.arg for p in a.posonlyargs}:
            return None
        bound.append((k.arg, k.value))
    given = {b for b, _ in bound}
    defaults = dict(
        zip(
            [p.arg for p in [*a.posonlyargs, *a.args]][
                len([*a.posonlyargs, *a.args]) - len(a.defaults) :
            ],
            a.defaults,
            strict=True,
        )
    )
    defaults |= {
        p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None
    }
    for p in [*positional, *a.kwonlyargs]:
        if p.arg in given:
            continue
        d = defaults.get(p.arg)
        if d is None or not isinstance(d, ast.Constant):
            return None
        bound.append((p.arg, d))
    return bound


class Subst(ast.NodeTransformer):
    """Write each mapped parameter's argument where the parameter is read."""

    def __init__(self, mapping: dict[str, ast.expr]) -> None:
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id in self.mapping:
            return copy.deepcopy(self.mapping[node.id])
        return node
