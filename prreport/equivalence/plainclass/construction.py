"""The fact that makes a call the construction of a plain dataclass: it neither acts nor fails.

``constructions`` gives ``prreport.equivalence.rewrites`` a test for the calls of one module side
(``moved-assignment`` moves such an assignment like a constant): the class is plain and the
call binds its arguments, the calling module does not patch the class, and every imported
object among the arguments is what the module's one import of it binds.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from prreport.equivalence.canonical import module_bindings
from prreport.equivalence.plainclass.modules import module_file, read_at
from prreport.equivalence.plainclass.plain import PlainClass
from prreport.equivalence.plainclass.recognise import class_named, patched
from prreport.python.scopes import single_binding
from prreport.python.sources import SourceFiles


def constructions(
    sources: SourceFiles, path: str, side: str, local: frozenset[str] = frozenset()
) -> Callable[[ast.Call], str | None]:
    """A test for calls in module ``path`` (its ``side``): the fact that makes ``Name(...)``
    the construction of a plain dataclass that binds its arguments, or None. ``local``: names
    the calling function binds itself (they do not mean the module's class)."""

    def fact(call: ast.Call) -> str | None:
        func = call.func
        cls: PlainClass | None = None
        if isinstance(func, ast.Name) and func.id.startswith("@"):
            # A canonical tree spells an imported object ``@module.Name``.
            module, _, name = func.id[1:].rpartition(".")
            p = module_file(sources, module)
            if p is not None:
                where, at = read_at(sources, p, side)
                cls = class_named(sources, where, at, name)
        elif isinstance(func, ast.Name) and func.id not in local:
            cls = class_named(sources, path, side, func.id)
        if cls is None or not cls.builds(call):
            return None
        tree = sources.tree(path, side)
        if tree is None or not isinstance(func, ast.Name):
            return None
        full = func.id[1:] if func.id.startswith("@") else None
        spelled = {func.id} | {
            n for n, t in module_bindings(tree, path).items() if full is not None and t == full
        }
        if patched(tree, spelled):
            return None  # the calling module patches the class
        if not all(_stays(sources, path, side, n.id[1:]) for n in _imported(call)):
            return None
        return cls.fact()

    return fact


def _imported(call: ast.Call) -> Iterator[ast.Name]:
    """The imported objects (``@module.name`` in a canonical tree) among a call's arguments."""
    for k in call.keywords:
        for n in ast.walk(k.value):
            if isinstance(n, ast.Name) and n.id.startswith("@"):
                yield n


def _stays(sources: SourceFiles, path: str, side: str, full: str) -> bool:
    """``full`` is what a name of module ``path`` is bound to by its one import, bound nowhere
    else in the module (no ``global name`` in a function a moved-across call could run), so
    reading it gives the same object before and after the statements a construction moves
    across. ``module.attr`` through a module object is not: any code may assign it."""
    tree = sources.tree(path, side)
    if tree is None:
        return False
    names = module_bindings(tree, path)
    return any(
        target == full and isinstance(single_binding(tree, name), ast.Import | ast.ImportFrom)
        for name, target in names.items()
    )
