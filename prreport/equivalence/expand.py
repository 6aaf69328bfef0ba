"""Call-site expansion: prove a function equal to another once calls of a helper are inlined.

Shared by extraction (the after caller calls a new helper: expanded, it must equal the before
caller) and inlining (the before caller called a removed helper: expanded, it must equal the
after caller). A call is expanded only where Python's semantics allow it: the parameters are
replaced by the arguments (pure ones substituted, others assigned first, in call order), the
helper's result is bound the way the call statement used it, and the helper's own local names
must not capture or clobber the caller's.
"""

from __future__ import annotations

import ast
import builtins
import copy
import dataclasses
import difflib
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from prreport.bundle import FileChange
from prreport.equivalence import laterkey as laterkey
from prreport.equivalence import multiret as multiret
from prreport.equivalence.canonical import canonical as spelled_one_way
from prreport.equivalence.plainclass import constructions, stable_field
from prreport.equivalence.rereads import quiet_until_last_read
from prreport.equivalence.rewrites import Inert, see_through
from prreport.findings import Finding
from prreport.python.definitions import (
    Definition,
    bound_names,
    dump,
    explains,
    file_index,
    lines_with_blanks,
    same_tree,
    strip_docstring,
)
from prreport.python.scopes import is_string_statement, own_nodes
from prreport.python.sources import SourceFiles
from prreport.textlines import split_lines

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_BLOCKS = ("body", "orelse", "finalbody")
_BUILTINS = frozenset(dir(builtins))
_TERMINAL = (ast.Return, ast.Raise, ast.Continue, ast.Break)
# Share of an unproven helper's code found among the caller's changed lines to still call it
# an extraction/inlining (reported as "different", with the residual).
_SIMILAR = 0.6
_ORDER = {"byte-identical": 0, "modulo-renames": 1, "different": 2}
# Why an attribute argument is the same object wherever the expanded body reads it (or None).
Stable = Callable[[ast.expr], "str | None"]


@dataclass(frozen=True)
class Helper:
    """The helper whose calls are expanded: its node, and how a call reaches its first parameter."""

    node: ast.FunctionDef | ast.AsyncFunctionDef
    receiver: str  # "static" (no implicit parameter) | "method" | "class" | "function"
    # Reached by ``super().name(...)`` from a method whose first parameter is this name (the
    # helper's own first parameter is bound to it); "" when calls go through ``self``/``cls``.
    super_self: str = ""


@dataclass(frozen=True)
class Proof:
    """Outcome of expanding one caller: proven equal, or why not (with a residual)."""

    proven: bool
    sites: int
    reason: str = ""
    residual: tuple[str, ...] = ()
    # Most of the helper's code is found where the call was (extracted/inlined, but changed).
    similar: bool = False
    equality: str = "different"  # byte-identical (syntax trees equal) | modulo-renames
    # Rewrites (``_rewrites``) that made the expanded code equal, as ``Rewrite.as_dict()``.
    rewrites: tuple[dict[str, str], ...] = ()


def helper_of(d: Definition) -> Helper | None:
    """How calls reach a function/method definition, or None when it cannot be inlined (decorators)."""
    node = d.node
    if not isinstance(node, _FUNCS) or d.kind not in ("function", "method"):
        return None
    names = [x.id if isinstance(x, ast.Name) else "?" for x in node.decorator_list]
    if not names:
        return Helper(node, "method" if d.kind == "method" else "function")
    if names == ["staticmethod"]:
        return Helper(node, "static")
    if names == ["classmethod"]:
        return Helper(node, "class")
    return None


def calls_in(node: ast.AST, matches: Callable[[ast.Call], bool]) -> list[ast.Call]:
    """Calls of ``node`` (the whole subtree) that ``matches`` accepts."""
    return [n for n in ast.walk(node) if isinstance(n, ast.Call) and matches(n)]


# -- normalisation ------------------------------------------------------------------------


def _terminates(stmts: Sequence[ast.stmt]) -> bool:
    """True when control never falls off the end of ``stmts``."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, _TERMINAL):
        return True
    if isinstance(last, ast.If):
        return bool(last.orelse) and _terminates(last.body) and _terminates(last.orelse)
    return False


def _ret_value(r: ast.Return) -> ast.expr:
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
        if isinstance(st, ast.If) and st.orelse and _terminates(st.body):
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
                value=ast.IfExp(test=cond.test, body=_ret_value(body0), orelse=_ret_value(last))
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
        for a in _params(node):
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


# -- naming -------------------------------------------------------------------------------


def _names(node: ast.AST) -> set[str]:
    """Every identifier a subtree reads, binds or defines."""
    out: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, (*_FUNCS, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.add(n.name)
    return out


def _locals_of(stmts: Sequence[ast.stmt]) -> set[str]:
    """Names a statement list binds in its own scope (nested def/class names included)."""
    out: set[str] = set()
    for n in own_nodes(stmts):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.id)
        elif isinstance(n, (*_FUNCS, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            out |= {a.asname or a.name.split(".")[0] for a in n.names}
    return out


def local_names(d: Definition) -> frozenset[str]:
    """Names a function definition binds in its own scope, parameters included."""
    return frozenset(_locals_of(getattr(d.node, "body", [])) | {a.arg for a in _params(d.node)})


def called_names(index: dict[str, Definition]) -> dict[str, frozenset[str]]:
    """For each function of a file side: the names its calls go through (``f(...)``, ``x.f(...)``)."""
    out: dict[str, frozenset[str]] = {}
    for q, d in index.items():
        if d.kind not in ("function", "method"):
            continue
        names: set[str] = set()
        for n in ast.walk(d.node):
            if isinstance(n, ast.Call):
                f = n.func
                if isinstance(f, ast.Name):
                    names.add(f.id)
                elif isinstance(f, ast.Attribute):
                    names.add(f.attr)
        out[q] = frozenset(names)
    return out


def _free_of(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Names a function reads that it neither binds nor takes as parameters (globals, closures)."""
    params = {a.arg for a in _params(fn)}
    local = _locals_of(fn.body) | params
    reads = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    inner = set()
    for n in ast.walk(fn):
        if n is not fn and isinstance(n, (*_FUNCS, ast.Lambda)):
            inner |= {a.arg for a in _params(n)} | _locals_of(getattr(n, "body", []) or [])
    return reads - local - inner


