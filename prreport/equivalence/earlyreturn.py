"""A chain's answer for one value moved into an early ``if x == K: return ...`` just before
it, checked by case analysis on ``x == K`` (``equivalence.assume``): for ``x != K`` the chain
must do what it did; for ``x == K`` every before path is compared with the early return, and the
paths that answered otherwise are the inputs now answered differently.
"""

from __future__ import annotations

import ast

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
from prreport.python.chains import Chain
from prreport.python.definitions import same_tree

_EXITS = (ast.Return, ast.Raise)


class Sides:
    """The two trees of a file, and what they say about values, read the first time asked."""

    def __init__(self, before: ast.Module, after: ast.Module) -> None:
        self.before, self.after = before, after
        self._facts: tuple[Facts, Facts] | None = None

    def facts(self) -> tuple[Facts, Facts]:
        """(before, after) facts of the file."""
        if self._facts is None:
            self._facts = (facts_of(self.before), facts_of(self.after))
        return self._facts


def early_return(b: Chain, a: Chain, sides: Sides) -> dict | None:
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


def _paths(c: Chain) -> list[tuple[ast.expr | None, list[ast.stmt]]]:
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
