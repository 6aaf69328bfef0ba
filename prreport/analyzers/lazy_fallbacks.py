"""Import fallbacks in other modules that an import made lazy (PEP 810) escapes."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from prreport.analyzers import Analyzer, register
from prreport.bundle import PullRequestBundle
from prreport.equivalence.guards import IMPORT_ERRORS, caught
from prreport.findings import ContextRequest, Finding
from prreport.python.importmoves import import_moves
from prreport.python.lazyimports import qualified
from prreport.python.modules import ModuleIndex, module_index
from prreport.python.references import reference_request
from prreport.python.scopes import all_statements, child_blocks
from prreport.python.sources import SourceFiles

# What an ``except`` must catch to take an ImportError (a bare one is BaseException).
_CATCHES = IMPORT_ERRORS | {"Exception", "BaseException"}
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


@dataclass(frozen=True)
class _Escape:
    """A module whose module-level imports of ``names`` became lazy: importing it no longer
    fails when their modules are missing."""

    module: str  # the module that holds the lazy imports (``pkg.backend``)
    path: str
    names: tuple[str, ...]  # the lazy names
    lines: tuple[int, ...]  # their lines
    imported: tuple[str, ...]  # the modules they load (``yaml``)


def _read_at_import(tree: ast.Module) -> set[str]:
    """Names the module reads while it runs (outside function bodies): a lazy import of one of
    them is loaded during the import anyway, and fails there."""
    out: set[str] = set()
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, _FUNCS):
            stack.extend(getattr(node, "decorator_list", []))
            stack.extend([*node.args.defaults, *(d for d in node.args.kw_defaults if d)])
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            out.add(node.id)
        stack.extend(ast.iter_child_nodes(node))
    return out


def _escapes(sources: SourceFiles, index: ModuleIndex) -> list[_Escape]:
    """Modules whose eager module-level imports of modules outside the repository (and the
    standard library) became lazy, and are not read while the module runs."""
    by_path: dict[str, list[tuple[str, int, str]]] = {}
    for m in import_moves(sources.bundle, sources):
        a = m.after
        if m.kind != "made-lazy" or a is None or a.level or index.is_first_party(a.module):
            continue
        if a.module.split(".")[0] in sys.stdlib_module_names:
            continue  # present on every Python: its import does not fail
        by_path.setdefault(m.path, []).append((a.bound, a.line, a.module))
    out = []
    for path, items in sorted(by_path.items()):
        module, tree = index.module_of(path), sources.tree(path, "after")
        if not module or tree is None:
            continue
        read = _read_at_import(tree)
        kept = sorted({x for x in items if x[0] not in read})
        if kept:
            names, lines, imported = (tuple(dict.fromkeys(col)) for col in zip(*kept, strict=True))
            out.append(_Escape(module, path, names, lines, imported))
    return out


def _guarded_imports(
    tree: ast.Module,
) -> Iterator[tuple[ast.Try, str, ast.Import | ast.ImportFrom]]:
    """(``try``, its scope, an import statement in its body) for each ``try`` whose handlers
    catch an ImportError, at any depth."""

    def walk(
        body: list[ast.stmt], scope: str
    ) -> Iterator[tuple[ast.Try, str, ast.Import | ast.ImportFrom]]:
        for st in body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                yield from walk(st.body, st.name if scope == "<module>" else f"{scope}.{st.name}")
                continue
            if isinstance(st, ast.Try) and any(
                h.type is None or _catches(h.type) for h in st.handlers
            ):
                for st_inner in all_statements(st.body):
                    if isinstance(st_inner, (ast.Import, ast.ImportFrom)):
                        yield st, scope, st_inner
            for block in child_blocks(st):
                yield from walk(block, scope)

    yield from walk(tree.body, "<module>")


def _imports_module(st: ast.Import | ast.ImportFrom, module: str, importer: str, path: str) -> bool:
    """Whether running ``st`` (in ``path``, module ``importer``) imports ``module``."""
    if isinstance(st, ast.Import):
        return any(a.name == module or a.name.startswith(module + ".") for a in st.names)
    base = qualified(st.module or "", st.level, importer, path.endswith("__init__.py"))
    if base == module or base.startswith(module + "."):
        return True
    return any(f"{base}.{a.name}" == module for a in st.names)


@register
class LazyFallbacksAnalyzer(Analyzer):
    """Import fallbacks elsewhere that a module's imports made lazy no longer trigger.

    before: ``pkg/backend.py: import yaml`` and ``pkg/__init__.py: try: from pkg import backend
    / except ImportError: backend = None`` · after: ``lazy import yaml`` → ``guard.dropped`` at
    the ``try`` (reason ``dependency-now-required``, ``lazy_names`` ``yaml``): a missing yaml
    no longer fails the import there; it fails at the first use of ``yaml``, uncaught.
    """

    name = "lazy-fallbacks"

    def requests(self, bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
        """The files that name a module whose imports were made lazy (where a fallback around
        its import may be)."""
        escapes = _escapes(sources, module_index(sources, self.config.first_party))
        names = {e.module.rpartition(".")[2] for e in escapes}
        return reference_request(bundle, names) if names else ContextRequest()

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``guard.dropped`` for each fallback around an import of such a module."""
        index = module_index(sources, self.config.first_party)
        findings = []
        for e in _escapes(sources, index):
            short = e.module.rpartition(".")[2]
            hits = {h.rsplit(":", 1)[0] for h in bundle.references.get(short, ())}
            hits |= {f.path for f in sources.python_files() if f.after is not None}
            for path in sorted(hits - {e.path}):
                findings += self._fallbacks(sources, index, e, path)
        return sorted(findings, key=Finding.sort_key)

    def _fallbacks(
        self, sources: SourceFiles, index: ModuleIndex, e: _Escape, path: str
    ) -> list[Finding]:
        tree = sources.tree(path, "head")
        importer = index.module_of(path) or ""
        out, seen = [], set()
        for t, scope, st in _guarded_imports(tree) if tree is not None else ():
            if t.lineno in seen or not _imports_module(st, e.module, importer, path):
                continue
            seen.add(t.lineno)
            handler = next(h for h in t.handlers if h.type is None or _catches(h.type))
            text = "except" + (f" {ast.unparse(handler.type)}" if handler.type else "")
            details = {
                "scope": scope,
                "reason": "dependency-now-required",
                "guard": "try",
                "caught": caught(t),
                "before": [{"line": handler.lineno, "kind": "try", "text": text}],
                "after": [],
                "proven": False,
                "behavior_change": True,
                "lazy_names": list(e.names),
                # PEP 810: importing e.module no longer runs (and fails on) these imports
                "escaped_by": {"module": e.module, "path": e.path, "lines": list(e.lines)},
                "lazy_modules": list(e.imported),
            }
            out.append(
                Finding(
                    "guard.dropped",
                    path,
                    t.lineno,
                    e.module,
                    f"{text} around the import of {e.module} no longer catches a missing "
                    f"{', '.join(e.imported)}: {e.path} imports it lazily now",
                    details,
                )
            )
        return out


def _catches(t: ast.expr) -> bool:
    names = [ast.unparse(x) for x in (t.elts if isinstance(t, ast.Tuple) else [t])]
    return bool(_CATCHES & {n.rsplit(".")[-1] for n in names})
