"""The behaviour comparison of two versions of one function: equal syntax trees once import
statements are left out, else equal canonical forms (docstrings, annotations and the spelling of
imported objects dropped), else equal through the named rewrites, else through a list builder
made a generator that every reference consumes; and the residual when none of them holds.

An enclosing function whose changed lines all lie inside its nested functions is decided from
their results (``same_through_nested``) instead of being compared again.
"""

from __future__ import annotations

import ast
import difflib
from collections import Counter
from dataclasses import dataclass

from prreport.bundle import FileChange
from prreport.equivalence.canonical import (
    bindings,
    canonical,
    imports_in,
    locally_bound,
    module_bindings,
    rebound_builtins,
)
from prreport.equivalence.effects import ASSUMPTION as EFFECTS_ASSUMPTION
from prreport.equivalence.effects import ModuleFacts, same_effects
from prreport.equivalence.generators import generator_rewrites
from prreport.equivalence.guards import without_dead_fallbacks
from prreport.equivalence.idioms import exception_classes
from prreport.equivalence.plainclass import constructions
from prreport.equivalence.rewrites import Rewrite, see_through
from prreport.python.definitions import same_tree
from prreport.python.functions import BLOCK_FIELDS, Function, FunctionIndex
from prreport.python.parse import copy_tree
from prreport.python.scopes import bound_anywhere, single_binding
from prreport.python.sources import SourceFiles
from prreport.python.versions import declared_min_python

_IMPORTS = (ast.Import, ast.ImportFrom)
_DefNode = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Comparison:
    """How two versions of a function compared."""

    same: bool
    canonical: bool  # decided on canonical forms (the plain trees differ)
    rewrites: list[Rewrite] | None  # the rewrites that made them equal (None: none applied)


def compare_functions(
    sources: SourceFiles,
    f: FileChange,
    key: str,
    old: _DefNode,
    new: _DefNode,
    trees: tuple[ast.Module, ast.Module],
) -> Comparison:
    """Compare the before version ``old`` of function ``key`` in file ``f`` with ``new``
    (``trees``: the before and after modules)."""
    if same_tree(old, new, _IMPORTS):
        return Comparison(True, False, None)
    before, after = trees
    # Docstrings, annotations, the spelling of imported objects and idioms change nothing.
    idioms: tuple[list[str], list[str]] = ([], [])
    canon = (
        canonical_def(old, f.before_path, before, sources, "before", idioms[0]),
        canonical_def(new, f.path, after, sources, "after", idioms[1]),
    )
    spelled = _idiom_rewrites(*idioms)
    if same_tree(canon[0], canon[1], _IMPORTS):
        return Comparison(True, True, spelled or None)
    # Rewrites that keep what the code does (a local inlined, nested ifs merged...).
    inert = (
        constructions(sources, f.before_path, "before"),
        constructions(sources, f.path, "after"),
    )
    rewrites = see_through(*canon, declared_min_python(sources), inert)
    if rewrites is None:
        # Last resort, it needs the whole change: a list builder made a generator that every
        # caller consumes at once, or a caller now wrapping it in list().
        rewrites = _generator_rewrites(sources, f, key, (old, new), trees)
    if rewrites is None:
        # Then by what each version does: its effect summary (``equivalence.effects``).
        rewrites = _effect_rewrites(sources, f, (old, new), trees)
    if rewrites is None:
        return Comparison(False, True, None)
    return Comparison(True, True, [*spelled, *rewrites])


def _idiom_rewrites(before: list[str], after: list[str]) -> list[Rewrite]:
    """``idiom``, naming the idioms (``equivalence.idioms``) one version is written in and the
    other is not; none when both are written alike."""
    differ = sorted(set((Counter(before) - Counter(after)) + (Counter(after) - Counter(before))))
    return [Rewrite("idiom", ", ".join(differ))] if differ else []


def _effect_rewrites(
    sources: SourceFiles,
    f: FileChange,
    pair: tuple[_DefNode, _DefNode],
    trees: tuple[ast.Module, ast.Module],
) -> list[Rewrite] | None:
    """``same-effects`` when the two versions' effect summaries are equal (its text: the
    helpers of the module replaced by their bodies; its detail: the assumption)."""
    (old, new), (before, after) = pair, trees
    canon = (
        canonical_def(old, f.before_path, before, sources, "before"),
        canonical_def(new, f.path, after, sources, "after"),
    )
    facts = (
        _module_facts(sources, f.before_path, before, "before"),
        _module_facts(sources, f.path, after, "after"),
    )
    inlined = same_effects(canon[0], canon[1], facts)  # type: ignore[arg-type]
    if inlined is None:
        return None
    return [Rewrite("same-effects", ", ".join(inlined), EFFECTS_ASSUMPTION)]


def _module_facts(sources: SourceFiles, path: str, tree: ast.Module, side: str) -> ModuleFacts:
    """The names a module binds and its plain helpers (undecorated module-level functions
    bound once), in canonical form."""

    def build() -> ModuleFacts:
        helpers = {}
        for st in tree.body:
            if (
                isinstance(st, ast.FunctionDef)
                and not st.decorator_list
                and single_binding(tree, st.name) is st
            ):
                helpers[st.name] = canonical_def(st, path, tree, sources, side)
        return ModuleFacts(bound_anywhere(tree), helpers)  # type: ignore[arg-type]

    return sources.memo(path, side, "effect-facts", build)


