"""Effect summaries: two versions of a function compared by what they do, not how they are written.

Each version is executed symbolically over the same inputs (its parameters, the module's
names, the state before the call). Its *summary* is a tree: the effects it makes in order
(calls with their arguments, attribute and item writes, ``yield``, ``await``), branches on
conditions, and how each path ends (the value returned, the exception raised). Two versions
whose trees are equal make the same calls in the same order with the same arguments and
return or raise the same on every path, whatever the spelling: a conditional expression or
an ``if``/``else``, an unpacking of a literal tuple or the items bound one by one, ``x += 1``
on an immutable value, statements repeated or a loop over a literal tuple, a test the path
already decided, a plain helper of the module called or its body written in place, a read
moved across changes to a container the function made and no other code can reach yet (a
list, set or dict it built: ``append``, ``add``, ``d[k] = v`` on it are local effects).

- ``terms``: terms, states, one path; ``tree``: the summary tree;
- ``expressions``: expressions to terms, calls to effects (``PURE`` builtins excepted);
- ``statements``: assignments, ``if``, ``return``, ``raise``, ``assert``;
- ``blocks``: loops (unrolled over literal tuples), ``with`` and ``try`` as blocks;
- ``scope``: how names read, and the module's plain helpers a call is replaced by.

The one assumption, stated in every finding that relies on a summary: attribute and item
reads, operators, comparisons, truth tests and the ``PURE`` builtins only compute a value
(no property or operator method with a side effect). What the summary does not model
(``match``, nested definitions, ``global``, a name that may be unbound...) or a function
whose paths exceed the node budget gives no answer: never a wrong one, never a hang.
"""

from __future__ import annotations

import ast

from prreport.equivalence.effects.scope import Machine, ModuleFacts
from prreport.equivalence.effects.terms import Interner, Unsupported

BUDGET = 20_000
ASSUMPTION = "attribute and item reads, operators, comparisons and truth tests only compute a value"

_DefNode = ast.FunctionDef | ast.AsyncFunctionDef


def _generator(fn: _DefNode) -> bool:
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def same_effects(
    old: _DefNode, new: _DefNode, modules: tuple[ModuleFacts, ModuleFacts]
) -> list[str] | None:
    """The helpers inlined to show ``old`` and ``new`` (canonical forms) do the same, or None
    when their summaries differ or cannot be made."""
    if type(old) is not type(new) or _generator(old) != _generator(new):
        return None
    if ast.dump(old.args) != ast.dump(new.args):
        return None
    if [ast.dump(d) for d in old.decorator_list] != [ast.dump(d) for d in new.decorator_list]:
        return None
    interner = Interner(BUDGET)
    try:
        first, second = Machine(interner, modules[0], old), Machine(interner, modules[1], new)
        if first.summary() != second.summary():
            return None
    except (Unsupported, RecursionError):
        return None
    return sorted(first.inlined | second.inlined)


__all__ = ["ASSUMPTION", "BUDGET", "ModuleFacts", "same_effects"]
