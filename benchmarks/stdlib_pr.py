"""A 2 MB refactor PR made of real code: 12 large standard-library modules whose module-level
imports were function-local (inside the loops that use them) before, hoisted after.

The *after* side of each file is the running interpreter's own module, unchanged; the *before*
side moves up to a few of its one-name import statements into every function that uses
``X`` (into the innermost loop around the use when there is one). The modules' own
function-local imports stay as they are, so the lazy-import, cycle, behaviour and follow-up
codemod paths of a real hoist PR all run.
"""

from __future__ import annotations

import ast
import difflib
import importlib.util
from pathlib import Path

from prreport.bundle import FileChange, PullRequestBundle, PullRequestMeta

MODULES = (
    "typing",
    "argparse",
    "subprocess",
    "inspect",
    "tarfile",
    "zipfile",
    "pathlib",
    "dataclasses",
    "enum",
    "logging",
    "email.message",
    "http.client",
)
# Module-level imports turned function-local per module (the first ones that qualify).
_PER_MODULE = 3
_DUNDER = frozenset({"annotations"})

_Func = ast.FunctionDef | ast.AsyncFunctionDef


def _file_change(path: str, before: str, after: str) -> FileChange:
    """A modified file of the bench PR, with its unified diff and line counts."""
    diff = list(
        difflib.unified_diff(
            before.splitlines(True), after.splitlines(True), f"a/{path}", f"b/{path}", n=3
        )
    )
    added = sum(1 for ln in diff if ln.startswith("+") and not ln.startswith("+++"))
    removed = sum(1 for ln in diff if ln.startswith("-") and not ln.startswith("---"))
    return FileChange(
        path, "modified", added, removed, patch="".join(diff), before=before, after=after
    )


def _origin(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise SystemExit(f"standard-library module {name} not found")
    return Path(spec.origin)


def _repo_path(name: str, origin: Path) -> str:
    """``Lib/<module path>`` as in the CPython repository."""
    rel = name.replace(".", "/")
    return f"Lib/{rel}/__init__.py" if origin.name == "__init__.py" else f"Lib/{rel}.py"


def _start(st: ast.stmt) -> int:
    """First line of a statement, decorators included."""
    decos = getattr(st, "decorator_list", None) or []
    return min([st.lineno, *(d.lineno for d in decos)])


class _Uses(ast.NodeVisitor):
    """For one bound name: the body where each use needs a local import (or None: unusable)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.ok = True
        self.sites: set[tuple[int, int]] = set()  # (line, column) to insert ``import X`` at
        self.in_loop = False
        self._func: list[_Func] = []
        self._loop: list[ast.For | ast.AsyncFor | ast.While | None] = []

    def _site(self, body: list[ast.stmt], head_line: int) -> None:
        first = body[0]
        if (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ):
            if len(body) == 1:
                self.ok = False
                return
            first = body[1]
        line = _start(first)
        if line <= head_line:  # ``for x in y: stmt`` on one line
            self.ok = False
            return
        self.sites.add((line, first.col_offset))

    def visit_Name(self, node: ast.Name) -> None:
        if node.id != self.name:
            return
        if not self._func or isinstance(node.ctx, ast.Store | ast.Del):
            self.ok = False  # used at module or class level, or rebound: not movable
            return
        loop = self._loop[-1]
        if loop is not None:
            self.in_loop = True
            self._site(loop.body, loop.lineno)
        else:
            self._site(self._func[-1].body, self._func[-1].lineno)

    def _function(self, node: _Func) -> None:
        for d in node.decorator_list:
            self.visit(d)
        self.visit(node.args)  # defaults and annotations run in the enclosing scope
        if node.returns is not None:
            self.visit(node.returns)
        self._func.append(node)
        self._loop.append(None)
        for st in node.body:
            self.visit(st)
        self._loop.pop()
        self._func.pop()

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def _loop_stmt(self, node: ast.For | ast.AsyncFor | ast.While) -> None:
        if isinstance(node, ast.For | ast.AsyncFor):
            self.visit(node.target)
            self.visit(node.iter)
        else:
            self.visit(node.test)
        if not self._func:
            self.generic_visit(node)
            return
        self._loop.append(node)
        for st in node.body:
            self.visit(st)
        self._loop.pop()
        for st in node.orelse:
            self.visit(st)

    visit_For = _loop_stmt
    visit_AsyncFor = _loop_stmt
    visit_While = _loop_stmt


def make_before(after: str) -> tuple[str, list[str]]:
    """The *before* text of a hoist PR whose *after* is ``after``, and the modules moved."""
    tree = ast.parse(after)
    lines = after.splitlines(keepends=True)
    drop: set[int] = set()
    inserts: dict[tuple[int, int], list[str]] = {}
    moved: list[str] = []
    for st in tree.body:
        if len(moved) >= _PER_MODULE:
            break
        if not isinstance(st, ast.Import | ast.ImportFrom) or st.end_lineno != st.lineno:
            continue
        if getattr(st, "level", 0) or any(a.name == "*" for a in st.names):
            continue
        bound = [a.asname or a.name for a in st.names]
        if any("." in b or b in _DUNDER for b in bound):
            continue
        sites: set[tuple[int, int]] = set()
        for b in bound:
            uses = _Uses(b)
            uses.visit(tree)
            if not uses.ok or not uses.sites:
                break
            sites |= uses.sites
        else:
            text = ast.unparse(st)
            drop.add(st.lineno)
            for site in sites:
                inserts.setdefault(site, []).append(text)
            moved.extend(bound)
    out: list[str] = []
    for no, line in enumerate(lines, 1):
        if no in drop:
            continue
        for (at, col), stmts in sorted(inserts.items()):
            if at == no:
                out.extend(" " * col + s + "\n" for s in stmts)
        out.append(line)
    before = "".join(out)
    ast.parse(before)  # the builder must make valid Python
    return before, moved


def stdlib_bundle() -> PullRequestBundle:
    """The PR: every module of ``MODULES``, before (imports in loops) → after (the real module)."""
    files = []
    hoisted: list[str] = []
    for name in MODULES:
        origin = _origin(name)
        after = origin.read_text(encoding="utf-8")
        before, moved = make_before(after)
        path = _repo_path(name, origin)
        hoisted.extend(f"{m} ({path})" for m in moved)
        files.append(_file_change(path, before, after))
    meta = PullRequestMeta(
        repo="bench/cpython",
        number=2,
        title="refactor: hoist imports out of loops in 12 standard-library modules",
        body="Hoists function-local imports to module level: " + ", ".join(hoisted) + ".",
        author="bench",
        base_sha="2" * 40,
        head_sha="3" * 40,
    )
    return PullRequestBundle(
        source="bundle",
        pr=meta,
        files=tuple(files),
        head_paths=tuple(sorted(f.path for f in files)),
    )


def _first_module_import(tree: ast.Module) -> str | None:
    """``import M`` of the module's first plain module-level ``import M`` (one name, no alias)."""
    for st in tree.body:
        if isinstance(st, ast.Import) and len(st.names) == 1 and st.names[0].asname is None:
            return f"import {st.names[0].name}"
    return None


def _first_loop(fn: _Func) -> ast.For | ast.AsyncFor | ast.While | None:
    """The first loop of ``fn``'s own body (nested definitions left out), in source order."""
    todo: list[ast.AST] = list(reversed(fn.body))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.For | ast.AsyncFor | ast.While):
            return node
        if isinstance(node, _Func | ast.ClassDef | ast.Lambda):
            continue
        todo.extend(reversed(list(ast.iter_child_nodes(node))))
    return None


