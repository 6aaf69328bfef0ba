"""Whether a definition moved to another module means the same there.

Two things can differ although the text is equal: a name its module-level definition reads as
the module runs (a constant's value, a class's bases and body, decorators, defaults) that the
new module binds only below it (NameError at import), and a global its body reads that names
another object, or nothing, in the new module (an import left behind, a shadowed builtin).
"""

from __future__ import annotations

import ast
import builtins
import copy
from collections.abc import Mapping
from functools import partial

from prreport.equivalence.canonical import locally_bound, module_bindings
from prreport.equivalence.canonical import module_of as module_path
from prreport.python.definitions import Definition, file_index
from prreport.python.importtime import (
    DEFINITIONS,
    first_bindings,
    future_annotations,
    runtime_reads,
)
from prreport.python.sources import SourceFiles

_BUILTINS = frozenset(dir(builtins))


def unbound_at_import(
    sources: SourceFiles | None, old: Definition, new: Definition
) -> tuple[str, ...]:
    """The names the new module-level definition reads as it runs that its new module binds
    only below it (sorted; none for a definition that stayed in its file or is nested)."""
    if sources is None or new.parent or old.path == new.path:
        return ()
    tree = sources.tree(new.path, "after")
    if tree is None:
        return ()
    node = new.node
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and future_annotations(tree):
        node = copy.copy(node)
        node.args = copy.copy(node.args)
        for field in ("posonlyargs", "args", "kwonlyargs"):
            setattr(node.args, field, [])
        node.args.vararg = node.args.kwarg = None
        node.returns = None
    first = sources.memo(new.path, "after", "first-bindings", partial(first_bindings, tree))
    return tuple(
        sorted(
            n
            for n in runtime_reads(node, {}, set())
            if n != new.name and n in first and first[n] > new.start
        )
    )


def rebound_globals(
    sources: SourceFiles | None, old: Definition, new: Definition, along: Mapping[str, str]
) -> tuple[str, ...]:
    """The global names the body reads that mean another object in its new module: the same
    import on both sides, a definition that moved along under its name (``along``: old name ->
    new name of the module-level definitions that moved from the same old module to the same new
    one), one the new module imports back from the old one, an unshadowed builtin; anything
    else is listed."""
    if sources is None or old.path == new.path:
        return ()
    old_tree, new_tree = sources.tree(old.path, "before"), sources.tree(new.path, "after")
    if old_tree is None or new_tree is None:
        return ()
    old_imp = sources.memo(
        old.path, "before", "module-bindings", partial(module_bindings, old_tree, old.path)
    )
    new_imp = sources.memo(
        new.path, "after", "module-bindings", partial(module_bindings, new_tree, new.path)
    )
    old_top = {d.name for d in file_index(sources, old.path, "before").values() if not d.parent}
    new_top = {d.name for d in file_index(sources, new.path, "after").values() if not d.parent}
    old_mod, new_mod = module_path(old.path), module_path(new.path)
    free = {
        n.id for n in ast.walk(old.node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    } - locally_bound(old.node)
    if isinstance(old.node, ast.ClassDef):
        free -= {x.name for x in old.node.body if isinstance(x, DEFINITIONS)}
    # A name the new version does not read at all is spelled another way there: the equality
    # test compared what the two spellings mean (``functools.partial`` / ``partial``).
    free &= {n.id for n in ast.walk(new.node) if isinstance(n, ast.Name)}
    bad = []
    for n in sorted(free - {old.name, new.name}):
        if n in old_imp:
            same = new_imp.get(n) == old_imp[n] or (
                old_imp[n] == f"{new_mod}.{n}" and n in new_top and n not in new_imp
            )
        elif n in old_top:
            same = along.get(n) == n or new_imp.get(n) == f"{old_mod}.{n}"
        elif n in _BUILTINS:
            same = n not in new_top and n not in new_imp
        else:
            same = True  # unresolved before as well (names.py reports it)
        if not same:
            bad.append(n)
    return tuple(bad)
