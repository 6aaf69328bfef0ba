"""``"{} {!r}".format(a, b)`` as the f-string ``f"{a} {b!r}"`` when that is the same (a spelling
``canonical`` sees through)."""

from __future__ import annotations

import ast
import re
import string

from prreport.python.parse import copy_tree


def as_fstring(call: ast.Call) -> ast.AST:
    """``"{} is {0.x!r:>8}".format(a, b)`` as ``f"{a} is {a.x!r:>8}"`` when that is the same.

    Arguments other than names and constants are each used once, in the order the call
    evaluates them (a name or constant may be used any number of times: reading it again
    does nothing); a field may read attributes (``{0.major}``). Both call
    ``format(value, spec)`` on each value; the f-string does so before it evaluates the next
    argument (assumed not to matter: a ``__format__`` that changes what a later argument
    computes)."""
    func = call.func
    if not (
        isinstance(func, ast.Attribute)
        and func.attr == "format"
        and isinstance(func.value, ast.Constant)
        and isinstance(func.value.value, str)
    ):
        return call
    values: list[ast.expr] = [*call.args, *(k.value for k in call.keywords)]
    order = [str(i) for i in range(len(call.args))] + [k.arg or "**" for k in call.keywords]
    if "**" in order or any(isinstance(a, ast.Starred) for a in call.args):
        return call
    try:
        fields = list(string.Formatter().parse(func.value.value))
    except ValueError:
        return call
    refs = [_FIELD.match(f) for _, f, _, _ in fields if f is not None]
    if any(m is None for m in refs):
        return call  # an index (``{0[1]}``) or another form: not rewritten
    heads = [m.group(1) for m in refs if m is not None]
    if "" in heads and any(h.isdigit() for h in heads):
        return call  # "{} {0}" raises ValueError: no f-string is the same
    text: list[str] = []
    used: list[int] = []
    auto = 0
    for literal, field, spec, conversion in fields:
        text.append(literal.replace("{", "{{").replace("}", "}}"))
        if field is None:
            continue
        m = _FIELD.match(field)
        assert m is not None
        head, attrs = m.group(1), m.group(2)
        if head == "":
            head, auto = str(auto), auto + 1
        if head not in order or spec and "{" in spec:
            return call  # an argument the call does not pass, or a nested field
        used.append(order.index(head))
        text.append(
            "{"
            + f"__fmt{order.index(head)}{attrs}"
            + (f"!{conversion}" if conversion else "")
            + (f":{spec}" if spec else "")
            + "}"
        )
    acting = [i for i in range(len(values)) if not isinstance(values[i], ast.Name | ast.Constant)]
    if set(used) != set(range(len(values))) or [i for i in used if i in acting] != acting:
        return call  # an argument unused, or one that acts used twice or out of order
    try:
        made = ast.parse("f" + repr("".join(text)), mode="eval").body
    except SyntaxError:
        return call
    return _Placeholders(values).visit(made)


_FIELD = re.compile(r"^(\w*)((?:\.\w+)*)$")


class _Placeholders(ast.NodeTransformer):
    """``__fmtN`` names of a made f-string replaced by (copies of) the call's arguments."""

    def __init__(self, values: list[ast.expr]) -> None:
        self.values = values

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id.startswith("__fmt"):
            return copy_tree(self.values[int(node.id[5:])])
        return node
