"""Module-level code extracted into a function the module calls once, at import.

``HEADERS = {"User-Agent": default_user_agent()}`` where the module's import-time code built the
header itself before: the after module's import-time code, with its one call of the helper
spliced in (the helper's locals becoming module globals, as they were before), must equal the
before module's. The helper's names are resolved in its own module before they are spliced
into another, so ``platform.system`` means the same object in both.
"""

from __future__ import annotations

import ast
import builtins
import copy
from dataclasses import dataclass

from prreport.bundle import FileChange
from prreport.equivalence.canonical import canonical as spelled_one_way
from prreport.equivalence.canonical import module_bindings
from prreport.equivalence.canonical import module_of as module_path
from prreport.equivalence.expansion.binding import Helper, Subst, bind, pure
from prreport.equivalence.expansion.normal import normalised, residual_of, ret_value
from prreport.python.definitions import Definition, same_tree
from prreport.python.localnames import free_names, locals_of, params_of, returns_in, yields_in
from prreport.python.sources import SourceFiles

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_BUILTINS = frozenset(dir(builtins))


@dataclass(frozen=True)
class ModuleProof:
    """Whether a module's import-time code, its calls of a new helper expanded, equals its old code."""

    proven: bool
    reason: str = ""
    residual: tuple[str, ...] = ()
    call_lines: tuple[int, ...] = ()
    # Helper locals that were module globals before (private names no longer in the module).
    dropped_globals: tuple[str, ...] = ()


# Expressions whose operands are all evaluated, left to right, each exactly once.
_STRICT = (
    ast.Dict,
    ast.List,
    ast.Tuple,
    ast.Set,
    ast.Call,
    ast.keyword,
    ast.BinOp,
    ast.UnaryOp,
    ast.Subscript,
    ast.Attribute,
    ast.Starred,
    ast.JoinedStr,
    ast.FormattedValue,
)


# What may run before the call inside its statement: nothing that can see the helper's effects.
_INERT = (ast.Name, ast.Constant, ast.expr_context, ast.Dict, ast.List, ast.Tuple, ast.Set)


def module_level(tree: ast.Module) -> list[ast.stmt]:
    """Import-time code of a module: its statements without imports and function definitions
    (a class keeps its body without its methods; functions are compared one by one)."""
    out: list[ast.stmt] = []
    for st in tree.body:
        if isinstance(st, (*_FUNCS, ast.Import, ast.ImportFrom)):
            continue
        if isinstance(st, ast.ClassDef):
            st = copy.copy(st)
            st.body = [x for x in st.body if not isinstance(x, _FUNCS)] or [ast.Pass()]
        out.append(st)
    return out


def prove_module(
    before: ast.Module,
    after: ast.Module,
    bindings: tuple[dict[str, str], dict[str, str], dict[str, str]],
    helper: Definition,
    same_module: bool,
) -> ModuleProof | None:
    """Whether ``after``'s import-time code, its calls of ``helper`` (a module-level function
    returning once, at its end) spliced in, equals ``before``'s; None when it calls it nowhere.

    ``bindings``: the import bindings of the before module, the after module and the helper's
    module, so ``platform.system`` means the same object in both. The helper's locals become
    module globals in the spliced code, as they were before the extraction: the real after module
    must not read them, and the ones that were module globals before must be private.
    """
    name = helper.name
    code = module_level(after)
    sites = [
        st
        for st in code
        if any(
            isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == name
            for c in ast.walk(st)
        )
    ]
    if not sites:
        return None
    lines = tuple(sorted({n for st in sites for n in range(st.lineno, (st.end_lineno or 0) + 1)}))
    # The module binds the helper's name once (its ``def`` or the import of it), before the call.
    binders = [st for st in after.body if name in locals_of([st])]
    if len(binders) != 1 or binders[0].lineno > min(st.lineno for st in sites):
        return ModuleProof(False, f"{name} is not bound once before its call", call_lines=lines)
    norm = normalised(helper.node)  # type: ignore[arg-type]
    body = norm.body
    if (
        not body
        or not isinstance(body[-1], ast.Return)
        or len(returns_in(body)) != 1
        or yields_in(body)
        or any(isinstance(n, (ast.Global, ast.Nonlocal, ast.Await)) for n in ast.walk(norm))
    ):
        return ModuleProof(False, "helper does not return once, at its end", call_lines=lines)
    before_b, after_b, helper_b = bindings
    local = locals_of(body) | {a.arg for a in params_of(norm)}
    free = free_names(norm) - _BUILTINS
    if not same_module and free - set(helper_b):
        return ModuleProof(
            False, f"helper reads {sorted(free - set(helper_b))[0]!r}, a global of its module"
        )
    # The helper's names, resolved in its own module, before they are spliced into another.
    spliced_body = canonical_body(body, helper_b, local)
    out: list[ast.stmt] = []
    for st in code:
        if not any(st is s for s in sites):
            out.append(st)
            continue
        got = _splice(st, name, spliced_body, helper)
        if isinstance(got, str):
            return ModuleProof(False, got, call_lines=lines)
        out.extend(got)
    return _compare(before, after, out, body, helper, (before_b, after_b), lines)


