"""What a module does at import time that a lazy import of it (PEP 810) defers.

Module-level statements whose effect reaches outside the module (a call made as a statement, a
store into an imported object, a registering decorator), each with its line: made lazy, they
run at the first use of the name instead of at import, or never. Effects confined to the
module's own objects are not listed: nothing sees them before the module is used, and a use
loads it. The first-party modules it imports at module level are followed (they are deferred
too). Stated assumptions: a call whose value is assigned or tested computes that value, and
calling a class (a CamelCase name) or a known pure helper as a statement does nothing else.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from prreport.python.moduleimports import head_tree, imports_at_import, is_type_checking
from prreport.python.modules import ModuleIndex, parents
from prreport.python.sources import SourceFiles

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
    """What a module-level import made lazy defers: the first-party module it loads and the
    import-time effects of it and of the first-party modules it imports (``checked`` False:
    some source could not be read, ``missing``)."""

    target: str = ""  # "" when the import loads no first-party module
    path: str = ""
    checked: bool = True
    effects: tuple[tuple[str, Effect], ...] = field(default=())  # (path, effect)
    missing: tuple[str, ...] = ()


def _effects(sources: SourceFiles, path: str, tree: ast.Module) -> tuple[Effect, ...]:
    found: tuple[Effect, ...] = sources.memo(
        path, "head", "import-effects", lambda: tuple(import_effects(tree))
    )
    return found


def deferred_effects(
    sources: SourceFiles, index: ModuleIndex, target: str | None, importer: str, depth: int
) -> Deferred:
    """The import-time effects ``target`` (a first-party module) and the first-party modules it
    imports at module level (``depth`` hops) would run, read at head; the importer's packages
    are loaded already."""
    if not target:
        return Deferred()
    loaded = {importer, *parents(importer)}
    # importing ``a.b.c`` runs the packages ``a``, ``a.b`` first when they are not loaded yet
    frontier = [p for p in parents(target) if p not in loaded and index.path_of(p)] + [target]
    seen = set(frontier)
    effects: list[tuple[str, Effect]] = []
    missing: list[str] = []
    for _ in range(max(1, depth)):
        nxt = []
        for module in frontier:
            path = index.path_of(module) or ""
            tree, _fetched = head_tree(sources, path) if path else (None, False)
            if tree is None:
                missing.append(path or module)
                continue
            effects += [(path, e) for e in _effects(sources, path, tree)]
            for b in imports_at_import(tree):
                dep = None if b.lazy else index.target(b, module, path)
                if dep and dep not in seen and dep not in loaded:
                    seen.add(dep)
                    nxt.append(dep)
        frontier = nxt
    return Deferred(
        target, index.path_of(target) or "", not missing, tuple(effects), tuple(missing)
    )
