"""Dotted module names <-> repository paths: the module index (first-party resolution over the
source roots Python would search) and the path index import pairing resolves bindings with.
"""

from __future__ import annotations

import posixpath
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

from prreport.python.moduleimports import ImportBinding
from prreport.python.sources import SourceFiles

if TYPE_CHECKING:
    from prreport.python.scopeindex import ImportBinding as ScopedBinding


# Directories that hold a project's packages instead of the repository root (``src/pkg``).
LAYOUT_DIRS = ("src", "python", "lib")
# Files that stand for a module without Python source to read (stubs, extensions).
_COMPILED = (".pyi", ".pyx", ".pxd", ".so", ".pyd")


def _is_identifier(name: str) -> bool:
    return name.isidentifier() and not name.startswith(".")


class ModuleIndex:
    """Dotted module name <-> file path for the first-party packages of a repository.

    Source roots in the order Python would search them: ``src/``, ``python/``, ``lib/``, the
    repository root, then the roots of packages nested elsewhere (monorepos). A root's
    top-level names are its single-file modules, regular packages and PEP 420 namespace
    packages (directories with Python files and no ``__init__.py``). A standard-library or
    declared third-party name is claimed only by a module or regular package at the
    repository root, the one place that comes before them on ``sys.path``.
    """

    def __init__(
        self,
        head_paths: Iterable[str],
        first_party: Iterable[str] = (),
        third_party: Iterable[str] = (),
    ) -> None:
        every = sorted(set(head_paths))
        paths = [p for p in every if p.endswith(".py")]
        compiled = [p for p in every if p.endswith(_COMPILED)]
        wanted = set(first_party)
        taken = (set(sys.stdlib_module_names) | set(third_party)) - wanted
        packages = {posixpath.dirname(p) for p in paths if posixpath.basename(p) == "__init__.py"}
        tops = {p.split("/")[0] for p in paths if "/" in p}
        layout = [d for d in LAYOUT_DIRS if d in tops and d not in packages]
        roots: list[str] = [*layout, ""]
        for pkg in sorted(packages, key=lambda d: (d.count("/"), d)):
            parent = posixpath.dirname(pkg)
            if parent in packages or parent in roots or not pkg:
                continue
            parts = parent.split("/")
            # a package below ``.../src/ns/pkg`` (a namespace ``ns``) has its root at ``.../src``
            cut = max((i for i, d in enumerate(parts) if d in LAYOUT_DIRS), default=-1)
            root = "/".join(parts[: cut + 1]) if cut >= 0 else parent
            if root not in roots and not any(root.startswith(r + "/") for r in layout):
                roots.append(root)
        self.roots: tuple[str, ...] = tuple(roots)
        self.top_level: frozenset[str]
        self._path_of: dict[str, str] = {}
        self._module_of: dict[str, str] = {}
        self._namespaces: set[str] = set()
        self._compiled: set[str] = set()
        claimed: dict[str, str] = {}  # top-level name -> its root
        for root in roots:
            prefix = f"{root}/" if root else ""
            for p in paths:
                if not p.startswith(prefix):
                    continue
                rel = p[len(prefix) :][:-3].split("/")
                top = rel[0]
                if top in LAYOUT_DIRS or f"{prefix}{top}" in roots:
                    continue  # a source root of its own, not a package
                regular = len(rel) == 1 or f"{prefix}{top}" in packages
                if claimed.get(top, root) != root:
                    continue  # an earlier root on the path has it
                if top in taken and not (root == "" and regular):
                    continue  # ``import json`` is the standard library's, not ``src/ns/json``
                if rel[-1] == "__init__":
                    rel = rel[:-1]
                if not rel or not all(_is_identifier(part) for part in rel):
                    continue
                claimed[top] = root
                dotted = ".".join(rel)
                self._path_of.setdefault(dotted, p)
                self._module_of.setdefault(p, dotted)
                for i in range(1, len(rel)):
                    pkg = ".".join(rel[:i])
                    if f"{prefix}{'/'.join(rel[:i])}" not in packages:
                        self._namespaces.add(pkg)
            for p in compiled:
                if p.startswith(prefix):
                    rel = p[len(prefix) :].split("/")
                    rel[-1] = rel[-1].split(".")[0]
                    if claimed.get(rel[0]) == root and all(_is_identifier(x) for x in rel):
                        self._compiled.add(".".join(r for r in rel if r != "__init__"))
        self.top_level = frozenset(claimed) | wanted
        self._children: dict[str, set[str]] = {}
        for mod in [*self._path_of, *self._namespaces]:
            if "." in mod:
                self._children.setdefault(mod.rsplit(".", 1)[0], set()).add(mod)

    def children(self, package: str) -> list[str]:
        """The direct submodules and subpackages of a package, sorted."""
        return sorted(self._children.get(package, ()))

    def is_first_party(self, module: str) -> bool:
        """Whether a dotted name belongs to a top-level package of this repository."""
        return module.split(".")[0] in self.top_level

    def path_of(self, module: str) -> str | None:
        """The file of a module (``pkg/__init__.py`` for a package)."""
        return self._path_of.get(module)

    def module_of(self, path: str) -> str | None:
        """The dotted name of a first-party file, None outside the packages."""
        return self._module_of.get(path)

    def runs_nothing(self, module: str) -> bool:
        """A namespace package (no ``__init__.py``) or a compiled/stub-only module: no source."""
        return module in self._namespaces or (
            module in self._compiled and module not in self._path_of
        )

    def absolute(self, b: ImportBinding, importer: str | None, importer_path: str) -> str | None:
        """The absolute module an import statement names (relative imports resolved)."""
        if not b.level:
            return b.module
        if importer is None:
            return None
        parts = importer.split(".")
        if not importer_path.endswith("__init__.py"):
            parts = parts[:-1]
        if b.level - 1 > len(parts):
            return None
        base = parts[: len(parts) - (b.level - 1)]
        return ".".join([*base, *([b.module] if b.module else [])])

    def target(self, b: ImportBinding, importer: str | None, importer_path: str) -> str | None:
        """The first-party module file an import loads (``from pkg import sub`` -> ``pkg.sub``)."""
        mod = self.absolute(b, importer, importer_path)
        if not mod or not self.is_first_party(mod):
            return None
        if b.name and b.name != "*" and self.path_of(f"{mod}.{b.name}"):
            return f"{mod}.{b.name}"
        return mod if self.path_of(mod) else None

    def unresolved(self, b: ImportBinding, importer: str | None, importer_path: str) -> str | None:
        """A first-party module an import names that has no source in the tree (else None)."""
        mod = self.absolute(b, importer, importer_path)
        if b.level and mod is None:
            return f"{'.' * b.level}{b.module}"
        if not mod or not self.is_first_party(mod) or self.target(b, importer, importer_path):
            return None
        if self.runs_nothing(mod) or (b.name and self.runs_nothing(f"{mod}.{b.name}")):
            return None
        return mod