def _params(fn: ast.AST) -> list[ast.arg]:
    a = fn.args  # type: ignore[attr-defined]
    out = [*a.posonlyargs, *a.args, *a.kwonlyargs]
    return out + [x for x in (a.vararg, a.kwarg) if x is not None]


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
    params = {a.arg for a in _params(fn)}
    declared = {
        x for n in ast.walk(fn) if isinstance(n, (ast.Global, ast.Nonlocal)) for x in n.names
    }
    local = (bound_names(fn.body) | _locals_of(fn.body)) - params - declared
    every = _names(fn)
    return dump(OrdinalNames(frozenset(every - local)).visit(copy.deepcopy(fn)))


# -- binding a call -----------------------------------------------------------------------


def _pure(e: ast.expr) -> bool:
    if isinstance(e, (ast.Name, ast.Constant)):
        return True
    return isinstance(e, ast.Attribute) and _pure(e.value)


def class_bound(node: ast.AST) -> list[str]:
    """What in a method means the class it is written in: ``super()``, the bare name
    ``__class__`` (``self.__class__`` is the instance's), private ``__names`` (mangled with the
    class name), sorted."""
    out: set[str] = set()
    for n in ast.walk(node):
        if is_super(n):
            out.add("super()")
        name = n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else ""
        if (name == "__class__" and isinstance(n, ast.Name)) or (
            name.startswith("__") and not name.endswith("__")
        ):
            out.add(name)
    return sorted(out)


