"""An argument that is an attribute read (``v.a``), read again at each use once a call is expanded.

A call ``h(x=v.a)`` reads ``v.a`` once, when the arguments are evaluated; the helper's body,
pasted at the call with ``v.a`` for ``x``, reads it at every use of ``x`` (none, one or many
times, later). That is the same object, read without effect, in one of two ways:

- proven (``plainclass.stable_field``): ``v`` is a new instance of a plain dataclass of the
  repository that only ever has its fields read, so nothing can change the field and reading
  it runs no code and cannot fail; the fact is stated (``reread-argument``, no assumption);
- otherwise, when nothing that could act runs between the call's evaluation of ``v.a`` and the
  last read of ``x`` in the body: no call, ``await``, ``yield``, ``:=``, ``raise``, comprehension,
  no store other than to a plain name, no ``for``/``with``/``try``/``del``/augmented assignment,
  and no later argument whose evaluation (now done first, into a temporary) contains one. Then
  only reads, operators and truth tests lie between, and the finding states the one assumption:
  ``v.a`` is a plain attribute that is set (no property or ``__getattr__``: reading it neither
  acts nor fails, so reading it more often, later, or not at all changes nothing) and that the
  operators and truth tests between leave unchanged.

Otherwise the argument is assigned to a temporary before the body, as any other expression.
Evaluation order is followed the way Python runs an expression (children first, then the
operation: ``g(x)`` reads ``x`` before ``g`` runs); both branches of an ``if`` are counted as if
they ran one after the other, which can only see more code between, never less.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

# Iterating (a comprehension) and raising (which may build the exception) run code too.
_ACTS = (
    ast.Call,
    ast.Await,
    ast.Yield,
    ast.YieldFrom,
    ast.NamedExpr,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.Raise,
)
_STATEMENTS_THAT_ACT = (
    ast.AugAssign,
    ast.Delete,
    ast.For,
    ast.AsyncFor,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.Global,
    ast.Nonlocal,
    ast.Import,
    ast.ImportFrom,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Match,
)


def _events(node: ast.AST, param: str, out: list[str]) -> None:
    """Append, in the order Python runs them, ``"read"`` for each read of ``param`` and
    ``"acts"`` for each step that may run code able to change an attribute."""
    if isinstance(node, ast.Name):
        if node.id == param and isinstance(node.ctx, ast.Load):
            out.append("read")
        return
    if isinstance(node, ast.Lambda):
        # Its body runs when it is called (a call: "acts"); its defaults run here.
        for d in [*node.args.defaults, *node.args.kw_defaults]:
            if d is not None:
                _events(d, param, out)
        if any(isinstance(n, ast.Name) and n.id == param for n in ast.walk(node.body)):
            out.append("acts")  # read at an unknown time
        return
    if isinstance(node, _STATEMENTS_THAT_ACT):
        out.append("acts")
    if isinstance(node, ast.Assign | ast.AnnAssign):
        value = node.value
        if value is not None:
            _events(value, param, out)
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if not all(isinstance(t, ast.Name) for t in targets):
            out.append("acts")  # an attribute or item store may run __setattr__/__setitem__
        return
    for child in ast.iter_child_nodes(node):
        _events(child, param, out)
    if isinstance(node, _ACTS):
        out.append("acts")


def quiet_until_last_read(body: Sequence[ast.stmt], param: str, later: Sequence[ast.expr]) -> bool:
    """Whether nothing that may act runs before the last read of ``param`` in ``body``, nor in
    the arguments ``later`` (those the call evaluated after this one)."""
    for arg in later:
        if any(isinstance(n, _ACTS) for n in ast.walk(arg)):
            return False
    events: list[str] = []
    for st in body:
        _events(st, param, events)
    if "read" not in events:
        return True  # never read again: the one read the call made is gone (the assumption)
    last = len(events) - 1 - events[::-1].index("read")
    return "acts" not in events[:last]
