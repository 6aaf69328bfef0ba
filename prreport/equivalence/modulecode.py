"""Module- and class-level code compared outside its functions: equal once imports and function
definitions (compared one by one elsewhere) are left out, up to docstrings, class-field
annotation spelling and imported-object spelling; and module-level import statements that bind
the same names from the same module in another order.
"""

from __future__ import annotations

import ast
import copy

from prreport.equivalence.canonical import canonical, module_bindings, rebound_builtins
from prreport.python.definitions import same_tree
from prreport.python.functions import BLOCK_FIELDS
from prreport.python.sources import SourceFiles

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DROP = (ast.Import, ast.ImportFrom, *_DEFS)


def module_code_same(
    sources: SourceFiles, paths: tuple[str, str], trees: tuple[ast.Module, ast.Module]
) -> bool:
    """Whether the before and after modules (``paths``: their before and after paths) are
    equal outside import statements and function definitions."""
    before, after = trees
    if same_tree(before, after, _DROP):
        return True
    # Docstrings, class-field annotation spelling and imported-object spelling change nothing.
    old_path, new_path = paths
    a = canonical(
        _without_defs(before),
        module_bindings(before, old_path),
        rebound=sources.memo(
            old_path, "before", "rebound-builtins", lambda: rebound_builtins(before)
        ),
    )
    b = canonical(
        _without_defs(after),
        module_bindings(after, new_path),
        rebound=sources.memo(
            new_path, "after", "rebound-builtins", lambda: rebound_builtins(after)
        ),
    )
    return same_tree(a, b, _DROP)


def _without_defs(tree: ast.Module) -> ast.Module:
    """A copy of the module without function definitions (they are compared one by one); the
    functions are never copied (a deep copy of a large module costs more than the comparison)."""
    out = _copy_without_defs(tree)
    assert isinstance(out, ast.Module)
    return out


def _copy_without_defs(node: ast.AST) -> ast.AST:
    new = copy.copy(node)
    for name, value in ast.iter_fields(node):
        if isinstance(value, list):
            block = name in BLOCK_FIELDS
            setattr(
                new,
                name,
                [
                    _copy_without_defs(v) if isinstance(v, ast.AST) else v
                    for v in value
                    if not (block and isinstance(v, _DEFS))
                ],
            )
        elif isinstance(value, ast.AST):
            setattr(new, name, _copy_without_defs(value))
    return new


def reordered_imports(before: ast.Module, after: ast.Module) -> tuple[set[int], set[int]]:
    """The before and after lines of the module-level import statements that bind the same
    names from the same module on both sides, once each (``from typing import Dict, IO`` /
    ``from typing import IO, Dict``); a statement that moved scope is an import move instead."""
    old, new = _statements(before), _statements(after)
    kept_old = {
        n for k in old.keys() & new.keys() if len(old[k]) == len(new[k]) == 1 for n in old[k][0]
    }
    kept_new = {
        n for k in old.keys() & new.keys() if len(old[k]) == len(new[k]) == 1 for n in new[k][0]
    }
    return kept_old, kept_new


def _statements(tree: ast.Module) -> dict[tuple[object, ...], list[range]]:
    """The lines of each module-level import statement, by (module, the names it binds)."""
    out: dict[tuple[object, ...], list[range]] = {}
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = tuple(sorted((a.name, a.asname or "") for a in node.names))
            module = (node.module, node.level) if isinstance(node, ast.ImportFrom) else None
            out.setdefault((module, names), []).append(
                range(node.lineno, (node.end_lineno or node.lineno) + 1)
            )
    return out
