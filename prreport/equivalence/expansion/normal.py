"""The form two functions are compared in once a helper's calls are expanded.

:func:`normalised` drops what cannot change behaviour (imports, docstrings, annotations,
self-assignments, an ``else`` after a branch that always returns, a final ``return None``) and
folds ``if c: return a`` + ``return b`` into one return; :func:`canonical` then renames the
function's own locals by order of first appearance, so code equal up to local names dumps
alike. :func:`residual_of` is what is left when they still differ.
"""

from __future__ import annotations

import ast
import copy
import difflib
from collections.abc import Sequence

from prreport.python.definitions import bound_names, dump
from prreport.python.localnames import locals_of, names_in, params_of
from prreport.python.scopes import is_string_statement

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_BLOCKS = ("body", "orelse", "finalbody")
_TERMINAL = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def terminates(stmts: Sequence[ast.stmt]) -> bool:
    """True when control never falls off the end of ``stmts``."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, _TERMINAL):
        return True
    if isinstance(last, ast.If):
        return bool(last.orelse) and terminates(last.body) and terminates(last.orelse)
    return False


def ret_value(r: ast.Return) -> ast.expr:
    """What a ``return`` returns (``None`` for a bare one)."""
    return r.value if r.value is not None else ast.Constant(value=None)


def _norm_list(stmts: list[ast.stmt], top_of: ast.AST | None) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for i, st in enumerate(stmts):
        if isinstance(st, (ast.Import, ast.ImportFrom)):
            continue
        if i == 0 and top_of is not None and is_string_statement(st):
            continue
        if isinstance(st, ast.AnnAssign):
            if st.value is None:
                continue
            st = ast.Assign(targets=[st.target], value=st.value, lineno=st.lineno)
        if isinstance(st, ast.Assign) and _self_assign(st):
            continue
        _norm_node(st)
        if isinstance(st, ast.If) and st.orelse and terminates(st.body):
            # ``if c: return x`` / ``else: rest`` is ``if c: return x`` followed by ``rest``.
            rest, st.orelse = st.orelse, []
            out.append(st)
            out.extend(rest)
            continue
        out.append(st)
    # ``if c: return a`` then ``return b`` is ``return a if c else b`` (from the end).
    while (
        len(out) >= 2
        and isinstance(out[-1], ast.Return)
        and isinstance(out[-2], ast.If)
        and not out[-2].orelse
        and len(out[-2].body) == 1
        and isinstance(out[-2].body[0], ast.Return)
    ):
        cond, last = out[-2], out[-1]
        body0 = cond.body[0]
        assert isinstance(body0, ast.Return)
        out[-2:] = [
            ast.Return(
                value=ast.IfExp(test=cond.test, body=ret_value(body0), orelse=ret_value(last))
            )
        ]
    if isinstance(top_of, _FUNCS) and out and isinstance(out[-1], ast.Return):
        v = out[-1].value
        if v is None or (isinstance(v, ast.Constant) and v.value is None):
            out.pop()  # falling off the end returns None too
    return out


def _self_assign(st: ast.Assign) -> bool:
    if len(st.targets) != 1:
        return False
    t, v = st.targets[0], st.value
    if isinstance(t, ast.Name) and isinstance(v, ast.Name):
        return t.id == v.id
    if isinstance(t, (ast.Tuple, ast.List)) and isinstance(v, (ast.Tuple, ast.List)):
        a = [x.id if isinstance(x, ast.Name) else None for x in t.elts]
        b = [x.id if isinstance(x, ast.Name) else None for x in v.elts]
        return None not in a and a == b and len(set(a)) == len(a)
    return False


def _norm_node(node: ast.AST) -> None:
    if isinstance(node, _FUNCS):
        node.returns = None
        node.type_comment = None
        for a in params_of(node):
            a.annotation = None
    for name in _BLOCKS:
        block = getattr(node, name, None)
        if isinstance(block, list) and (not block or isinstance(block[0], ast.stmt)):
            top = node if isinstance(node, (*_FUNCS, ast.ClassDef)) and name == "body" else None
            setattr(node, name, _norm_list(block, top))
    for h in getattr(node, "handlers", None) or []:
        h.body = _norm_list(h.body, None)
    for c in getattr(node, "cases", None) or []:
        c.body = _norm_list(c.body, None)
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, ast.stmt) and not isinstance(child, ast.excepthandler):
            _norm_expr(child)


def _norm_expr(node: ast.AST) -> None:
    for n in ast.walk(node):
        if isinstance(n, ast.Lambda):
            for a in n.args.args:
                a.annotation = None


def normalised(
    fn: ast.FunctionDef | ast.AsyncFunctionDef,
) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """A copy without imports, docstrings, annotations, ``else`` after a returning branch,
    self-assignments and a final ``return None``; ``if c: return a`` + ``return b`` as one return."""
    fn = copy.deepcopy(fn)
    fn.decorator_list = list(fn.decorator_list)
    _norm_node(fn)
    return fn


class OrdinalNames(ast.NodeTransformer):
    """Rename every name outside ``keep`` by order of first appearance (a bijection test);
    optionally erase constants (to find code that matches in shape only)."""

    def __init__(self, keep: frozenset[str], erase_constants: bool = False) -> None:
        self.keep = keep
        self.erase = erase_constants
        self.names: dict[str, str] = {}

    def _sub(self, name: str) -> str:
        return name if name in self.keep else self.names.setdefault(name, f"_v{len(self.names)}")

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.Name(id=self._sub(node.id), ctx=node.ctx)

    def visit_arg(self, node: ast.arg) -> ast.AST:
        return ast.arg(arg=self._sub(node.arg), annotation=None)

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        return ast.Constant(value="_c") if self.erase else node


def canonical(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """Dump of a normalised function with its local names (not its parameters) renamed by order."""
    params = {a.arg for a in params_of(fn)}
    declared = {
        x for n in ast.walk(fn) if isinstance(n, (ast.Global, ast.Nonlocal)) for x in n.names
    }
    local = (bound_names(fn.body) | locals_of(fn.body)) - params - declared
    every = names_in(fn)
    return dump(OrdinalNames(frozenset(every - local)).visit(copy.deepcopy(fn)))


def residual_of(a: ast.AST, b: ast.AST) -> tuple[str, ...]:
    """The ``-``/``+`` lines of a diff of two trees printed alike."""
    x, y = ast.unparse(a).splitlines(), ast.unparse(b).splitlines()
    return tuple(
        ln
        for ln in difflib.unified_diff(x, y, lineterm="", n=0)
        if ln[:1] in "+-" and not ln.startswith(("+++", "---"))
    )
