"""PEP 810 (Python 3.15) facts of one module: ``__lazy_modules__``, ``lazy`` where Python forbids
it, and what the module does at import time that a lazy import of it would defer.

- ``lazy_modules``: the module-global ``__lazy_modules__`` container of module names (a set, list
  or tuple of strings): on 3.15 the plain imports of those names are *potentially lazy* (as if
  written ``lazy``), before 3.15 it is an unused module constant.
- ``forbidden``: ``lazy`` inside a function, a class body or a ``try`` statement, ``lazy from m
  import *`` and ``lazy from __future__ import ...`` compile to a ``SyntaxError`` although the
  parser reads them.
- ``import_effects``: module-level statements whose effect reaches outside the module (a call
  of a function, a store into an imported object, a registering decorator), each with its line:
  made lazy, they run at first use instead of at import, or never. Effects confined to the
  module's own objects are not listed: nothing sees them before the module is used, and a use
  loads it. Stated assumptions: the imports it runs itself are not followed, a call whose value
  is assigned or tested computes that value, and calling a class (a CamelCase name) or a known
  pure helper as a statement does nothing else.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from prreport.python.moduleimports import ImportBinding, head_tree, is_type_checking
from prreport.python.modules import ModuleIndex
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

# Calls that only build or read a value (by the last part of their dotted name).
_PURE_CALLS = frozenset(
    {
        *(
            "dict list set frozenset tuple object str int float bool bytes len sorted range "
            "enumerate zip map filter isinstance issubclass getattr hasattr type property "
            "staticmethod classmethod min max sum any all repr reversed iter callable chr ord "
            "hash abs round format slice vars dir"
        ).split(),
        *(
            "TypeVar ParamSpec TypeVarTuple NewType NamedTuple namedtuple TypedDict cast "
            "getLogger compile get getenv join dirname abspath basename realpath splitext "
            "expanduser field partial defaultdict OrderedDict deque Counter ContextVar "
            "dataclass attrib ib Literal Annotated Union Optional Generic Protocol"
        ).split(),
    }
)
_PURE_DECORATORS = frozenset(
    (
        "dataclass dataclass_transform property staticmethod classmethod abstractmethod "
        "cached_property lru_cache cache wraps total_ordering overload final override "
        "runtime_checkable unique contextmanager asynccontextmanager singledispatch "
        "singledispatchmethod setter getter deleter no_type_check deprecated define frozen "
        "mutable attrs s"
    ).split()
)


@dataclass(frozen=True)
class Effect:
    """One module-level statement whose effect reaches outside the module."""

    line: int
    what: str  # "calls X" | "stores into X" | "decorated with X (may register it)"
    statement: str


def _tail(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _root(node: ast.expr) -> str:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else ""


class _Owned:
    """The module's own names (bound by an assignment, a ``def`` or a ``class``, not an import)."""

    def __init__(self, tree: ast.Module) -> None:
        self.own: set[str] = set()
        self.imported: set[str] = set()
        for n in ast.walk(tree):
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                self.imported |= {a.asname or a.name.split(".")[0] for a in n.names}
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.own.add(n.name)
            elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                self.own.add(n.id)
        self.own -= self.imported

    def call_effect(self, call: ast.Call) -> str:
        """Why a call reaches outside the module ("" when it does not, as far as is known)."""
        tail, root = _tail(call.func), _root(call.func)
        if tail in _PURE_CALLS or tail[:1].isupper():
            return ""
        if isinstance(call.func, ast.Attribute) and root in self.own:
            return ""  # a method of the module's own object: nothing outside sees it yet
        return f"calls {ast.unparse(call.func)}"


def _skip(st: ast.stmt) -> bool:
    """A block that does not run at import: ``if TYPE_CHECKING:``, ``if __name__ == "__main__":``."""
    if not isinstance(st, ast.If):
        return False
    t = st.test
    main = (
        isinstance(t, ast.Compare)
        and isinstance(t.left, ast.Name)
        and t.left.id == "__name__"
        and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in t.comparators)
    )
    return main or is_type_checking(t)


def _children(st: ast.stmt) -> Iterator[ast.stmt]:
    if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return
    for part in ("body", "orelse", "finalbody"):
        yield from getattr(st, part, None) or ()
    for h in getattr(st, "handlers", None) or ():
        yield from h.body
    for case in getattr(st, "cases", None) or ():
        yield from case.body


