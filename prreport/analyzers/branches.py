"""Collapsed branches: equal ``if``/``elif`` bodies merged, or a statement shared by every branch hoisted."""

from __future__ import annotations

import ast
import bisect
import copy
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from prreport.analyzers import Analyzer, register
from prreport.bundle import FileChange, PullRequestBundle
from prreport.equivalence.assume import (
    Assumption,
    Facts,
    decide,
    dotted,
    facts_of,
    imports_of,
    outcome,
    simplify,
)
from prreport.findings import Finding
from prreport.python.definitions import (
    bound_names,
    dump,
    explains,
    file_index,
    lines_with_blanks,
    same_tree,
)
from prreport.python.scopes import SIMPLE_STATEMENTS
from prreport.python.sources import SourceFiles

_OTHER = object()  # a value equal to none of the constants a chain compares with


@dataclass(frozen=True)
class _Chain:
    """An ``if/elif/else`` chain: tests and bodies (``None`` test = ``else``), with its position."""

    scope: str
    node: ast.If
    stmts: list[ast.stmt]
    index: int
    tests: tuple[ast.expr | None, ...]
    bodies: tuple[list[ast.stmt], ...]

    @property
    def has_else(self) -> bool:
        return self.tests[-1] is None

    @property
    def span(self) -> tuple[int, int]:
        return self.node.lineno, self.node.end_lineno or self.node.lineno


def _chain(scope: str, stmts: list[ast.stmt], i: int) -> _Chain:
    node = stmts[i]
    assert isinstance(node, ast.If)
    tests: list[ast.expr | None] = []
    bodies: list[list[ast.stmt]] = []
    cur: ast.If = node
    while True:
        tests.append(cur.test)
        bodies.append(cur.body)
        if len(cur.orelse) == 1 and isinstance(cur.orelse[0], ast.If):
            cur = cur.orelse[0]
            continue
        if cur.orelse:
            tests.append(None)
            bodies.append(cur.orelse)
        break
    return _Chain(scope, node, stmts, i, tuple(tests), tuple(bodies))


def _chains(
    node: ast.AST, scope: str, keep: Callable[[ast.AST, str], bool] | None = None
) -> list[_Chain]:
    """Every chain head in a tree (elif parts are not heads), with the enclosing qualname.

    ``keep(statement, qualname)`` prunes: a statement it rejects is not looked into at all.
    """
    out: list[_Chain] = []
    _collect(node, scope, keep, out)
    return out


def _collect(
    node: ast.AST, scope: str, keep: Callable[[ast.AST, str], bool] | None, out: list[_Chain]
) -> None:
    is_def = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    for field in ("body", "orelse", "finalbody", "handlers"):
        stmts = getattr(node, field, None)
        if not isinstance(stmts, list):
            continue
        for i, st in enumerate(stmts):
            if type(st) in SIMPLE_STATEMENTS:
                continue  # no bodies, so no chains
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = (
                    f"{scope}.<locals>.{st.name}"
                    if is_def
                    else (f"{scope}.{st.name}" if scope else st.name)
                )
            elif isinstance(st, ast.ClassDef):
                inner = f"{scope}.{st.name}" if scope else st.name
            else:
                inner = scope
            if keep is not None and not keep(st, inner):
                continue
            if (
                isinstance(st, ast.If)
                and isinstance(node, ast.If)
                and field == "orelse"
                and len(stmts) == 1
            ):
                # an elif: part of the parent's chain, but its bodies may hold chains
                _collect(st, scope, keep, out)
                continue
            if isinstance(st, ast.If):
                out.append(_chain(scope, stmts, i))
            if isinstance(st, ast.AST):
                _collect(st, inner, keep, out)


def _touches(lines: list[int]) -> Callable[[ast.AST, str], bool]:
    """A ``keep`` predicate: the statement's span holds one of the (sorted) lines."""

    def keep(st: ast.AST, _scope: str) -> bool:
        first = st.lineno  # type: ignore[attr-defined]
        i = bisect.bisect_left(lines, first)
        return i < len(lines) and lines[i] <= (st.end_lineno or first)  # type: ignore[attr-defined]

    return keep


