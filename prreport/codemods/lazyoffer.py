"""PEP 810 offers: a function-local import turned into a module-level ``lazy`` import, as a diff
checked against the tree before it is shown.

``def f():\\n    from m import x`` becomes ``lazy from m import x`` in the import block: ``x`` is
bound when the module runs, ``m`` loaded at the first use of ``x`` (as the call did before),
and ``x`` becomes a module global. Refused when that global would change what a name means: the
module already binds ``x`` (or a function declares it ``global``), or the function binds ``x``
elsewhere too (removing the import would leave a local read before assignment).
"""

from __future__ import annotations

import ast
import difflib

from prreport.codemods.hoist import HoistSource, hoist
from prreport.python.lazyimports import forbidden
from prreport.python.parse import parse
from prreport.python.scopes import module_level_statements
from prreport.textlines import split_lines

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _bound_names(node: ast.AST) -> set[str]:
    """Names a statement (or a function's parameters) binds in the scope it runs in."""
    out: set[str] = set()
    if isinstance(node, _DEFS):
        out.add(node.name)
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        out |= {(a.asname or a.name).split(".")[0] for a in node.names}
    for n in ast.walk(node) if not isinstance(node, _DEFS) else ():
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.id)
    return out


def _module_binds(tree: ast.Module, name: str) -> bool:
    """``name`` is a global of the module already, or a function declares it ``global``."""
    for st in module_level_statements(tree.body):
        if name in _bound_names(st):
            return True
    return any(isinstance(n, ast.Global) and name in n.names for n in ast.walk(tree))


def _function_at(tree: ast.Module, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function whose body holds ``line``."""
    found = None
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if n.body[0].lineno <= line <= (n.end_lineno or n.lineno):
                if found is None or n.lineno > found.lineno:
                    found = n
    return found


def _binds_elsewhere(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str, line: int) -> bool:
    """``fn`` binds ``name`` other than by the import at ``line`` (a parameter, an assignment,
    another import, a nested definition)."""
    args = fn.args
    params = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    if any(p is not None and p.arg == name for p in params):
        return True
    for n in ast.walk(fn):
        if n is fn or getattr(n, "lineno", None) == line and isinstance(n, ast.stmt):
            continue
        if isinstance(n, (ast.Import, ast.ImportFrom, *_DEFS)) and name in _bound_names(n):
            return True
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Store, ast.Del)):
            return True
    return False


def lazy_hoist_diff(path: str, parsed: HoistSource, line: int, names: tuple[str, ...]) -> str:
    """A unified diff making the function-local import at ``line`` (binding ``names``) a
    module-level ``lazy`` import; "" when the codemod cannot make it or the result fails its
    check (it must parse, hold no ``lazy`` where Python forbids it, and bind each name lazily
    at module level)."""
    tree = parsed.tree
    fn = _function_at(tree, line)
    if fn is None or any(_module_binds(tree, n) or _binds_elsewhere(fn, n, line) for n in names):
        return ""
    new = hoist(parsed.text, line, parsed, lazy=True)
    if new is None or new == parsed.text:
        return ""
    try:
        after = parse(new, path)
    except (SyntaxError, ValueError):
        return ""
    lazy = {
        n
        for st in after.body
        if isinstance(st, (ast.Import, ast.ImportFrom)) and getattr(st, "is_lazy", False)
        for n in _bound_names(st)
    }
    if forbidden(after) or not set(names) <= lazy:
        return ""
    return "".join(
        difflib.unified_diff(
            parsed.source_lines, split_lines(new, keepends=True), f"a/{path}", f"b/{path}"
        )
    )