def canonical_def(
    fn: _DefNode,
    path: str,
    tree: ast.Module,
    sources: SourceFiles,
    side: str,
    applied: list[str] | None = None,
    fold: bool = True,
) -> ast.AST:
    """The function with docstrings and annotations dropped, imported objects spelled
    canonically and idioms in one form (``applied``: extended with the idioms rewritten;
    ``fold``: see ``canonical``)."""
    module = sources.memo(path, side, "module-bindings", lambda: module_bindings(tree, path))
    alive = without_dead_fallbacks(fn, sources)
    if alive is not None:
        fn = alive  # type: ignore[assignment]
        if applied is not None:
            applied.append("unfailing-import")
    own = imports_in(fn)
    names = {**module, **bindings(own, path)}
    own_names = set(bindings(own, path))
    rebound = sources.memo(path, side, "rebound-builtins", lambda: rebound_builtins(tree))
    owners = sources.memo(path, side, "method-owners", lambda: _owners(tree))
    low = declared_min_python(sources)
    generics = low is not None and low[:2] >= (3, 9)
    return canonical(
        fn,
        names,
        locally_bound(fn) - own_names,
        rebound,
        _method_of(fn, tree, owners),
        applied,
        fold,
        generics,
        sources.memo(path, side, "exception-classes", lambda: exception_classes(tree)),
    )


def _generator_rewrites(
    sources: SourceFiles,
    f: FileChange,
    key: str,
    pair: tuple[_DefNode, _DefNode],
    trees: tuple[ast.Module, ast.Module],
) -> list[Rewrite] | None:
    """``generators.generator_rewrites`` on fresh canonical copies (``see_through`` changed
    the first ones)."""
    (old, new), (before, after) = pair, trees

    # The list-filling loops stay loops: the generator rule reads them.
    def canon(fn: ast.FunctionDef, path: str, tree: ast.Module, side: str) -> ast.AST:
        return canonical_def(fn, path, tree, sources, side, fold=False)

    def fresh() -> tuple[ast.AST, ast.AST]:
        return (
            canonical_def(old, f.before_path, before, sources, "before", fold=False),
            canonical_def(new, f.path, after, sources, "after", fold=False),
        )

    return generator_rewrites(sources, f.path, key, canon, fresh, declared_min_python(sources))


def _owners(tree: ast.Module) -> dict[int, ast.ClassDef]:
    """Each method of a module-level class, by ``id``, to its class (made once per module: a
    scan per function was quadratic in the functions of a large changed module)."""
    return {id(x): st for st in tree.body if isinstance(st, ast.ClassDef) for x in st.body}


def _method_of(
    fn: _DefNode, tree: ast.Module, owners: dict[int, ast.ClassDef]
) -> tuple[str, str] | None:
    """(class, first parameter) when ``fn`` is a method, not static, of an undecorated class
    at module level whose name nothing else in the module binds: there ``super(C, p)`` is
    ``super()`` (a class decorator may return another class, e.g. a slots dataclass)."""
    params = [*fn.args.posonlyargs, *fn.args.args]
    if not params or any(
        isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list
    ):
        return None
    owner = owners.get(id(fn))
    if owner is None or owner.decorator_list:
        return None
    return (owner.name, params[0].arg) if single_binding(tree, owner.name) is owner else None


class _DropImports(ast.NodeTransformer):
    """Remove import statements from every statement list (their placement is the refactor)."""

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for name in BLOCK_FIELDS:
            block = getattr(node, name, None)
            if isinstance(block, list):
                setattr(
                    node,
                    name,
                    [s for s in block if not isinstance(s, (ast.Import, ast.ImportFrom))],
                )
        return super().generic_visit(node)


def normalised(fn: ast.AST) -> ast.AST:
    """A copy of a function without import statements (docstrings and everything else kept)."""
    return _DropImports().visit(copy_tree(fn))


def residual(before: ast.AST, after: ast.AST) -> list[str]:
    """Unparsed statement lines that differ, ``-``/``+`` prefixed."""
    a = ast.unparse(before).splitlines()
    b = ast.unparse(after).splitlines()
    return [
        ln
        for ln in difflib.unified_diff(a, b, lineterm="", n=0)
        if ln[:1] in "+-" and not ln.startswith(("+++", "---"))
    ]


def nested(index: FunctionIndex, common: set[str]) -> dict[str, list[Function]]:
    """Directly nested functions (present on both sides) of each function, in source order."""
    out: dict[str, list[Function]] = {}
    for d in index.functions.values():
        if d.parent and d.key in common:
            out.setdefault(d.parent, []).append(d)
    for kids in out.values():
        kids.sort(key=lambda d: d.start)
    return out


def same_through_nested(
    qual: str,
    changed: tuple[list[int], list[int]],
    kids: tuple[dict[str, list[Function]], dict[str, list[Function]]],
    same_of: dict[str, bool],
) -> bool | None:
    """Decide from nested results when every changed line lies inside nested functions, else None.

    ``changed``: the removed and the added lines of the function; ``kids``: the ``nested``
    functions of each side; ``same_of``: the results of the nested functions compared so far.
    Lines outside those nested functions are then untouched text, so the enclosing function is
    equal exactly when each nested function that changed is equal (and their order is kept).
    """
    (gone, came), (kids_old, kids_new) = changed, kids
    ko, kn = kids_old.get(qual, []), kids_new.get(qual, [])
    if not ko or [d.key for d in ko] != [d.key for d in kn]:
        return None
    if not all(any(d.start <= n <= d.end for d in ko) for n in gone):
        return None
    if not all(any(d.start <= n <= d.end for d in kn) for n in came):
        return None
    touched = [d.key for d in ko if d.key in same_of]
    if not all(same_of[q] for q in touched):
        return None  # let the full comparison compute the residual
    return True