def _compare(
    before: ast.Module,
    after: ast.Module,
    spliced: list[ast.stmt],
    body: list[ast.stmt],
    helper: Definition,
    bindings: tuple[dict[str, str], dict[str, str]],
    lines: tuple[int, ...],
) -> ModuleProof:
    """Whether the after module's import-time code with the helper ``body`` spliced in
    (``spliced``) equals the before module's, and the helper's locals (module globals once
    spliced) are unread by the real after module and private where they were globals before."""
    before_b, after_b = bindings
    introduced = locals_of(body)
    reads = {
        n.id
        for n in ast.walk(after)
        if isinstance(n, ast.Name) and n.id in introduced and not _inside(n, helper.node)
    }
    if reads:
        return ModuleProof(False, f"the module still uses {sorted(reads)[0]!r}", call_lines=lines)
    old_globals = {n for st in before.body for n in locals_of([st])}
    dropped = tuple(sorted(introduced & old_globals))
    public = [n for n in dropped if not n.startswith("_")]
    if public:
        return ModuleProof(
            False, f"module global {public[0]!r} is no longer defined", call_lines=lines
        )
    a = canonical_body(module_level(before), before_b, set())
    b = canonical_body(spliced, after_b, set())
    if same_tree(a, b):
        return ModuleProof(True, call_lines=lines, dropped_globals=dropped)
    return ModuleProof(
        False,
        "the expanded code differs",
        residual_of(ast.Module(body=a, type_ignores=[]), ast.Module(body=b, type_ignores=[])),
        lines,
        dropped,
    )


def canonical_body(
    stmts: list[ast.stmt], names: dict[str, str], shadowed: set[str]
) -> list[ast.stmt]:
    """Statements with docstrings and annotations dropped and imported objects spelled one way."""
    out = spelled_one_way(ast.Module(body=[*stmts], type_ignores=[]), names, shadowed)
    assert isinstance(out, ast.Module)
    return out.body


def _inside(node: ast.AST, root: ast.AST) -> bool:
    lo, hi = getattr(root, "lineno", 0), getattr(root, "end_lineno", 0) or 0
    return lo <= getattr(node, "lineno", -1) <= hi