def is_super(node: ast.AST) -> bool:
    """``super()`` (no arguments: the class the code is written in, and its first parameter)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "super"
        and not node.args
        and not node.keywords
    )


def _bind(helper: Helper, call: ast.Call) -> list[tuple[str, ast.expr]] | None:
    """(parameter, argument) in evaluation order, defaults filled in; None when it cannot be said."""
    fn = helper.node
    a = fn.args
    if a.vararg or a.kwarg:
        return None
    if any(isinstance(x, ast.Starred) for x in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None
    positional = [*a.posonlyargs, *a.args]
    bound: list[tuple[str, ast.expr]] = []
    if helper.receiver in ("method", "class"):
        if not isinstance(call.func, ast.Attribute) or not positional:
            return None
        recv = call.func.value
        want = "cls" if helper.receiver == "class" else "self"
        if helper.super_self and is_super(recv):
            recv = ast.Name(id=helper.super_self, ctx=ast.Load())
        elif not (isinstance(recv, ast.Name) and recv.id == want):
            return None
        bound.append((positional[0].arg, recv))
        positional = positional[1:]
    if len(call.args) > len(positional):
        return None
    bound += [(p.arg, x) for p, x in zip(positional, call.args, strict=False)]
    names = {p.arg for p in positional} | {p.arg for p in a.kwonlyargs}
    for k in call.keywords:
        if k.arg not in names or any(k.arg == b for b, _ in bound):
            return None
        if k.arg in {p.arg for p in a.posonlyargs}:
            return None
        bound.append((k.arg, k.value))
    given = {b for b, _ in bound}
    defaults = dict(
        zip(
            [p.arg for p in [*a.posonlyargs, *a.args]][
                len([*a.posonlyargs, *a.args]) - len(a.defaults) :
            ],
            a.defaults,
            strict=True,
        )
    )
    defaults |= {
        p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None
    }
    for p in [*positional, *a.kwonlyargs]:
        if p.arg in given:
            continue
        d = defaults.get(p.arg)
        if d is None or not isinstance(d, ast.Constant):
            return None
        bound.append((p.arg, d))
    return bound


class _Subst(ast.NodeTransformer):
    def __init__(self, mapping: dict[str, ast.expr]) -> None:
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id in self.mapping:
            return copy.deepcopy(self.mapping[node.id])
        return node


def _returns(stmts: Sequence[ast.stmt]) -> list[ast.Return]:
    return [n for n in own_nodes(stmts) if isinstance(n, ast.Return)]


def _yields(stmts: Sequence[ast.stmt]) -> bool:
    return any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in own_nodes(stmts))


def _site_form(st: ast.stmt, call: ast.Call, is_async: bool) -> str | None:
    """How statement ``st`` uses the call: return | assign | expr | yield-from (None: elsewhere)."""
    value = getattr(st, "value", None)
    inner = value
    if is_async:
        if not isinstance(value, ast.Await):
            return None
        inner = value.value
    if isinstance(st, ast.Expr) and isinstance(value, ast.YieldFrom) and not is_async:
        return "yield-from" if value.value is call else None
    if inner is not call:
        return None
    if isinstance(st, ast.Return):
        return "return"
    if isinstance(st, ast.Assign) or (isinstance(st, ast.AnnAssign) and st.simple):
        return "assign"
    if isinstance(st, ast.Expr):
        return "expr"
    return None


def _expansion(
    helper: Helper,
    body: list[ast.stmt],
    st: ast.stmt,
    call: ast.Call,
    tail: bool,
    guarded: bool = False,
    stable: Stable | None = None,
    notes: list[dict[str, str]] | None = None,
    caller: ast.FunctionDef | ast.AsyncFunctionDef | None = None,
) -> tuple[list[ast.stmt], set[str], bool] | str:
    """Statements replacing ``st`` and the helper-local names they bring, or why not.

    ``guarded``: ``st`` sits in a ``try`` or ``with`` of the caller (an exception raised
    half-way through the helper may be caught or suppressed there, so which names were
    already assigned is observable).
    ``stable``/``notes``: an attribute argument substituted at each use is either proven the
    same object (``stable`` says why) or assumed a plain attribute (``_rereads``); each is
    told in ``notes``.
    """
    fn = helper.node
    is_async = isinstance(fn, ast.AsyncFunctionDef)
    form = _site_form(st, call, is_async)
    if form is None:
        return "call used inside a larger expression"
    gen = _yields(body)
    if gen != (form == "yield-from"):
        return "generator helper not consumed by yield from"
    bound = _bind(helper, call)
    if bound is None:
        return "arguments do not bind to parameters"
    rebound = _locals_of(body)
    subst: dict[str, ast.expr] = {}
    prefix: list[ast.stmt] = []
    introduced = set(rebound)
    for i, (p, arg) in enumerate(bound):
        arg_names = {n.id for n in ast.walk(arg) if isinstance(n, ast.Name)}
        ok = _pure(arg) and p not in rebound and not (arg_names & rebound)
        if ok and isinstance(arg, ast.Attribute):
            later = [x for _, x in bound[i + 1 :]]
            ok = _reread(arg, p, body, later, stable, notes if notes is not None else [])
        if ok:
            subst[p] = arg
        else:
            prefix.append(
                ast.Assign(targets=[ast.Name(id=p, ctx=ast.Store())], value=arg, lineno=0)
            )
            introduced.add(p)
    same_args = all(isinstance(x, ast.Name) and x.id == p for p, x in bound)
    late = multiret.late_bound(body, subst, caller) if caller is not None else ""
    if late:
        return late
    new = [_Subst(subst).visit(copy.deepcopy(s)) for s in body]
    rets = _returns(new)
    if form == "return":
        out = new if tail or _terminates(new) else [*new, ast.Return(value=None)]
    elif form == "yield-from":
        if rets and not (len(rets) == 1 and new[-1] is rets[0] and rets[0].value is None):
            return "generator helper returns a value"
        out = new[:-1] if rets else new
    elif form == "expr":
        if not rets:
            out = new
        elif len(rets) == 1 and new[-1] is rets[0]:
            v = rets[0].value
            out = new[:-1] + ([] if v is None or _pure(v) else [ast.Expr(value=v)])
        else:
            return "helper returns from several places"
    else:
        targets = st.targets if isinstance(st, ast.Assign) else [st.target]  # type: ignore[attr-defined]
        if not rets:
            if _terminates(new):
                return "helper never returns"
            value: ast.expr = ast.Constant(value=None)
            out = list(new)
        elif len(rets) == 1 and new[-1] is rets[0]:
            value = _ret_value(rets[0])
            out = new[:-1]
        elif len(targets) == 1 and caller is not None:
            # A tuple returned on several paths: the same if tree, the targets at each leaf.
            tree = multiret.spliced(
                new, targets[0], rebound - {p for p, _ in bound}, caller, guarded
            )
            if isinstance(tree, str):
                return tree
            return [*prefix, *tree[0]], introduced - tree[1], same_args
        else:
            return "helper returns from several places"
        out = [*out, ast.Assign(targets=copy.deepcopy(targets), value=value, lineno=0)]
        if not guarded:
            out, introduced = _forwarded(out, rebound - {p for p, _ in bound}, introduced, prefix)
    return [*prefix, *out], introduced, same_args


def _reread(
    arg: ast.Attribute,
    p: str,
    body: list[ast.stmt],
    later: list[ast.expr],
    stable: Stable | None,
    notes: list[dict[str, str]],
) -> bool:
    """Whether ``arg`` may be read at each use of ``p`` instead of once (``_rereads``)."""
    fact = stable(arg) if stable is not None else None
    if fact is None and not quiet_until_last_read(body, p, later):
        return False
    detail = fact or "assumed"  # a plain attribute, unchanged by the code between its reads
    note = {"kind": "reread-argument", "text": ast.unparse(arg), "detail": detail}
    if note not in notes:
        notes.append(note)
    return True


def _forwarded(
    out: list[ast.stmt], helper_locals: set[str], introduced: set[str], prefix: list[ast.stmt]
) -> tuple[list[ast.stmt], set[str]]:
    """``...; a = e1; b = e2; x, y = a, b`` (a helper returning a tuple the caller unpacks, or
    one local it returns) as ``...; x = e1; y = e2``: the helper's locals renamed to the
    caller's targets when nothing else in the spliced code uses either name.

    Unsafe only if an exception half-way through could be caught in the caller (the caller's
    names would then be assigned earlier): the call must not sit in a ``try`` (``guarded``).
    """
    last = out[-1]
    assert isinstance(last, ast.Assign)
    if len(last.targets) != 1:
        return out, introduced
    t, v = last.targets[0], last.value
    targets = t.elts if isinstance(t, ast.Tuple) else [t]
    values = v.elts if isinstance(v, ast.Tuple) else [v]
    if len(targets) != len(values) or not all(isinstance(x, ast.Name) for x in targets + values):
        return out, introduced
    want = [x.id for x in targets]  # type: ignore[attr-defined]
    have = [x.id for x in values]  # type: ignore[attr-defined]
    if len(set(want)) != len(want) or len(set(have)) != len(have) or not set(have) <= helper_locals:
        return out, introduced
    mapping = {h: w for h, w in zip(have, want, strict=True) if h != w}
    rest = [*prefix, *out[:-1]]
    used = {n.id for s in rest for n in ast.walk(s) if isinstance(n, ast.Name)}
    if used & set(mapping.values()) or any(
        isinstance(n, (*_SCOPES, ast.Global, ast.Nonlocal)) for s in rest for n in ast.walk(s)
    ):
        return out, introduced  # a closure or class could capture the name under either spelling
    if not all(_assigned_first(out[:-1], h) for h in have):
        return out, introduced  # a path reading the name before the helper assigned it
    renamed = [_Rename(mapping).visit(s) for s in out[:-1]]
    # The names are the caller's targets now: the call statement assigned them anyway.
    return renamed, introduced - set(have)


# What an inlined expression must not hold: code that runs later (lambdas, generators), its own
# scopes (comprehensions) or bindings (``:=``), suspension points.
_NOT_SPLICED = (
    ast.Lambda,
    ast.GeneratorExp,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.NamedExpr,
    ast.Yield,
    ast.YieldFrom,
    ast.Await,
)


def _substituted(
    helper: Helper,
    body: list[ast.stmt],
    st: ast.stmt,
    calls: list[ast.Call],
    caller: ast.FunctionDef | ast.AsyncFunctionDef,
) -> bool | str:
    """Replace, inside ``st``, each call of a helper whose body is one ``return E`` by ``E`` with
    its parameters replaced by the arguments; whether every argument was its parameter's name,
    or why that would not compute the same.

    The arguments were evaluated once, before the body; spliced in, they are evaluated where
    the parameters are read. That is the same value only for a constant or a name of the
    caller's own scope that nothing in between can rebind (no ``:=``, not ``nonlocal`` in an
    inner function, not ``global``), and bound for sure when ``E`` does not read it (a parameter).
    """
    why = "call used inside a larger expression"
    if isinstance(helper.node, ast.AsyncFunctionDef) or len(body) != 1:
        return why
    ret = body[0]
    if not isinstance(ret, ast.Return) or ret.value is None:
        return why
    if any(isinstance(n, _NOT_SPLICED) for n in (*ast.walk(ret.value), *ast.walk(st))):
        return why
    params = {a.arg for a in _params(caller)}
    declared = {
        x for n in ast.walk(caller) if isinstance(n, (ast.Global, ast.Nonlocal)) for x in n.names
    }
    stable = (_locals_of(caller.body) | params) - declared
    same = True
    for call in calls:
        bound = _bind(helper, call)
        if bound is None:
            return "arguments do not bind to parameters"
        for p, x in bound:
            read = _mentions(ret.value, p)
            if isinstance(x, ast.Name) and x.id in (stable if read else params):
                continue
            if not isinstance(x, ast.Constant):
                return f"argument for {p!r} is not a constant or a local name of the caller"
        same = same and all(isinstance(x, ast.Name) and x.id == p for p, x in bound)
        value = _Subst(dict(bound)).visit(copy.deepcopy(ret.value))
        for parent in ast.walk(st):
            for field, child in ast.iter_fields(parent):
                if child is call:
                    setattr(parent, field, value)
                elif isinstance(child, list) and any(c is call for c in child):
                    setattr(parent, field, [value if c is call else c for c in child])
    return same


def _mentions(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def _assigned_first(stmts: Sequence[ast.stmt], name: str) -> bool:
    """Every path through ``stmts`` assigns ``name`` (``name = ...``, or in both branches of an
    ``if``) before anything reads it."""
    for st in stmts:
        if not _mentions(st, name):
            continue
        if isinstance(st, ast.Assign) and len(st.targets) == 1:
            t = st.targets[0]
            return isinstance(t, ast.Name) and t.id == name and not _mentions(st.value, name)
        if isinstance(st, ast.If) and st.orelse and not _mentions(st.test, name):
            return _assigned_first(st.body, name) and _assigned_first(st.orelse, name)
        return False
    return False


class _Rename(ast.NodeTransformer):
    def __init__(self, mapping: dict[str, str]) -> None:
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self.mapping.get(node.id, node.id)
        return node


def expand(
    caller: ast.FunctionDef | ast.AsyncFunctionDef,
    helper: Helper,
    matches: Callable[[ast.Call], bool],
    nested: bool = False,
    stable: Stable | None = None,
    notes: list[dict[str, str]] | None = None,
) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, int, bool] | str:
    """The caller with every matching call statement replaced by the helper body, or why not.

    ``nested``: the helper is defined inside the caller (its ``def`` goes with the inlining).
    ``stable``/``notes``: see ``_expansion``.
    """
    norm = normalised(helper.node)
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(norm)):
        return "helper declares global/nonlocal names"
    body = norm.body
    fn = copy.deepcopy(caller)
    helper_node = None
    if nested:
        for n in ast.walk(fn):
            if isinstance(n, _FUNCS) and n is not fn and n.name == helper.node.name:
                helper_node = n
    introduced: set[str] = set()
    sites = 0
    failure = ""
    same_names = True

    def visit_list(stmts: list[ast.stmt], top: bool) -> list[ast.stmt]:
        nonlocal sites, failure, same_names
        out: list[ast.stmt] = []
        for i, st in enumerate(stmts):
            if st is helper_node:
                continue
            found = [c for c in ast.walk(st) if isinstance(c, ast.Call) and matches(c)]
            if not found:
                out.append(st)
                continue
            direct = [
                c
                for c in found
                if _site_form(st, c, isinstance(helper.node, ast.AsyncFunctionDef)) is not None
            ]
            if len(direct) == 1 and len(found) == 1:
                got = _expansion(
                    helper,
                    body,
                    st,
                    direct[0],
                    top and i == len(stmts) - 1,
                    id(st) in tried,
                    stable,
                    notes,
                    caller,
                )
                if isinstance(got, str):
                    failure = failure or got
                    out.append(st)
                    continue
                sites += 1
                same_names = same_names and got[2]
                introduced.update(got[1])
                out.extend(got[0])
                continue
            # The call sits deeper: expand inside the statement's own blocks.
            for name in _BLOCKS:
                block = getattr(st, name, None)
                if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                    setattr(st, name, visit_list(block, top and isinstance(st, _FUNCS)))
            for h in getattr(st, "handlers", None) or []:
                h.body = visit_list(h.body, False)
            for c in getattr(st, "cases", None) or []:
                c.body = visit_list(c.body, False)
            left = [c for c in ast.walk(st) if isinstance(c, ast.Call) and matches(c)]
            if left:
                spliced = _substituted(helper, body, st, left, caller)
                if isinstance(spliced, str):
                    failure = failure or spliced
                else:
                    sites += len(left)
                    same_names = same_names and spliced
            out.append(st)
        return out

    # Statements inside a ``try`` of the caller (at any depth), or a ``with`` (its exit may
    # suppress the exception, as ``contextlib.suppress`` does, and the caller goes on).
    guards = (ast.Try, getattr(ast, "TryStar", ast.Try), ast.With, ast.AsyncWith)
    tried = {
        id(x)
        for t in ast.walk(fn)
        if isinstance(t, guards)
        for block in (
            t.body,
            getattr(t, "orelse", []),
            getattr(t, "finalbody", []),
            *(h.body for h in getattr(t, "handlers", [])),
        )
        for top_st in block
        for x in ast.walk(top_st)
    }
    fn.body = visit_list(fn.body, True)
    if failure:
        return failure
    if not sites:
        return "no call to expand"
    # The helper's own names must not clash with the caller's: a caller name read where an
    # inlined assignment could have replaced its value, or a helper global the caller shadows.
    caller_locals = _locals_of(caller.body) | {a.arg for a in _params(caller)}
    if not nested:
        free = _free_of(norm) - {a.arg for a in _params(norm)}
        clash = free & caller_locals
        if clash:
            return f"helper reads {sorted(clash)[0]!r}, a local name of the caller"
    caller_names = _names(caller) - (_names(helper.node) if nested else set())
    for name in sorted(introduced):
        if name not in caller_locals and name in caller_names:
            return f"inlined name {name!r} is a global the caller reads"
        if not _safe_to_introduce(caller, name, matches, helper.node.name if nested else ""):
            return f"inlined name {name!r} is also used by the caller"
    return fn, sites, same_names


def _safe_to_introduce(
    caller: ast.AST, name: str, matches: Callable[[ast.Call], bool], helper_name: str
) -> bool:
    """Whether every read of ``name`` in the caller sees an assignment made after the last call site."""

    def has_site(node: ast.AST) -> bool:
        return any(isinstance(c, ast.Call) and matches(c) for c in ast.walk(node))

    def reads(node: ast.AST) -> bool:
        return any(
            isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
            for n in own_nodes([node])
        )

    def binds_here(st: ast.stmt) -> bool:
        targets: list[ast.expr] = []
        if isinstance(st, ast.Assign):
            targets = st.targets
        elif isinstance(st, ast.AnnAssign) and st.value is not None:
            targets = [st.target]
        elif isinstance(st, (ast.For, ast.AsyncFor)):
            return False  # the body may not run
        return any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t))

    def walk(stmts: Sequence[ast.stmt], defined: bool) -> tuple[bool, bool]:
        for st in stmts:
            if isinstance(st, (*_FUNCS, ast.ClassDef)):
                if st.name == helper_name:
                    continue
                inner_reads = any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(st))
                own = _locals_of(getattr(st, "body", []))
                if not isinstance(st, ast.ClassDef):
                    own |= {a.arg for a in _params(st)}  # a parameter of that name is its own
                    # ...but defaults and decorators run here, when the def runs.
                    here = [*st.args.defaults, *st.args.kw_defaults, *st.decorator_list]
                    if any(
                        isinstance(n, ast.Name) and n.id == name
                        for h in here
                        if h is not None
                        for n in ast.walk(h)
                    ):
                        return False, defined
                if inner_reads and name not in own:
                    return False, defined  # a closure reads it at an unknown time
                continue
            header = [
                c
                for f, v in ast.iter_fields(st)
                if f not in (*_BLOCKS, "handlers", "cases")
                for c in (v if isinstance(v, list) else [v])
                if isinstance(c, ast.AST)
            ]
            if not defined and any(reads(h) for h in header):
                return False, defined
            loop = isinstance(st, (ast.For, ast.AsyncFor, ast.While))
            inner_defined = defined and not (loop and has_site(st))
            for fname in _BLOCKS:
                block = getattr(st, fname, None)
                if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                    ok, _ = walk(block, inner_defined)
                    if not ok:
                        return False, defined
            for h in getattr(st, "handlers", None) or []:
                ok, _ = walk(h.body, inner_defined)
                if not ok:
                    return False, defined
            for c in getattr(st, "cases", None) or []:
                ok, _ = walk(c.body, inner_defined)
                if not ok:
                    return False, defined
            if has_site(st):
                defined = False
            elif binds_here(st):
                defined = True
        return True, defined

    body = caller.body  # type: ignore[attr-defined]
    # Before any call site, the caller's own uses are untouched: start "defined".
    return walk(body, True)[0]


def prove(
    compact: ast.FunctionDef | ast.AsyncFunctionDef,
    other: ast.FunctionDef | ast.AsyncFunctionDef,
    helper: Helper,
    matches: Callable[[ast.Call], bool],
    nested: bool = False,
    inert: tuple[Inert, Inert] | None = None,
    stable: Stable | None = None,
) -> Proof:
    """Whether ``compact`` with the helper's calls expanded equals ``other`` (modulo local names).

    ``inert`` (the compact side's, the other side's): constructions that can neither act nor
    fail; given, the rewrites of ``_rewrites`` are tried last.
    """
    notes: list[dict[str, str]] = []
    got = expand(compact, helper, matches, nested, stable, notes)
    if isinstance(got, str):
        return Proof(False, 0, got)
    fn, sites, same_names = got
    a, b = normalised(fn), normalised(other)
    a.name = b.name
    if canonical(a) == canonical(b):
        exact = same_names and dump(a) == dump(b)
        return Proof(
            True,
            sites,
            equality="byte-identical" if exact else "modulo-renames",
            rewrites=tuple(notes),
        )
    # Last resorts, told when one side needed them; the residual, if the proof still fails,
    # is the code as written. First the rewrites of ``_rewrites`` (on copies) ...
    residual = _residual(a, b)
    if inert is not None:
        rewrites = see_through(copy.deepcopy(a), copy.deepcopy(b), None, inert)
        if rewrites is not None:
            kept = (*notes, *(r.as_dict() for r in rewrites))
            return Proof(True, sites, equality="modulo-renames", rewrites=kept)
    # ... then a tuple returned from several places and what the caller does with it, and
    # temporaries written at their one use as a subscript key.
    done_a, done_b = laterkey.inline_keys(a), laterkey.inline_keys(b)
    if multiret.has_leaf(a):
        done_a += [(k, t, "") for k, t in multiret.normal_form(a)]
        done_a.append(("multi-return", helper.node.name, ""))
        done_b += [(k, t, "") for k, t in multiret.normal_form(b)]
    if (done_a or done_b) and canonical(a) == canonical(b):
        both = Counter(done_a) & Counter(done_b)
        told = ((Counter(done_a) - both) + (Counter(done_b) - both)).elements()
        kept = (*notes, *({"kind": k, "text": t, "detail": d} for k, t, d in sorted(set(told))))
        return Proof(True, sites, equality="modulo-renames", rewrites=kept)
    return Proof(False, sites, "the expanded code differs", residual)


def _residual(a: ast.AST, b: ast.AST) -> tuple[str, ...]:
    x, y = ast.unparse(a).splitlines(), ast.unparse(b).splitlines()
    return tuple(
        ln
        for ln in difflib.unified_diff(x, y, lineterm="", n=0)
        if ln[:1] in "+-" and not ln.startswith(("+++", "---"))
    )


_TOKEN = re.compile(r"\w+|[^\w\s]")


def contained(part: str, whole: str) -> float:
    """Share of ``part``'s tokens found, in order, in ``whole`` (1.0: all of it)."""
    a, b = _TOKEN.findall(part), _TOKEN.findall(whole)
    if not a:
        return 0.0
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return sum(m.size for m in sm.get_matching_blocks()) / len(a)


