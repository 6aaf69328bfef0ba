"""Where a local is assigned is layout when its value cannot change or act in between.

- ``moved-assignment``: ``n = <value>`` written earlier or later in the same block, when nothing
  between mentions ``n`` (nor a nested function, lambda or class of the function), nothing
  between leaves the block by ``break``/``continue``, the block is in no ``try`` or ``with`` of
  the function, and the value cannot change or act: constants, imported objects, new empty
  containers, or the construction of a plain dataclass of the repository from locals nothing
  between rebinds (``Trace.inert``, the fact ``prreport.equivalence.plainclass`` gives; it is
  recorded in ``Trace.facts``) (``sink_assignments``).
- ``inlined-local``: ``n = <value>`` whose only use is one later statement of the same block is
  the value written at that use, when the value cannot change or act between the two
  (``inline_locals``).

Both are off in a function that can see its locals another way (``locals()``, ``eval``,
``exec``, ``global``/``nonlocal``): ``name_uses`` says so.
"""

from __future__ import annotations

import ast
from collections import Counter

from prreport.equivalence.rewrites.rewrite import Inert, Rewrite, Trace

_IMPORTS = (ast.Import, ast.ImportFrom)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def sink_assignments(
    trace: Trace,
    block: list[ast.stmt],
    fn: ast.FunctionDef | ast.AsyncFunctionDef,
    owner: ast.AST | None,
    uses: tuple[Counter[str], Counter[str], bool],
) -> list[ast.stmt]:
    """Move each ``n = <value>`` that nothing can change or observe in between (a constant,
    an imported object, a new empty list/dict/set or a tuple of those) down to just before
    the first statement of the block that mentions ``n``: where it is written is layout
    (``moved-assignment``). ``uses``: ``name_uses(fn)``."""
    stores, _, opaque = uses
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
                fact = _built(trace.inert, st.value, out[:i], out[i + 1 : k], fn, stores)  # type: ignore[attr-defined]
                if fact is None:
                    k = i + 1
                else:
                    trace.facts[name] = fact
            if k < len(out) and k > i + 1:
                out.insert(k - 1, out.pop(i))
                # How far it moved: each side moves it to the same place, from its own.
                trace.done.append(Rewrite("moved-assignment", name, str(k - 1 - i)))
        i -= 1
    return out


def _built(
    inert: Inert | None,
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
    if inert is None:
        return None
    func = call.func
    if not isinstance(func, ast.Name) or stores[func.id]:
        return None  # the class by a name the function binds itself
    fact = inert(call)
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


def inline_locals(
    trace: Trace,
    block: list[ast.stmt],
    fn: ast.FunctionDef | ast.AsyncFunctionDef,
    uses: tuple[Counter[str], Counter[str], bool],
) -> list[ast.stmt]:
    """Put each once-used local whose value cannot change at its use (in ``fn``'s own block):
    ``inlined-local``. ``uses``: ``name_uses(fn)``."""
    stores, loads, opaque = uses
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
                trace.done.append(Rewrite("inlined-local", name))
                del out[i]
                continue
        i += 1
    return out


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


def name_uses(fn: ast.AST) -> tuple[Counter[str], Counter[str], bool]:
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