def _within(scopes: set[str]) -> Callable[[ast.AST, str], bool]:
    """A ``keep`` predicate: definitions whose qualname is or encloses one of the scopes."""
    prefixes = {s[:i] for s in scopes for i in range(len(s) + 1) if i == len(s) or s[i] == "."}

    def keep(st: ast.AST, scope: str) -> bool:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return scope in prefixes
        return True

    return keep


# -- evaluating simple comparisons ---------------------------------------------------------


# The comparisons ``_evaluate`` can decide (``x < 1`` is not simple).
_EVALUATED = (ast.Eq, ast.Is, ast.NotEq, ast.IsNot, ast.In, ast.NotIn)


def _subject_and_constants(test: ast.expr, out: dict[str, list]) -> bool:
    """Collect (subject dump -> constants) of a simple test; False when the test is not simple."""
    if isinstance(test, ast.BoolOp):
        return all(_subject_and_constants(v, out) for v in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _subject_and_constants(test.operand, out)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], _EVALUATED):
        left, right = test.left, test.comparators[0]
        if isinstance(left, ast.Constant) and not isinstance(right, ast.Constant):
            left, right = right, left
        if isinstance(left, (ast.Name, ast.Attribute)) and not any(
            isinstance(n, ast.Call) for n in ast.walk(left)
        ):
            consts = _constants(right)
            if consts is None:
                return False
            out.setdefault(dump(left), []).extend(consts)
            return True
    return False


def _constants(node: ast.expr) -> list | None:
    if isinstance(node, ast.Constant):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and all(
        isinstance(e, ast.Constant) for e in node.elts
    ):
        return [e.value for e in node.elts]  # type: ignore[attr-defined]
    return None


def _evaluate(test: ast.expr, value: object) -> bool:
    if isinstance(test, ast.BoolOp):
        results = [_evaluate(v, value) for v in test.values]
        return any(results) if isinstance(test.op, ast.Or) else all(results)
    if isinstance(test, ast.UnaryOp):
        return not _evaluate(test.operand, value)
    assert isinstance(test, ast.Compare)
    left, right = test.left, test.comparators[0]
    if isinstance(left, ast.Constant) and not isinstance(right, ast.Constant):
        right = left
    consts = _constants(right) or []
    op = test.ops[0]
    if isinstance(op, (ast.Eq, ast.Is)):
        return value is not _OTHER and value == consts[0] and type(value) is type(consts[0])
    if isinstance(op, (ast.NotEq, ast.IsNot)):
        return not (value is not _OTHER and value == consts[0] and type(value) is type(consts[0]))
    inside = value is not _OTHER and any(value == c and type(value) is type(c) for c in consts)
    if isinstance(op, ast.In):
        return inside
    if isinstance(op, ast.NotIn):
        return not inside
    raise ValueError("unsupported comparison")


def _outcome(chain: _Chain, value: object) -> str:
    for test, body in zip(chain.tests, chain.bodies, strict=True):
        if test is None or _evaluate(test, value):
            return dump(body)
    return ""


def _enumerate(before: _Chain, after: _Chain) -> tuple[bool | None, str, list, object]:
    """(equal for every value?, subject, values, first counterexample); None when not simple."""
    subjects: dict[str, list] = {}
    tests = [t for t in (*before.tests, *after.tests) if t is not None]
    if not all(_subject_and_constants(t, subjects) for t in tests) or len(subjects) != 1:
        return None, "", [], None
    ((subject, consts),) = subjects.items()
    values: list = []
    for c in consts:
        if not any(c == v and type(c) is type(v) for v in values):
            values.append(c)
    for v in [*values, _OTHER]:
        if _outcome(before, v) != _outcome(after, v):
            return False, subject, values, v
    return True, subject, values, None


def _flat_or(test: ast.expr | None) -> list[str]:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return [d for v in test.values for d in _flat_or(v)]
    return [dump(test)] if test is not None else []


