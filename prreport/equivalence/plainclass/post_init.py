"""The one ``__post_init__`` shape a plain class may have, and the assumption it makes.

Each statement assigns ``self.<field> = <expr>`` where ``<expr>`` is made of constants, tuple
displays, reads of ``__init__`` fields and ``tuple``/``list``/``set``/``frozenset``/``sorted``
of a field (``self.f or []`` too). Those read the *items* of the field, which could run code or
fail: the field must be annotated as a container of ``str``, and that is the assumption stated.
"""

from __future__ import annotations

import ast
import re

from prreport.equivalence.plainclass.plain import Field, constant
from prreport.python.scopes import is_string_statement

_ITEM_READERS = frozenset({"tuple", "list", "set", "frozenset", "sorted"})
_STR_ITEMS = re.compile(
    r"^(?:typing\.)?(?:List|list|Sequence|Tuple|tuple|Set|set|FrozenSet|frozenset|Iterable)"
    r"\[str(?:, \.\.\.)?\]$"
)
_OPTIONAL = re.compile(r"^(?:typing\.)?Optional\[(.*)\]$")


def _self_only(fn: ast.FunctionDef) -> str | None:
    """The name of the one parameter of an undecorated ``fn`` (``self``), or None."""
    a = fn.args
    if (
        fn.decorator_list
        or a.posonlyargs
        or a.vararg
        or a.kwarg
        or a.kwonlyargs
        or a.defaults
        or len(a.args) != 1
    ):
        return None
    return a.args[0].arg


def _reader(e: ast.expr, rebound: frozenset[str]) -> bool:
    """``tuple(x)``, ``list(x)``, ``set(x)``, ``frozenset(x)`` or ``sorted(x)`` (builtins the
    module does not rebind) of one plain argument."""
    return (
        isinstance(e, ast.Call)
        and isinstance(e.func, ast.Name)
        and e.func.id in _ITEM_READERS
        and e.func.id not in rebound
        and len(e.args) == 1
        and not isinstance(e.args[0], ast.Starred)
        and not e.keywords
    )


def post_init_reads(
    fn: ast.FunctionDef, fields: list[Field], rebound: frozenset[str]
) -> tuple[tuple[str, str], ...] | None:
    """The fields whose items a ``__post_init__`` of the accepted shape reads (with their
    annotations), or None when its shape is another."""
    me = _self_only(fn)
    if me is None:
        return None
    by_name = {f.name: f for f in fields}
    items: dict[str, str] = {}

    def field_read(e: ast.expr) -> Field | None:
        if (
            isinstance(e, ast.Attribute)
            and isinstance(e.value, ast.Name)
            and e.value.id == me
            and e.attr in by_name
            and by_name[e.attr].init
        ):
            return by_name[e.attr]
        return None

    def item_source(e: ast.expr) -> bool:
        """``self.f`` or ``self.f or <empty display>``: the items of a ``str``-container field."""
        if isinstance(e, ast.BoolOp) and isinstance(e.op, ast.Or) and len(e.values) == 2:
            empty = e.values[1]
            if not (isinstance(empty, ast.List | ast.Tuple) and not empty.elts):
                return False
            e = e.values[0]
        f = field_read(e)
        if f is None:
            return False
        note = f.annotation.replace("typing.", "")
        opt = _OPTIONAL.match(note)
        inner = opt.group(1) if opt else re.sub(r"\s*\|\s*None$", "", note)
        if not _STR_ITEMS.match(inner):
            return False
        items[f.name] = f.annotation
        return True

    def value(e: ast.expr) -> bool:
        if constant(e) or field_read(e) is not None:
            return True
        if isinstance(e, ast.Tuple):
            return all(value(x) for x in e.elts)
        if _reader(e, rebound):
            assert isinstance(e, ast.Call)
            arg = e.args[0]
            return item_source(arg) or (_reader(arg, rebound) and value(arg))
        return False

    body = fn.body[1:] if fn.body and is_string_statement(fn.body[0]) else fn.body
    for st in body:
        if not (isinstance(st, ast.Assign) and len(st.targets) == 1):
            return None
        t = st.targets[0]
        if not (
            isinstance(t, ast.Attribute)
            and isinstance(t.value, ast.Name)
            and t.value.id == me
            and t.attr in by_name
        ):
            return None
        if not value(st.value):
            return None
    return tuple(sorted(items.items()))
