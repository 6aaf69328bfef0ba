"""The imports a module runs when it is imported: its module-level import bindings (not those in
functions, under ``TYPE_CHECKING`` or in a ``__main__`` block), and those of a file at head.

Only the stdlib ``ast`` is used: this sits on the hot path of the cycle and name analyzers.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial

from prreport.python.sources import SourceFiles


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
    lazy: bool = (
        False  # PEP 810 ``lazy import``: loaded at first use (eager under lazy_imports=none)
    )

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
    lazy = bool(getattr(stmt, "is_lazy", 0))
    for a in stmt.names:
        line = getattr(a, "lineno", None) or stmt.lineno
        if isinstance(stmt, ast.Import):
            bound = a.asname or a.name.split(".")[0]
            yield ImportBinding(a.name, 0, "", a.asname or "", bound, line, stmt.lineno, top, lazy)
        else:
            bound = a.asname or a.name
            yield ImportBinding(
                stmt.module or "",
                stmt.level,
                a.name,
                a.asname or "",
                bound,
                line,
                stmt.lineno,
                top,
                lazy,
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


def newly_module_level(
    before: ast.Module | None,
    after: ast.Module,
    listed_before: Callable[[ImportBinding], bool] | None = None,
) -> list[ImportBinding]:
    """After-side module-level bindings that were function-local, in a block, or absent before
    (or ``lazy`` before and eager now: loaded at import time from now on; ``listed_before``:
    lazy before through a ``__lazy_modules__`` that no longer lists its module)."""
    prev = (
        [
            b
            for b in module_level_imports(before)
            if not b.lazy and not (listed_before and listed_before(b))
        ]
        if before is not None
        else []
    )
    top_keys = {b.key for b in prev if b.top_level}
    any_keys = {b.key for b in prev}
    out = []
    for b in module_level_imports(after):
        if (b.top_level and b.key not in top_keys) or (not b.top_level and b.key not in any_keys):
            out.append(b)
    return out


def head_tree(sources: SourceFiles, path: str) -> tuple[ast.Module | None, bool]:
    """(tree or None, fetched?) for a file at head: a changed file's after side or a context file."""
    bundle = sources.bundle
    f = bundle.file(path)
    if f is not None and f.after is not None:
        return sources.tree(path, "after"), True
    if path not in bundle.context_files:
        return None, False
    return sources.tree(path, "head"), True


def head_imports(sources: SourceFiles, path: str, tree: ast.Module) -> list[ImportBinding]:
    """The imports a head file runs when it is imported, listed once per bundle (every walk
    reads them)."""
    imports: list[ImportBinding] = sources.memo(
        path, "head", "module-imports", partial(imports_at_import, tree)
    )
    return imports


def imports_at_import(tree: ast.Module) -> list[ImportBinding]:
    """Module-level imports that run when the module is imported: not those of an ``if __name__
    == "__main__":`` block (a script's, run only as ``python -m``)."""
    scripts = [
        (st.body[0].lineno, st.body[-1].end_lineno or st.body[-1].lineno)
        for st in tree.body
        if isinstance(st, ast.If) and _is_main(st.test)
    ]
    return [b for b in module_level_imports(tree) if not any(a <= b.line <= z for a, z in scripts)]


def _is_main(test: ast.expr) -> bool:
    """``__name__ == "__main__"`` (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    sides = [test.left, test.comparators[0]]
    return (
        isinstance(test.ops[0], ast.Eq)
        and any(isinstance(x, ast.Name) and x.id == "__name__" for x in sides)
        and any(isinstance(x, ast.Constant) and x.value == "__main__" for x in sides)
    )
