"""Definition index: every function, class, method, constant and module-level import of a file.

Shared by the refactor rules (dead code, extraction, overrides, moved symbols): each
definition has a qualname, its line span and normalised dumps of its body, so two
definitions can be compared byte-for-byte, modulo consistent local renames, or not at all.
Here too: the definitions only one side of a change has (``definition_changes``), and the
changed lines a definition spans (with the blank and comment lines around it).
"""

from __future__ import annotations

import ast
import difflib
import textwrap
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from prreport.bundle import FileChange
from prreport.classify import python_module_path
from prreport.python.parse import copy_tree
from prreport.python.scopes import is_string_statement
from prreport.python.sources import SourceFiles
from prreport.textlines import split_lines


@dataclass(frozen=True)
class Definition:
    """One definition in one file side; body dumps are computed on first use."""

    path: str
    qualname: str  # "Cls.meth", "func", "CONST", "Outer.<locals>.inner"
    name: str
    kind: str  # function | method | class | constant | import
    parent: str  # enclosing class/function qualname, "" at module level
    start: int  # first line, decorators included
    end: int
    node: ast.AST = field(compare=False, repr=False)
    bases: tuple[str, ...] = ()  # class bases as source text
    lines: Sequence[str] = field(compare=False, repr=False, default=())

    @cached_property
    def body(self) -> str:
        """Normalised dump of the definition without its name."""
        return _keys(self)[0]

    @cached_property
    def renamed(self) -> str:
        """Dump modulo consistent renaming of local names ("" for classes)."""
        return _keys(self)[1]

    @cached_property
    def text(self) -> str:
        """Dedented source text."""
        return segment(self.lines, self.start, self.end)


def _keys(d: Definition) -> tuple[str, str]:
    n = d.node
    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return _function_key(n)
    if isinstance(n, ast.ClassDef):
        return dump(strip_docstring(n.body) or n.body), ""
    if isinstance(n, (ast.Assign, ast.AnnAssign)):
        value = dump(n.value) if n.value is not None else ""
        return value, value
    return dump(n), dump(n)


def dump(node: ast.AST | Sequence[ast.AST]) -> str:
    """Formatting- and comment-insensitive dump of a node or statement list."""
    if isinstance(node, ast.AST):
        return ast.dump(node, annotate_fields=False, include_attributes=False)
    return "\n".join(dump(n) for n in node)


# Non-node values whose ``==`` agrees with ``repr`` equality (unlike floats: ``0.0 == -0.0``).
_EXACT: frozenset[type] = frozenset({str, int, bool, bytes, type(None)})


def same_tree(
    a: ast.AST | Sequence[ast.AST],
    b: ast.AST | Sequence[ast.AST],
    drop: tuple[type[ast.stmt], ...] = (),
) -> bool:
    """``dump(a) == dump(b)`` without building either dump: the two trees walked in lockstep.

    Statements of the ``drop`` types (e.g. imports) are left out of every statement list first.
    Stops at the first difference; several times faster than two ``ast.dump`` calls.
    """
    return _same(a, b, drop)


def _same(a: object, b: object, drop: tuple[type[ast.stmt], ...]) -> bool:
    ta = type(a)
    if ta is not type(b):
        return False
    if isinstance(a, ast.AST):
        exact = _EXACT
        for name in a._fields:
            va, vb = getattr(a, name, None), getattr(b, name, None)
            if va is vb:
                continue
            tv = type(va)
            if tv in exact:  # a name, a number, a string: compared here, not by a call
                if type(vb) is not tv or va != vb:
                    return False
            elif not _same(va, vb, drop):
                return False
        return True
    if ta is list:
        xs, ys = a, b
        assert isinstance(xs, list) and isinstance(ys, list)
        if drop:
            xs = [x for x in xs if not isinstance(x, drop)]
            ys = [y for y in ys if not isinstance(y, drop)]
        if len(xs) != len(ys):
            return False
        for x, y in zip(xs, ys, strict=True):
            if x is not y and not _same(x, y, drop):
                return False
        return True
    if ta in _EXACT:
        return a == b
    return repr(a) == repr(b)  # floats, complex, Ellipsis: as ``ast.dump`` tells them apart


class _Renamer(ast.NodeTransformer):
    """Replace local names (not attributes, not globals used before binding) by ordinal placeholders."""

    def __init__(self, keep: frozenset[str]) -> None:
        self.keep = keep
        self.names: dict[str, str] = {}

    def _sub(self, name: str) -> str:
        if name in self.keep:
            return name
        return self.names.setdefault(name, f"_v{len(self.names)}")

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.copy_location(ast.Name(id=self._sub(node.id), ctx=node.ctx), node)

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = self._sub(node.arg)
        self.generic_visit(node)
        return node


def bound_names(nodes: Iterable[ast.AST]) -> set[str]:
    """Names assigned, declared as parameters or bound by ``for``/``with``/``except`` in nodes."""
    out: set[str] = set()
    for top in nodes:
        for n in ast.walk(top):
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                out.add(n.id)
            elif isinstance(n, ast.arg):
                out.add(n.arg)
            elif isinstance(n, ast.ExceptHandler) and n.name:
                out.add(n.name)
    return out