def _statement_effects(st: ast.stmt, owned: _Owned) -> Iterator[tuple[int, str]]:
    for deco in getattr(st, "decorator_list", ()):
        func = deco.func if isinstance(deco, ast.Call) else deco
        if _tail(func) not in _PURE_DECORATORS:
            yield deco.lineno, f"decorated with {ast.unparse(func)} (may register it)"
    targets: list[ast.expr] = []
    if isinstance(st, ast.Assign):
        targets = st.targets
    elif isinstance(st, (ast.AugAssign, ast.AnnAssign)):
        targets = [st.target]
    for t in targets:
        if isinstance(t, (ast.Attribute, ast.Subscript)) and _root(t) not in owned.own:
            yield st.lineno, f"stores into {ast.unparse(t)}"
    if isinstance(st, (ast.Raise, ast.Delete)):
        yield st.lineno, f"runs {ast.unparse(st).split(chr(10))[0]}"
    # A call whose value is assigned or tested computes that value (stated assumption); a call
    # made as a statement is made for what it does.
    if isinstance(st, ast.Expr) and isinstance(st.value, (ast.Call, ast.Await)):
        call = st.value.value if isinstance(st.value, ast.Await) else st.value
        why = owned.call_effect(call) if isinstance(call, ast.Call) else "awaits"
        if why:
            yield st.lineno, why


def _first_line(st: ast.stmt) -> str:
    if isinstance(st, ast.ClassDef):
        return f"class {st.name}"
    if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return f"def {st.name}"
    if hasattr(st, "body"):
        return ast.unparse(st).split("\n")[0][:120]
    return ast.unparse(st).split("\n")[0][:120]


def import_effects(tree: ast.Module) -> list[Effect]:
    """Module-level statements whose effect reaches outside the module, in line order."""
    owned = _Owned(tree)
    out: list[Effect] = []

    def walk(stmts: Iterable[ast.stmt]) -> None:
        for st in stmts:
            if isinstance(st, (ast.Import, ast.ImportFrom)) or _skip(st):
                continue
            for line, what in dict.fromkeys(_statement_effects(st, owned)):
                out.append(Effect(line, what, _first_line(st)))
            walk(_children(st))

    walk(tree.body)
    return out


@dataclass(frozen=True)
class Deferred:
    """What a module-level import made lazy defers: the first-party module it loads and that
    module's import-time effects (``checked`` False: its source could not be read)."""

    target: str = ""  # "" when the import loads no first-party module
    path: str = ""
    checked: bool = True
    effects: tuple[Effect, ...] = field(default=())


def lazy_target(
    index: ModuleIndex, module: str, level: int, name: str, importer: str, path: str
) -> str | None:
    """The first-party module a lazy import (``module``, ``level``, imported ``name``) loads."""
    b = ImportBinding(module, level, name, "", name or module, 0, 0, True)
    return index.target(b, importer or None, path)


def deferred_effects(sources: SourceFiles, index: ModuleIndex, target: str | None) -> Deferred:
    """The import-time effects of ``target`` (a first-party module), read at head."""
    if not target:
        return Deferred()
    path = index.path_of(target) or ""
    tree, _ = head_tree(sources, path) if path else (None, False)
    if tree is None:
        return Deferred(target, path, checked=False)
    effects: tuple[Effect, ...] = sources.memo(
        path, "head", "import-effects", lambda: tuple(import_effects(tree))
    )
    return Deferred(target, path, True, effects)


def laziness_changed(before: ast.Module, after: ast.Module) -> tuple[set[int], set[int]]:
    """Lines (before, after) of the import statements binding a name whose laziness differs
    between the two trees (``import m`` -> ``lazy import m``): the lowered trees read alike, the
    programs do not."""

    def lazy_names(tree: ast.Module) -> dict[str, bool]:
        out: dict[str, bool] = {}
        for n in ast.walk(tree):
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
            for n in ast.walk(tree)
            if isinstance(n, (ast.Import, ast.ImportFrom))
            and any((a.asname or a.name.split(".")[0]) in flipped for a in n.names)
            for k in range(n.lineno, (n.end_lineno or n.lineno) + 1)
        }

    return (lines(before), lines(after)) if flipped else (set(), set())
