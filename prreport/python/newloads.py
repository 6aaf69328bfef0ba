"""The first-party modules a change newly loads at import time, and the walk each load newly runs.

A changed file that now imports a first-party module at module level (hoisted from a function,
or new) newly runs that module when it is imported; ``load_walks`` pairs every such load with
the walk over what it runs (``importgraph``) and, when the target is a package of the importer,
with how far the package's ``__init__`` has run by then (``initorder``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, replace

from prreport.bundle import FileChange, PullRequestBundle
from prreport.python.boundnames import MODULE_DUNDERS
from prreport.python.importgraph import Exploration, as_module_binding, explore
from prreport.python.initorder import InitWalk, imported_by_none, name_state, walk_init
from prreport.python.lazyimports import lazy_modules, package_of, qualified
from prreport.python.moduleimports import ImportBinding, module_level_imports, newly_module_level
from prreport.python.modules import ModuleIndex, module_index, parents
from prreport.python.scopeindex import scope_index
from prreport.python.sources import SourceFiles


@dataclass(frozen=True)
class NewLoad:
    """Imports of one changed file that now load one first-party module at import time."""

    file: FileChange
    importer: str
    target: str
    bindings: tuple[ImportBinding, ...]
    hoisted: bool  # some binding was imported lazily (in a function or block) before
    # The importer already loaded the target at module level before the change (another name
    # of the same module, or the same import moved within the module): no new cycle.
    preexisting: bool = False
    # The target is first-party but has no source in the tree (a partial tree, a generated file).
    unresolved: bool = False


def new_loads(bundle: PullRequestBundle, sources: SourceFiles, index: ModuleIndex) -> list[NewLoad]:
    """Per changed file and first-party target: the bindings that newly load it at import time."""
    out: list[NewLoad] = []
    for f in sources.python_files():
        if f.after is None:
            continue
        after = sources.tree(f.path, "after")
        if after is None:
            continue
        before = sources.tree(f.before_path, "before") if f.before is not None else None
        if f.before is not None and before is None:
            continue  # an unparseable before side: nothing can be said about what is new
        importer = index.module_of(f.path)
        if importer is None:
            continue  # a script outside the packages cannot be imported back
        lazy_before = _all_keys(sources, f.before_path) if before is not None else set()
        lazy_targets = (
            _lazy_targets(sources, index, importer, f.before_path) if before is not None else set()
        )
        unlisted = _unlisted(before, after, importer, f.path)
        loaded_before = _targets(index, before, importer, f.before_path, unlisted)
        by_target: dict[str, list[ImportBinding]] = {}
        missing: set[str] = set()
        for b in newly_module_level(before, after, unlisted):
            target = index.target(b, importer, f.path)
            if target is None:
                target = index.unresolved(b, importer, f.path)
                if target is not None:
                    missing.add(target)
            # an ancestor package is in sys.modules already: no source needed to know that
            if target in missing and target in parents(importer):
                continue
            if target and target != importer:
                by_target.setdefault(target, []).append(b)
        for target, bindings in sorted(by_target.items()):
            # lazy before: the same binding, or the same module spelled another way
            hoisted = any(b.key in lazy_before for b in bindings) or target in lazy_targets
            ordered = tuple(sorted(bindings, key=lambda b: (b.line, b.bound)))
            preexisting = target in loaded_before[True] or (
                target in loaded_before[False] and not any(b.top_level for b in bindings)
            )
            out.append(
                NewLoad(f, importer, target, ordered, hoisted, preexisting, target in missing)
            )
    return out


def _unlisted(
    before: ast.Module | None, after: ast.Module, importer: str, path: str
) -> Callable[[ImportBinding], bool] | None:
    """Whether a before-side import was lazy on Python 3.15 through a ``__lazy_modules__`` that
    no longer lists its module (None when the listing lost nothing)."""
    package = package_of(importer, path)
    old = lazy_modules(before, package)
    new = lazy_modules(after, package)
    gone = (old.names if old else frozenset()) - (new.names if new else frozenset())
    if not gone:
        return None
    is_package = path.endswith("__init__.py")
    return lambda b: b.top_level and qualified(b.module, b.level, importer, is_package) in gone


def _targets(
    index: ModuleIndex,
    tree: ast.Module | None,
    importer: str,
    path: str,
    listed: Callable[[ImportBinding], bool] | None = None,
) -> dict[bool, set[str]]:
    """First-party modules a module loaded at import time: {True: unconditionally, False: any};
    ``listed``: lazy through its ``__lazy_modules__`` (on 3.15, where they are judged)."""
    out: dict[bool, set[str]] = {True: set(), False: set()}
    for b in module_level_imports(tree) if tree is not None else ():
        if b.lazy or (listed and listed(b)):
            continue  # loaded at first use, not at import time
        target = index.target(b, importer, path) or index.unresolved(b, importer, path)
        if target:
            out[False].add(target)
            if b.top_level:
                out[True].add(target)
    return out


def _lazy_targets(sources: SourceFiles, index: ModuleIndex, importer: str, path: str) -> set[str]:
    """First-party modules a before file imported inside functions or classes."""
    ix = scope_index(sources, path, "before")
    out: set[str] = set()
    for b in ix.imports if ix else ():
        if b.at_module_level:
            continue
        target = index.target(as_module_binding(b), importer, path)
        if target:
            out.add(target)
    return out


def _all_keys(sources: SourceFiles, path: str) -> set[tuple[int, str, str, str]]:
    """Keys of every import binding of a before file at any depth, from the shared scope index."""
    ix = scope_index(sources, path, "before")
    if ix is None:
        return set()
    return {
        (b.level, b.module[b.level :], b.name or "", b.alias or "")
        if b.is_from
        else (0, b.module, "", b.alias or "")
        for b in ix.imports
    }


def package_names(h: NewLoad, index: ModuleIndex) -> list[str]:
    """Names ``from <package> import ...`` takes from the package itself (not its submodules:
    Python imports a submodule that is not loaded yet, and the walk follows those)."""
    return [
        b.name
        for b in h.bindings
        if b.name
        and b.name not in ("*", *MODULE_DUNDERS)  # set before the package's first line runs
        # ``from .. import pkg`` in pkg's own module takes the package pkg from its parent
        and index.absolute(b, h.importer, h.file.path) == h.target
        and not index.runs_nothing(f"{h.target}.{b.name}")
    ]


def _init_walk(
    sources: SourceFiles, index: ModuleIndex, h: NewLoad, depth: int, names: list[str]
) -> InitWalk:
    """The walk of the package's ``__init__``; where it cannot finish, a repository search
    may still prove that nothing imports the importer at module level."""
    walk = walk_init(sources, index, h.target, h.importer, depth, names)
    if init_unfinished(walk, names) and imported_by_none(sources, index, h.importer):
        return replace(walk, unimported=True)
    return walk


def init_unfinished(walk: InitWalk, names: list[str]) -> bool:
    """Some name is unknown only because the walk could not follow an import."""
    return walk.line is None and any(name_state(walk, n).why == "walk" for n in names)


def load_walks(
    bundle: PullRequestBundle, sources: SourceFiles, first_party: tuple[str, ...], depth: int
) -> list[tuple[NewLoad, Exploration]]:
    """Every new load of the change with the walk of what it runs (memoised: the context
    requests and the analysis of one bundle walk the same imports once)."""
    index = module_index(sources, first_party)

    def build() -> list[tuple[NewLoad, Exploration]]:
        cache: dict[tuple[str, str], Exploration] = {}
        out = []
        for h in new_loads(bundle, sources, index):
            key = (h.importer, h.target)
            if key not in cache:
                cache[key] = explore(sources, index, h.importer, h.target, depth)
            ex = cache[key]
            names = package_names(h, index)
            if ex.ancestor and ex.init is None and names:
                ex.init = _init_walk(sources, index, h, depth, names)
            out.append((h, ex))
        return out

    fp = ",".join(first_party)
    walks: list[tuple[NewLoad, Exploration]] = sources.memo(
        "", "", f"cycle-walks:{fp}:{depth}", build
    )
    return walks
