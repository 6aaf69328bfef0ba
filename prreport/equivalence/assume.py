"""Case analysis: code read under the assumption that one subject equals (or not) one value.

``x == K`` splits every input in two. Under ``x == K`` a test ``x == K2`` is decided when K2
is K or a value known to differ from it (two literals, two members of one enum with distinct
literal values), and a lookup ``mapping.get(x)`` in a dict literal is its ``K`` entry; under
``x != K`` a ``K`` entry of a mapping that is only ever looked up by ``x`` is never read. What
cannot be decided is left alone, and a path that cannot be followed has no outcome: callers
then claim nothing.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass

from prreport.python.definitions import dump, same_tree

_ENUM_BASES = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"})
# Literal types whose ``==`` is plain value equality (floats: 0.0 == -0.0, nan != nan).
_EXACT = (str, int, bool, bytes, type(None))
_IMPORTS = (ast.Import, ast.ImportFrom)


@dataclass(frozen=True)
class Assumption:
    """``subject == value`` (``holds``) or ``subject != value`` (not ``holds``)."""

    subject: ast.expr
    value: ast.expr
    holds: bool

    def negated(self) -> Assumption:
        """The other half of the inputs."""
        return Assumption(self.subject, self.value, not self.holds)


@dataclass(frozen=True)
class Facts:
    """What a module says about its values: enum classes and their members' literal values."""

    enums: dict[str, dict[str, object]]

    def equal(self, a: ast.expr, b: ast.expr) -> bool | None:
        """Whether two value expressions are equal: True, False, or None when unknown."""
        if isinstance(a, ast.Constant) and isinstance(b, ast.Constant):
            if type(a.value) is type(b.value) and isinstance(a.value, _EXACT):
                return a.value == b.value
            return None
        ma, mb = self._member(a), self._member(b)
        if ma is not None and mb is not None and ma[0] == mb[0]:
            return ma[1] == mb[1]
        return True if dotted(a) is not None and dotted(a) == dotted(b) else None

    def _member(self, node: ast.expr) -> tuple[str, str] | None:
        name = dotted(node)
        if name is None:
            return None
        cls, _, member = name.rpartition(".")
        return (cls, member) if member in self.enums.get(cls, {}) else None


def dotted(node: ast.expr) -> str | None:
    """``a.b.c`` for a chain of attribute loads on a name, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = dotted(node.value)
        return f"{head}.{node.attr}" if head is not None else None
    return None


def facts_of(tree: ast.Module) -> Facts:
    """The module-level enum classes whose members all have distinct literal values."""
    enums: dict[str, dict[str, object]] = {}
    for st in tree.body:
        if not isinstance(st, ast.ClassDef) or not any(
            (dotted(b) or "").rpartition(".")[2] in _ENUM_BASES for b in st.bases
        ):
            continue
        members: dict[str, object] = {}
        # An enum that defines its own equality may call other members equal.
        exact = not any(
            isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
            and item.name in ("__eq__", "__ne__", "__hash__", "_missing_")
            for item in st.body
        )
        for item in st.body if exact else ():
            if isinstance(item, ast.Assign) and len(item.targets) == 1:
                target = item.targets[0]
                if not isinstance(target, ast.Name):
                    continue
                v = item.value
                if not (isinstance(v, ast.Constant) and isinstance(v.value, _EXACT)):
                    exact = False  # auto(), tuples...: values we cannot compare
                    break
                members[target.id] = (type(v.value).__name__, v.value)
        # Two members with one value are aliases of one member: not distinct.
        if exact and len(set(members.values())) == len(members):
            enums[st.name] = members
    return Facts(enums)


def decide(test: ast.expr, a: Assumption, facts: Facts) -> bool | None:
    """The value of a test under the assumption; None when it is not decided by it."""
    if isinstance(test, ast.BoolOp):
        parts = [decide(v, a, facts) for v in test.values]
        if isinstance(test.op, ast.And):
            return False if False in parts else (True if all(p is True for p in parts) else None)
        return True if True in parts else (False if all(p is False for p in parts) else None)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = decide(test.operand, a, facts)
        return None if inner is None else not inner
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if same_tree(right, a.subject) and isinstance(op, (ast.Eq, ast.NotEq)):
        left, right = right, left
    if not same_tree(left, a.subject):
        return None
    if isinstance(op, (ast.Eq, ast.NotEq)):
        found = _equals(right, a, facts)
        return None if found is None else found == isinstance(op, ast.Eq)
    if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
        results = [_equals(e, a, facts) for e in right.elts]
        inside = True if True in results else (False if all(r is False for r in results) else None)
        return None if inside is None else inside == isinstance(op, ast.In)
    return None


def _equals(value: ast.expr, a: Assumption, facts: Facts) -> bool | None:
    """Whether ``subject == value`` under the assumption."""
    same = facts.equal(value, a.value)
    if a.holds:
        return same
    return False if same is True else None


def _lookup(node: ast.AST, subject: ast.expr) -> ast.Name | None:
    """The mapping name node of ``m.get(subject[, default])`` or ``m[subject]``, else None."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and isinstance(node.func.value, ast.Name)
        and 1 <= len(node.args) <= 2
        and not node.keywords
        and same_tree(node.args[0], subject)
    ):
        return node.func.value
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and same_tree(node.slice, subject)
    ):
        return node.value
    return None


