"""The test a hoisted import relies on: the target module imports no package of the importer at
module level. It reads the module's source with ``ast`` (imports inside functions and under
``if TYPE_CHECKING:`` are allowed, as at run time), and is checked here before it is printed:
it passes on the head source and fails when a module-level import of the package is added."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import cast

# The printed test, filled in per target; the check function is what _verified executes.
_TEMPLATE = """import ast
from pathlib import Path  # this file goes in a test folder at the repository root

SOURCE = Path(__file__).parents[1] / "{path}"
PACKAGE, FORBIDDEN = "{package}", ({forbidden})


def module_level_imports(source):  # what runs on import: not in functions, not TYPE_CHECKING
    todo = list(ast.parse(source).body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            todo += node.orelse
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = PACKAGE.rsplit(".", node.level - 1)[0] if node.level else ""
            yield ".".join(p for p in (base, node.module) if p)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            todo += ast.iter_child_nodes(node)


def test_{ident}_imports_no_{what}_at_module_level():
    found = [m for m in module_level_imports(SOURCE.read_text()) if (m + ".").startswith(FORBIDDEN)]
    assert not found, f"{{found}}: the hoists in {importers} rely on none"
"""


@dataclass(frozen=True)
class LeafTest:
    """The proposed test, where it goes, and whether it was checked on the head source."""

    text: str
    path: str  # a suggested file name, in a test folder at the repository root
    verified: bool  # passes on the head source, fails once a module-level import is added


def leaf_test(
    module: str, module_path: str, forbidden: list[str], importers: list[str], head: str | None
) -> LeafTest:
    """The ``ast`` test that ``module`` (at ``module_path``) imports none of ``forbidden`` at
    module level, checked against ``head`` (the module's head source)."""
    leaf = module.rsplit(".", 1)[-1].lstrip("_")
    what = "_".join(f.replace(".", "_") for f in forbidden)
    text = _TEMPLATE.format(
        path=module_path,
        package=_package_of(module, module_path),
        forbidden=" ".join(f'"{f}.",' for f in forbidden),
        ident=leaf,
        what=what,
        importers=" and ".join("/".join(p.split("/")[-2:]) for p in importers),
    )
    verified = head is not None and _verified(text, module_path, forbidden, head)
    return LeafTest(text, f"tests/test_{leaf}_imports.py", verified)


def _package_of(module: str, module_path: str) -> str:
    """The package a relative import in the module starts from."""
    return module if module_path.endswith("__init__.py") else module.rpartition(".")[0]


def _verified(text: str, module_path: str, forbidden: list[str], head: str) -> bool:
    """Run the printed test (prreport's own text, not the project's code) on the head source,
    where it must pass, and with a module-level import of each forbidden package added, where
    it must fail."""
    namespace: dict[str, object] = {"__file__": "/repo/tests/test_leaf.py", "__name__": "leaf"}
    try:
        exec(compile(text, "<proposed test>", "exec"), namespace)  # noqa: S102
        if str(namespace["SOURCE"]) != f"/repo/{module_path}":
            return False  # the path it reads is not the module's
        test: object = next(v for k, v in namespace.items() if k.startswith("test_"))
        return _passes(test, namespace, head) and not any(
            _passes(test, namespace, f"{head}\nimport {f}\n") for f in forbidden
        )
    except (SyntaxError, ValueError, KeyError, TypeError, StopIteration, RecursionError):
        return False


class _Source:
    """Stands in for the module file the printed test reads."""

    def __init__(self, text: str) -> None:
        self.text = text

    def read_text(self, encoding: str = "utf-8") -> str:
        return self.text


def _passes(test: object, namespace: dict[str, object], source: str) -> bool:
    namespace["SOURCE"] = _Source(source)
    try:
        cast(Callable[[], None], test)()
    except AssertionError:
        return False
    return True


def _offending(modules: Iterable[str], forbidden: list[str]) -> list[str]:
    return [m for m in modules if any(m == f or m.startswith(f + ".") for f in forbidden)]


def imported_anywhere(module: str, module_path: str, forbidden: list[str], head: str) -> bool:
    """Whether the module imports one of ``forbidden`` in any scope (in a function, under
    ``TYPE_CHECKING``): import-linter counts those, so a ``forbidden`` contract would fail."""
    package = _package_of(module, module_path)
    names: list[str] = []
    for node in ast.walk(ast.parse(head)):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            names.append(".".join(p for p in (base, node.module) if p))
    return bool(_offending(names, forbidden))
