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
from prreport.python.importtime import annotation_only
from prreport.python.moduleimports import is_type_checking
from prreport.python.scopes import module_level_statements
from prreport.python.sources import SourceFiles
from prreport.python.versions import declared_min_python

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DROP = (ast.Import, ast.ImportFrom, *_DEFS)


def module_code_same(
    sources: SourceFiles, paths: tuple[str, str], trees: tuple[ast.Module, ast.Module]
) -> bool:
    """Whether the before and after modules (``paths``: their before and after paths) are
    equal outside import statements and function definitions, or once the typing-only
    statements of each are left out too (``typing_only``)."""
    if _same(sources, paths, trees):
        return True
    stripped = typing_only(trees)
    return stripped is not None and _same(sources, paths, stripped)


def typing_only(trees: tuple[ast.Module, ast.Module]) -> tuple[ast.Module, ast.Module] | None:
    """Both modules without the statements no running code depends on: ``if TYPE_CHECKING:``
    blocks, and module-level aliases whose names only annotations read (``importtime.
    annotation_only``, with postponed annotations), with the ``if``/``try`` left empty by
    that; None when there are none, or when an alias bound before is bound nowhere after
    (another module may import it)."""
    before, after = trees
    # Annotations are compared as annotations (what they evaluate to is no behaviour), whether
    # the module postpones them or not: an alias only annotations read is typing only, when
    # computing it calls nothing (``_alias``).
    names = (annotation_only(before, True), annotation_only(after, True))
    if not names[0] and not names[1] and not _has_type_checking(before, after):
        return None
    lost = {
        t.id
        for st in module_level_statements(before.body)
        if isinstance(st, ast.Assign | ast.AnnAssign)
        for t in _targets(st)
        if t.id in names[0]
    } - {t.id for st in module_level_statements(after.body) for t in _targets(st)}
    if lost:
        return None
    return _strip(before, names[0]), _strip(after, names[1])


def _alias(st: ast.stmt, names: frozenset[str]) -> bool:
    """An assignment whose every target is a plain name among ``names``, of a value whose
    computing calls nothing but typing constructors (``TypeVar("T")``, ``ParamSpec("P")``)."""
    if not isinstance(st, ast.Assign | ast.AnnAssign):
        return False
    targets = st.targets if isinstance(st, ast.Assign) else [st.target]
    if st.value is not None and any(_acts(n) for n in ast.walk(st.value)):
        return False
    return all(isinstance(t, ast.Name) and t.id in names for t in targets)


# ``typing`` (and ``typing_extensions``) constructors: a call of one only makes a typing object.
_TYPING_MAKERS = frozenset({"TypeVar", "ParamSpec", "TypeVarTuple", "NewType", "TypeAliasType"})


def _acts(node: ast.AST) -> bool:
    """A call (other than of a typing constructor) or a lambda: computing it may do something."""
    if isinstance(node, ast.Lambda):
        return True
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name not in _TYPING_MAKERS


def _targets(st: ast.stmt) -> list[ast.Name]:
    targets = st.targets if isinstance(st, ast.Assign) else [getattr(st, "target", None)]
    return [t for t in targets if isinstance(t, ast.Name)]


def _has_type_checking(*trees: ast.Module) -> bool:
    return any(isinstance(st, ast.If) and is_type_checking(st.test) for t in trees for st in t.body)


def _strip(tree: ast.Module, names: frozenset[str]) -> ast.Module:
    out = copy.copy(tree)
    out.body = _strip_block(tree.body, names)
    return out


def _strip_block(body: list[ast.stmt], names: frozenset[str]) -> list[ast.stmt]:
    kept: list[ast.stmt] = []
    for st in body:
        if isinstance(st, ast.If) and is_type_checking(st.test):
            kept.extend(_strip_block(st.orelse, names))
        elif _alias(st, names):
            continue
        elif isinstance(st, ast.If) and not any(isinstance(n, ast.Call) for n in ast.walk(st.test)):
            new = copy.copy(st)
            new.body = _strip_block(st.body, names)
            new.orelse = _strip_block(st.orelse, names)
            if all(isinstance(x, ast.Import | ast.ImportFrom) for x in [*new.body, *new.orelse]):
                continue  # a version test over imports only: the import analyzers tell those
            kept.append(new)
        else:
            kept.append(st)
    return kept


def _same(
    sources: SourceFiles, paths: tuple[str, str], trees: tuple[ast.Module, ast.Module]
) -> bool:
    before, after = trees
    if same_tree(before, after, _DROP):
        return True
    # Docstrings, class-field annotation spelling and imported-object spelling change nothing.
    old_path, new_path = paths
    low = declared_min_python(sources)
    generics = low is not None and low[:2] >= (3, 9)
    a = canonical(
        _without_defs(before),
        module_bindings(before, old_path),
        rebound=sources.memo(
            old_path, "before", "rebound-builtins", lambda: rebound_builtins(before)
        ),
        generics=generics,
        whole=before,
    )
    b = canonical(
        _without_defs(after),
        module_bindings(after, new_path),
        rebound=sources.memo(
            new_path, "after", "rebound-builtins", lambda: rebound_builtins(after)
        ),
        generics=generics,
        whole=after,
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
    ``from typing import IO, Dict``), or the same names of one module split across or merged
    into ``from`` statements with only imports between them (``from .a import x`` and
    ``from .a import y`` / ``from .a import x, y``); a statement that moved scope is an
    import move instead."""
    old, new = _statements(before), _statements(after)
    kept_old = {
        n for k in old.keys() & new.keys() if len(old[k]) == len(new[k]) == 1 for n in old[k][0]
    }
    kept_new = {
        n for k in old.keys() & new.keys() if len(old[k]) == len(new[k]) == 1 for n in new[k][0]
    }
    groups_old, groups_new = _from_groups(before), _from_groups(after)
    for module in groups_old.keys() & groups_new.keys():
        (names_a, lines_a), (names_b, lines_b) = groups_old[module], groups_new[module]
        if names_a == names_b:
            kept_old |= lines_a
            kept_new |= lines_b
    return kept_old, kept_new


def _from_groups(
    tree: ast.Module,
) -> dict[tuple[object, ...], tuple[list[tuple[str, str]], set[int]]]:
    """Per module, the names its module-level ``from`` statements bind (sorted, each once) and
    their lines, when those statements are separated by imports only; else left out."""
    found: dict[tuple[object, ...], list[int]] = {}
    for i, node in enumerate(tree.body):
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            found.setdefault((node.module, node.level), []).append(i)
    out = {}
    for module, at in found.items():
        between = tree.body[at[0] : at[-1] + 1]
        if not all(isinstance(st, ast.Import | ast.ImportFrom) for st in between):
            continue
        stmts = [tree.body[i] for i in at]
        names = sorted((a.name, a.asname or "") for st in stmts for a in st.names)  # type: ignore[attr-defined]
        if len(names) != len(set(names)) or ("*", "") in names:
            continue
        lines = {n for st in stmts for n in range(st.lineno, (st.end_lineno or st.lineno) + 1)}
        out[module] = (names, lines)
    return out


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
