"""Which changed files of a PR are library API, as modules below their source roots: what the
public API comparison (``publicapi``) loads, and the package ``__init__.py`` it reads with them.

Library code only: no test, docs, example, benchmark or script package, no ``__main__``, no
single-file script beside the code or file a tool reads by name (``setup.py``, ``noxfile.py``).
A PEP 420 namespace package below ``src/`` (``src/poetry/utils/...`` with no
``src/poetry/__init__.py``) is named from the source root.
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from prreport.bundle import FileChange, PullRequestBundle
from prreport.classify import category, python_module_path
from prreport.python.sources import SourceFiles

# Directories whose packages are no library API, wherever they sit (tests/, testing/ and docs/
# are test and docs by their category already).
_NOT_LIBRARY = frozenset(
    {"tests", "test", "testing", "docs", "doc", "examples", "example", "benchmarks", "benchmark"}
    | {"scripts", "tools", "bin", "demo", "demos"}
)
# Single-file modules at a source root that tools read by name: no one imports them.
_TOOL_FILES = frozenset(
    {"setup", "noxfile", "tasks", "fabfile", "manage", "conftest", "conf", "dodo", "__main__"}
)
_SOURCE_ROOTS = ("", "src", "python", "lib")


@dataclass(frozen=True)
class LibraryFile:
    """A changed library file as a module below its source root."""

    path: str  # repository path
    root: str  # source root directory ("" for the repository root)
    rel: str  # path below the root
    module: str  # dotted module name


def _safe(path: str) -> bool:
    return "\\" not in path and all(p not in ("", ".", "..") for p in path.split("/"))


def located(path: str, heads: Iterable[str]) -> LibraryFile | None:
    """The module a library file is, below which source root; None when it is not library API."""
    if not path.endswith(".py") or not _safe(path) or category(path) != "source":
        return None
    module = python_module_path(path, heads)
    names = module.split(".") if module else []
    if not names or not all(n.isidentifier() for n in names):
        return None
    init = posixpath.basename(path) == "__init__.py"
    depth = len(names) + (1 if init else 0)
    parts = path.split("/")
    if depth > len(parts):
        return None
    root = "/".join(parts[: len(parts) - depth])
    for layout in _SOURCE_ROOTS[1:]:
        spaces = root.split("/")[1:]
        if root.startswith(layout + "/") and all(n.isidentifier() for n in spaces):
            # namespace packages below a source root: ``src/ns/pkg/mod.py`` is ``ns.pkg.mod``
            names, depth, root = [*spaces, *names], depth + len(spaces), layout
            break
    if set(root.split("/")) & _NOT_LIBRARY or names[0] in _NOT_LIBRARY or "__main__" in names:
        return None
    if len(names) == 1 and not init and (root not in _SOURCE_ROOTS or names[0] in _TOOL_FILES):
        return None  # a script beside the code, or a tool's file
    return LibraryFile(path, root, "/".join(parts[len(parts) - depth :]), ".".join(names))


def head_paths(bundle: PullRequestBundle) -> tuple[str, ...]:
    """Every path at head, and every changed file's paths (a deleted package is still named)."""
    paths = set(bundle.head_paths)
    for f in bundle.files:
        paths.add(f.path)
        paths.add(f.before_path)
    return tuple(sorted(paths))


def library_files(
    sources: SourceFiles,
) -> list[tuple[FileChange, LibraryFile | None, LibraryFile | None]]:
    """Changed library files every side of which parses: (file, before module, after module)."""
    heads = head_paths(sources.bundle)
    out = []
    for f in sources.python_files():
        before = located(f.before_path, heads) if f.before is not None else None
        after = located(f.path, heads) if f.after is not None else None
        if before is not None or after is not None:
            out.append((f, before, after))
    return out


def package_inits(files: Iterable[LibraryFile], heads: Iterable[str]) -> set[str]:
    """The ``__init__.py`` of every package above the given modules that exists at head."""
    have = set(heads)
    out = set()
    for m in files:
        prefix = f"{m.root}/" if m.root else ""
        parts = m.rel.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            init = prefix + "/".join(parts[:i]) + "/__init__.py"
            if init in have:
                out.add(init)
    return out