def _pure(node: ast.AST) -> bool:
    """No call, await, yield, walrus or comprehension: evaluating it does nothing observable."""
    return not any(
        isinstance(n, (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr, ast.Lambda))
        or isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp))
        for n in ast.walk(node)
    )


def _mappings(stmts: list[ast.stmt], subject: ast.expr) -> dict[str, ast.Dict]:
    """Dict literals assigned to a name that the statements only ever look up by the subject."""
    found: dict[str, ast.Dict] = {}
    assigned: dict[str, int] = {}
    for st in stmts:
        if isinstance(t := _target(st), ast.Name):
            assigned[t.id] = assigned.get(t.id, 0) + 1
        if (
            isinstance(st, ast.Assign)
            and len(st.targets) == 1
            and isinstance(st.targets[0], ast.Name)
            and isinstance(st.value, ast.Dict)
            and None not in st.value.keys  # no ``**other``
            and _pure(st.value)
        ):
            found[st.targets[0].id] = st.value
    found = {k: v for k, v in found.items() if assigned.get(k) == 1}
    if not found:
        return found
    lookups: set[int] = set()
    for st in stmts:
        for n in ast.walk(st):
            base = _lookup(n, subject)
            if base is not None and base.id in found:
                lookups.add(id(base))
    for st in stmts:
        for n in ast.walk(st):
            if isinstance(n, ast.Name) and n.id in found and id(n) not in lookups:
                if not (isinstance(n.ctx, ast.Store) and n is _target(st)):
                    found.pop(n.id)  # used another way, or rebound: every entry may be read
    return found


def _target(st: ast.stmt) -> ast.expr | None:
    return st.targets[0] if isinstance(st, ast.Assign) and len(st.targets) == 1 else None


def simplify(stmts: list[ast.stmt], a: Assumption, facts: Facts) -> list[ast.stmt] | None:
    """A copy of the statements with what the assumption decides folded in; None when the
    statements may rebind the subject (the assumption would not hold all along)."""
    names = {n.id for n in ast.walk(a.subject) if isinstance(n, ast.Name)}
    for st in stmts:
        for n in ast.walk(st):
            if isinstance(n, ast.Name) and n.id in names and not isinstance(n.ctx, ast.Load):
                return None
            if isinstance(n, (ast.Global, ast.Nonlocal)) and names & set(n.names):
                return None
    return _fold(copy.deepcopy(stmts), a, facts)


def _fold(stmts: list[ast.stmt], a: Assumption, facts: Facts) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for st in stmts:
        if isinstance(st, ast.If):
            verdict = decide(st.test, a, facts)
            if verdict is None:
                st.body = _fold(st.body, a, facts) or [ast.Pass()]
                st.orelse = _fold(st.orelse, a, facts)
                out.append(st)
            else:
                out.extend(_fold(st.body if verdict else st.orelse, a, facts))
            continue
        out.append(st)
    maps = _mappings(out, a.subject)
    if not maps:
        return out
    if a.holds:
        return _fold_lookups(out, maps, a, facts)
    for d in maps.values():
        keep = [(k, v) for k, v in zip(d.keys, d.values, strict=True) if not _is_value(k, a)]
        d.keys = [k for k, _ in keep]
        d.values = [v for _, v in keep]
    return out