def _class_chain(index: dict[str, Definition], cls: str, depth: int = 0) -> set[str]:
    """Short names of a class and its bases defined in the same file (transitively)."""
    d = index.get(cls)
    out = {cls.rsplit(".", 1)[-1]}
    if d is None or d.kind != "class" or depth > 5:
        return out
    for b in d.bases:
        short = b.rsplit(".", 1)[-1]
        out.add(short)
        hit = next((q for q, x in index.items() if x.kind == "class" and x.name == short), None)
        if hit is not None and hit != cls:
            out |= _class_chain(index, hit, depth + 1)
    return out


def call_matcher(
    helper: Definition,
    caller: Definition,
    index: dict[str, Definition],
    same_file: bool,
    imported: frozenset[str] = frozenset(),
    caller_locals: Callable[[], frozenset[str]] | None = None,
) -> Callable[[ast.Call], bool] | None:
    """Which calls inside ``caller`` reach ``helper`` (``index``: the caller file side's definitions).

    A function: by its name in its own module (or imported by name), not shadowed by a caller
    local; a nested function: by name inside its enclosing function; a method: through
    ``self``/``cls`` from its class or a subclass in the same file that does not redefine it,
    or through its class name. ``caller_locals`` gives the caller's local names (memoised by
    the caller of this function; computed here when not given).
    """
    name = helper.name
    if helper.kind == "function" and helper.parent.endswith(".<locals>"):
        if helper.parent != f"{caller.qualname}.<locals>":
            return None
        return lambda c: isinstance(c.func, ast.Name) and c.func.id == name
    if helper.kind == "function" and not helper.parent:
        if not (same_file or name in imported):
            return None
        local = caller_locals() if caller_locals is not None else local_names(caller)
        if name in local:
            return None
        return lambda c: isinstance(c.func, ast.Name) and c.func.id == name
    if helper.kind != "method" or caller.kind != "method":
        return None
    if not same_file:
        return None
    cls = helper.parent
    home = cls.rsplit(".", 1)[-1]
    if home not in _class_chain(index, caller.parent):
        return None
    if caller.parent != cls and f"{caller.parent}.{name}" in index:
        return None  # the caller's class has its own method of that name

    def match(c: ast.Call) -> bool:
        f = c.func
        return (
            isinstance(f, ast.Attribute)
            and f.attr == name
            and isinstance(f.value, ast.Name)
            and f.value.id in ("self", "cls", home)
        )

    return match


