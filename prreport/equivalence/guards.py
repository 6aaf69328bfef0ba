"""Why a removed guard never mattered: its condition has one value on every supported
interpreter (a ``sys.version_info`` test the declared lowest Python decides, a name always bound
to a class, function or module), or the ``try`` of an ``except ImportError`` fallback imports
only standard-library names that exist on every supported Python.

Which guards a change removed is ``equivalence.unguard``.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from prreport.bundle import PullRequestBundle
from prreport.classify import python_module_path
from prreport.equivalence.canonical import _absolute
from prreport.python.parse import copy_tree
from prreport.python.parse import parse as parse_quietly
from prreport.python.scopes import all_statements, single_binding
from prreport.python.sources import SourceFiles
from prreport.python.stdlib import import_cannot_fail, truthy_object
from prreport.python.versions import declared_min_python, fixed_by_version, version_test

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError"}


class Truth:
    """Conditions whose value is fixed for every supported interpreter, with the reason."""

    def __init__(self, sources: SourceFiles, bundle: PullRequestBundle) -> None:
        self.sources = sources
        self.bundle = bundle
        self._paths: dict[str, str] | None = None

    def value(self, test: ast.expr, tree: ast.Module, path: str) -> tuple[bool | None, str]:
        """(True/False when fixed, None when not; why). An ``and`` with a part that is always
        false is false, an ``or`` with a part that is always true is true (``x and
        sys.version_info < (3,)``: the Python 2 branch)."""
        if isinstance(test, ast.BoolOp):
            decisive = isinstance(test.op, ast.Or)  # the value of a part that settles it
            for part in test.values:
                fixed, why = self.value(part, tree, path)
                if fixed is decisive:
                    return decisive, f"{ast.unparse(part)} is always {str(decisive).lower()}: {why}"
            return None, ""
        if version_test(test) is not None:
            found = fixed_by_version(test, declared_min_python(self.sources))
            if found is None:
                return None, ""
            return found[0], f"the project requires Python >= {found[1]}"
        name, negate = named(test)
        if name and self._truthy(name, tree, path, 0):
            return (not negate), f"{name} is always bound to a class, function or module"
        return None, ""

    def imports_succeed(self, body: Sequence[ast.stmt]) -> str:
        """Why every statement of a ``try`` body is an import that cannot fail on any supported
        Python (standard library, not shadowed by a first-party module); "" when not certain."""
        low = declared_min_python(self.sources)
        imported = _imported(body)
        if low is None or not imported:
            return ""
        if self._paths is None:
            self._paths = python_module_paths(self.bundle)
        # A first-party module of that name (at head, or deleted by this PR) is what imported.
        heads = self.bundle.head_paths
        gone = [
            python_module_path(f.before_path, heads or (f.before_path,)) for f in self.bundle.files
        ]
        first_party = {m.split(".")[0] for m in [*self._paths, *gone]}
        parts: list[str] = []
        for module, name in imported:
            why = (
                "" if module.split(".")[0] in first_party else import_cannot_fail(module, name, low)
            )
            if not why:
                return ""
            parts.append(why)
        return "; ".join([*parts, f"the project requires Python >= {'.'.join(map(str, low))}"])

    def _truthy(self, name: str, tree: ast.Module, path: str, depth: int) -> bool:
        st = single_binding(tree, name)
        if isinstance(st, (*_DEFS, ast.ClassDef)):
            return not st.decorator_list
        if not isinstance(st, ast.ImportFrom) or depth > 3:
            return False
        module = python_module_path(path, self.bundle.head_paths or (path,))
        package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
        source = _absolute(st, package)
        original = next(a.name for a in st.names if (a.asname or a.name) == name)
        if truthy_object(source, original):
            return True
        target = self._path_of(source)
        changed = self.bundle.file(target) if target else None
        # The module as the before code saw it: its before text when this PR changed it too.
        text = (
            changed.before
            if changed is not None
            else (self.sources.text(target, "head") if target else None)
        )
        if target is None or text is None:
            return False
        try:
            return self._truthy(original, parse_quietly(text), target, depth + 1)
        except (SyntaxError, ValueError):
            return False

    def _path_of(self, module: str) -> str | None:
        if self._paths is None:
            self._paths = python_module_paths(self.bundle)
        return self._paths.get(module)


def _imported(body: Sequence[ast.stmt]) -> list[tuple[str, str | None]]:
    """(module, name or None) per name a block of only absolute imports binds ([] otherwise)."""
    out: list[tuple[str, str | None]] = []
    for st in body:
        if isinstance(st, ast.Import):
            out += [(a.name, None) for a in st.names]
        elif isinstance(st, ast.ImportFrom) and st.module and not st.level:
            if any(a.name == "*" for a in st.names):
                return []
            out += [(st.module, a.name) for a in st.names]
        else:
            return []
    return out


def named(test: ast.expr) -> tuple[str, bool]:
    """``X``, ``X is not None`` -> (X, False); ``not X``, ``X is None`` -> (X, True)."""
    if isinstance(test, ast.Name):
        return test.id, False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        name, neg = named(test.operand)
        return name, not neg
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.left, ast.Name)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        if isinstance(test.ops[0], ast.IsNot):
            return test.left.id, False
        if isinstance(test.ops[0], ast.Is):
            return test.left.id, True
    return "", False


def if_tests(tree: ast.Module) -> frozenset[str]:
    """Names tested by an ``if NAME:`` (or ``not NAME``, ``NAME is None``) anywhere in a module."""
    tested = {named(st.test)[0] for st in all_statements(tree.body) if isinstance(st, ast.If)}
    return frozenset(tested - {""})


def caught(node: ast.Try) -> list[str]:
    """The exception types a ``try`` catches, as spelled (a bare ``except``: BaseException)."""
    out = []
    for h in node.handlers:
        if h.type is None:
            out.append("BaseException")
        elif isinstance(h.type, ast.Tuple):
            out += [ast.unparse(e) for e in h.type.elts]
        else:
            out.append(ast.unparse(h.type))
    return out


def python_module_paths(bundle: PullRequestBundle) -> dict[str, str]:
    """Dotted module -> path of every Python file at head."""
    heads = bundle.head_paths
    return {python_module_path(p, heads): p for p in heads if p.endswith(".py")}


def without_dead_fallbacks(fn: ast.AST, sources: SourceFiles) -> ast.AST | None:
    """A copy of ``fn`` in which each ``try`` of imports that cannot fail on any supported
    Python (``Truth.imports_succeed``) is its body: its ``except ImportError`` fallback never
    runs. None when ``fn`` has no such ``try``."""
    if not any(_fallback_try(n) for n in ast.walk(fn)):
        return None
    truth: Truth = sources.memo("", "", "import-truth", lambda: Truth(sources, sources.bundle))
    dropped = False

    class _Drop(ast.NodeTransformer):
        def visit_Try(self, node: ast.Try) -> ast.AST | list[ast.stmt]:
            nonlocal dropped
            self.generic_visit(node)
            if _fallback_try(node) and truth.imports_succeed(node.body):
                dropped = True
                return [*node.body, *node.orelse]
            return node

    out = _Drop().visit(copy_tree(fn))
    return out if dropped else None


def _fallback_try(node: ast.AST) -> bool:
    """``try:`` of imports only, caught only as ``ImportError``, with no ``finally``."""
    return (
        isinstance(node, ast.Try)
        and not node.finalbody
        and bool(node.body)
        and all(isinstance(st, ast.Import | ast.ImportFrom) for st in node.body)
        and bool(node.handlers)
        and set(caught(node)) <= IMPORT_ERRORS
    )
