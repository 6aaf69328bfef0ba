"""The walk over module-level imports that a new import would newly run: which first-party
modules a hoisted import reaches, and whether one of them reaches back to the importer."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from prreport.python.initorder import InitWalk
from prreport.python.moduleimports import ImportBinding, head_imports, head_tree
from prreport.python.modules import ModuleIndex, parents
from prreport.python.scopeindex import ImportBinding as ScopedBinding
from prreport.python.sources import SourceFiles


@dataclass
class Exploration:
    """Breadth-first walk over module-level first-party imports starting at the target."""

    chain: list[str] = field(default_factory=list)  # importer ... importer when a cycle exists
    target_imports: list[str] = field(default_factory=list)
    target_external: list[str] = field(default_factory=list)
    explored: set[str] = field(default_factory=set)
    missing: set[str] = field(default_factory=set)  # paths not fetched yet
    unavailable: set[str] = field(default_factory=set)  # first-party modules with no source
    unparseable: set[str] = field(default_factory=set)  # paths that do not parse at head
    truncated: bool = False
    external: set[str] = field(default_factory=set)  # top-level third-party names, whole walk
    ancestor: bool = False  # the target is a package of the importer: already in sys.modules
    # the target is a package of the importer and names are imported from it: how far its
    # __init__ has run when the importer first runs
    init: InitWalk | None = None

    @property
    def complete(self) -> bool:
        """The walk finished: no depth limit hit, no file missing, unavailable or unparseable."""
        return not (self.truncated or self.missing or self.unavailable or self.unparseable)


def as_module_binding(b: ScopedBinding) -> ImportBinding:
    """A scope-index import binding in the form the module index resolves."""
    return ImportBinding(
        b.module[b.level :] if b.is_from else b.module,
        b.level,
        (b.name or "") if b.is_from else "",
        b.alias or "",
        b.bound,
        b.line,
        b.stmt_line,
        False,
    )


def explore(
    sources: SourceFiles, index: ModuleIndex, importer: str, target: str, depth: int
) -> Exploration:
    """Walk what a new module-level import of ``target`` in ``importer`` newly runs.

    The importer's packages are in ``sys.modules`` already (initialised or initialising), so
    the walk starts at the target's packages that are not the importer's and the target, and
    follows module-level first-party imports (``depth`` hops) looking for the importer.
    """
    ex = Exploration()
    # The importer's own packages are in sys.modules before it runs (being initialised), so
    # importing them again runs nothing: reaching them is no cycle. Reaching the importer is.
    settled = set(parents(importer))
    if target in settled:
        ex.ancestor = True
        ex.explored.add(target)
        return ex
    start = [
        p for p in parents(target) if p not in settled and p != importer and index.path_of(p)
    ] + [target]
    queue = deque([(m, [importer, m]) for m in start])
    seen = set(start)
    while queue:
        module, chain = queue.popleft()
        path = index.path_of(module)
        if path is None:
            ex.unavailable.add(module)
            continue
        tree, fetched = head_tree(sources, path)
        if not fetched:
            ex.missing.add(path)
            continue
        if tree is None:
            ex.unparseable.add(path)
            continue
        ex.explored.add(module)
        edges: list[str] = []
        first_party: set[str] = set()
        external: set[str] = set()
        for b in head_imports(sources, path, tree):
            dest = index.target(b, module, path)
            absolute = index.absolute(b, module, path) or b.module
            if dest is None:
                if not index.is_first_party(absolute):
                    external.add(absolute)
                    ex.external.add(absolute.split(".")[0])
                    continue
                first_party.add(absolute)
                # first-party but no source to read (a partial tree, a generated module)
                lost = index.unresolved(b, module, path)
                if lost and lost not in settled and lost != importer:
                    ex.unavailable.add(lost)
                continue
            first_party.add(dest)
            # The importer is in sys.modules while it runs too: importing one of its submodules
            # does not run it again (only ``import M`` / ``from M import name`` reaches it).
            edges.extend(
                p for p in parents(dest) if p not in settled and p != importer and index.path_of(p)
            )
            if dest not in settled:
                edges.append(dest)
        if module == target:
            ex.target_imports = sorted(first_party)
            ex.target_external = sorted(external)
        for dest in edges:
            if dest == importer:
                if not ex.chain:
                    ex.chain = [*chain, dest]
                continue
            if dest in seen:
                continue
            if len(chain) - 1 >= depth:
                ex.truncated = True
                continue
            seen.add(dest)
            queue.append((dest, [*chain, dest]))
    return ex