def renamed_dump(nodes: Sequence[ast.AST], extra_locals: Iterable[str] = ()) -> str:
    """Dump with every locally bound name replaced by its order of first appearance."""
    local = bound_names(nodes) | set(extra_locals)
    every = {n.id for top in nodes for n in ast.walk(top) if isinstance(n, ast.Name)}
    every |= {n.arg for top in nodes for n in ast.walk(top) if isinstance(n, ast.arg)}
    renamer = _Renamer(frozenset(every - local))
    return "\n".join(dump(renamer.visit(copy_tree(n))) for n in nodes)


def strip_docstring(body: Sequence[ast.stmt]) -> list[ast.stmt]:
    """A body without its leading docstring."""
    body = list(body)
    return body[1:] if body and is_string_statement(body[0]) else body


def first_line(node: ast.AST) -> int:
    """First line of a statement, decorators included."""
    decos = getattr(node, "decorator_list", None) or []
    return min([node.lineno] + [d.lineno for d in decos])  # type: ignore[attr-defined]


def segment(lines: Sequence[str], start: int, end: int) -> str:
    """Dedented source text of lines ``start..end`` (1-based, inclusive)."""
    return textwrap.dedent("".join(lines[start - 1 : end]))


def _function_key(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, str]:
    """Body dumps of a function without its name (arguments, decorators, returns and body)."""
    sig = (
        dump(fn.args)
        + "|"
        + dump(fn.decorator_list)
        + "|"
        + (dump(fn.returns) if fn.returns else "")
    )
    body = strip_docstring(fn.body) or fn.body
    return sig + "\n" + dump(body), renamed_dump([fn.args, *body])


def index(path: str, tree: ast.Module | None, text: str | None) -> dict[str, Definition]:
    """Every definition of a module by qualname (module and class level, nested functions too)."""
    if tree is None or text is None:
        return {}
    lines = split_lines(text, keepends=True)
    out: dict[str, Definition] = {}

    def add(
        node: ast.AST, qual: str, name: str, kind: str, parent: str, bases: tuple[str, ...] = ()
    ) -> None:
        start = first_line(node)
        end = node.end_lineno or node.lineno  # type: ignore[attr-defined]
        out.setdefault(
            qual, Definition(path, qual, name, kind, parent, start, end, node, bases, lines)
        )

    def walk(stmts: Sequence[ast.stmt], parent: str, in_class: bool, in_function: bool) -> None:
        prefix = f"{parent}." if parent else ""
        for st in stmts:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qual = prefix + st.name
                add(st, qual, st.name, "method" if in_class else "function", parent)
                walk(st.body, f"{qual}.<locals>", False, True)
            elif isinstance(st, ast.ClassDef):
                qual = prefix + st.name
                bases = tuple(ast.unparse(b) for b in st.bases)
                add(st, qual, st.name, "class", parent, bases)
                walk(st.body, qual, True, in_function)
            elif in_function:
                continue
            elif isinstance(st, (ast.Assign, ast.AnnAssign)):
                targets = st.targets if isinstance(st, ast.Assign) else [st.target]
                for t in targets:
                    if isinstance(t, ast.Name):
                        add(st, prefix + t.id, t.id, "constant", parent)
            elif isinstance(st, (ast.Import, ast.ImportFrom)) and not in_class:
                for alias in st.names:
                    if alias.name == "*":
                        continue
                    bound = alias.asname or alias.name.split(".")[0]
                    add(st, prefix + bound, bound, "import", parent)
            elif isinstance(st, (ast.If, ast.Try)) and not in_class:
                # Module-level guards (TYPE_CHECKING, try/except ImportError) still define names.
                branches = [st.body, st.orelse, getattr(st, "finalbody", [])]
                if isinstance(st, ast.If) and _is_type_checking(st.test):
                    # The ``else:`` of ``if TYPE_CHECKING:`` is what runs: its definition wins.
                    branches = [st.orelse, st.body]
                for sub in branches:
                    walk(sub, parent, in_class, in_function)
                for h in getattr(st, "handlers", []):
                    walk(h.body, parent, in_class, in_function)

    walk(tree.body, "", False, False)
    # ``walk`` calls itself through its closure: a reference cycle that would keep the index,
    # the source lines and the syntax tree it points into alive until a collector pass.
    walk = None  # type: ignore[assignment]
    return out