def parents(module: str) -> list[str]:
    """Enclosing packages of a dotted module, outermost first (``a.b.c`` -> ``a``, ``a.b``)."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


class PathIndex:
    """Resolve dotted module names to repository paths (any source root, e.g. ``python/``)."""

    def __init__(self, head_paths: Iterable[str]) -> None:
        self.paths = frozenset(head_paths)
        self._by_tail: dict[str, list[str]] = {}
        for p in sorted(self.paths):
            if p.endswith(".py"):
                tail = posixpath.basename(p)
                if tail == "__init__.py":
                    tail = posixpath.basename(posixpath.dirname(p)) + "/__init__.py"
                self._by_tail.setdefault(tail, []).append(p)

    def _find(self, rel: str) -> str | None:
        if rel in self.paths:
            return rel
        parts = rel.split("/")
        tail = "/".join(parts[-2:]) if parts[-1] == "__init__.py" else parts[-1]
        found = [p for p in self._by_tail.get(tail, ()) if p.endswith("/" + rel)]
        return min(found, key=lambda p: (len(p), p)) if found else None

    def module_path(self, dotted: str, importer: str | None = None, level: int = 0) -> str | None:
        """Path of module ``dotted`` (relative to ``importer`` when ``level`` > 0), or None."""
        if level:
            if importer is None:
                return None
            base = posixpath.dirname(importer).split("/") if posixpath.dirname(importer) else []
            if level > 1:
                base = base[: len(base) - (level - 1)] if level - 1 <= len(base) else []
            parts = base + ([p for p in dotted.split(".") if p] if dotted else [])
            stem = "/".join(parts)
            for cand in (f"{stem}.py", f"{stem}/__init__.py" if stem else "__init__.py"):
                if cand in self.paths:
                    return cand
            return None
        stem = dotted.replace(".", "/")
        return self._find(f"{stem}.py") or self._find(f"{stem}/__init__.py")

    def binding_target(self, b: ScopedBinding, importer: str) -> str | None:
        """Path of the module an import binding loads (a submodule when ``name`` is one)."""
        base = b.module.lstrip(".")
        if b.is_from and b.name and b.name != "*":
            sub = f"{base}.{b.name}" if base else b.name
            hit = self.module_path(sub, importer, b.level)
            if hit:
                return hit
        return self.module_path(base, importer, b.level)


def module_index(sources: SourceFiles, first_party: tuple[str, ...]) -> ModuleIndex:
    """The repository's module index (head paths; the changed files alone on a partial tree)."""
    bundle = sources.bundle
    paths = (*bundle.head_paths, *(f.path for f in bundle.files if f.after is not None))
    return sources.memo(
        "", "", f"module-index:{','.join(first_party)}", lambda: ModuleIndex(paths, first_party)
    )
