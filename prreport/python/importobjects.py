"""What an import binding loads: a module file, or the definition a module-level name resolves to.

Names are followed through re-exports (``from .b import f`` in ``a``) in the changed files and
the context files, before or after the change, so that two spellings of one import can be told
to load the same object.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from prreport.bundle import PullRequestBundle
from prreport.python.modules import PathIndex
from prreport.python.scopeindex import ImportBinding
from prreport.python.sources import SourceFiles


class ImportObjects:
    """What an import binding loads: a module file, or the definition a name resolves to.

    Module-level names are followed through re-exports (``from .b import f`` in ``a``) in the
    changed files and the context files, before or after the change.
    """

    def __init__(self, bundle: PullRequestBundle, sources: SourceFiles, paths: PathIndex | None):
        self.bundle = bundle
        self.sources = sources
        self.paths = paths
        self._names: dict[tuple[str, str], tuple[set[str], dict[str, tuple[str, int, str]]]] = {}

    def _module(self, dotted: str, importer: str, level: int) -> str | None:
        if self.paths is not None:
            hit = self.paths.module_path(dotted, importer, level)
            if hit is not None:
                return hit
            if level:
                return None
            top = self.paths.module_path(dotted.split(".")[0])
            if top is not None:
                return None  # first-party, but no such module: not a module
        return None if level else f"dotted:{dotted}"

    def module_ref(self, b: ImportBinding, importer: str) -> str | None:
        """The module object a binding binds: ``import a.b`` / ``from a import b`` (a module)."""
        if not b.is_from:
            return self._module(b.module, importer, 0)
        if not b.name or b.name == "*":
            return None
        base = b.module.lstrip(".")
        return self._module(f"{base}.{b.name}" if base else b.name, importer, b.level)

    def from_module(self, b: ImportBinding, importer: str) -> str | None:
        """The module a ``from M import x`` binding takes ``x`` from."""
        if not b.is_from:
            return None
        return self._module(b.module.lstrip("."), importer, b.level)

    def _tree(self, path: str, side: str) -> ast.Module | None:
        bundle, sources = self.bundle, self.sources
        if side == "after":
            f = bundle.file(path)
            if f is not None:
                return sources.tree(path, "after") if f.after is not None else None
        else:
            fb = next((f for f in bundle.files if f.before_path == path), None)
            if fb is not None:
                return sources.tree(path, "before") if fb.before is not None else None
            if bundle.file(path) is not None:
                return None  # added by the change: absent before
        # an unchanged file is the same before and after
        return sources.tree(path, "head") if bundle.context_files.get(path) else None

    def _module_names(
        self, path: str, side: str
    ) -> tuple[set[str], dict[str, tuple[str, int, str]]] | None:
        """(names defined, {name: (module, level, imported name)}) at module level of a file."""
        key = (path, side)
        if key not in self._names:
            tree = self._tree(path, side)
            if tree is None:
                return None
            defs: set[str] = set()
            imports: dict[str, tuple[str, int, str]] = {}
            for st in _module_statements(tree.body):
                if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    defs.add(st.name)
                elif isinstance(st, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                    targets = st.targets if isinstance(st, ast.Assign) else [st.target]
                    for t in targets:
                        defs.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
                elif isinstance(st, ast.ImportFrom):
                    for a in st.names:
                        imports[a.asname or a.name] = (st.module or "", st.level, a.name)
            self._names[key] = (defs, imports)
        return self._names[key]

    def origin(self, path: str, name: str, side: str, depth: int = 4) -> tuple[str, str] | None:
        """(file, name) of the definition a module-level name resolves to, None when unknown."""
        names = self._module_names(path, side)
        if names is None:
            return None
        defs, imports = names
        if name in defs:
            return (path, name)
        if name in imports:
            module, level, orig = imports[name]
            target = self._module(module, path, level)
            if target is None:
                return None
            if depth > 0 and not target.startswith("dotted:"):
                found = self.origin(target, orig, side, depth - 1)
                if found is not None:
                    return found
            return (target, orig)
        return None

    def same_object(self, b: ImportBinding, b_file: str, a: ImportBinding, a_file: str) -> bool:
        """``from A import n`` and ``from B import n`` bind the same object after the change.

        Either spelling re-exports the other after the change, or the definition of ``n`` moved
        from ``A`` to ``B`` (the symbol analyzers judge the moved body).
        """
        if not (b.is_from and a.is_from) or b.bound != a.bound or "*" in (b.name, a.name):
            return False
        if b.name is None or a.name is None:
            return False
        pb = self.from_module(b, b_file)
        pa = self.from_module(a, a_file)
        if pb is None or pa is None or pb.startswith("dotted:") or pa.startswith("dotted:"):
            return False
        ob, oa = self.origin(pb, b.name, "after"), self.origin(pa, a.name, "after")
        if ob is not None and ob == oa:
            return True
        return (
            self.origin(pb, b.name, "before") == (pb, b.name)
            and oa == (pa, a.name)
            and self.origin(pa, a.name, "before") != (pa, a.name)
            and ob != (pb, b.name)
        )

    def same(self, b: ImportBinding, b_file: str, a: ImportBinding, a_file: str) -> bool:
        """Whether two spellings load the same module object or bind the same definition."""
        mb, ma = self.module_ref(b, b_file), self.module_ref(a, a_file)
        if mb is not None and (mb == ma or mb == self.from_module(a, a_file)):
            return True
        fb = self.from_module(b, b_file)
        if fb is not None and fb == ma:
            return True
        return self.same_object(b, b_file, a, a_file)


def _module_statements(body: Iterable[ast.stmt]) -> Iterable[ast.stmt]:
    """Statements run when the module is imported (module-level blocks included)."""
    for st in body:
        yield st
        if isinstance(st, ast.If):
            yield from _module_statements(st.body)
            yield from _module_statements(st.orelse)
        elif isinstance(st, (ast.Try, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))):
            yield from _module_statements(st.body)  # type: ignore[attr-defined]
            for h in st.handlers:  # type: ignore[attr-defined]
                yield from _module_statements(h.body)
            yield from _module_statements(st.orelse)  # type: ignore[attr-defined]
            yield from _module_statements(st.finalbody)  # type: ignore[attr-defined]
        elif isinstance(st, (ast.With, ast.AsyncWith)):
            yield from _module_statements(st.body)
