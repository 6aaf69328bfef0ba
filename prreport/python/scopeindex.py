"""The scope index of a file: every import binding and loop, with its scope and guard chain.

``index`` builds it from a tree; ``scope_index`` and ``head_scope_index`` are the ones memoised
per file side of a PR.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from prreport.python.scopes import MODULE_SCOPE, SourceText, source_text
from prreport.python.sources import SourceFiles
from prreport.python.walk import Guard, Pending, Walker, loop_header, realise


@dataclass(frozen=True)
class ImportBinding:
    """A name bound by an import statement, where it is bound and under which guards."""

    module: str  # dotted, with leading dots for relative imports; for ``import a.b``: "a.b"
    name: str | None  # imported name for ``from X import name``; None for ``import X``
    alias: str | None
    bound: str
    line: int  # line of the name itself (inside a parenthesised block)
    end_line: int
    stmt_line: int
    stmt_end_line: int
    scope: str
    context: tuple[Guard, ...]
    level: int = 0
    stmt_size: int = 1
    is_from: bool = False
    lazy: bool = False  # PEP 810 ``lazy import`` / ``lazy from`` (the parse door's ``is_lazy``)

    @property
    def key(self) -> tuple[str, str | None, str | None]:
        """Identity across versions: (module, name, alias)."""
        return (self.module, self.name, self.alias)

    @property
    def at_module_level(self) -> bool:
        """True when bound in the module namespace (possibly under module-level guards)."""
        return self.scope == MODULE_SCOPE

    @property
    def type_checking(self) -> bool:
        """True when only bound under ``if TYPE_CHECKING:``."""
        return any(g.kind == "if" and g.text.endswith("TYPE_CHECKING") for g in self.context)

    @property
    def statement(self) -> tuple[str, int]:
        """The import statement the binding belongs to in its file side: (scope, first line)."""
        return (self.scope, self.stmt_line)

    def context_key(self) -> tuple[tuple[str, str], ...]:
        """Formatting-independent identity of the guard chain."""
        return tuple(g.key() for g in self.context)


@dataclass(frozen=True)
class Loop:
    """A loop with the import statements lexically in its body (same function)."""

    scope: str
    header: str
    line: int
    end_line: int
    import_lines: tuple[int, ...]
    context: tuple[Guard, ...]


@dataclass(frozen=True)
class ScopeIndex:
    """Import bindings and loops of one file, in source order."""

    imports: tuple[ImportBinding, ...]
    loops: tuple[Loop, ...]
    scopes: dict[str, tuple[int, int]]
    classes: frozenset[str] = frozenset()  # the scopes that are class bodies


class _Indexer(Walker):
    wanted = frozenset({ast.Import, ast.ImportFrom, ast.For, ast.AsyncFor, ast.While})

    def __init__(self, src: SourceText) -> None:
        super().__init__(src)
        self.imports: list[ImportBinding] = []
        self.loop_imports: dict[int, list[int]] = {}
        self.loops: list[tuple[ast.For | ast.AsyncFor | ast.While, str, Pending]] = []
        self.scopes: dict[str, tuple[int, int]] = {}
        self.classes: set[str] = set()

    def on_scope(self, qualname: str, st: ast.stmt) -> None:
        self.scopes[qualname] = (st.lineno, st.end_lineno or st.lineno)
        if isinstance(st, ast.ClassDef):
            self.classes.add(qualname)

    def on_stmt(self, st: ast.stmt, scope: str, ctx: Pending) -> None:
        if isinstance(st, (ast.For, ast.AsyncFor, ast.While)):
            self.loops.append((st, scope, ctx))
            self.loop_imports[id(st)] = []
            return
        if isinstance(st, ast.Import):
            guards = realise(ctx)
            for a in st.names:
                bound = a.asname or a.name.split(".")[0]
                self.imports.append(
                    ImportBinding(
                        a.name,
                        None,
                        a.asname,
                        bound,
                        getattr(a, "lineno", st.lineno),
                        getattr(a, "end_lineno", st.end_lineno) or st.lineno,
                        st.lineno,
                        st.end_lineno or st.lineno,
                        scope,
                        guards,
                        0,
                        len(st.names),
                        False,
                        bool(getattr(st, "is_lazy", False)),
                    )
                )
        elif isinstance(st, ast.ImportFrom):
            module = "." * st.level + (st.module or "")
            guards = realise(ctx)
            for a in st.names:
                self.imports.append(
                    ImportBinding(
                        module,
                        a.name,
                        a.asname,
                        a.asname or a.name,
                        getattr(a, "lineno", st.lineno),
                        getattr(a, "end_lineno", st.end_lineno) or st.lineno,
                        st.lineno,
                        st.end_lineno or st.lineno,
                        scope,
                        guards,
                        st.level,
                        len(st.names),
                        True,
                        bool(getattr(st, "is_lazy", False)),
                    )
                )
        else:
            return
        for g in ctx:
            if g.kind == "loop":
                self.loop_imports[id(g.node)].append(st.lineno)


def index(tree: ast.Module, text: str) -> ScopeIndex:
    """Every import binding and loop of a parsed file."""
    src = source_text(text)
    ix = _Indexer(src)
    ix.walk(tree)
    loops = tuple(
        Loop(
            scope,
            loop_header(src, st),
            st.lineno,
            st.end_lineno or st.lineno,
            tuple(ix.loop_imports[id(st)]),
            realise(ctx),
        )
        for st, scope, ctx in ix.loops
    )
    return ScopeIndex(tuple(ix.imports), loops, ix.scopes, frozenset(ix.classes))


def scope_index(sources: SourceFiles, path: str, side: str) -> ScopeIndex | None:
    """The (memoised) scope index of a file side, or None when absent or unparseable."""

    def build() -> ScopeIndex | None:
        tree = sources.tree(path, side)
        text = sources.text(path, side)
        return None if tree is None or text is None else index(tree, text)

    return sources.memo(path, side, "pyscope", build)


def head_scope_index(sources: SourceFiles, path: str) -> ScopeIndex | None:
    """The (memoised) scope index of a file at head: a changed file's after side, else a
    context file."""
    if sources.bundle.file(path) is not None:
        return scope_index(sources, path, "after")

    def build() -> ScopeIndex | None:
        tree = sources.tree(path, "head")
        text = sources.text(path, "head")
        return None if tree is None or text is None else index(tree, text)

    return sources.memo(path, "head", "pyscope", build)
