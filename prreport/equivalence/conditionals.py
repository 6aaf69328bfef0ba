"""Conditional assignments in one form: ``if c: t = x`` / ``else: t = y`` is ``t = x if c else
y`` (ruff SIM108's rewrite), for one target ``t`` of any kind written the same in both
branches: both evaluate ``c``, then one value, then the target's parts, then store. An
``elif`` chain of such assignments is a nested conditional expression (the inner ``if`` is
folded first). Nested ``if``s are merged by ``rewrites.conditions``."""

from __future__ import annotations

import ast


def conditional_assignment(node: ast.If) -> ast.Assign | None:
    """``if c: t = x else: t = y`` as ``t = x if c else y``; None for another ``if``."""
    if len(node.body) != 1 or len(node.orelse) != 1:
        return None
    yes, no = node.body[0], node.orelse[0]
    if not (isinstance(yes, ast.Assign) and isinstance(no, ast.Assign)):
        return None
    if len(yes.targets) != 1 or len(no.targets) != 1:
        return None
    if ast.dump(yes.targets[0]) != ast.dump(no.targets[0]):
        return None
    value = ast.IfExp(test=node.test, body=yes.value, orelse=no.value)
    return ast.copy_location(ast.Assign(targets=yes.targets, value=value), node)
