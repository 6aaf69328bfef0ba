"""Whether the callers of a function can reach an input it now answers differently: the calls
the repository search found, each bound to the function's parameters, and the input's condition
read at each call with what the call passes (true, false or not known).

before: ``get_kv_class(backend, KVClassType.MANAGER)`` is the only call · input:
``class_type == KVClassType.KVARGS`` → no caller passes it (``MANAGER`` and ``KVARGS`` are
distinct members of the enum the tree defines).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from prreport.bundle import PullRequestBundle
from prreport.python.definitions import Definition
from prreport.python.sources import SourceFiles

# Decorators that pass a call's arguments on unchanged (any other may bind them otherwise).
_TRANSPARENT = frozenset(
    "staticmethod classmethod lru_cache cache functools.lru_cache functools.cache "
    "cached_property functools.wraps wraps override typing.override".split()
)


@dataclass
class _Tally:
    """The calls read so far: those that pass the input, those that may, and how many."""

    calls: int = 0
    passing: list[str] = field(default_factory=list)
    unknown: list[tuple[str, str]] = field(default_factory=list)  # (location, why)


def callers_reach(
    bundle: PullRequestBundle, sources: SourceFiles, fn: Definition, when: str, argument: str
) -> dict[str, Any]:
    """Whether a call in the repository passes the input ``when`` of ``fn`` (``argument``: the
    parameter value that names it, as ``name=value``): ``status`` is ``none`` (no call can),
    ``some`` (``passing`` calls pass ``argument``, e.g. ``example``), ``unknown`` (a call passes
    a value not known here, ``why``) or ``not-searched`` (the repository search did not cover
    the name: no claim about callers)."""
    out: dict[str, Any] = {"argument": argument, "calls": 0, "passing": 0, "example": ""}
    if bundle.reference_scope != "repository" or fn.name not in bundle.references:
        return {**out, "status": "not-searched"}
    subject, _, value = argument.partition("=")
    try:
        cond = ast.parse(when, mode="eval").body
        wanted = ast.parse(value, mode="eval").body
    except SyntaxError:
        return {**out, "status": "unknown", "why": "value"}
    hits = {h.rpartition(":")[0] for h in bundle.references[fn.name]} | {fn.path}
    paths = sorted(p for p in hits if p.endswith((".py", ".pyi")))
    trees = {p: sources.tree(p, "head") for p in paths}
    known = _Members([t for t in trees.values() if t is not None])
    tally = _Tally()
    opaque = not _transparent(fn.node)
    for path, tree in trees.items():
        if tree is None:
            tally.unknown.append((path, "unread"))
            continue
        for line, binding in _sites(tree, fn):
            where = f"{path}:{line}"
            if binding is None:
                tally.unknown.append((where, "indirect"))
                continue
            tally.calls += 1
            truth = None if opaque else _truth(cond, binding, known)
            if truth is False:
                continue
            passes = truth is True or known.same(binding.get(subject), wanted) is True
            if passes and not opaque:
                tally.passing.append(where)
            else:
                tally.unknown.append((where, "value"))
    out["calls"] = tally.calls
    if tally.passing:
        return {**out, "status": "some", "passing": len(tally.passing), "example": tally.passing[0]}
    if tally.unknown:
        where, why = tally.unknown[0]
        return {**out, "status": "unknown", "example": where, "why": why}
    return {**out, "status": "none"}


def _transparent(node: ast.AST) -> bool:
    """No decorator of ``node`` can bind a call's arguments otherwise."""
    decorators = getattr(node, "decorator_list", [])
    for d in decorators:
        target = d.func if isinstance(d, ast.Call) else d
        if ast.unparse(target) not in _TRANSPARENT:
            return False
    return True


