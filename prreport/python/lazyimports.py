"""PEP 810 (Python 3.15) facts of one module: ``__lazy_modules__`` and ``lazy`` where Python
forbids it (what a lazy import defers: ``importeffects``).

- ``lazy_modules``: the module-global ``__lazy_modules__`` container of module names (a set, list
  or tuple of strings): on 3.15 the plain imports of those names are *potentially lazy* (as if
  written ``lazy``), before 3.15 it is an unused module constant.
- ``forbidden``: ``lazy`` inside a function, a class body or a ``try`` statement, ``lazy from m
  import *`` and ``lazy from __future__ import ...`` compile to a ``SyntaxError`` although the
  parser reads them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

from prreport.python.importgraph import explore
from prreport.python.moduleimports import ImportBinding
from prreport.python.modules import ModuleIndex
from prreport.python.scopes import module_level_statements
from prreport.python.sources import SourceFiles

NAME = "__lazy_modules__"


@dataclass(frozen=True)
class LazyModules:
    """A module's ``__lazy_modules__``: the names it lists and the lines of its assignment."""

    names: frozenset[str]
    line: int
    end_line: int


def _string(e: ast.expr, package: str) -> str | None:
    """A constant string, or an f-string of the module's own package (``f"{__spec__.parent}.x"``,
    ``__package__``), evaluated; None for anything else."""
    if isinstance(e, ast.Constant) and isinstance(e.value, str):
        return e.value
    if not isinstance(e, ast.JoinedStr) or not package:
        return None
    out = ""
    for part in e.values:
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            out += part.value
        elif isinstance(part, ast.FormattedValue) and ast.unparse(part.value) in _PACKAGE:
            out += package
        else:
            return None
    return out


_PACKAGE = ("__spec__.parent", "__package__")


def _strings(value: ast.expr, package: str) -> frozenset[str] | None:
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and len(value.args) == 1:
        if value.func.id in ("set", "frozenset", "list", "tuple") and not value.keywords:
            return _strings(value.args[0], package)
        return None
    if not isinstance(value, (ast.Set, ast.List, ast.Tuple)):
        return None
    out = set()
    for e in value.elts:
        name = _string(e, package)
        if name is None:
            return None
        out.add(name)
    return frozenset(out)


def lazy_modules(tree: ast.Module | None, package: str = "") -> LazyModules | None:
    """The module's top-level ``__lazy_modules__ = {...}`` (None when absent or not a literal);
    ``package`` is the module's package, for names spelled from ``__spec__.parent``."""
    for st in tree.body if tree is not None else ():
        if isinstance(st, ast.Assign):
            targets, value = st.targets, st.value
        elif isinstance(st, ast.AnnAssign) and st.value is not None:
            targets, value = [st.target], st.value
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == NAME for t in targets):
            names = _strings(value, package)
            if names is None:
                return None
            return LazyModules(names, st.lineno, st.end_lineno or st.lineno)
    return None


def package_of(module: str, path: str) -> str:
    """The package a module file belongs to (itself for an ``__init__.py``)."""
    return module if path.endswith("__init__.py") else module.rpartition(".")[0]


def qualified(module: str, level: int, importer: str, is_package: bool) -> str:
    """The fully qualified name an import statement asks for (what ``__lazy_modules__`` is
    checked with): ``from .x import y`` in ``pkg.a`` asks for ``pkg.x``."""
    if not level:
        return module
    parts = importer.split(".") if importer else []
    if not is_package:
        parts = parts[:-1]
    parts = parts[: len(parts) - (level - 1)] if level > 1 else parts
    return ".".join([*parts, *([module] if module else [])])


@dataclass(frozen=True)
class Forbidden:
    """A ``lazy`` import in a position Python 3.15 refuses to compile."""

    line: int
    reason: str  # function | class | try | star | future
    statement: str
    name: str  # the first name it binds


