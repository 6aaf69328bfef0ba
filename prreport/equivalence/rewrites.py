"""Rewrites that keep what code does, so a refactor spelled differently still compares equal.

``see_through(before, after, low)`` normalises two canonical trees (see ``_equiv.canonical``)
and, when they are then equal, says which rewrite made the difference. Each rewrite is
proven for every input, or states the one assumption it makes:

- ``fixed-condition``: ``sys.version_info >= (3, 7)`` is always true when the project requires
  Python >= 3.7; an ``if``/``x if c else y``/``and``/``or``/``not`` on a fixed value keeps the
  branch that runs.
- ``inlined-local``: ``n = <value>`` whose only use is one later statement of the same block
  is the value written at that use, when the value cannot change or act between the two
  (constants, imported objects, tuples, comparisons and boolean operations of those).
- ``moved-assignment``: ``n = <value>`` written earlier or later in the same block, when
  nothing between mentions ``n``, no nested function, lambda or class of the function
  mentions ``n`` (one defined earlier and called between would see it bound or unbound),
  nothing between leaves the block by ``break``/``continue``, the block is in no ``try`` or
  ``with`` of the function (an exception between, caught or suppressed there, would let
  later code read ``n`` assigned or not), and the value cannot change or act (constants, imported
  objects, new empty containers, or, with the fact it relies on as the detail, the
  construction of a plain dataclass of the repository from locals nothing between rebinds:
  ``_plainclass``).
- ``merged-if``: ``if a:`` whose whole body is ``if b: X`` (neither with ``else``) is
  ``if a and b: X`` (``and`` evaluates ``b`` only when ``a`` holds, as the nested test did).
- ``renamed-local``: a function's own local variable renamed everywhere it is used (its
  parameters are not: they are part of its signature).
- ``merged-elif``: ``if a: X`` / ``elif b: X`` (the same body) is ``if a or b: X``.
- ``affix-tuple``: ``s.startswith(("a", "b"))`` is ``s.startswith("a") or s.startswith("b")``
  (``endswith`` too). Assumption, stated in the finding: ``s`` is a ``str`` (the arguments are).
- ``loop-invariant-if``: ``for t in xs: if a and b: X`` (``a`` a name the loop never
  assigns) is ``if a: for t in xs: if b: X``. Assumption, stated in the finding: iterating
  ``xs`` (a name or attribute, not a call) does nothing when ``a`` is false.
- ``match-chain``: ``match s:`` whose cases are literals (``case "a" | "b":``, a dotted
  constant) and at most a final ``case _:``, with no guard or capture, is
  ``if s == "a" or s == "b": ... elif ...: ... else: ...`` (a value pattern compares with
  ``==``, subject first). Assumption, stated in the finding when ``s`` is not a plain name:
  evaluating ``s`` again gives the same value and does nothing (``match`` evaluates it once).

Each side is rewritten to a fixed point; a rewrite is reported only when the two sides did
not both need it (the same guard simplified in both says nothing about the change).
"""

from __future__ import annotations

import ast
import copy
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from prreport.python.definitions import same_tree
from prreport.python.versions import fixed_by_version

_IMPORTS = (ast.Import, ast.ImportFrom)
_BLOCKS = ("body", "orelse", "finalbody")
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_VERSION = "@sys.version_info"
_COMPREHENSIONS = (
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)  # how ``sys.version_info`` reads in a canonical tree


@dataclass(frozen=True)
class Rewrite:
    """One rewrite that made two versions equal.

    ``kind`` (see the module docstring), ``text`` the code it is about (the condition, the
    local's name, the merged test, the hoisted test) and ``detail``: for ``fixed-condition``
    ``"true 3.7"`` (its value and the declared lowest Python), for ``loop-invariant-if`` the
    iterable the assumption is about.
    """

    kind: str
    text: str
    detail: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "text": _plain(self.text), "detail": _plain(self.detail)}


def _plain(code: str) -> str:
    """Canonical ``@m.X`` names as written (``m.X``); a matrix product ``a @ b`` is kept."""
    return re.sub(r"@(?=[A-Za-z_])", "", code)


Inert = Callable[[ast.Call], "str | None"]


