"""Module-level imports of a file and the repository's module index (first-party resolution).

Only the stdlib ``ast`` is used: this sits on the hot path of the cycle and name analyzers.
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Iterable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class ImportBinding:
    """One name bound by an import statement that runs at import time of its module."""

    module: str  # dotted module as written (without leading dots)
    level: int  # leading dots of a relative import
    name: str  # imported name for ``from`` imports, "" for ``import a.b``
    alias: str  # ``as`` name or ""
    bound: str  # the name the statement binds
    line: int  # line of the alias (the name itself, inside a multi-line block)
    stmt_line: int  # first line of the import statement
    top_level: bool  # a direct child of the module body (not under if/try/with/class)

    @property
    def key(self) -> tuple[int, str, str, str]:
        """Identity of the binding independent of its position."""
        return (self.level, self.module, self.name, self.alias)


def is_type_checking(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING`` (the guard whose body never runs)."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _bindings(stmt: ast.Import | ast.ImportFrom, top: bool) -> Iterator[ImportBinding]:
    for a in stmt.names:
        line = getattr(a, "lineno", None) or stmt.lineno
        if isinstance(stmt, ast.Import):
            bound = a.asname or a.name.split(".")[0]
            yield ImportBinding(a.name, 0, "", a.asname or "", bound, line, stmt.lineno, top)
        else:
            bound = a.asname or a.name
            yield ImportBinding(
                stmt.module or "", stmt.level, a.name, a.asname or "", bound, line, stmt.lineno, top
            )


# try/except and (3.11+) try/except*: the same fields.
_TRY: tuple[type[ast.Try], ...] = (ast.Try, ast.TryStar) if hasattr(ast, "TryStar") else (ast.Try,)


def module_level_imports(tree: ast.Module) -> list[ImportBinding]:
    """Imports executed when the module is imported: not in functions, not under TYPE_CHECKING.

    Class bodies and module-level ``if``/``try``/``with``/loops run at import time, so they count
    (with ``top_level`` False).
    """
    out: list[ImportBinding] = []

    def walk(stmts: Iterable[ast.stmt], top: bool) -> None:
        for st in stmts:
            if isinstance(st, (ast.Import, ast.ImportFrom)):
                out.extend(_bindings(st, top))
            elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            elif isinstance(st, ast.If):
                if not is_type_checking(st.test):
                    walk(st.body, False)
                walk(st.orelse, False)
            elif isinstance(st, ast.ClassDef):
                walk(st.body, False)
            elif isinstance(st, _TRY):
                walk(st.body, False)
                for h in st.handlers:
                    walk(h.body, False)
                walk(st.orelse, False)
                walk(st.finalbody, False)
            elif isinstance(st, (ast.With, ast.AsyncWith)):
                walk(st.body, False)
            elif isinstance(st, (ast.For, ast.AsyncFor, ast.While)):
                walk(st.body, False)
                walk(st.orelse, False)
            elif isinstance(st, ast.Match):
                for case in st.cases:
                    walk(case.body, False)

    walk(tree.body, True)
    return out


def newly_module_level(before: ast.Module | None, after: ast.Module) -> list[ImportBinding]:
    """After-side module-level bindings that were function-local, in a block, or absent before."""
    prev = module_level_imports(before) if before is not None else []
    top_keys = {b.key for b in prev if b.top_level}
    any_keys = {b.key for b in prev}
    out = []
    for b in module_level_imports(after):
        if (b.top_level and b.key not in top_keys) or (not b.top_level and b.key not in any_keys):
            out.append(b)
    return out


class ModuleIndex:
    """Dotted module name <-> file path for the first-party packages of a repository."""

    def __init__(self, head_paths: Iterable[str], first_party: Iterable[str] = ()) -> None:
        paths = sorted(p for p in head_paths if p.endswith(".py"))
        packages = {posixpath.dirname(p) for p in paths if posixpath.basename(p) == "__init__.py"}
        roots: dict[str, set[str]] = {}  # root dir -> top-level names found there
        for pkg in packages:
            parent = posixpath.dirname(pkg)
            if pkg and parent not in packages:
                roots.setdefault(parent, set()).add(posixpath.basename(pkg))
        wanted = set(first_party)
        for name in sorted(wanted):
            # Namespace packages and single-file modules named in the configuration: the
            # shallowest directory holding them is their root.
            hits = [
                p for p in paths if f"/{name}/" in f"/{p}" or posixpath.basename(p) == f"{name}.py"
            ]
            best: str | None = None
            for p in hits:
                parts = p.split("/")
                idx = parts.index(name) if name in parts else len(parts) - 1
                root = "/".join(parts[:idx])
                if (
                    best is None
                    or root.count("/") < best.count("/")
                    or (root.count("/") == best.count("/") and root < best)
                ):
                    best = root
            if best is not None:
                roots.setdefault(best, set()).add(name)
        self.top_level: frozenset[str] = (
            frozenset(n for names in roots.values() for n in names) | wanted
        )
        self._path_of: dict[str, str] = {}
        self._module_of: dict[str, str] = {}
        for root, names in sorted(roots.items(), key=lambda kv: (kv[0].count("/"), kv[0])):
            prefix = f"{root}/" if root else ""
            for p in paths:
                if not p.startswith(prefix):
                    continue
                rel = p[len(prefix) :][:-3].split("/")
                if rel[0] not in names and not (len(rel) == 1 and rel[0] in names):
                    continue
                if rel[-1] == "__init__":
                    rel = rel[:-1]
                dotted = ".".join(rel)
                if dotted and dotted not in self._path_of:
                    self._path_of[dotted] = p
                    self._module_of.setdefault(p, dotted)

    def is_first_party(self, module: str) -> bool:
        """Whether a dotted name belongs to a top-level package of this repository."""
        return module.split(".")[0] in self.top_level

    def path_of(self, module: str) -> str | None:
        """The file of a module (``pkg/__init__.py`` for a package)."""
        return self._path_of.get(module)

    def module_of(self, path: str) -> str | None:
        """The dotted name of a first-party file, None outside the packages."""
        return self._module_of.get(path)

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


def parents(module: str) -> list[str]:
    """Enclosing packages of a dotted module, outermost first (``a.b.c`` -> ``a``, ``a.b``)."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]