def _splice(
    st: ast.stmt, name: str, body: list[ast.stmt], helper: Definition
) -> list[ast.stmt] | str:
    """``st`` with its one call of the helper replaced by the returned expression, the helper's
    other statements before it; or why that would not run the same code in the same order."""
    calls = [
        c
        for c in ast.walk(st)
        if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == name
    ]
    if (
        len(calls) != 1
        or isinstance(st, (ast.AugAssign, ast.ClassDef))
        or st.__class__
        in (
            ast.If,
            ast.While,
            ast.For,
            ast.AsyncFor,
            ast.With,
            ast.AsyncWith,
            ast.Try,
        )
    ):
        return "helper called in a block or more than once"
    call = calls[0]
    fn = helper.node
    assert isinstance(fn, _FUNCS)
    bound = bind(Helper(fn, "function"), call)
    if bound is None or not all(pure(x) and not isinstance(x, ast.Name) for _, x in bound):
        return "arguments do not bind to constants"
    value = getattr(st, "value", None)
    if not isinstance(st, (ast.Assign, ast.AnnAssign, ast.Expr)) or value is None:
        return "call used outside an assignment or expression statement"
    # The call must run unconditionally, and nothing that runs before it in the statement may
    # see (or be seen by) the helper's statements now placed ahead of it.
    path = _path_to(value, call)
    if path is None or not all(isinstance(p, _STRICT) for p in path[:-1]):
        return "call runs conditionally or inside a comprehension"
    start = (call.lineno, call.col_offset)
    for n in ast.walk(value):
        pos = (getattr(n, "end_lineno", None), getattr(n, "end_col_offset", None))
        if pos[0] is None or any(n is p for p in path):
            continue
        if pos <= start and not isinstance(n, _INERT):  # type: ignore[operator]
            return "code before the call in its statement may interact with the helper"
    subst = {p: x for p, x in bound}
    stmts = [Subst(subst).visit(copy.deepcopy(s)) for s in body]
    ret = stmts[-1]
    assert isinstance(ret, ast.Return)
    result = ret_value(ret)
    new = copy.deepcopy(st)
    for n in ast.walk(new):
        for field, old in ast.iter_fields(n):
            if old is call or (isinstance(old, ast.AST) and _same_call(old, call)):
                setattr(n, field, result)
            elif isinstance(old, list):
                setattr(n, field, [result if _same_call(x, call) else x for x in old])
    return [*stmts[:-1], new]


def _same_call(node: object, call: ast.Call) -> bool:
    return (
        isinstance(node, ast.Call)
        and (node.lineno, node.col_offset) == (call.lineno, call.col_offset)
        and isinstance(node.func, ast.Name)
        and node.func.id == getattr(call.func, "id", None)
    )


def _path_to(root: ast.AST, target: ast.AST) -> list[ast.AST] | None:
    """Nodes from ``root`` down to ``target`` (both included), or None."""
    if root is target:
        return [root]
    for child in ast.iter_child_nodes(root):
        got = _path_to(child, target)
        if got is not None:
            return [root, *got]
    return None


@dataclass(frozen=True)
class ModuleExtraction:
    """A module whose import-time code calls a new helper, with both of its trees and the proof."""

    file: FileChange
    before: ast.Module
    after: ast.Module
    proof: ModuleProof


def module_extraction(
    sources: SourceFiles, new: Definition, f_new: FileChange
) -> ModuleExtraction | None:
    """The first module whose import-time code calls ``new`` (a new module-level function of
    ``f_new``), with the proof that splicing it in gives the module's old code; None if none."""
    helper_tree = sources.tree(f_new.path, "after")
    if helper_tree is None:
        return None
    for f in sources.python_files():
        before = sources.tree(f.before_path, "before") if f.before is not None else None
        after = sources.tree(f.path, "after") if f.after is not None else None
        if before is None or after is None:
            continue
        same = f.path == f_new.path
        if not same and new.name not in imported_from(after, f_new.path, f.path):
            continue
        bindings = (
            module_bindings(before, f.before_path),
            module_bindings(after, f.path),
            module_bindings(helper_tree, f_new.path),
        )
        proof = prove_module(before, after, bindings, new, same)
        if proof is not None:
            return ModuleExtraction(f, before, after, proof)
    return None


def imported_from(tree: ast.Module, helper_path: str, importer_path: str) -> set[str]:
    """Names ``tree`` (the module at ``importer_path``) imports from the module at ``helper_path``."""
    target = module_path(helper_path)
    names = module_bindings(tree, importer_path)
    return {k for k, v in names.items() if v.rpartition(".")[0] == target}