def every_function_before(after: str) -> tuple[str, int]:
    """The *before* of an every-function-changed hoist PR: a function-local copy of the module's
    first ``import M`` inserted in every top-level function (into its first loop, else at the
    top of its body), and how many functions got one."""
    tree = ast.parse(after)
    stmt = _first_module_import(tree)
    if stmt is None:
        return after, 0
    sites: set[tuple[int, int]] = set()
    for fn in tree.body:
        if not isinstance(fn, _Func):
            continue
        loop = _first_loop(fn)
        body: list[ast.stmt] = loop.body if loop is not None else fn.body
        head = loop.lineno if loop is not None else fn.lineno
        first = body[0]
        if loop is None and len(body) > 1 and isinstance(first, ast.Expr):
            first = body[1]  # after the docstring
        if _start(first) > head:  # not ``for x in y: stmt`` on one line
            sites.add((_start(first), first.col_offset))
    lines = after.splitlines(keepends=True)
    out: list[str] = []
    for no, line in enumerate(lines, 1):
        out.extend(" " * col + stmt + "\n" for at, col in sorted(sites) if at == no)
        out.append(line)
    before = "".join(out)
    ast.parse(before)  # the builder must make valid Python
    return before, len(sites)


def every_function_bundle() -> PullRequestBundle:
    """(e): the same modules, every top-level function with a function-local import in a loop
    before (hoisted after): every function changes, as in a large hoist PR."""
    files = []
    changed = 0
    for name in MODULES:
        origin = _origin(name)
        after = origin.read_text(encoding="utf-8")
        before, n = every_function_before(after)
        changed += n
        path = _repo_path(name, origin)
        files.append(_file_change(path, before, after))
    meta = PullRequestMeta(
        repo="bench/cpython",
        number=3,
        title=f"refactor: hoist a function-local import out of {changed} functions",
        body="Removes the function-local imports that repeat a module-level import.",
        author="bench",
        base_sha="4" * 40,
        head_sha="5" * 40,
    )
    return PullRequestBundle(
        source="bundle",
        pr=meta,
        files=tuple(files),
        head_paths=tuple(sorted(f.path for f in files)),
    )