def _is_value(key: ast.expr | None, a: Assumption) -> bool:
    return key is not None and same_tree(key, a.value)


class _Fold(ast.NodeTransformer):
    """Replace lookups of known mappings by the subject with the entry they read."""

    def __init__(self, maps: dict[str, ast.Dict], a: Assumption, facts: Facts) -> None:
        self.maps, self.a, self.facts = maps, a, facts
        self.failed = False

    def _entry(self, node: ast.Call | ast.Subscript) -> ast.AST:
        base = _lookup(node, self.a.subject)
        d = self.maps.get(base.id) if base is not None else None
        if d is None:
            return self.generic_visit(node)
        hit: ast.expr | None = None
        for k, v in zip(d.keys, d.values, strict=True):
            assert k is not None
            same = self.facts.equal(k, self.a.value)
            if same is None:
                self.failed = True  # a key that may or may not be the value
                return node
            if same:
                hit = v  # the last equal key wins, as in a dict display
        if hit is not None:
            return copy.deepcopy(hit)
        if isinstance(node, ast.Call):
            return node.args[1] if len(node.args) == 2 else ast.Constant(None)
        self.failed = True  # KeyError: not followed
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        return self._entry(node)

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        return self._entry(node)


def _fold_lookups(
    stmts: list[ast.stmt], maps: dict[str, ast.Dict], a: Assumption, facts: Facts
) -> list[ast.stmt]:
    fold = _Fold(maps, a, facts)
    folded = [fold.visit(st) for st in stmts]
    if fold.failed:
        return stmts
    # A pure mapping that nothing reads any more is never needed: its assignment goes.
    return [st for st in folded if not (isinstance(t := _target(st), ast.Name) and t.id in maps)]


def imports_of(stmts: list[ast.stmt]) -> dict[str, str]:
    """Names the import statements of a block bind, spelled by what they import."""
    imported: dict[str, str] = {}
    for st in stmts:
        if isinstance(st, _IMPORTS):
            for al in st.names:
                bound = al.asname or al.name.split(".")[0]
                if isinstance(st, ast.ImportFrom):
                    imported[bound] = f"{'.' * st.level}{st.module or ''}:{al.name}"
                else:
                    imported[bound] = al.name if al.asname else bound
        elif (t := _target(st)) is not None:
            for n in ast.walk(t):
                if isinstance(n, ast.Name):
                    imported.pop(n.id, None)  # rebound by an assignment
    return imported


def outcome(
    stmts: list[ast.stmt], at_end: str | None, known: dict[str, str] | None = None
) -> str | None:
    """What a straight-line path does: ``return <value>`` or ``raise <exception>``, with each
    name the path imports spelled by its import; ``at_end`` when it runs off the end (None:
    unknown). None when the path does anything else (a call, a loop, an undecided test).

    ``known``: the names the code before the path imported. Import statements count as
    bindings only, as everywhere in prreport (an import moved or skipped is not a behaviour
    change).
    """
    imported = dict(known or {})
    for st in stmts:
        if isinstance(st, _IMPORTS):
            imported.update(imports_of([st]))
            continue
        if isinstance(st, ast.Pass):
            continue
        if isinstance(st, (ast.Return, ast.Raise)):
            value = st.value if isinstance(st, ast.Return) else st.exc
            if value is None:
                return "return None" if isinstance(st, ast.Return) else None  # bare re-raise
            if isinstance(st, ast.Return) and not _pure(value):
                return None
            word = "return" if isinstance(st, ast.Return) else "raise"
            return f"{word} {_spelled(value, imported)}"
        return None
    return at_end


def _spelled(value: ast.expr, imported: dict[str, str]) -> str:
    """Dump of an expression with imported names replaced by what they import."""
    node = copy.deepcopy(value)
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id in imported:
            n.id = f"<import {imported[n.id]}>"
    return dump(node)