@dataclass(frozen=True)
class SitePair:
    """A caller present on both sides, and the proof for its calls of the helper."""

    path: str  # after path
    before_path: str
    before: Definition
    after: Definition
    proof: Proof
    call_lines: tuple[int, ...] = ()  # lines of the helper calls, on the helper's side


def imports_by_stem(tree: ast.Module | None) -> dict[str, frozenset[str]]:
    """For each last module component ``from X.stem import a, b`` names: the names imported
    under their own name (one walk of the tree answers every stem)."""
    out: dict[str, set[str]] = {}
    for st in ast.walk(tree) if tree is not None else ():
        if isinstance(st, ast.ImportFrom):
            names = {a.asname or a.name for a in st.names if (a.asname or a.name) == a.name}
            out.setdefault((st.module or "").rsplit(".", 1)[-1], set()).update(names)
    return {k: frozenset(v) for k, v in out.items()}


# Calls a caller makes of the helper that ``call_matcher`` does not see (``super().m(...)``
# through a base class the change removes): for a caller and its file side's definitions, the
# calls matched and what keeps them from being proven ("" when nothing does), or None.
SuperCalls = Callable[
    [Definition, dict[str, Definition]], tuple[Callable[[ast.Call], bool], str] | None
]


def site_pairs(
    sources: SourceFiles, helper: Definition, side: str, via_super: SuperCalls | None = None
) -> list[SitePair] | str:
    """Callers of ``helper`` on its own ``side`` (``after``: extracted, ``before``: inlined), each
    paired with the same function on the other side and proven or not; a string says why none apply.
    """
    h = helper_of(helper)
    if h is None:
        return "decorated helper"
    other_side = "before" if side == "after" else "after"
    stem = helper.path.rsplit("/", 1)[-1].removesuffix(".py")
    if stem == "__init__":
        stem = helper.path.rsplit("/", 2)[-2] if "/" in helper.path else stem
    out: list[SitePair] = []
    for f in sources.python_files():
        if f.before is None or f.after is None:
            continue
        here_path = f.path if side == "after" else f.before_path
        there_path = f.before_path if side == "after" else f.path
        here = file_index(sources, here_path, side)
        there = file_index(sources, there_path, other_side)
        same_file = here_path == helper.path
        # Per file side, not per helper: which names each function calls, what it imports.
        called = sources.memo(here_path, side, "called-names", partial(called_names, here))
        imported = (
            frozenset()
            if same_file
            else sources.memo(
                here_path,
                side,
                "imports-by-stem",
                partial(imports_by_stem, sources.tree(here_path, side)),
            ).get(stem, frozenset())
        )
        for q, c in here.items():
            if c.kind not in ("function", "method") or c is helper:
                continue
            if helper.name not in called.get(q, ()):
                continue  # no call through that name at all
            if q.startswith(f"{helper.qualname}."):
                continue  # nested in the helper itself
            m = call_matcher(
                helper,
                c,
                here,
                same_file,
                imported,
                partial(sources.memo, here_path, side, f"locals:{q}", partial(local_names, c)),
            )
            hc, obstacle = h, ""
            if m is None and via_super is not None:
                through = via_super(c, here)
                if through is not None:
                    (m, obstacle), hc = through, _reached_by_super(h, c)
            if m is None or not calls_in(c.node, m):
                continue
            own = class_bound(helper.node)
            if hc is h and helper.kind == "method" and c.parent != helper.parent and own:
                # Spliced into a method of another class, these name that class instead.
                obstacle = f"{helper.qualname} uses {', '.join(own)}: its own class, not {c.parent}"
            if any(
                p.before.qualname == q and p.path == f.path for p in out
            ):  # pragma: no cover - qualnames are unique per file
                continue
            o = there.get(q)
            if o is None or o.kind != c.kind:
                return f"caller {q} exists on one side only"
            # (A super() call on the other side no longer reaches a base the change removes.)
            if hc is h and any(
                isinstance(n, ast.Call)
                and (
                    (isinstance(n.func, ast.Name) and n.func.id == helper.name)
                    or (isinstance(n.func, ast.Attribute) and n.func.attr == helper.name)
                )
                for n in ast.walk(o.node)
            ):
                return f"caller {q} still calls {helper.name} on the other side"
            nested = helper.parent == f"{q}.<locals>"
            # Last resort (only where the expanded code differs): plain constructions moved.
            inert = (
                constructions(sources, here_path, side, local_names(c)),
                constructions(sources, there_path, other_side, local_names(o)),
            )
            stable = partial(stable_field, sources, here_path, side, c.node)
            proof = prove(c.node, o.node, hc, m, nested, inert, stable)  # type: ignore[arg-type]
            if obstacle and proof.proven:
                proof = dataclasses.replace(proof, proven=False, reason=obstacle)
            elif obstacle:
                proof = dataclasses.replace(proof, reason=f"{obstacle}; {proof.reason}")
            b, a = (o, c) if side == "after" else (c, o)
            call_lines = tuple(sorted({x.lineno for x in calls_in(c.node, m)}))
            if not proof.proven:
                # Where the helper's code went (or came from): the other side's changed lines.
                g = f.before if side == "after" else f.after
                cl = sources.changed(f)
                moved = set(cl.removed if side == "after" else cl.added)
                rows = split_lines(g or "")
                text = "\n".join(
                    rows[n - 1] for n in range(o.start, o.end + 1) if n in moved and n <= len(rows)
                )
                body = strip_docstring(helper.node.body)  # type: ignore[attr-defined]
                body_text = "\n".join(ast.unparse(x) for x in body)
                share = contained(body_text, text)
                # Or the calls expanded and the result is off by a few lines only.
                near = proof.sites > 0 and len(proof.residual) <= max(
                    4, len(split_lines(body_text))
                )
                similar = share >= _SIMILAR or (near and share >= _SIMILAR / 2)
                proof = dataclasses.replace(proof, similar=similar)
            out.append(SitePair(f.path, f.before_path, b, a, proof, call_lines))
    # A caller nested in another caller is proven with it: keep the outermost only.
    outer = [
        p
        for p in out
        if not any(
            o is not p and o.path == p.path and p.after.qualname.startswith(f"{o.after.qualname}.")
            for o in out
        )
    ]
    return outer


