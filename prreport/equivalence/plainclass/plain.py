"""A plain dataclass as data: its fields, whether a call binds them, the fact building it relies on."""

from __future__ import annotations

import ast
from dataclasses import dataclass


@dataclass(frozen=True)
class Field:
    """One dataclass field: whether ``__init__`` takes it and whether it has a default."""

    name: str
    init: bool
    default: bool
    annotation: str


@dataclass(frozen=True)
class PlainClass:
    """A plain dataclass: its fields, where it is defined, and what its ``__post_init__``
    (if any) assumes about the fields whose items it reads (``(field, annotation)``)."""

    name: str
    path: str
    fields: tuple[Field, ...]
    assumes: tuple[tuple[str, str], ...] = ()
    members: frozenset[str] = frozenset()  # other names its class bodies bind (methods...)

    def builds(self, call: ast.Call) -> bool:
        """Whether ``call`` (of this class) binds its arguments without ``TypeError``."""
        if call.args or any(k.arg is None for k in call.keywords):
            return False
        init = {f.name: f for f in self.fields if f.init}
        given = [k.arg for k in call.keywords]
        if len(set(given)) != len(given) or not set(given) <= init.keys():
            return False
        return all(f.default or f.name in given for f in init.values())

    def fact(self) -> str:
        """What building it relies on, as a rewrite's detail: ``class|path|fields`` (the
        fields whose ``str`` items its ``__post_init__`` is assumed to read; the templates
        word it)."""
        return "|".join((self.name, self.path, ",".join(f for f, _ in self.assumes)))


def constant(node: ast.expr | None) -> bool:
    """A literal (a signed number too): what a field default or class attribute may be."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        node = node.operand
    return isinstance(node, ast.Constant)