def forbidden(tree: ast.Module) -> list[Forbidden]:
    """Every ``lazy`` import of ``tree`` that compiling the module rejects, in line order."""
    out: list[Forbidden] = []

    def walk(stmts: Iterable[ast.stmt], where: str) -> None:
        for st in stmts:
            if isinstance(st, (ast.Import, ast.ImportFrom)) and getattr(st, "is_lazy", False):
                reason = where
                if not reason and isinstance(st, ast.ImportFrom):
                    if st.module == "__future__" and not st.level:
                        reason = "future"
                    elif any(a.name == "*" for a in st.names):
                        reason = "star"
                if reason:
                    first = st.names[0]
                    name = first.asname or first.name.split(".")[0]
                    out.append(Forbidden(st.lineno, reason, "lazy " + ast.unparse(st), name))
                continue
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                walk(st.body, where or "function")
            elif isinstance(st, ast.ClassDef):
                walk(st.body, where or "class")
            elif isinstance(st, _TRY):
                for part in (st.body, *(h.body for h in st.handlers), st.orelse, st.finalbody):
                    walk(part, where or "try")
            else:
                for field_name in ("body", "orelse"):
                    walk(getattr(st, field_name, None) or (), where)
                for case in getattr(st, "cases", None) or ():
                    walk(case.body, where)

    walk(tree.body, "")
    return sorted(out, key=lambda f: f.line)


_TRY: tuple[type[ast.Try], ...] = (ast.Try, ast.TryStar) if hasattr(ast, "TryStar") else (ast.Try,)


def lazy_target(
    index: ModuleIndex, module: str, level: int, name: str, importer: str, path: str
) -> str | None:
    """The first-party module a lazy import (``module``, ``level``, imported ``name``) loads."""
    b = ImportBinding(module, level, name, "", name or module, 0, 0, True)
    return index.target(b, importer or None, path)


def laziness_changed(before: ast.Module, after: ast.Module) -> tuple[set[int], set[int]]:
    """Lines (before, after) of the import statements binding a name whose laziness differs
    between the two trees (``import m`` -> ``lazy import m``): the lowered trees read alike, the
    programs do not."""

    def lazy_names(tree: ast.Module) -> dict[str, bool]:
        out: dict[str, bool] = {}
        for n in _module_level_imports(tree):
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                for a in n.names:
                    name = a.asname or a.name.split(".")[0]
                    out[name] = out.get(name, False) or bool(getattr(n, "is_lazy", False))
        return out

    old, new = lazy_names(before), lazy_names(after)
    flipped = {n for n in old.keys() & new.keys() if old[n] != new[n]}

    def lines(tree: ast.Module) -> set[int]:
        return {
            k
            for n in _module_level_imports(tree)
            if any((a.asname or a.name.split(".")[0]) in flipped for a in n.names)
            for k in range(n.lineno, (n.end_lineno or n.lineno) + 1)
        }

    return (lines(before), lines(after)) if flipped else (set(), set())


def _module_level_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """The import statements of module-level code: ``lazy`` is allowed nowhere else, and a
    walk of every node of a large module per comparison cost more than the comparison."""
    return [
        st
        for st in module_level_statements(tree.body)
        if isinstance(st, (ast.Import, ast.ImportFrom))
    ]


def heavy_loaded(
    sources: SourceFiles,
    index: ModuleIndex,
    importer: str,
    loaded: tuple[str, str | None],
    heavy: frozenset[str],
    depth: int,
) -> list[str]:
    """The heavy packages (``analysis.heavy_packages``) an import made eager now loads when its
    module is imported: ``loaded`` is (the module as written, its first-party module or None),
    a first-party one followed as the cycle walk follows a hoist."""
    module, target = loaded
    if target is None:
        top = module.lstrip(".").split(".")[0]
        return [top] if top in heavy else []
    return sorted(explore(sources, index, importer, target, depth).external & heavy)


def names_read(tree: ast.Module) -> frozenset[str]:
    """Names the module reads anywhere, and the strings of its ``__all__``."""
    out = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    for st in tree.body:
        if isinstance(st, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in st.targets
        ):
            out |= {
                e.value
                for e in ast.walk(st.value)
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            }
    return frozenset(out)