def see_through(
    before: ast.AST,
    after: ast.AST,
    low: tuple[int, ...] | None,
    inert: tuple[Inert, Inert] | None = None,
) -> list[Rewrite] | None:
    """The rewrites that make ``before`` and ``after`` equal, or None when they do not.

    Both trees are rewritten in place (pass copies). ``inert``: for each side, the fact that
    makes a call a construction that can neither act nor fail (``_plainclass.constructions``).
    """
    norm_a = _Normalise(low, inert[0] if inert else None)
    norm_b = _Normalise(low, inert[1] if inert else None)
    done_a, done_b = norm_a.run(before), norm_b.run(after)
    facts = {**norm_b.facts, **norm_a.facts}
    renamed: list[Rewrite] = []
    if not same_tree(before, after, _IMPORTS):
        names_a, names_b = _alpha(before), _alpha(after)
        if names_a is None or names_b is None or not same_tree(before, after, _IMPORTS):
            return None
        renamed = [
            Rewrite("renamed-local", f"{a} → {b}")
            for a, b in zip(names_a, names_b, strict=True)
            if a != b
        ]
    both = Counter(done_a) & Counter(done_b)
    only = list(((Counter(done_a) - both) + (Counter(done_b) - both)).elements())
    # One chain merged step by step is one rewrite: keep the outermost merge.
    only = [
        r
        for r in only
        if not any(
            o.kind == r.kind and o is not r and r.text in o.text and r.text != o.text
            for o in only
            if r.kind in ("merged-if", "merged-elif")
        )
    ]
    # A moved assignment is told once, without the distances the two sides moved it.
    told = {
        (r.kind, r.text): Rewrite(r.kind, r.text, facts.get(r.text, ""))
        if r.kind == "moved-assignment"
        else r
        for r in [*only, *renamed]
    }
    return sorted(told.values(), key=lambda r: (r.kind, r.text))