def _reached_by_super(h: Helper, caller: Definition) -> Helper:
    """The helper as ``super().name(...)`` in ``caller`` reaches it: bound to its first parameter."""
    params = _params(caller.node)
    return dataclasses.replace(h, super_self=params[0].arg if params else "self")


def expansion_finding(
    sources: SourceFiles,
    kind: str,
    helper: Definition,
    f_helper: FileChange,
    pairs: list[SitePair],
    side: str,
    stale: Sequence[str] = (),
) -> Finding:
    """``code.extracted`` (helper added, ``side`` "+") or ``code.inlined`` (helper removed, "-").

    Proven only when every caller, its helper calls expanded, equals the other version: then
    the finding explains the helper's lines and every changed line of those callers.
    """
    proven = all(p.proof.proven for p in pairs) and not stale
    ex: list[tuple[str, str, int]] = []
    if proven:
        cl = sources.changed(f_helper)
        if side == "+":
            lines = lines_with_blanks(f_helper.after, helper.start, helper.end, cl.added)
            ex += explains(f_helper.path, "+", lines)
            ex += _placeholder_line(sources, f_helper, helper)
        else:
            lines = lines_with_blanks(f_helper.before, helper.start, helper.end, cl.removed)
            ex += explains(f_helper.before_path, "-", lines)
        for p in pairs:
            f = next(x for x in sources.python_files() if x.path == p.path)
            c = sources.changed(f)
            ex += explains(
                f.before_path,
                "-",
                lines_with_blanks(f.before, p.before.start, p.before.end, c.removed),
            )
            ex += explains(
                f.path, "+", lines_with_blanks(f.after, p.after.start, p.after.end, c.added)
            )
    verb = "extracted into" if kind == "code.extracted" else "inlined from"
    equality = (
        max((p.proof.equality for p in pairs), key=_ORDER.__getitem__) if proven else "different"
    )
    details = {
        "helper": helper.qualname,
        "new_home" if kind == "code.extracted" else "old_home": helper.qualname,
        "helper_path": f_helper.path if side == "+" else f_helper.before_path,
        "helper_line": helper.start,
        "home_kind": helper.kind,
        "equality": equality,
        "proven": proven,
        # Expanded exactly yet different: the code does something else; not expandable: unknown.
        "behavior_change": True
        if stale or any(p.proof.sites and not p.proof.proven for p in pairs)
        else (False if proven else None),
        "stale_references": list(stale),
        "sites": [
            {
                "path": p.path,
                "scope": p.after.qualname,
                "before_line": p.before.start,
                "before_end": p.before.end,
                "after_line": p.after.start,
                "after_end": p.after.end,
                "calls": p.proof.sites,
                "call_lines": list(p.call_lines),
                "equality": p.proof.equality,
                "proven": p.proof.proven,
                "reason": p.proof.reason,
                "residual": list(p.proof.residual),
                "rewrites": list(p.proof.rewrites),
            }
            for p in sorted(pairs, key=lambda p: (p.path, p.after.start))
        ],
    }
    scopes = ", ".join(sorted({p.after.qualname for p in pairs}))
    return Finding(
        kind,
        f_helper.path,
        helper.start if side == "+" else None,
        helper.qualname,
        f"{scopes}: code {verb} {helper.qualname} ({equality})",
        details,
        tuple(sorted(set(ex))),
    )


