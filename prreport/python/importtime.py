"""What module-level code binds, reads and runs as it is imported.

The names a statement binds, the names it reads when it runs (following the scope's own
functions and classes it calls), the line that first binds each module-level name, whether
annotations are evaluated (``from __future__ import annotations``), and whether defining a
function or a class runs anything besides binding it: decorators (``abc.abstractmethod``,
``property``, and class decorators that return the class as it is), defaults, annotations.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Mapping

from prreport.python.definitions import Definition, file_index
from prreport.python.moduleimports import is_type_checking
from prreport.python.scopes import module_level_statements
from prreport.python.sources import SourceFiles

# The statements that bind the name they define.
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def binds(st: ast.stmt) -> set[str]:
    """Names a statement binds: a definition's name, an import's, every name stored or deleted."""
    if isinstance(st, DEFINITIONS):
        return {st.name}
    if isinstance(st, (ast.Import, ast.ImportFrom)):
        return {a.asname or a.name.split(".")[0] for a in st.names}
    return {
        n.id
        for n in ast.walk(st)
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))
    }


def runtime_reads(st: ast.AST, bodies: Mapping[str, ast.AST], seen: set[str]) -> set[str]:
    """Names a statement reads when it runs, following the scope's own functions and classes
    it may call (their bodies run then too)."""
    out: set[str] = set()
    stack: list[ast.AST] = [st]
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            # the header runs now; the body only when called
            stack.extend(n.args.defaults)
            stack.extend(x for x in n.args.kw_defaults if x is not None)
            if not isinstance(n, ast.Lambda):
                stack.extend(n.decorator_list)
                stack.extend(x.annotation for x in _all_args(n) if x.annotation is not None)
                if n.returns is not None:
                    stack.append(n.returns)
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            out.add(n.id)
        stack.extend(ast.iter_child_nodes(n))
    for name in sorted(out & set(bodies)):
        if name not in seen and bodies[name] is not st:
            seen.add(name)
            # A call of a function (or class) of the scope runs its whole body now.
            out |= {x.id for x in ast.walk(bodies[name]) if isinstance(x, ast.Name)}
            out |= runtime_reads(bodies[name], bodies, seen)
    return out


def _all_args(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    a = fn.args
    return [*a.posonlyargs, *a.args, *a.kwonlyargs, *(x for x in (a.vararg, a.kwarg) if x)]


def first_bindings(tree: ast.Module) -> dict[str, int]:
    """Name -> the line of the first module-level statement binding it."""
    first: dict[str, int] = {}
    for st in tree.body:
        for n in binds(st):
            first.setdefault(n, st.lineno)
    return first


def future_annotations(tree: ast.Module) -> bool:
    """The module starts with ``from __future__ import annotations``: no annotation runs."""
    return any(
        isinstance(st, ast.ImportFrom)
        and st.module == "__future__"
        and any(a.name == "annotations" for a in st.names)
        for st in tree.body
    )


_BUILTIN_DECORATORS = frozenset({"property", "staticmethod", "classmethod"})
# Class decorators that return the class unchanged and read none of its methods, by module.
_IDENTITY = {
    "mypy_extensions": frozenset({"trait"}),
    "typing": frozenset({"final"}),
    "typing_extensions": frozenset({"final"}),
}


def identity_decorator(tree: ast.Module | None, deco: ast.expr) -> bool:
    """``@trait`` imported from ``mypy_extensions`` (``def trait(cls): return cls``), or
    ``@final`` from ``typing`` (it only sets ``__final__``), as a name or ``module.name``."""
    if isinstance(deco, ast.Attribute) and isinstance(deco.value, ast.Name):
        return deco.attr in _IDENTITY.get(deco.value.id, ()) and any(
            isinstance(st, ast.Import)
            and any(a.name == deco.value.id and not a.asname for a in st.names)
            for st in (tree.body if tree else [])
        )
    if not isinstance(deco, ast.Name):
        return False
    return any(
        isinstance(st, ast.ImportFrom)
        and not st.level
        and deco.id in _IDENTITY.get(st.module or "", ())
        and any(a.name == deco.id and not a.asname for a in st.names)
        for st in (tree.body if tree else [])
    )


def defining_runs_nothing(sources: SourceFiles, d: Definition) -> bool:
    """Defining ``d`` (a function or method, before the change) ran nothing but binding it:
    known decorators, literal defaults, and annotations that only name what the module binds.

    The one assumption: evaluating such an annotation, which succeeded when the module was
    imported, has no side effect (subscripting a typing alias)."""
    fn = d.node
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    tree = sources.tree(d.path, "before")
    defs = file_index(sources, d.path, "before")
    if not all(_decorator_ok(tree, defs, x) for x in fn.decorator_list):
        return False
    a = fn.args
    for default in [*a.defaults, *(x for x in a.kw_defaults if x is not None)]:
        try:
            ast.literal_eval(default)
        except (ValueError, TypeError, SyntaxError, RecursionError):
            return False
    if tree is not None and future_annotations(tree):
        return True
    params = [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
    notes = [p.annotation for p in params if p is not None and p.annotation is not None]
    notes += [fn.returns] if fn.returns is not None else []
    for note in notes:
        for n in ast.walk(note):
            if not isinstance(
                n,
                (
                    ast.Constant,
                    ast.Name,
                    ast.Attribute,
                    ast.Subscript,
                    ast.Tuple,
                    ast.List,
                    ast.BinOp,
                    ast.BitOr,
                    ast.Load,
                ),
            ):
                return False
            if isinstance(n, ast.Name) and n.id not in defs and not hasattr(builtins, n.id):
                return False
    return True


def registering_decorator(sources: SourceFiles, d: Definition) -> ast.expr | None:
    """The first decorator of ``d`` (before the change) that may do more than wrap it: a
    decorator runs when the definition does, and may register what it decorates (a nox session,
    a route, a CLI command, a signal receiver) where no reference to its name is written."""
    decorators = getattr(d.node, "decorator_list", None) or []
    if not decorators:
        return None
    tree = sources.tree(d.path, "before")
    defs = file_index(sources, d.path, "before")
    for deco in decorators:
        if isinstance(d.node, ast.ClassDef):
            if not identity_decorator(tree, deco):
                return deco
        elif not _decorator_ok(tree, defs, deco):
            return deco
    return None


def _decorator_ok(tree: ast.Module | None, defs: dict[str, Definition], deco: ast.expr) -> bool:
    """``abstractmethod`` imported from ``abc`` (or ``abc.abstractmethod``), or a built-in
    ``property``/``staticmethod``/``classmethod`` the module does not rebind: they register
    nothing when the class is made."""
    if isinstance(deco, ast.Name) and deco.id in _BUILTIN_DECORATORS:
        return deco.id not in defs
    if isinstance(deco, ast.Name) and deco.id == "abstractmethod":
        return any(
            isinstance(st, ast.ImportFrom)
            and st.module == "abc"
            and not st.level
            and any(a.name == "abstractmethod" and not a.asname for a in st.names)
            for st in (tree.body if tree else [])
        ) and _bound_once(tree, "abstractmethod")
    if isinstance(deco, ast.Attribute) and isinstance(deco.value, ast.Name):
        return (
            deco.attr == "abstractmethod" and deco.value.id == "abc" and _plain_import(tree, "abc")
        )
    return False


def _binds_name(node: ast.AST, name: str) -> bool:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return any((a.asname or a.name.split(".")[0]) == name for a in node.names)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name == name
    return isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)


def _plain_import(tree: ast.Module | None, module: str) -> bool:
    """The module is bound once, by ``import module``."""
    if tree is None:
        return False
    plain = any(
        isinstance(st, ast.Import) and any(a.name == module and not a.asname for a in st.names)
        for st in tree.body
    )
    return plain and _bound_once(tree, module)


def _bound_once(tree: ast.Module | None, name: str) -> bool:
    """Nothing else in the file (at any depth) binds the name."""
    return tree is not None and sum(1 for n in ast.walk(tree) if _binds_name(n, name)) == 1


def annotation_only(tree: ast.Module, postponed: bool | None = None) -> frozenset[str]:
    """Module-level names no code evaluated at runtime reads: with ``from __future__ import
    annotations``, every read is in an annotation, under ``if TYPE_CHECKING:``, or in the value
    of a module-level alias (``X = ...``, ``X: TypeAlias = ...``) that is itself read only so;
    a name ``__all__`` lists is read (exported). Empty without the future import (annotations
    run then), unless ``postponed`` says to read the annotations as not run (the other version
    of the module postpones them: annotations are compared as annotations)."""
    if not (future_annotations(tree) if postponed is None else postponed):
        return frozenset()
    reads: dict[str, set[str]] = {"": set()}  # alias -> names its value reads ("": runtime)
    _runtime_reads(tree, reads)
    for st in tree.body:
        if isinstance(st, ast.Assign) and st.targets and st.targets[0] is not None:
            exported = {
                e.value
                for t in st.targets
                if isinstance(t, ast.Name) and t.id == "__all__"
                for e in getattr(st.value, "elts", [])
                if isinstance(e, ast.Constant)
            }
            reads[""] |= {str(x) for x in exported}
    # An alias nothing in the module reads is there for other modules (or is the value itself):
    # what its value reads runs for them.
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    read |= _string_annotation_reads(tree)
    runtime, todo = set(), ["", *(alias for alias in reads if alias and alias not in read)]
    while todo:
        for name in reads.get(todo.pop(), ()):
            if name not in runtime:
                runtime.add(name)
                todo.append(name)
    # Bound at module level (in ``if``/``try`` blocks too) and read somewhere: an unused name
    # is not "annotation only" (another module may import it).
    bound = {n for st in module_level_statements(tree.body) for n in _own_binds(st)}
    return frozenset((bound & read) - runtime)


def _string_annotation_reads(tree: ast.Module) -> set[str]:
    """Names the string annotations of the module read (``x: "Alias"``, ``-> "Response"``): a
    module-level alias only such forward references read is read by annotations only."""
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.arg | ast.AnnAssign):
            anns = [n.annotation]
        elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef):
            anns = [n.returns]
        else:
            continue
        for ann in anns:
            for c in ast.walk(ann) if ann is not None else ():
                if isinstance(c, ast.Constant) and isinstance(c.value, str):
                    try:
                        expr = ast.parse(c.value.strip(), mode="eval")
                    except SyntaxError:
                        continue
                    out |= {x.id for x in ast.walk(expr) if isinstance(x, ast.Name)}
    return out


def _alias_statement(node: ast.AST) -> bool:
    """``X = value`` or ``X: T = value`` (one target)."""
    if isinstance(node, ast.Assign):
        return len(node.targets) == 1
    return isinstance(node, ast.AnnAssign) and node.value is not None


def _own_binds(st: ast.stmt) -> set[str]:
    if isinstance(st, (ast.If, ast.Try)):
        return set()
    return binds(st)


def _runtime_reads(tree: ast.Module, reads: dict[str, set[str]]) -> None:
    """Fill ``reads``: per module-level alias the names its value reads, and under "" every
    other name read by code that runs (annotations and ``TYPE_CHECKING`` blocks skipped)."""
    stack: list[tuple[ast.AST, str, bool]] = [(st, "", True) for st in tree.body]
    while stack:
        node, owner, top = stack.pop()
        if isinstance(node, ast.If) and is_type_checking(node.test):
            stack.extend((x, owner, top) for x in [node.test, *node.orelse])
            continue
        if top and isinstance(node, ast.Assign | ast.AnnAssign) and _alias_statement(node):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if isinstance(target, ast.Name) and target.id != "__all__" and node.value is not None:
                reads.setdefault(target.id, set())
                stack.append((node.value, target.id, False))
                continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            reads[owner].add(node.id)
        inner = top and not isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
        )
        for field, value in ast.iter_fields(node):
            if field in ("annotation", "returns"):
                continue
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.AST):
                    stack.append((child, owner, inner))
