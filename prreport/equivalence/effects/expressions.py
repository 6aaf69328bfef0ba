"""Expressions evaluated to terms, in Python's order, with their calls recorded as effects.

Reads (a name, an attribute, a subscript), operators, comparisons, truth tests and the pure
builtins of ``PURE`` are terms, not effects: the one assumption of the summary is that they
only compute a value from the state (no property or operator method with a side effect).
Every other call, a comprehension (it runs at once), ``await`` and ``yield`` are effects.
A list, dict or set display makes a new object, named by the state it is made in.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from prreport.equivalence.effects.terms import (
    NONE,
    Interner,
    Path,
    Term,
    Unsupported,
    const,
    is_value,
    ite,
    tag,
)

# Builtins that compute a value from their arguments (through the arguments' own methods:
# __len__, __str__, __format__... assumed to do nothing else) and do not iterate them.
PURE = frozenset(
    {
        "len", "isinstance", "issubclass", "type", "str", "repr", "int", "float", "bool",
        "abs", "hash", "callable", "getattr", "hasattr", "id", "ord", "chr", "format",
    }
)  # fmt: skip
_EFFECTFUL = (
    ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr,
    ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda,
)  # fmt: skip


# Made in an element, they would see a comprehension's last item, not the one at hand.
_CLOSURES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
UNROLL_ITEMS = 16  # a loop or comprehension over a literal of at most this many items is unrolled


# Methods that change only their container and run no other code (``__hash__``/``__eq__`` of
# what a set holds assumed to compute values): on a private container, local effects.
LOCAL_METHODS = {
    "list": frozenset({"append", "insert", "clear", "reverse", "extend"}),
    "set": frozenset({"add", "discard", "clear", "update"}),
    "dict": frozenset({"clear", "update"}),
}
_ITERATES = frozenset({"extend", "update"})
# Builtins whose result is a new container (made by the call, reachable from nothing else).
_NEW_CONTAINER = {"list": "list", "sorted": "list", "set": "set", "dict": "dict"}


def _str_format(fn: Term) -> bool:
    """``fn`` is the ``format`` method of a string literal."""
    return (
        fn[0] == "attr"
        and isinstance(fn[1], tuple)
        and fn[1][:2] == ("c", "str")
        and fn[2] == "format"
    )


def _plain_iterable(t: Term, path: Path) -> bool:
    """Iterating ``t`` runs no code: a tuple, a literal or a private container."""
    return t[0] == "tuple" or is_value(t) or t in path.private


def _parts(item: Term, n: int) -> list[Term] | None:
    """The ``n`` items of a literal tuple term (no starred item), or None."""
    if item[0] == "tuple" and len(item[1]) == n and not any(v[0] == "star" for v in item[1]):
        return list(item[1])
    return None


def effect_free(node: ast.AST) -> bool:
    """Whether evaluating ``node`` can make no effect the summary records (reads only)."""
    return not any(isinstance(n, _EFFECTFUL) for n in ast.walk(node))


class Expressions:
    """The expression half of the symbolic machine (``statements.Machine`` adds statements)."""

    watching = 0  # inside a ``try``/``with`` body (``statements.Machine``)

    def __init__(self, interner: Interner) -> None:
        self.interner = interner

    # -- what the statement half supplies -------------------------------------------------
    def read(self, name: str, path: Path, looks_at_locals: bool = True) -> Term:
        raise NotImplementedError

    def inline(self, fn: Term, args: tuple, kws: tuple, path: Path) -> Term | None:
        raise NotImplementedError

    def code(self, node: ast.AST, path: Path, closure: bool) -> Term:
        raise NotImplementedError

    def bind(self, name: str, value: Term, path: Path) -> None:
        raise NotImplementedError

    def global_read(self, name: str, path: Path) -> Term | None:
        """The module binding ``globals()[name]`` reads, or None when it may be another."""
        raise NotImplementedError

    # -- effects -------------------------------------------------------------------------
    def emit(self, path: Path, effect: Term) -> Term:
        """Record ``effect`` on ``path``; its result is named by the state it leads to."""
        self.interner.count()
        path.escape(effect)
        path.effects.append(effect)
        path.state = self.interner.intern((path.state, effect))
        path.made = 0
        return ("r", path.state)

    # -- expressions ---------------------------------------------------------------------
    def eval(self, node: ast.expr, path: Path) -> Term:
        """The term of ``node`` on ``path`` (its effects recorded on the path)."""
        method: Callable[[ast.expr, Path], Term] | None = getattr(
            self, "_" + type(node).__name__, None
        )
        if method is None:
            raise Unsupported(type(node).__name__)
        self.interner.count()
        return method(node, path)

    def _Constant(self, node: ast.Constant, path: Path) -> Term:
        return const(node.value)

    def _Name(self, node: ast.Name, path: Path) -> Term:
        return self.read(node.id, path)

    def _Attribute(self, node: ast.Attribute, path: Path) -> Term:
        obj = self.eval(node.value, path)
        return ("attr", obj, node.attr, tag(path.state, obj) if obj[0] != "imp" else None)

    def _Subscript(self, node: ast.Subscript, path: Path) -> Term:
        key_node = node.slice
        if (
            isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id == "globals"
            and not node.value.args
            and not node.value.keywords
        ):
            # ``globals()["name"]``: the module's own binding of that name (whatever the locals)
            key = self.eval(key_node, path)
            if key[0] == "c" and isinstance(key[2], str):
                found = self.global_read(key[2], path)
                if found is not None:
                    return found
            raise Unsupported("introspection of globals")
        obj = self.eval(node.value, path)
        key = self.eval(node.slice, path)
        return ("item", obj, key, path.state)

    def _Slice(self, node: ast.Slice, path: Path) -> Term:
        parts = [
            self.eval(x, path) if x is not None else NONE
            for x in (node.lower, node.upper, node.step)
        ]
        return ("slice", *parts)

    def _BinOp(self, node: ast.BinOp, path: Path) -> Term:
        a, b = self.eval(node.left, path), self.eval(node.right, path)
        return ("bin", type(node.op).__name__, a, b, tag(path.state, a, b))

    def _UnaryOp(self, node: ast.UnaryOp, path: Path) -> Term:
        a = self.eval(node.operand, path)
        if isinstance(node.op, ast.Not):
            return ("not", self.truthy(a, path), None)
        return ("un", type(node.op).__name__, a, tag(path.state, a))

    def _Compare(self, node: ast.Compare, path: Path) -> Term:
        left = self.eval(node.left, path)
        if len(node.ops) > 1 and not all(effect_free(c) for c in node.comparators[1:]):
            raise Unsupported("chained comparison with effects")
        out: Term | None = None
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = self.eval(right_node, path)
            one = ("cmp", type(op).__name__, left, right, tag(path.state, left, right))
            # a < b < c is (a < b) and (b < c), b evaluated once.
            out = one if out is None else ite(self.truthy(out, path), one, out)
            left = right
        assert out is not None
        return out

    def _BoolOp(self, node: ast.BoolOp, path: Path) -> Term:
        if not all(effect_free(v) for v in node.values[1:]):
            raise Unsupported("short-circuit operand with effects")
        first = self.eval(node.values[0], path)
        if len(node.values) == 1:
            return first
        rest = ast.BoolOp(op=node.op, values=node.values[1:])
        later = self.eval(rest, path) if len(node.values) > 2 else self.eval(node.values[1], path)
        cond = self.truthy(first, path)
        decided = path.facts.get(cond)
        if isinstance(node.op, ast.And):
            return first if decided is False else later if decided else ite(cond, later, first)
        return first if decided else later if decided is False else ite(cond, first, later)

    def _IfExp(self, node: ast.IfExp, path: Path) -> Term:
        if not (effect_free(node.body) and effect_free(node.orelse)):
            raise Unsupported("conditional expression with effects")
        cond = self.truthy(self.eval(node.test, path), path)
        decided = path.facts.get(cond)
        if decided is not None:
            return self.eval(node.body if decided else node.orelse, path)
        return ite(cond, self.eval(node.body, path), self.eval(node.orelse, path))

    def _NamedExpr(self, node: ast.NamedExpr, path: Path) -> Term:
        value = self.eval(node.value, path)
        self.bind(node.target.id, value, path)
        return value

    def _Tuple(self, node: ast.Tuple, path: Path) -> Term:
        out = ("tuple", tuple(self._elements(node.elts, path)))
        path.escape(out)  # reachable through the tuple
        return out

    def _List(self, node: ast.List, path: Path) -> Term:
        return self._made(path, "list", tuple(self._elements(node.elts, path)))

    def _Set(self, node: ast.Set, path: Path) -> Term:
        return self._made(path, "set", tuple(self._elements(node.elts, path)))

    def _Dict(self, node: ast.Dict, path: Path) -> Term:
        items: list[Term] = []
        for k, v in zip(node.keys, node.values, strict=True):
            key = ("dstar",) if k is None else self.eval(k, path)
            items.append((key, self.eval(v, path)))
        return self._made(path, "dict", tuple(items))

    def _made(self, path: Path, kind: str, items: tuple) -> Term:
        """A new container, private to this call until it escapes (its items escape into it)."""
        path.escape(items)
        made = ("obj", kind, items, path.fresh())
        path.private[made] = kind
        return made

    def _local(self, fn: Term, args: tuple, kws: tuple, path: Path) -> Term | None:
        """A method of a private container that changes only that container (``out.append(x)``,
        ``seen.add(k)``): recorded in order, the container given a new version, the state that
        other code reads left as it was; None for any other call."""
        if fn[0] != "attr" or fn[1] not in path.private or kws or self.watching:
            return None  # (inside ``try``/``with`` a handler may see it half changed)
        kind, old = path.private[fn[1]], fn[1]
        method = fn[2]
        if method not in LOCAL_METHODS.get(kind, ()):
            return None
        if method in _ITERATES and not all(_plain_iterable(a, path) for a in args):
            return None  # iterating an unknown object may run its code
        self.mutate(path, old, (method, args))
        return NONE

    def mutate(self, path: Path, old: Term, change: Term) -> None:
        """Record a change of the private container ``old`` and rebind its names to the new version."""
        self.interner.count()
        kind = path.private.pop(old)
        path.escape(change)  # what is stored in it is reachable through it
        new = ("changed", old, change)
        path.effects.append(("local", old, change))
        for name, value in path.env.items():
            if value == old:
                path.env[name] = new
        path.private[new] = kind

    def _elements(self, elts: list[ast.expr], path: Path) -> list[Term]:
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                spread = self.eval(e.value, path)
                if spread[0] == "tuple":  # a tuple the code built (a helper's ``*args``)
                    out.extend(spread[1])
                else:
                    out.append(("star", spread))
            else:
                out.append(self.eval(e, path))
        return out

    def _keywords(self, keywords: list[ast.keyword], path: Path) -> tuple[Term, ...]:
        out: list[Term] = []
        for kw in keywords:
            value = self.eval(kw.value, path)
            if kw.arg:
                out.append((kw.arg, value))
            elif value[0] == "kwargs":  # a helper's ``**kwargs``, passed on as they came
                out.extend(value[1])
            else:
                out.append(("**", value))
        return tuple(out)

    def _JoinedStr(self, node: ast.JoinedStr, path: Path) -> Term:
        return ("fstr", tuple(self.eval(v, path) for v in node.values))

    def _FormattedValue(self, node: ast.FormattedValue, path: Path) -> Term:
        v = self.eval(node.value, path)
        spec = self.eval(node.format_spec, path) if node.format_spec is not None else NONE
        return ("fmt", v, node.conversion, spec, tag(path.state, v, spec))

    def _Call(self, node: ast.Call, path: Path) -> Term:
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("dir", "vars") and node.args:
            fn = self.read(func.id, path, looks_at_locals=False)  # ``dir(module)``: an object's
        else:
            fn = self.eval(func, path)
        args = tuple(self._elements(node.args, path))
        kws = self._keywords(node.keywords, path)
        if fn[0] == "b" and fn[1] in PURE and not any(a[0] == "star" for a in args) and not kws:
            return ("pure", fn[1], args, tag(path.state, *args))
        if _str_format(fn) and not any(a[0] == "star" for a in args):
            # ``"...".format(...)`` computes like ``format()`` and an f-string (its arguments'
            # ``__format__`` assumed to do nothing else): a value, not an effect
            values = (*args, *(v for _k, v in kws))
            return ("pure", "str.format", (fn[1], args, kws), tag(path.state, *values))
        if fn[0] == "b" and fn[1] in ("list", "set", "dict") and not args and not kws:
            return self._made(path, fn[1], ())
        local = self._local(fn, args, kws, path)
        if local is not None:
            return local
        inlined = self.inline(fn, args, kws, path)
        if inlined is not None:
            return inlined
        made = self.emit(path, ("call", fn, args, kws))
        if fn[0] == "b" and fn[1] in _NEW_CONTAINER:
            path.private[made] = _NEW_CONTAINER[fn[1]]  # a new container only this call holds
        return made

    def _Await(self, node: ast.Await, path: Path) -> Term:
        return self.emit(path, ("await", self.eval(node.value, path)))

    def _Yield(self, node: ast.Yield, path: Path) -> Term:
        value = self.eval(node.value, path) if node.value is not None else NONE
        return self.emit(path, ("yield", value))

    def _YieldFrom(self, node: ast.YieldFrom, path: Path) -> Term:
        return self.emit(path, ("yield-from", self.eval(node.value, path)))

    def _ListComp(self, node: ast.expr, path: Path) -> Term:
        # It runs at once, and may call anything: one effect, its code with the locals it reads.
        if any(isinstance(n, ast.NamedExpr) for n in ast.walk(node)):
            raise Unsupported("assignment expression in a comprehension")
        unrolled = self._unrolled_comprehension(node, path)
        if unrolled is not None:
            return unrolled
        return self.emit(path, ("comp", self.code(node, path, closure=False)))

    def _unrolled_comprehension(self, node: ast.expr, path: Path) -> Term | None:
        """``[e for n, v in (("a", A), ("b", B))]`` over a literal of at most ``UNROLL_ITEMS``
        items: the list of ``e`` with the targets bound to each item in turn (the items are
        evaluated first, as the literal is; the targets do not leak: Python 3 scopes them).
        None for a filter, several ``for``s, a target other than names, or an element that
        makes a closure (it would see the last item)."""
        if not isinstance(node, ast.ListComp) or len(node.generators) != 1:
            return None
        gen = node.generators[0]
        seq = gen.iter
        if gen.ifs or gen.is_async or not isinstance(seq, ast.Tuple | ast.List):
            return None
        if len(seq.elts) > UNROLL_ITEMS or any(isinstance(e, ast.Starred) for e in seq.elts):
            return None
        if any(isinstance(n, _CLOSURES) for n in ast.walk(node.elt)):
            return None
        targets = gen.target.elts if isinstance(gen.target, ast.Tuple) else [gen.target]
        if not all(isinstance(t, ast.Name) for t in targets):
            return None
        items = [self.eval(e, path) for e in seq.elts]
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        saved = {n: path.env[n] for n in names if n in path.env}
        values: list[Term] = []
        try:
            for item in items:
                parts = (
                    [item] if not isinstance(gen.target, ast.Tuple) else _parts(item, len(names))
                )
                if parts is None:
                    return None
                path.env.update(zip(names, parts, strict=True))
                values.append(self.eval(node.elt, path))
        finally:
            for n in names:
                path.env.pop(n, None)
            path.env.update(saved)
        return self._made(path, "list", tuple(values))

    _SetComp = _DictComp = _ListComp

    def _GeneratorExp(self, node: ast.expr, path: Path) -> Term:
        # Made now, run later: a closure over locals nothing rebinds (see ``Machine.code``).
        return ("obj", "closure", self.code(node, path, closure=True), path.fresh())

    _Lambda = _GeneratorExp

    def truthy(self, t: Term, path: Path) -> Term:
        """The condition ``bool(t)`` (a comparison or ``not`` is already one)."""
        if t[0] in ("cmp", "not", "truthy") or (
            t[0] == "pure" and t[1] in ("isinstance", "issubclass", "callable", "hasattr", "bool")
        ):
            return t
        return ("truthy", t, tag(path.state, t))


__all__ = ["PURE", "Expressions", "effect_free", "is_value"]