def _sites(tree: ast.Module, fn: Definition) -> list[tuple[int, dict[str, ast.expr] | None]]:
    """Each use of ``fn``'s name in ``tree``: a call with the parameters it binds, or None for a
    use that is not a call it can be bound to (the function passed on, imported under another
    name, called with ``*args``)."""
    method = fn.kind == "method"
    decorators = {ast.unparse(d) for d in getattr(fn.node, "decorator_list", [])}
    called: set[int] = set()
    out: list[tuple[int, dict[str, ast.expr] | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute) and f.attr == fn.name:
                # ``self``/``cls`` comes first unless called on the class (or a staticmethod)
                bound = method and "staticmethod" not in decorators
                bound = bound and ("classmethod" in decorators or not _through_class(f, fn))
                out.append((node.lineno, _bind(node, fn.node, skip_first=bound)))
                called.add(id(f))
            elif isinstance(f, ast.Name) and f.id == fn.name and not method:
                out.append((node.lineno, _bind(node, fn.node, skip_first=False)))
                called.add(id(f))
    for node in ast.walk(tree):
        if id(node) in called:
            continue
        if isinstance(node, ast.Name) and node.id == fn.name and isinstance(node.ctx, ast.Load):
            out.append((node.lineno, None))
        elif isinstance(node, ast.Attribute) and node.attr == fn.name:
            out.append((node.lineno, None))
        elif isinstance(node, ast.alias) and node.asname and node.name.split(".")[-1] == fn.name:
            out.append((node.lineno, None))  # imported under another name: its calls go unseen
    return sorted(out, key=lambda t: t[0])


def _through_class(f: ast.Attribute, fn: Definition) -> bool:
    """``Cls.method(obj, ...)``: called on the class, so the first argument is ``self``."""
    owner = fn.parent.rsplit(".", 1)[-1]
    return isinstance(f.value, ast.Name) and f.value.id == owner


def _bind(call: ast.Call, node: ast.AST, skip_first: bool) -> dict[str, ast.expr] | None:
    """The parameters a call binds (defaults filled in), or None when it cannot be said."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    out: dict[str, ast.expr] = {}
    for p, d in zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True):
        out[p.arg] = d
    for p, kd in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        if kd is not None:
            out[p.arg] = kd
    if skip_first:
        positional = positional[1:]
    if len(call.args) > len(positional) and args.vararg is None:
        return None  # a TypeError, not a call that runs the function
    for p, a in zip(positional, call.args, strict=False):
        out[p.arg] = a
    for k in call.keywords:
        out[str(k.arg)] = k.value
    return out


class _Members:
    """Enum-like class members of the trees at hand: ``A.X`` and ``A.Y`` are different values
    when the class ``A`` the trees define assigns them different constants (or ``auto()``)."""

    def __init__(self, trees: list[ast.Module]) -> None:
        self._classes: dict[str, list[dict[str, ast.expr]]] = {}
        for tree in trees:
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    members = {
                        t.id: st.value
                        for st in node.body
                        if isinstance(st, ast.Assign)
                        for t in st.targets
                        if isinstance(t, ast.Name)
                    }
                    self._classes.setdefault(node.name, []).append(members)

    def same(self, a: ast.expr | None, b: ast.expr | None) -> bool | None:
        """Whether two expressions are the same value: True, False, or None (not known)."""
        if isinstance(a, ast.Constant) and isinstance(b, ast.Constant):
            if type(a.value) is not type(b.value):
                return None
            return bool(a.value == b.value)
        da, db = _dotted(a), _dotted(b)
        if da is None or db is None:
            return None
        if da == db:
            return True
        (pa, _, xa), (pb, _, xb) = da.rpartition("."), db.rpartition(".")
        if not pa or pa != pb:
            return None
        return False if self._distinct(pa.rsplit(".", 1)[-1], xa, xb) else None

    def _distinct(self, cls: str, x: str, y: str) -> bool:
        found = self._classes.get(cls) or []
        return bool(found) and all(_differ(m.get(x), m.get(y)) for m in found)


def _differ(a: ast.expr | None, b: ast.expr | None) -> bool:
    """Two member values certainly different: distinct constants of one type, or ``auto()``."""
    if isinstance(a, ast.Call) and isinstance(b, ast.Call):
        return all(ast.unparse(c.func) in ("auto", "enum.auto") for c in (a, b))
    return (
        isinstance(a, ast.Constant)
        and isinstance(b, ast.Constant)
        and type(a.value) is type(b.value)
        and a.value != b.value
    )


def _dotted(e: ast.expr | None) -> str | None:
    """``A.B.C`` as text, or None for anything but a dotted name with an attribute."""
    if not isinstance(e, ast.Attribute):
        return None
    parts = []
    node: ast.expr = e
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _truth(e: ast.expr, binding: dict[str, ast.expr], known: _Members) -> bool | None:
    """The condition ``e`` at a call binding its parameters: True, False or None (not known)."""
    if isinstance(e, ast.BoolOp):
        vals = [_truth(v, binding, known) for v in e.values]
        stop = isinstance(e.op, ast.Or)  # the value that decides the whole
        if stop in vals:
            return stop
        return (not stop) if all(v is (not stop) for v in vals) else None
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        v = _truth(e.operand, binding, known)
        return None if v is None else not v
    if not isinstance(e, ast.Compare) or len(e.ops) != 1:
        return None
    left, op, right = _value(e.left, binding), e.ops[0], e.comparators[0]
    if isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
        v = known.same(left, _value(right, binding))
        return v if v is None or isinstance(op, (ast.Eq, ast.Is)) else not v
    if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
        hits = [known.same(left, _value(x, binding)) for x in right.elts]
        v = True if True in hits else (False if all(h is False for h in hits) else None)
        return v if v is None or isinstance(op, ast.In) else not v
    return None


def _value(e: ast.expr, binding: dict[str, ast.expr]) -> ast.expr | None:
    """What ``e`` of the condition is at the call: a parameter's argument, or ``e`` itself when
    it is a literal or a dotted name; None when it is another name (a local, not known here)."""
    if isinstance(e, ast.Name):
        return binding.get(e.id)
    return e if isinstance(e, (ast.Constant, ast.Attribute)) else None