def _placeholder_line(
    sources: SourceFiles, f: FileChange, helper: Definition
) -> tuple[tuple[str, str, int], ...]:
    """The removed ``pass``/``...`` of a class that was empty before the helper method was added."""
    if helper.kind != "method" or f.before is None:
        return ()
    cls = file_index(sources, f.before_path, "before").get(helper.parent)
    body = getattr(cls.node, "body", []) if cls is not None else []
    body = [st for st in body if not is_string_statement(st)]
    if len(body) != 1:
        return ()
    st = body[0]
    empty = isinstance(st, ast.Pass) or (
        isinstance(st, ast.Expr)
        and isinstance(st.value, ast.Constant)
        and st.value.value is Ellipsis
    )
    if empty and st.lineno in sources.changed(f).removed:
        return ((f.before_path, "-", st.lineno),)
    return ()


# -- module-level code extracted into a function called once at import ---------------------


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
    binders = [st for st in after.body if name in _locals_of([st])]
    if len(binders) != 1 or binders[0].lineno > min(st.lineno for st in sites):
        return ModuleProof(False, f"{name} is not bound once before its call", call_lines=lines)
    norm = normalised(helper.node)  # type: ignore[arg-type]
    body = norm.body
    if (
        not body
        or not isinstance(body[-1], ast.Return)
        or len(_returns(body)) != 1
        or _yields(body)
        or any(isinstance(n, (ast.Global, ast.Nonlocal, ast.Await)) for n in ast.walk(norm))
    ):
        return ModuleProof(False, "helper does not return once, at its end", call_lines=lines)
    before_b, after_b, helper_b = bindings
    local = _locals_of(body) | {a.arg for a in _params(norm)}
    free = _free_of(norm) - _BUILTINS
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
    introduced = _locals_of(body)
    reads = {
        n.id
        for n in ast.walk(after)
        if isinstance(n, ast.Name) and n.id in introduced and not _inside(n, helper.node)
    }
    if reads:
        return ModuleProof(False, f"the module still uses {sorted(reads)[0]!r}", call_lines=lines)
    old_globals = {n for st in before.body for n in _locals_of([st])}
    dropped = tuple(sorted(introduced & old_globals))
    public = [n for n in dropped if not n.startswith("_")]
    if public:
        return ModuleProof(
            False, f"module global {public[0]!r} is no longer defined", call_lines=lines
        )
    a = canonical_body(module_level(before), before_b, set())
    b = canonical_body(out, after_b, set())
    if same_tree(a, b):
        return ModuleProof(True, call_lines=lines, dropped_globals=dropped)
    return ModuleProof(
        False,
        "the expanded code differs",
        _residual(ast.Module(body=a, type_ignores=[]), ast.Module(body=b, type_ignores=[])),
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
    bound = _bind(Helper(fn, "function"), call)
    if bound is None or not all(_pure(x) and not isinstance(x, ast.Name) for _, x in bound):
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
    stmts = [_Subst(subst).visit(copy.deepcopy(s)) for s in body]
    ret = stmts[-1]
    assert isinstance(ret, ast.Return)
    result = _ret_value(ret)
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
