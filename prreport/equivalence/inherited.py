"""Whether the method a class inherits once its override is removed answers every call as the
dropped override did: a placeholder against a placeholder with the same parameters and result
(``None``, the same exception, the same literal), or a copy of the base's body whose names are
bound to the same objects in both modules."""

from __future__ import annotations

import ast
import builtins

from prreport.equivalence.equality import names_own_class
from prreport.python.definitions import Definition, bound_names, dump, file_index, strip_docstring
from prreport.python.hierarchy import imported_from
from prreport.python.placeholders import body_kind, raised, signature
from prreport.python.sources import SourceFiles

_NO_OP = ("pass", "ellipsis", "docstring")
_BUILTINS = frozenset(dir(builtins))


def same_placeholder(
    sources: SourceFiles, d: Definition, path: str, kind: str, base: Definition, base_path: str
) -> bool:
    """The inherited method answers every call as the dropped placeholder did: the same
    parameters and the same result (``None``, the same exception, the same literal)."""
    if signature(d.node) != signature(base.node) or type(d.node) is not type(base.node):
        return False
    base_kind = body_kind(base.node)
    if kind in _NO_OP:
        return base_kind in _NO_OP
    if kind != base_kind:
        return False
    if kind == "constant":
        return dump(strip_docstring(d.node.body)) == dump(strip_docstring(base.node.body))  # type: ignore[attr-defined]
    if raised(d.node) != raised(base.node):
        return False
    # The exception class must be the same object in both modules.
    exc = strip_docstring(d.node.body)[0].exc  # type: ignore[attr-defined]
    name = _head_name(exc.func if isinstance(exc, ast.Call) else exc)
    return path == base_path or (
        name is not None
        and _binding(sources, path, "before", name) is not None
        and _binding(sources, path, "before", name) == _binding(sources, base_path, "head", name)
    )


def _head_name(node: ast.expr) -> str | None:
    """The first name of ``a.b.c``."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def same_inherited(
    sources: SourceFiles, dropped: Definition, dropped_path: str, base: Definition, base_path: str
) -> bool:
    """The inherited method does what the dropped one did: equal text, names bound alike."""
    a, b = dropped.node, base.node
    if type(a) is not type(b) or dropped.body != base.body:
        return False
    assert isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef))
    # Zero-argument super() and __class__ name the defining class; __x is mangled with it.
    if names_own_class(a):
        return False
    if dropped_path == base_path:
        return True
    names = {n.id for n in ast.walk(a) if isinstance(n, ast.Name)}
    free = names - bound_names([a.args, *a.body])
    return all(
        _binding(sources, dropped_path, "before", n) is not None
        and _binding(sources, dropped_path, "before", n) == _binding(sources, base_path, "head", n)
        for n in free
    )


def _binding(sources: SourceFiles, path: str, side: str, name: str) -> str | None:
    """What a module-level name of a file is bound to: ``import:<dump>``, ``builtin``, or None."""
    defs = file_index(sources, path, side)
    d = defs.get(name)
    if d is None:
        return "builtin" if name in _BUILTINS else None
    if d.kind != "import" or not isinstance(d.node, (ast.Import, ast.ImportFrom)):
        return None
    node = d.node
    for a in node.names:
        if (a.asname or a.name.split(".")[0]) == name:
            if isinstance(node, ast.ImportFrom):
                module = imported_from(sources.tree(path, side), name, path, sources)
                return f"from:{module}:{a.name}"
            return f"import:{a.name}:{a.asname or ''}"
    return None