def _is_type_checking(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING`` (any module prefix)."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def file_index(sources: SourceFiles, path: str, side: str) -> dict[str, Definition]:
    """Memoised definition index of a file side (``before`` by before path, ``after``/``head``)."""
    return sources.memo(
        path, side, "defs", lambda: index(path, sources.tree(path, side), sources.text(path, side))
    )


def scope_rows(sources: SourceFiles, path: str, side: str) -> dict[str, list[Definition]]:
    """Functions, classes and constants of each scope of a file side (by the scope's qualname,
    "" for the module), in file order (memoised)."""

    def build() -> dict[str, list[Definition]]:
        out: dict[str, list[Definition]] = {}
        for x in file_index(sources, path, side).values():
            if x.kind in FAMILY:
                out.setdefault(x.parent, []).append(x)
        return {k: sorted(v, key=lambda x: x.start) for k, v in out.items()}

    return dict(sources.memo(path, side, "definition-scopes", build))


# What a definition of each kind may become and still be the same definition (a function made
# a method); imports are no such definitions.
FAMILY = {"function": "callable", "method": "callable", "class": "class", "constant": "constant"}


@dataclass(frozen=True)
class Change:
    """Definitions that exist on only one side of the PR, across all changed Python files."""

    removed: tuple[Definition, ...]  # before-side definitions (path = before path)
    added: tuple[Definition, ...]  # after-side definitions (path = after path)
    file_of: dict[str, FileChange]  # before or after path -> file change
    # The file sides the definitions come from (memoised analyses of this change live there),
    # held weakly: the Change is memoised in them, and a cycle would keep every syntax tree
    # alive until a collector pass after the analysis (pipeline.few_collections).
    source_ref: Callable[[], SourceFiles | None] | None = field(
        default=None, compare=False, repr=False
    )

    @property
    def sources(self) -> SourceFiles | None:
        """The file sides the definitions come from (None once they are gone)."""
        return self.source_ref() if self.source_ref is not None else None


def definition_changes(sources: SourceFiles) -> Change:
    """Removed and added definitions of every changed Python file (memoised)."""

    def build() -> Change:
        removed: list[Definition] = []
        added: list[Definition] = []
        file_of: dict[str, FileChange] = {}
        for f in sources.python_files():
            file_of[f.path] = f
            file_of[f.before_path] = f
            before = file_index(sources, f.before_path, "before") if f.before is not None else {}
            after = file_index(sources, f.path, "after") if f.after is not None else {}
            # A function replaced by a same-named re-export import counts as removed.
            removed.extend(
                d for q, d in before.items() if q not in after or after[q].kind != d.kind
            )
            added.extend(d for q, d in after.items() if q not in before or before[q].kind != d.kind)
        key = lambda d: (d.path, d.start, d.qualname)  # noqa: E731
        return Change(
            tuple(sorted(removed, key=key)),
            tuple(sorted(added, key=key)),
            file_of,
            weakref.ref(sources),
        )

    return sources.memo("", "", "definition-changes", build)


def lines_with_blanks(
    text: str | None, start: int, end: int, changed: Iterable[int]
) -> tuple[int, ...]:
    """Lines ``start..end`` that changed, plus changed blank/comment lines adjacent to the span."""
    changed = set(changed)
    lines = text_rows(text or "")
    out = {n for n in range(start, end + 1) if n in changed}

    def blank(n: int) -> bool:
        return 1 <= n <= len(lines) and (
            not lines[n - 1].strip() or lines[n - 1].lstrip().startswith("#")
        )

    n = start - 1
    while n in changed and blank(n):
        out.add(n)
        n -= 1
    n = end + 1
    while n in changed and blank(n):
        out.add(n)
        n += 1
    return tuple(sorted(out))


@lru_cache(maxsize=128)
def text_rows(text: str) -> list[str]:
    """``split_lines(text)``, cached and shared: callers must only read it."""
    return split_lines(text)


def explains(path: str, side: str, lines: Iterable[int]) -> tuple[tuple[str, str, int], ...]:
    """``(path, side, line)`` for lines of one file side (``-`` removed, ``+`` added), sorted."""
    return tuple((path, side, n) for n in sorted(set(lines)))


def module_of(path: str, sources: SourceFiles) -> str:
    """Dotted module name of a file at head."""
    return python_module_path(path, sources.bundle.head_paths or (path,))


def residual(a: str, b: str) -> list[str]:
    """Lines that differ between two texts (``-``/``+`` prefixed, unified-diff style)."""
    return [
        ln
        for ln in difflib.unified_diff(split_lines(a), split_lines(b), lineterm="", n=0)
        if ln[:1] in "+-" and not ln.startswith(("+++", "---"))
    ]


def pass_line(
    sources: SourceFiles, f: FileChange, cls: Definition
) -> tuple[tuple[str, str, int], ...]:
    """The added ``pass`` of a class whose only member the PR removed (explained with it)."""
    body = getattr(cls.node, "body", [])
    if (
        len(body) == 1
        and isinstance(body[0], ast.Pass)
        and body[0].lineno in sources.changed(f).added
    ):
        return ((f.path, "+", body[0].lineno),)
    return ()


def removal_explains(
    sources: SourceFiles, f: FileChange, d: Definition, lines: Iterable[int]
) -> tuple[tuple[str, str, int], ...]:
    """The removed ``lines`` of definition ``d`` and, for a method whose class stays, the
    ``pass`` the class gained in its place."""
    ex = explains(f.path, "-", sorted(set(lines)))
    cls = (
        file_index(sources, f.path, "after").get(d.parent)
        if d.kind == "method" and f.after is not None
        else None
    )
    return ex + pass_line(sources, f, cls) if cls is not None else ex