def context_wanted(sources: SourceFiles) -> frozenset[str]:
    """The package ``__init__.py`` files the comparison reads besides the changed files."""
    bundle = sources.bundle
    changed = {f.path for f in bundle.files} | {f.before_path for f in bundle.files}
    mods = [m for _f, b, a in library_files(sources) for m in (b, a) if m is not None]
    return frozenset(package_inits(mods, head_paths(bundle)) - changed)


def surface(sources: SourceFiles, path: str, side: str) -> str:
    """What of a module side its public API can depend on, as text: the names it binds at module
    and class level, every signature, decorator and base, its imports where they may be exports,
    and the whole of ``__all__`` and of name-to-name assignments (aliases); function bodies are
    left out. Two sides with the
    same surface have the same API, so the comparison need not load them."""
    tree, text = sources.tree(path, side), sources.text(path, side)
    if tree is None or text is None:
        return ""
    lines = text.splitlines()
    # An import is public only where it is exported: listed in an ``__all__``, or re-exported
    # by a package ``__init__``; elsewhere imports are no part of the module's API.
    imports = path.endswith("__init__.py") or "__all__" in text
    return sources.memo(
        path, side, "api-surface", lambda: "\n".join(_surface(tree.body, lines, imports))
    )


def _span(lines: list[str], start: int, end: int) -> str:
    return " ".join(line.strip() for line in lines[start - 1 : end])


def _surface(body: list[ast.stmt], lines: list[str], imports: bool) -> Iterator[str]:
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            top = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            inner = node.body[0].lineno
            yield _span(lines, top, inner - 1 if inner > node.lineno else node.lineno)
            if isinstance(node, ast.ClassDef):
                yield from _surface(node.body, lines, imports)
                yield "end"
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            alias = isinstance(node.value, (ast.Name, ast.Attribute))
            listed = any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)
            if alias or listed or not all(isinstance(t, ast.Name) for t in targets):
                yield _span(lines, node.lineno, node.end_lineno or node.lineno)
            else:
                yield "= " + " ".join(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
            # definitions made under a condition or in a ``try`` are names of the module too
            for block in ("body", "orelse", "finalbody"):
                yield from _surface(getattr(node, block, []) or [], lines, imports)
            for handler in getattr(node, "handlers", []) or []:
                yield from _surface(handler.body, lines, imports)
            yield f"block {type(node).__name__}"
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and not imports:
            continue
        elif not isinstance(node, (ast.Expr, ast.Pass)):
            yield _span(lines, node.lineno, node.end_lineno or node.lineno)  # imports and the rest


def signature_text(sources: SourceFiles, path: str, side: str) -> str | None:
    """A module side's text with every function body blanked out to ``...`` on its first line:
    the same signatures, classes, imports and module-level code on the same line numbers, a
    fraction of the text to parse (the comparison reads no body)."""
    text = sources.text(path, side)
    tree = sources.tree(path, side)
    if text is None or tree is None:
        return text
    lines = text.splitlines(keepends=True)
    for node in _outer_functions(tree.body):
        first = node.body[0]
        start, end = first.lineno, node.end_lineno or first.lineno
        if start <= node.lineno or lines[start - 1][: first.col_offset].strip():
            continue  # a body on its header's line: left as it is
        for i in range(start, min(end, len(lines))):
            lines[i] = "\n"
        lines[start - 1] = " " * first.col_offset + "...\n"
    return "".join(lines)


def _outer_functions(body: list[ast.stmt]) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Functions and methods not nested in a function (in classes and blocks too)."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node
        elif isinstance(node, ast.ClassDef):
            yield from _outer_functions(node.body)
        elif isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
            for block in ("body", "orelse", "finalbody"):
                yield from _outer_functions(getattr(node, block, []) or [])
            for handler in getattr(node, "handlers", []) or []:
                yield from _outer_functions(handler.body)
