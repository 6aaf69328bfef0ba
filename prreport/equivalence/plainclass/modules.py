"""Where a class's code is read: the repository file of a dotted module, and what to fetch.

``moved_constructions`` says which modules to fetch before the comparison: those defining the
classes built by keyword in functions whose change moves a line (what ``moved-assignment``
needs); ``defining_files`` those a module-level import of a name comes from.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Iterator, Sequence
from functools import partial

from prreport.bundle import FileChange
from prreport.equivalence.canonical import module_bindings
from prreport.python.scopes import single_binding
from prreport.python.sources import SourceFiles
from prreport.textlines import split_lines


def _module_files(sources: SourceFiles, module: str) -> list[str]:
    """Repository files that may hold a dotted module (source roots such as ``src/`` allowed)."""
    rel = module.replace(".", "/")
    wanted = (f"{rel}.py", f"{rel}/__init__.py")
    paths = set(sources.bundle.head_paths) | {f.path for f in sources.bundle.files}
    return sorted(p for p in paths if p in wanted or p.endswith(tuple("/" + w for w in wanted)))


def module_file(sources: SourceFiles, module: str) -> str | None:
    """The one repository file a dotted module can be, or None: a package re-exporting the
    class (``__init__.py``) is not followed, and when several files could be the module (a
    vendored or test copy, ``src/pkg/m.py`` and ``examples/pkg/m.py``) which one is imported
    is not known."""
    found = _module_files(sources, module)
    if len(found) != 1 or found[0].endswith("__init__.py"):
        return None
    return found[0]


def read_at(sources: SourceFiles, path: str, side: str) -> tuple[str, str]:
    """The (path, side) to read a module file at, for code of ``side``: a file the change
    touches at that side, any other at head (the same before and after)."""
    for f in sources.bundle.files:
        if f.path == path or f.before_path == path:
            return (f.before_path, "before") if side == "before" else (f.path, "after")
    return path, "head"


def defining_files(sources: SourceFiles, path: str, side: str, name: str) -> list[str]:
    """Files to fetch so that ``name`` (a module-level import in ``path``) can be judged."""
    tree = sources.tree(path, side)
    if tree is None or not isinstance(single_binding(tree, name), ast.ImportFrom):
        return []
    target = module_bindings(tree, path).get(name)
    if target is None:
        return []
    module = target.rpartition(".")[0]
    return [p for p in _module_files(sources, module) if sources.text(p, "head") is None]


def moved_constructions(sources: SourceFiles) -> set[str]:
    """Files defining the classes built by keyword (``n = C(a=x)``) in functions whose change
    moves a line (the same text removed and added): what ``moved-assignment`` needs. Worked
    out once per file (the planning rounds ask again)."""
    wanted: set[str] = set()
    for f in sources.bundle.files:
        if not f.path.endswith(".py") or f.before is None or f.after is None:
            continue
        build = partial(_moved_constructions, sources, f)
        wanted |= sources.memo(f.before_path, "before", "moved-constructions", build)
    return wanted


def _moved_constructions(sources: SourceFiles, f: FileChange) -> frozenset[str]:
    changed = sources.changed(f)
    if not changed.removed or not changed.added:
        return frozenset()
    old = sources.memo(f.before_path, "before", "lines", partial(split_lines, f.before or ""))
    new = sources.memo(f.path, "after", "lines", partial(split_lines, f.after or ""))
    came = {new[n - 1].strip() for n in changed.added if n <= len(new)}
    moved = sorted(
        n
        for n in changed.removed
        if n <= len(old)
        and (line := old[n - 1].strip())[:1].isalpha()
        and line in came
        # An import moved is an import move (imports are not compared as behaviour).
        and not line.startswith(("import ", "from "))
    )
    tree = sources.tree(f.before_path, "before") if moved else None
    if tree is None:
        return frozenset()
    wanted: set[str] = set()
    for fn in _functions_holding(tree.body, moved):
        for st in ast.walk(fn):
            if (
                isinstance(st, ast.Assign)
                and isinstance(st.value, ast.Call)
                and isinstance(st.value.func, ast.Name)
                and st.value.func.id[:1].isupper()
                and st.value.keywords
                and not st.value.args
            ):
                name = st.value.func.id
                wanted |= set(defining_files(sources, f.before_path, "before", name))
    return frozenset(wanted)


def _functions_holding(
    body: Sequence[ast.AST], lines: list[int]
) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The functions (nested ones too) whose span holds one of ``lines`` (sorted): only the
    statements spanning such a line are entered, not the whole tree."""
    for st in body:
        if isinstance(st, ast.match_case):  # no line numbers of its own
            yield from _functions_holding(st.body, lines)
            continue
        start = getattr(st, "lineno", 0)
        end = getattr(st, "end_lineno", None) or start
        i = bisect.bisect_left(lines, start)
        if i == len(lines) or lines[i] > end:
            continue
        if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef):
            yield st
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            sub = getattr(st, field, None)
            if isinstance(sub, list) and sub:
                yield from _functions_holding(sub, lines)