def _structural(before: _Chain, after: _Chain) -> bool:
    """True when after merges consecutive before branches with equal bodies by ``or``, in order."""
    i = 0
    for test, body in zip(after.tests, after.bodies, strict=True):
        parts = _flat_or(test) if test is not None else []
        if test is None:
            if (
                i != len(before.tests) - 1
                or before.tests[i] is not None
                or not same_tree(before.bodies[i], body)
            ):
                return False
            i += 1
            continue
        for p in parts:
            prior = before.tests[i] if i < len(before.tests) else None
            if prior is None or dump(prior) != p or not same_tree(before.bodies[i], body):
                return False
            i += 1
    return i == len(before.tests)


def _same(x: ast.expr | None, y: ast.expr | None) -> bool:
    """Equal tests (``None`` = ``else``); dumps are only compared for nodes of one type."""
    if x is None or y is None:
        return x is y
    return same_tree(x, y)


def _has_call(nodes: Iterable[ast.AST | None]) -> bool:
    return any(isinstance(n, ast.Call) for top in nodes if top is not None for n in ast.walk(top))


@register
class BranchesAnalyzer(Analyzer):
    """Duplicated conditional code consolidated.

    before: ``if m == "a": f() elif m == "b": f() else: g()`` · after: ``if m in ("a", "b"): f()
    else: g()`` → ``code.branches-collapsed`` (proven by enumerating m).
    """

    name = "branches"

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Pair changed chains of the same scope and emit ``code.branches-collapsed``."""
        for f, bt, at in sources.modified():
            cl = sources.changed(f)
            removed, added = set(cl.removed), set(cl.added)
            # Only statements spanning a removed line can hold a changed chain.
            befores = [
                c
                for c in _chains(bt, "", _touches(sorted(removed)))
                if any(n in removed for n in range(c.span[0], c.span[1] + 1))
            ]
            # The diff may keep an after chain as context (only the hoisted line is new).
            scopes = {c.scope for c in befores}
            afters = (
                [c for c in _chains(at, "", _within(scopes)) if c.scope in scopes] if scopes else []
            )
            yield from _flattened(f, sources, removed, added)
            used: set[int] = set()
            sides = _Sides(bt, at)
            for b in befores:
                for a in afters:
                    if id(a) in used or a.scope != b.scope:
                        continue
                    found = self._match(f, b, a, removed, added, sides)
                    if found is not None:
                        used.add(id(a))
                        yield found
                        break

    def _match(
        self,
        f: FileChange,
        b: _Chain,
        a: _Chain,
        removed: set[int],
        added: set[int],
        sides: _Sides,
    ) -> Finding | None:
        details: dict = {
            "scope": b.scope or "<module>",
            "before_line": b.span[0],
            "after_line": a.span[0],
        }
        extra_after: list[int] = []
        extra_before: list[int] = []
        if len(a.tests) > len(b.tests):
            return None  # a chain that grew is neither a merge nor a hoist
        same_tests = all(_same(x, y) for x, y in zip(a.tests, b.tests, strict=False))
        hoisted = (
            self._hoisted(b, a) if same_tests and len(b.tests) - len(a.tests) in (0, 1) else None
        )
        if hoisted is not None:
            where, stmt, line = hoisted
            details["pattern"] = f"hoisted-{where}"
            details["statement"] = ast.unparse(stmt)
            extra_after.append(line)
            if not b.has_else:
                return None  # the paths that took no branch now run the statement too
            if where == "last":
                details.update(proven=True, method="every-branch-ends-with-it")
            else:
                tests = [t for t in b.tests if t is not None]
                names = {n.id for t in tests for n in ast.walk(t) if isinstance(n, ast.Name)}
                writes = bound_names([stmt])
                proven = (
                    not _has_call(tests)
                    and not (writes & names)
                    and not (
                        _has_call([stmt])
                        and any(
                            isinstance(n, (ast.Attribute, ast.Subscript))
                            for t in tests
                            for n in ast.walk(t)
                        )
                    )
                )
                details.update(
                    proven=proven, method="tests-independent-of-statement" if proven else "none"
                )
        elif same_tests and (early := _early_return(b, a, sides)) is not None:
            details.update(early)
            # The early if, and the code after the chain that the case analysis compared.
            extra_after += [a.stmts[a.index - 1].lineno, _block_end(a)]
            extra_before.append(_block_end(b))
        elif len(a.tests) < len(b.tests):
            details["pattern"] = "merged-branches"
            ok, _subject, values, _counter = _enumerate(b, a)
            if ok is False:
                return None  # the merged condition sends some value to different code
            if ok:
                details.update(
                    proven=True,
                    method="enumeration",
                    subject=_subject_text(b, a),
                    values=[repr(v) for v in values],
                )
            elif _structural(b, a):
                details.update(proven=True, method="structural")
            elif _same_set(a.bodies, b.bodies):
                details.update(proven=False, method="none")
            else:
                lost = _rerouted(b, a, added)
                if lost is None:
                    return None
                # A merged branch now runs another branch's code for the inputs of a branch
                # whose own code is gone: those inputs get a different result.
                details.update(
                    proven=False,
                    method="none",
                    behavior_change=True,
                    dropped=[
                        {"test": ast.unparse(t) if t is not None else "else", "body": body}
                        for t, body in lost
                    ],
                )
        else:
            return None
        details["before_branches"] = len(b.tests)
        details["after_branches"] = len(a.tests)
        ex: list[tuple[str, str, int]] = []
        # An early return whose cost is named (the inputs answered differently) explains its lines.
        if details["proven"] or details.get("inputs"):
            end_b = max([b.span[1], *extra_before])
            ex += explains(f.path, "-", lines_with_blanks(f.before, b.span[0], end_b, removed))
            start = min([a.span[0], *extra_after])
            end = max([a.span[1], *extra_after])
            ex += explains(f.path, "+", lines_with_blanks(f.after, start, end, added))
        return Finding(
            "code.branches-collapsed",
            f.path,
            a.span[0],
            b.scope or "<module>",
            f"{details['pattern']} in {b.scope or '<module>'}: {len(b.tests)} branches -> {len(a.tests)}",
            details,
            tuple(sorted(set(ex))),
        )

    def _hoisted(self, b: _Chain, a: _Chain) -> tuple[str, ast.stmt, int] | None:
        """('first'|'last', statement, after line) when a statement common to every branch moved out."""
        # Equal dumps need equal node types: compare types first, dump only candidates.
        prev = a.stmts[a.index - 1] if a.index > 0 else None
        after = a.stmts[a.index + 1] if a.index + 1 < len(a.stmts) else None
        firsts = (
            {dump(body[0]) for body in b.bodies}
            if prev is not None and all(type(body[0]) is type(prev) for body in b.bodies)
            else set()
        )
        lasts = (
            {dump(body[-1]) for body in b.bodies}
            if after is not None and all(type(body[-1]) is type(after) for body in b.bodies)
            else set()
        )

        def same(rest: list[list[ast.stmt]]) -> bool:
            # An else left empty by the hoist disappears from the after chain.
            if len(rest) == len(a.bodies) + 1 and b.has_else and not rest[-1]:
                rest = rest[:-1]
            return len(rest) == len(a.bodies) and all(
                same_tree(x, y) for x, y in zip(rest, a.bodies, strict=True)
            )

        if len(firsts) == 1 and prev is not None and dump(prev) in firsts:
            if same([x[1:] for x in b.bodies]):
                st = a.stmts[a.index - 1]
                return "first", st, st.lineno
        if len(lasts) == 1 and after is not None and dump(after) in lasts:
            if same([x[:-1] for x in b.bodies]):
                st = a.stmts[a.index + 1]
                return "last", st, st.end_lineno or st.lineno
        return None


_EXITS = (ast.Return, ast.Raise)


def _branches(c: _Chain) -> list[tuple[ast.expr | None, list[ast.stmt]]]:
    """(test, body) of a chain; with no ``else``, the statements after a chain whose every
    branch returns or raises are its else (``if c: return x`` then ``return y``)."""
    out = list(zip(c.tests, c.bodies, strict=True))
    rest = c.stmts[c.index + 1 :]
    if not c.has_else and rest and all(body and isinstance(body[-1], _EXITS) for body in c.bodies):
        out.append((None, rest))
    return out


def _test_names(tests: Iterable[ast.expr | None]) -> set[str]:
    return {n.id for t in tests if t is not None for n in ast.walk(t) if isinstance(n, ast.Name)}


def _rerouted(b: _Chain, a: _Chain, added: set[int]) -> list[tuple[ast.expr | None, str]] | None:
    """Before branches whose code is gone from a chain that merged branches, or None.

    A merge: the after chain changed, has fewer branches, tests only what the before tests
    did, every after body is a before body, and some after test now guards another body.
    """
    if not any(n in added for n in range(a.span[0], a.span[1] + 1)):
        return None
    bb, ab = _branches(b), _branches(a)
    if len(ab) >= len(bb) or not _test_names(t for t, _ in ab) <= _test_names(b.tests):
        return None
    if not all(any(same_tree(x, y) for _, y in bb) for _, x in ab):
        return None
    if all(any(_same(t, u) and same_tree(x, y) for u, y in bb) for t, x in ab):
        return None  # surviving branches kept their tests: a branch was deleted, not merged
    lost = [(t, y) for t, y in bb if not any(same_tree(x, y) for _, x in ab)]
    return [(t, ast.unparse(ast.Module(body=y, type_ignores=[]))) for t, y in lost] or None


def _subject_text(b: _Chain, a: _Chain) -> str:
    """Source text of the one variable every test compares."""
    for t in (*b.tests, *a.tests):
        for n in ast.walk(t) if t is not None else ():
            if isinstance(n, ast.Compare):
                left = n.left if not isinstance(n.left, ast.Constant) else n.comparators[0]
                return ast.unparse(left)
    return ""


class _Sides:
    """The two trees of a file, and what they say about values, read the first time asked."""

    def __init__(self, before: ast.Module, after: ast.Module) -> None:
        self.before, self.after = before, after
        self._facts: tuple[Facts, Facts] | None = None

    def facts(self) -> tuple[Facts, Facts]:
        """(before, after) facts of the file."""
        if self._facts is None:
            self._facts = (facts_of(self.before), facts_of(self.after))
        return self._facts


def _local_parameter(tree: ast.Module, node: ast.stmt, name: str) -> bool:
    """``name`` is a parameter of the function that holds ``node`` and nothing rebinds it: no
    assignment, ``del``, ``global``/``nonlocal`` (here or in a nested function), so no call
    made on a path can change it."""
    holder: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
            fn.lineno <= node.lineno <= (fn.end_lineno or fn.lineno)
        ):
            if holder is None or fn.lineno >= holder.lineno:
                holder = fn  # the innermost one
    if holder is None:
        return False
    args = holder.args
    params = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    if name not in params:
        return False
    for n in ast.walk(ast.Module(body=holder.body, type_ignores=[])):
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load):
            return False
        if isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names:
            return False
        if isinstance(n, ast.arg) and n.arg == name:
            return False  # a nested function's own parameter: another variable, keep it simple
    return True


def _early_test(st: ast.stmt) -> tuple[ast.expr, ast.expr, list[ast.stmt]] | None:
    """(subject, value, body) of ``if subject == value: <imports> return/raise ...`` (no else)."""
    if not isinstance(st, ast.If) or st.orelse or not isinstance(st.body[-1], _EXITS):
        return None
    if not all(isinstance(x, (ast.Import, ast.ImportFrom)) for x in st.body[:-1]):
        return None
    t = st.test
    if not (isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], ast.Eq)):
        return None
    left, right = t.left, t.comparators[0]
    if _is_value(left) and not _is_value(right):
        left, right = right, left
    if dotted(left) is None or not _is_value(right):
        return None
    return left, right, st.body


def _is_value(node: ast.expr) -> bool:
    """A literal or a dotted name (an enum member, a class constant)."""
    return isinstance(node, ast.Constant) or (
        isinstance(node, ast.Attribute) and dotted(node) is not None
    )


def _early_return(b: _Chain, a: _Chain, sides: _Sides) -> dict | None:
    """Details of a chain whose answer for one value moved into an early ``if x == K: return``
    just before it, or None when that is not the shape or a path cannot be followed.

    Case analysis on ``x == K``: for ``x != K`` the after chain must do what the before chain
    did (equal up to entries for K that are never read); for ``x == K`` every before path
    (each branch, and falling through) is compared with the early return: the paths that
    answered otherwise are the inputs now answered differently.
    """
    if a.index == 0 or len(a.tests) != len(b.tests):
        return None
    early = _early_test(a.stmts[a.index - 1])
    if early is None:
        return None
    subject, value, body = early
    # A parameter nothing rebinds keeps its value along every path (calls cannot change it).
    if not isinstance(subject, ast.Name) or not all(
        _local_parameter(tree, c.node, subject.id)
        for tree, c in ((sides.before, b), (sides.after, a))
    ):
        return None
    # The code before is the same; the code after the chain is compared on each path below.
    prefix_b = b.stmts[: b.index]
    if not same_tree(prefix_b, a.stmts[: a.index - 1]):
        return None
    fb, fa = sides.facts()
    yes, no = Assumption(subject, value, True), Assumption(subject, value, False)
    # x != K: the after chain is the before chain.
    for (_, xb), (_, xa) in zip(_paths(b), _paths(a), strict=True):
        sb, sa = simplify(xb, no, fb), simplify(xa, no, fa)
        if sb is None or sa is None or not same_tree(sb, sa):
            return None
    # x == K: every path of the before chain against the early return.
    known = imports_of(prefix_b)
    answer = outcome(body, None, known)
    if answer is None:
        return None
    inputs: list[dict] = []
    earlier: list[ast.expr] = []
    for test, path in _paths(b):
        taken = decide(test, yes, fb) if test is not None else True
        if taken is not False:
            folded = simplify(path, yes, fb)
            then = outcome(folded, None, known) if folded is not None else None
            if folded is None or then is None:
                return None  # a path we cannot follow: claim nothing
            if then != answer:
                inputs.append(
                    {
                        "when": _when(subject, value, earlier, test),
                        "before": ast.unparse(_exit(folded)),
                        "after": ast.unparse(body[-1]),
                    }
                )
        if taken is True:
            break
        if test is not None:
            earlier.append(test)
    return {
        "pattern": "early-return",
        "early_line": a.stmts[a.index - 1].lineno,
        "subject": ast.unparse(subject),
        "value": ast.unparse(value),
        "returns": ast.unparse(body[-1]),
        "proven": not inputs,
        "method": "case-analysis",
        "behavior_change": bool(inputs),
        "inputs": inputs,
    }


def _block_end(c: _Chain) -> int:
    """Last line of the block that holds the chain."""
    last = c.stmts[-1]
    return last.end_lineno or last.lineno


def _paths(c: _Chain) -> list[tuple[ast.expr | None, list[ast.stmt]]]:
    """Each branch followed by the statements after the chain; a missing else is the path that
    takes no branch (``None`` test)."""
    rest = c.stmts[c.index + 1 :]
    out = [(t, [*body, *rest]) for t, body in zip(c.tests, c.bodies, strict=True)]
    if not c.has_else:
        out.append((None, list(rest)))
    return out


def _exit(stmts: list[ast.stmt]) -> ast.stmt:
    return next(st for st in stmts if isinstance(st, _EXITS))


def _when(
    subject: ast.expr, value: ast.expr, earlier: list[ast.expr], test: ast.expr | None
) -> str:
    """The inputs of one path, as a condition: ``x == K`` and the chain's own tests."""
    parts = [f"{ast.unparse(subject)} == {ast.unparse(value)}"]
    values = _one_subject(earlier)
    if test is None and values is not None:
        parts.append(f"{values[0]} not in ({', '.join(values[1])})")
    else:
        parts += [f"not ({ast.unparse(t)})" for t in earlier]
        if test is not None:
            parts.append(ast.unparse(test))
    return " and ".join(parts)