def _alpha(fn: ast.AST) -> list[str] | None:
    """Rename ``fn``'s own locals (not its parameters) to ``%0``, ``%1``... in the order they
    first occur; the original names in that order, or None when renaming could change what
    the code does (a nested class, whose names are attributes; ``global``/``nonlocal``;
    ``locals()``/``eval``; ``match`` captures; a nested def sharing a local's name).
    """
    if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    params = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    for node in ast.walk(fn):
        if isinstance(node, ast.ClassDef | ast.Global | ast.Nonlocal | ast.Match):
            return None
        if isinstance(node, ast.Name) and node.id in ("locals", "vars", "eval", "exec"):
            return None
        if isinstance(node, _COMPREHENSIONS) and any(
            isinstance(n, ast.NamedExpr) for n in ast.walk(node)
        ):
            return None  # ``:=`` in a comprehension binds in the function: keep it simple
    order: list[str] = []
    defs: set[str] = set()
    # Only the function's own scope decides what is local: a name a nested def assigns
    # is that def's (and may be a global read here).
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop(0)
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            order.append(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            order.append(node.name)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            defs.add(node.name)
            continue
        if isinstance(node, (ast.Lambda, *_COMPREHENSIONS)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    local = [n for n in dict.fromkeys(order) if n not in params]
    if defs & set(local):
        return None
    new = {name: f"%{i}" for i, name in enumerate(local)}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id in new:
            node.id = new[node.id]
        elif isinstance(node, ast.ExceptHandler) and node.name in new:
            node.name = new[node.name]
    return local


class _Normalise:
    def __init__(self, low: tuple[int, ...] | None, inert: Inert | None = None) -> None:
        self.low = low
        self.inert = inert
        self.facts: dict[str, str] = {}  # a moved construction's name -> the fact it relies on
        self.done: list[Rewrite] = []
        self._uses_key: tuple[int, int] | None = None
        self._uses_value: tuple[Counter[str], Counter[str], bool] = (Counter(), Counter(), False)

    def run(self, tree: ast.AST) -> list[Rewrite]:
        for _ in range(8):  # each pass can enable another (a folded value becomes inlinable)
            mark = len(self.done)
            self._blocks(tree)
            if len(self.done) == mark:
                break
        return self.done

    # -- statement lists ------------------------------------------------------------------

    def _blocks(self, node: ast.AST) -> None:
        self._visit(node, None)
        _Fold(self).visit(node)

    def _visit(self, node: ast.AST, fn: ast.FunctionDef | ast.AsyncFunctionDef | None) -> None:
        """Rewrite every statement list under ``node``, innermost first; ``fn`` encloses it."""
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            fn = node
        elif isinstance(node, ast.ClassDef | ast.Lambda):
            fn = None
        owners: list[ast.AST] = [node]
        owners += getattr(node, "handlers", None) or []
        owners += getattr(node, "cases", None) or []
        for owner in owners:
            for name in _BLOCKS:
                block = getattr(owner, name, None)
                if not (isinstance(block, list) and block and isinstance(block[0], ast.stmt)):
                    continue
                for st in block:
                    self._visit(st, fn)
                setattr(owner, name, self._block(block, fn, owner) or [ast.Pass()])

    def _block(
        self,
        block: list[ast.stmt],
        fn: ast.FunctionDef | ast.AsyncFunctionDef | None,
        owner: ast.AST | None = None,
    ) -> list[ast.stmt]:
        """``owner``: the node (in ``fn``'s tree) whose statement list ``block`` is."""
        out: list[ast.stmt] = []
        for st in block:
            if isinstance(st, _IMPORTS):
                continue  # import placement is the import analyzers' business
            if isinstance(st, ast.If):
                value = self._fixed(st.test)
                if value is not None:
                    kept = st.body if value else st.orelse
                    out.extend(s for s in kept if not isinstance(s, ast.Pass))
                    continue
                merged = _merged_if(st)
                if merged is not None:
                    self.done.append(Rewrite("merged-if", ast.unparse(merged.test)))
                    st = merged
                joined = _joined_elif(st)
                if joined is not None:
                    self.done.append(Rewrite("merged-elif", ast.unparse(joined.test)))
                    st = joined
            if isinstance(st, ast.Match):
                chain = _match_chain(st)
                if chain is not None:
                    subject = st.subject
                    plain = isinstance(subject, ast.Name)
                    self.done.append(
                        Rewrite("match-chain", ast.unparse(subject), "" if plain else "again")
                    )
                    st = chain
            if isinstance(st, ast.For | ast.AsyncFor):
                hoisted = _hoisted_test(st)
                if hoisted is not None:
                    test, new = hoisted
                    self.done.append(
                        Rewrite("loop-invariant-if", ast.unparse(test), ast.unparse(st.iter))
                    )
                    st = new
            out.append(st)
        if fn is not None:
            out = self._sink_assignments(out, fn, owner)
            out = self._inline_locals(out, fn)
        return out

    def _fixed(self, test: ast.expr) -> bool | None:
        if (
            isinstance(test, ast.Constant)
            and test.value in (True, False)
            and type(test.value) is bool
        ):
            return bool(test.value)
        found = fixed_by_version(test, self.low, _VERSION)
        if found is None:
            return None
        value, low = found
        self.done.append(
            Rewrite("fixed-condition", ast.unparse(test), f"{str(value).lower()} {low}")
        )
        return value

    def _uses(self, fn: ast.AST) -> tuple[Counter[str], Counter[str], bool]:
        """``_name_uses(fn)``, counted again only after a rewrite changed the tree."""
        key = (id(fn), len(self.done))
        if self._uses_key != key:
            self._uses_key, self._uses_value = key, _name_uses(fn)
        return self._uses_value

    def _sink_assignments(
        self,
        block: list[ast.stmt],
        fn: ast.FunctionDef | ast.AsyncFunctionDef,
        owner: ast.AST | None = None,
    ) -> list[ast.stmt]:
        """Move each ``n = <value>`` that nothing can change or observe in between (a constant,
        an imported object, a new empty list/dict/set or a tuple of those) down to just before
        the first statement of the block that mentions ``n``: where it is written is layout."""
        stores, _, opaque = self._uses(fn)
        if opaque:
            return block
        captured: set[str] | None = None  # worked out at the first candidate (walks ``fn``)
        out = list(block)
        caught: bool | None = None  # worked out at the first move (a walk of ``fn``)
        i = len(out) - 1
        while i >= 0:
            st = out[i]
            name = _single_name_assign(st)
            if name is not None:
                captured = _captured(fn) if captured is None else captured
                if name in captured:
                    name = None  # a closure defined earlier, called in between, reads it
            fresh = name is not None and _fresh(st.value, stores)  # type: ignore[attr-defined]
            built = name is not None and not fresh and isinstance(st.value, ast.Call)  # type: ignore[attr-defined]
            if name is not None and (fresh or built):
                k = i + 1
                while k < len(out) and not _mentions(out[k], name) and not _jumps(out[k]):
                    k += 1  # (``break``/``continue`` leave the block: ``n`` read after it)
                if k > i + 1 and caught is None:
                    caught = owner is None or _catches(fn, owner)
                if caught:
                    # An exception between, caught in the function (``try``, or a ``with``
                    # that may suppress it), lets code after it read ``n`` assigned or not.
                    k = i + 1
                if built and k > i + 1:
                    fact = self._built(st.value, out[:i], out[i + 1 : k], fn, stores)  # type: ignore[attr-defined]
                    if fact is None:
                        k = i + 1
                    else:
                        self.facts[name] = fact
                if k < len(out) and k > i + 1:
                    out.insert(k - 1, out.pop(i))
                    # How far it moved: each side moves it to the same place, from its own.
                    self.done.append(Rewrite("moved-assignment", name, str(k - 1 - i)))
            i -= 1
        return out

    def _built(
        self,
        call: ast.Call,
        earlier: list[ast.stmt],
        across: list[ast.stmt],
        fn: ast.AST,
        stores: Counter[str],
    ) -> str | None:
        """The fact that lets ``call`` move across ``across``: it builds a plain dataclass from
        constants, imported objects and locals none of ``across`` rebinds (None: it may not).
        Each local is bound where the call stood (a parameter, or assigned by a statement of
        ``earlier``, the block before it) and never unbound (``del``, ``except ... as``):
        reading an unbound local raises, and the construction would raise before or after
        the statements it moved across."""
        if self.inert is None:
            return None
        func = call.func
        if not isinstance(func, ast.Name) or stores[func.id]:
            return None  # the class by a name the function binds itself
        fact = self.inert(call)
        if fact is None:
            return None
        imported = {
            (a.asname or a.name).split(".")[0]
            for n in ast.walk(fn)
            if isinstance(n, _IMPORTS)
            for a in n.names
        }
        rebound = (
            {
                n.id
                for st in across
                for n in ast.walk(st)
                if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
            }
            | {
                n.name
                for st in across
                for n in ast.walk(st)
                if isinstance(n, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and n.name
            }
            | {
                # ``case {**rest}`` binds ``rest`` (a capture pattern is no ``Name`` store).
                n.rest
                for st in across
                for n in ast.walk(st)
                if isinstance(n, ast.MatchMapping) and n.rest
            }
        )
        own = _own_locals(fn)
        for k in call.keywords:
            v = k.value
            if _steady(v, stores):
                continue
            if not isinstance(v, ast.Name) or v.id not in own or v.id in rebound | imported:
                return None  # a global a call could rebind, or a local rebound on the way
            if not _bound_before(v.id, earlier, fn):
                return None  # maybe unbound: ``UnboundLocalError`` at another point
        return fact

    def _inline_locals(
        self, block: list[ast.stmt], fn: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> list[ast.stmt]:
        """Put each once-used local whose value cannot change at its use (in ``fn``'s own block)."""
        stores, loads, opaque = self._uses(fn)
        if opaque:
            return block
        out = list(block)
        i = 0
        while i < len(out):
            st = out[i]
            name = _single_name_assign(st)
            if (
                name is not None
                and stores[name] == 1
                and loads[name] == 1
                and _steady(st.value, stores)  # type: ignore[attr-defined]
            ):
                use = next((k for k in range(i + 1, len(out)) if _loads_in(out[k], name)), None)
                if use is not None and _replace_load(out[use], name, st.value):  # type: ignore[attr-defined]
                    self.done.append(Rewrite("inlined-local", name))
                    del out[i]
                    continue
            i += 1
        return out


class _Fold(ast.NodeTransformer):
    """Expressions on fixed values: ``x if True else y`` -> x, ``True and x`` -> x, ``not False``."""

    def __init__(self, owner: _Normalise) -> None:
        self.owner = owner

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        value = self.owner._fixed(node) if isinstance(node, ast.Compare) else None
        if value is None:
            return node
        return ast.copy_location(ast.Constant(value=value), node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr in ("startswith", "endswith")
            and isinstance(func.value, ast.Name)
            and len(node.args) == 1
            and not node.keywords
            and isinstance(node.args[0], ast.Tuple)
            and len(node.args[0].elts) > 1
            and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.args[0].elts
            )
        ):
            # s.startswith(("a", "b")) is s.startswith("a") or s.startswith("b") for a str s.
            name = func.value.id
            self.owner.done.append(Rewrite("affix-tuple", f"{name}.{func.attr}(…)", name))
            calls: list[ast.expr] = [
                ast.Call(func=func, args=[e], keywords=[]) for e in node.args[0].elts
            ]
            return ast.copy_location(ast.BoolOp(op=ast.Or(), values=calls), node)
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        if _is_bool(node.test):
            return node.body if node.test.value else node.orelse  # type: ignore[attr-defined]
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        if isinstance(node.op, ast.Not) and _is_bool(node.operand):
            return ast.copy_location(ast.Constant(value=not node.operand.value), node)  # type: ignore[attr-defined]
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        # ``True and x`` is x; ``False and x`` is False (x never runs); ``or`` the other way.
        neutral = isinstance(node.op, ast.And)
        values: list[ast.expr] = []
        for i, v in enumerate(node.values):
            last = i == len(node.values) - 1
            if _is_bool(v) and v.value is neutral and not last:  # type: ignore[attr-defined]
                continue
            if _is_bool(v) and v.value is not neutral:  # type: ignore[attr-defined]
                if not values:
                    return v
                values.append(v)
                break
            values.append(v)
        if len(values) == 1:
            return values[0]
        node.values = values
        return node


def _is_bool(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is bool


def _merged_if(st: ast.If) -> ast.If | None:
    """``if a: if b: X`` (no ``else`` on either) as ``if a and b: X``; ``and`` chains flattened."""
    if st.orelse or len(st.body) != 1:
        return None
    inner = st.body[0]
    if not isinstance(inner, ast.If) or inner.orelse:
        return None
    parts = [*_and_parts(st.test), *_and_parts(inner.test)]
    test = ast.BoolOp(op=ast.And(), values=parts)
    return ast.If(test=test, body=inner.body, orelse=[])


def _joined_elif(st: ast.If) -> ast.If | None:
    """``if a: X`` / ``elif b: X`` (the same body) as ``if a or b: X``, the rest of the chain
    kept: ``or`` tests ``b`` only when ``a`` is false, as the ``elif`` did."""
    if len(st.orelse) != 1 or not isinstance(st.orelse[0], ast.If):
        return None
    inner = st.orelse[0]
    if not same_tree(st.body, inner.body):
        return None
    parts = [*_or_parts(st.test), *_or_parts(inner.test)]
    return ast.If(test=ast.BoolOp(op=ast.Or(), values=parts), body=st.body, orelse=inner.orelse)


def _match_chain(st: ast.Match) -> ast.If | None:
    """``match s: case A | B: X / case C: Y / case _: Z`` as ``if s == A or s == B: X elif
    s == C: Y else: Z``, or None when a case captures, has a guard or is not a value."""
    branches: list[tuple[ast.expr, list[ast.stmt]]] = []
    default: list[ast.stmt] = []
    for i, case in enumerate(st.cases):
        if case.guard is not None:
            return None
        pat = case.pattern
        if isinstance(pat, ast.MatchAs) and pat.pattern is None and pat.name is None:
            if i != len(st.cases) - 1:
                return None
            default = case.body
            continue
        alts = pat.patterns if isinstance(pat, ast.MatchOr) else [pat]
        if not all(isinstance(a, ast.MatchValue) for a in alts):
            return None
        tests: list[ast.expr] = [
            ast.Compare(left=copy.deepcopy(st.subject), ops=[ast.Eq()], comparators=[a.value])  # type: ignore[attr-defined]
            for a in alts
        ]
        branches.append((tests[0] if len(tests) == 1 else ast.BoolOp(ast.Or(), tests), case.body))
    if not branches:
        return None
    chain: list[ast.stmt] = default
    for test, body in reversed(branches):
        chain = [ast.If(test=test, body=body, orelse=chain)]
    out = chain[0]
    assert isinstance(out, ast.If)
    return ast.copy_location(out, st)


def _or_parts(test: ast.expr) -> list[ast.expr]:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return list(test.values)
    return [test]


def _and_parts(test: ast.expr) -> list[ast.expr]:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return list(test.values)
    return [test]


def _hoisted_test(loop: ast.For | ast.AsyncFor) -> tuple[ast.expr, ast.If] | None:
    """``for t in xs: if a and b: X`` as (a, ``if a: for t in xs: if b: X``), or None.

    ``a`` is a leading run of plain names the loop never assigns; ``xs`` a name or attribute
    chain (evaluating it again or not at all cannot act, bar a property).
    """
    if loop.orelse or len(loop.body) != 1 or not isinstance(loop.body[0], ast.If):
        return None
    inner = loop.body[0]
    if inner.orelse or not _plain_ref(loop.iter):
        return None
    assigned = {
        n.id for n in ast.walk(loop) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    }
    parts = _and_parts(inner.test)
    lead = 0
    while lead < len(parts) and _name_not_in(parts[lead], assigned):
        lead += 1
    if lead == 0:
        return None
    test = parts[0] if lead == 1 else ast.BoolOp(op=ast.And(), values=parts[:lead])
    rest = parts[lead:]
    body: list[ast.stmt]
    if not rest:
        body = inner.body
    else:
        cond = rest[0] if len(rest) == 1 else ast.BoolOp(op=ast.And(), values=rest)
        body = [ast.If(test=cond, body=inner.body, orelse=[])]
    cls = type(loop)
    new_loop = cls(target=loop.target, iter=loop.iter, body=body, orelse=[], type_comment=None)
    return test, ast.If(test=test, body=[new_loop], orelse=[])


def _name_not_in(node: ast.expr, assigned: set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id not in assigned


def _plain_ref(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _single_name_assign(st: ast.stmt) -> str | None:
    if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
        return st.targets[0].id
    return None


def _steady(value: ast.expr, stores: Counter[str]) -> bool:
    """A value that evaluating later gives the same and does nothing: constants, imported
    objects (``@``-names of a canonical tree), and tuples, comparisons, ``not``/``and``/``or``
    and conditional expressions of those."""
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, ast.Name):
        return value.id.startswith("@") and stores[value.id] == 0
    if isinstance(value, ast.Tuple):
        return all(_steady(e, stores) for e in value.elts)
    if isinstance(value, ast.UnaryOp):
        return isinstance(value.op, ast.Not | ast.USub) and _steady(value.operand, stores)
    if isinstance(value, ast.BoolOp):
        return all(_steady(v, stores) for v in value.values)
    if isinstance(value, ast.Compare):
        return _steady(value.left, stores) and all(_steady(c, stores) for c in value.comparators)
    if isinstance(value, ast.IfExp):
        return all(_steady(v, stores) for v in (value.test, value.body, value.orelse))
    if isinstance(value, ast.Subscript):
        return _steady(value.value, stores) and _steady(value.slice, stores)
    if isinstance(value, ast.Slice):
        return all(v is None or _steady(v, stores) for v in (value.lower, value.upper, value.step))
    return False


def _fresh(value: ast.expr, stores: Counter[str]) -> bool:
    """A steady value or a new empty list, dict or set (or a tuple of those)."""
    if isinstance(value, ast.List | ast.Set | ast.Dict):
        return not (value.keys if isinstance(value, ast.Dict) else value.elts)  # type: ignore[union-attr]
    if isinstance(value, ast.Tuple):
        return all(_fresh(e, stores) for e in value.elts)
    return _steady(value, stores)


def _mentions(st: ast.stmt, name: str) -> bool:
    """Whether ``st`` reads, writes or deletes ``name``, or may reach it by other means (a nested
    def or lambda could close over it; ``return``/``yield``/``raise`` end the block's run)."""
    for n in ast.walk(st):
        if isinstance(n, ast.Name) and n.id == name:
            return True
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            return True
    return False


def _name_uses(fn: ast.AST) -> tuple[Counter[str], Counter[str], bool]:
    """Stores and loads of each name in ``fn`` (nested scopes included: a use there is a use),
    and whether ``fn`` can see its locals another way (``locals()``, ``eval``, ``exec``,
    ``global``/``nonlocal``)."""
    stores: Counter[str] = Counter()
    loads: Counter[str] = Counter()
    opaque = False
    for node in ast.walk(fn):
        if isinstance(node, ast.Name):
            (loads if isinstance(node.ctx, ast.Load) else stores)[node.id] += 1
            if node.id in ("locals", "vars", "eval", "exec"):
                opaque = True
        elif isinstance(node, ast.arg):
            stores[node.arg] += 1
        elif isinstance(node, ast.Global | ast.Nonlocal):
            opaque = True
        elif isinstance(node, _SCOPES) and node is not fn and hasattr(node, "name"):
            stores[node.name] += 1  # type: ignore[union-attr]
    return stores, loads, opaque


# ``try`` (and ``try``/``except*`` from Python 3.11) and ``with`` (``__exit__`` may suppress).
_CATCHING: tuple[type[ast.AST], ...] = tuple(
    getattr(ast, n) for n in ("Try", "TryStar", "With", "AsyncWith") if hasattr(ast, n)
)


def _catches(fn: ast.AST, owner: ast.AST) -> bool:
    """Whether ``owner`` (whose statement list is being rewritten) is or lies in a ``try`` or
    ``with`` statement of ``fn`` (an exception its block raises may be caught, or suppressed,
    and the function go on)."""
    for node in ast.walk(fn):
        if isinstance(node, _CATCHING):
            if any(x is owner for x in ast.walk(node)):
                return True
    return False


def _jumps(st: ast.stmt) -> bool:
    """Whether ``st`` holds a ``break`` or ``continue`` of a loop around it (not of a loop
    within it; a loop's ``else`` belongs to the loop around)."""
    stack: list[ast.AST] = [st]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Break | ast.Continue):
            return True
        if isinstance(node, ast.For | ast.AsyncFor | ast.While):
            stack.extend(node.orelse)
            continue
        if isinstance(node, _SCOPES):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def _captured(fn: ast.AST) -> set[str]:
    """Names a nested function, lambda, class or generator expression of ``fn`` mentions
    (``fn``'s cell variables, among others): a call between may run that code (a generator
    runs when consumed) and see the name bound or not yet."""
    out: set[str] = set()
    for node in ast.walk(fn):
        if node is not fn and isinstance(node, (*_SCOPES, ast.GeneratorExp)):
            out |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    return out


def _own_locals(fn: ast.AST) -> set[str]:
    """Names ``fn``'s own scope binds (its parameters and stores; not a nested scope's)."""
    out = (
        {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
        if hasattr(fn, "args")
        else set()
    )
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        node = stack.pop()
        if isinstance(node, (*_SCOPES, *_COMPREHENSIONS)):
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            out.add(node.id)
        stack.extend(ast.iter_child_nodes(node))
    return out


def _bound_before(name: str, earlier: list[ast.stmt], fn: ast.AST) -> bool:
    """``name`` is surely bound after ``earlier`` (statements of one block of ``fn``): a
    parameter of ``fn``, or the target of a plain assignment among ``earlier``; and nothing in
    ``fn`` unbinds it (``del name``, ``except ... as name``)."""
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Del):
            return False
        if isinstance(n, ast.ExceptHandler) and n.name == name:
            return False
    args = getattr(fn, "args", None)
    if isinstance(args, ast.arguments) and any(
        a.arg == name for a in ast.walk(args) if isinstance(a, ast.arg)
    ):
        return True
    for st in earlier:
        if isinstance(st, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in st.targets
        ):
            return True
        if (
            isinstance(st, ast.AnnAssign)
            and st.value is not None
            and isinstance(st.target, ast.Name)
            and st.target.id == name
        ):
            return True
    return False


def _loads_in(st: ast.stmt, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(st))


class _Substitute(ast.NodeTransformer):
    def __init__(self, name: str, value: ast.expr) -> None:
        self.name = name
        self.value = value
        self.done = False
        self.nested = 0

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id == self.name and isinstance(node.ctx, ast.Load) and not self.nested:
            self.done = True
            return self.value
        return node

    def _scope(self, node: ast.AST) -> ast.AST:
        self.nested += 1  # a use inside a nested def or lambda runs later: left alone
        try:
            return self.generic_visit(node)
        finally:
            self.nested -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = _scope


def _replace_load(st: ast.stmt, name: str, value: ast.expr) -> bool:
    sub = _Substitute(name, value)
    sub.visit(st)
    return sub.done
