"""How far a package's ``__init__`` has run when one of its modules first runs.

``from pkg import X`` in a module that ``pkg/__init__.py`` itself imports (directly or through a
chain of imports) runs while ``pkg`` is still initialising: ``X`` exists only if ``__init__``
bound it before the statement that started the chain, else Python raises ``ImportError:
cannot import name 'X' from partially initialized module 'pkg'``. The import order is replayed
as Python runs it: module-level imports depth-first in source order, each module run once.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, field

from prreport.python.boundnames import (
    MODULE_DUNDERS,
    NameAt,
    all_bound_at,
    may_bind,
    name_at,
    statement_at,
)
from prreport.python.moduleimports import ImportBinding, head_imports, head_tree
from prreport.python.modules import ModuleIndex, parents
from prreport.python.sources import SourceFiles


@dataclass(frozen=True)
class InitWalk:
    """Where ``package``'s ``__init__`` is when ``module`` first runs."""

    package: str
    path: str  # the package's __init__.py ("" for a namespace package)
    chain: tuple[str, ...] = ()  # package ... module, when __init__ imports module
    line: int | None = None  # first line of the __init__ import statement that starts the chain
    statement: str = ""  # that statement
    conditional: bool = False  # some import on the chain runs under if/try/with
    gap: int | None = None  # first __init__ import statement whose imports could not all be read
    missing: frozenset[str] = frozenset()  # paths not fetched yet
    unavailable: frozenset[str] = frozenset()  # first-party modules with no source
    unparseable: frozenset[str] = frozenset()
    truncated: bool = False  # the depth limit stopped the walk
    until: int | None = None  # the walk stopped after this line: every name is bound by then
    # a whole-repository search found no module that imports ``module`` at module level: the
    # __init__ cannot reach it, however far the walk got
    unimported: bool = False
    tree: ast.Module | None = field(default=None, compare=False, repr=False)  # the __init__


@dataclass
class _Walker:
    """Depth-first replay of the module-level imports that run before ``module`` first runs."""

    sources: SourceFiles
    index: ModuleIndex
    module: str
    depth: int
    loaded: set[str]
    missing: set[str] = field(default_factory=set)
    unavailable: set[str] = field(default_factory=set)
    unparseable: set[str] = field(default_factory=set)
    truncated: bool = False

    def gaps(self) -> int:
        return len(self.missing) + len(self.unavailable) + len(self.unparseable) + self.truncated

    def loads(self, b: ImportBinding, importer: str, path: str) -> list[str]:
        """The first-party modules one import statement loads, in the order Python loads them."""
        absolute = self.index.absolute(b, importer, path)
        if absolute is None:
            lost = self.index.unresolved(b, importer, path)
            if lost:
                self.unavailable.add(lost)
            return []
        if not self.index.is_first_party(absolute):
            return []
        out = [*parents(absolute), absolute]
        sub = f"{absolute}.{b.name}"
        if b.name and b.name != "*" and (self.index.path_of(sub) or self.index.runs_nothing(sub)):
            out.append(sub)
        return out

    def visit(self, module: str, hop: int) -> tuple[list[str], bool] | None:
        """(the chain from ``module`` to the walked-for module, conditional?) or None."""
        if module == self.module:
            return [module], False
        if module in self.loaded:
            return None  # in sys.modules already (done or initialising): runs nothing
        path = self.index.path_of(module)
        if path is None:
            if not self.index.runs_nothing(module):
                self.unavailable.add(module)
            return None
        if hop > self.depth:
            self.truncated = True
            return None
        tree, fetched = head_tree(self.sources, path)
        if not fetched:
            self.missing.add(path)
            return None
        if tree is None:
            self.unparseable.add(path)
            return None
        self.loaded.add(module)
        for b in head_imports(self.sources, path, tree):
            for dest in self.loads(b, module, path):
                found = self.visit(dest, hop + 1)
                if found is not None:
                    return [module, *found[0]], found[1] or not b.top_level
        return None