def _one_subject(tests: list[ast.expr]) -> tuple[str, list[str]] | None:
    """(subject, values) when every test is ``subject == value`` on one subject."""
    subjects, values = set(), []
    for t in tests:
        if not (isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], ast.Eq)):
            return None
        subjects.add(ast.unparse(t.left))
        values.append(ast.unparse(t.comparators[0]))
    return (subjects.pop(), values) if len(subjects) == 1 else None


# -- else after an exit: ``if a: return x`` ``else: y`` is ``if a: return x`` then ``y`` ------

_JUMPS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
_BLOCKS = ("body", "orelse", "finalbody")


def _always_exits(stmts: list[ast.stmt]) -> bool:
    """The block never runs on into the statement after it (its last statement jumps)."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.If):
        return _always_exits(last.body) and _always_exits(last.orelse)
    return isinstance(last, _JUMPS)


def _flat(stmts: list[ast.stmt]) -> list[ast.stmt]:
    """A copy of a block with every ``else`` of an ``if`` whose body always exits moved after
    the ``if`` (the same code runs for every input: the else ran exactly when the body did not,
    and the body never reached what follows). Nested blocks are flattened too; functions and
    classes inside are left as they are."""
    out: list[ast.stmt] = []
    for st in stmts:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(st)
            continue
        node = copy.copy(st)
        for field in _BLOCKS:
            block = getattr(st, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                setattr(node, field, _flat(block))
        if isinstance(st, ast.Try):
            node.handlers = [_flat_handler(h) for h in st.handlers]  # type: ignore[attr-defined]
        if isinstance(node, ast.If) and node.orelse and _always_exits(node.body):
            rest = node.orelse
            node.orelse = []
            out.append(node)
            out.extend(rest)
            continue
        out.append(node)
    return out


def _flat_handler(h: ast.ExceptHandler) -> ast.ExceptHandler:
    node = copy.copy(h)
    node.body = _flat(h.body)
    return node


def _flattened(
    f: FileChange, sources: SourceFiles, removed: set[int], added: set[int]
) -> Iterable[Finding]:
    """``code.branches-flattened`` for each changed function equal to its before version once
    every else after an exiting branch is moved after its ``if``, in both versions."""
    before = file_index(sources, f.before_path, "before")
    after = file_index(sources, f.path, "after")
    lines = sorted(removed)
    for qual, old in before.items():
        new = after.get(qual)
        if old.kind not in ("function", "method") or new is None or new.kind != old.kind:
            continue
        i = bisect.bisect_left(lines, old.start)
        if i == len(lines) or lines[i] > old.end:
            continue  # no removed line in it
        a, b = old.node, new.node
        assert isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef))
        assert isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef))
        if type(a) is not type(b) or same_tree(a.body, b.body):
            continue  # the body is the same: nothing of ours changed
        head_a = ast.FunctionDef(a.name, a.args, [], a.decorator_list, a.returns)
        head_b = ast.FunctionDef(b.name, b.args, [], b.decorator_list, b.returns)
        if not same_tree(head_a, head_b) or not same_tree(_flat(a.body), _flat(b.body)):
            continue
        ex = explains(f.path, "-", lines_with_blanks(f.before, old.start, old.end, removed))
        ex += explains(f.path, "+", lines_with_blanks(f.after, new.start, new.end, added))
        yield Finding(
            "code.branches-flattened",
            f.path,
            new.start,
            qual,
            f"else after an exiting branch flattened in {qual}",
            {
                "scope": qual,
                "before_line": old.start,
                "after_line": new.start,
                "proven": True,
                "method": "else-after-exit",
            },
            ex,
        )


def _same_set(xs: Sequence[list[ast.stmt]], ys: Sequence[list[ast.stmt]]) -> bool:
    """The same bodies on both sides, as sets (each equal to one on the other side): compared
    tree by tree, stopping at the first difference, instead of dumping every body."""
    return all(any(same_tree(x, y) for y in ys) for x in xs) and all(
        any(same_tree(y, x) for x in xs) for y in ys
    )