def walk_init(
    sources: SourceFiles,
    index: ModuleIndex,
    package: str,
    module: str,
    depth: int,
    names: Iterable[str] = (),
) -> InitWalk:
    """Replay ``package``'s ``__init__`` until it first imports ``module`` (``depth`` hops).

    Once every one of ``names`` is certainly bound, what ``__init__`` imports next cannot
    matter to them: the walk stops there (``until``) instead of reading the rest.
    """
    path = index.path_of(package)
    if path is None:
        return InitWalk(package, "")  # a namespace package: no __init__ to run
    tree, fetched = head_tree(sources, path)
    if not fetched:
        return InitWalk(package, path, missing=frozenset({path}))
    if tree is None:
        return InitWalk(package, path, unparseable=frozenset({path}))
    # The package and the packages above it are in sys.modules before its __init__ runs.
    w = _Walker(sources, index, module, depth, {*parents(package), package})
    gap: int | None = None
    found: tuple[list[str], bool] | None = None
    line: int | None = None
    until = all_bound_at(tree, names)
    for b in head_imports(sources, path, tree):
        if until is not None and b.stmt_line > until:
            break
        before = w.gaps()
        for dest in w.loads(b, package, path):
            found = w.visit(dest, 1)
            if found is not None:
                break
        if found is not None:
            line = b.stmt_line
            found = (found[0], found[1] or not b.top_level)
            break
        if gap is None and w.gaps() > before:
            gap = b.stmt_line
    chain, conditional = found if found is not None else ([], False)
    return InitWalk(
        package,
        path,
        chain=tuple([package, *chain]) if chain else (),
        line=line,
        statement=statement_at(tree, line) if line is not None else "",
        conditional=conditional,
        gap=gap,
        missing=frozenset(w.missing),
        unavailable=frozenset(w.unavailable),
        unparseable=frozenset(w.unparseable),
        truncated=w.truncated,
        until=until,
        tree=tree,
    )


def imported_by_none(sources: SourceFiles, index: ModuleIndex, module: str) -> bool:
    """Whether a whole-repository search proves that no module imports ``module`` at module
    level (False when it cannot tell: no search, or a file it names was not read).

    Every file that imports ``module`` names its last part (``import pkg.leaf``, ``from pkg
    import leaf``, ``from .leaf import x``), and so does an ``__all__`` a star import follows.
    """
    bundle = sources.bundle
    leaf = module.rsplit(".", 1)[-1]
    if bundle.reference_scope != "repository" or leaf not in bundle.references:
        return False
    own = index.path_of(module)
    for path in sorted({hit.rsplit(":", 1)[0] for hit in bundle.references[leaf]} - {own}):
        name = index.module_of(path)
        tree, _fetched = head_tree(sources, path)
        if tree is None or name is None:
            # not read, or a script outside the packages: only a package module counts
            if tree is None and name is not None:
                return False
            continue
        if any(index.target(b, name, path) == module for b in head_imports(sources, path, tree)):
            return False
        if "__all__" in may_bind(tree.body) and leaf in _all_strings(tree):
            return False
    return True


def _all_strings(tree: ast.Module) -> set[str]:
    """String constants of the module's ``__all__`` assignments."""
    out: set[str] = set()
    for st in tree.body:
        targets = st.targets if isinstance(st, ast.Assign) else [getattr(st, "target", None)]
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            out |= {
                n.value
                for n in ast.walk(st)
                if isinstance(n, ast.Constant) and isinstance(n.value, str)
            }
    return out


def name_state(walk: InitWalk, name: str) -> NameAt:
    """Whether ``from package import name`` finds ``name`` when the walked module first runs."""
    tree = walk.tree
    if name in MODULE_DUNDERS:
        return NameAt("bound")
    if tree is None:
        return NameAt("unknown", why="unread")
    if walk.line is not None:
        at = name_at(tree, name, walk.line)
        # an earlier statement the walk could not follow may import the module sooner
        if at.state == "bound" and walk.gap is not None and walk.gap < walk.line:
            if name_at(tree, name, walk.gap).state != "bound":
                return NameAt("unknown", at.line, at.statement, "walk")
        return at
    if walk.gap is None or walk.unimported:
        # bound before any import that could run the module, or __init__ never imports it
        if walk.until is None or walk.unimported:
            return NameAt("finished")
        return name_at(tree, name, walk.until + 1)
    at = name_at(tree, name, walk.gap)
    return at if at.state == "bound" else NameAt("unknown", at.line, at.statement, "walk")
