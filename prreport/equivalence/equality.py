"""How equal a removed definition and an added one are: ``byte-identical`` (the same text, or
the same body under another name), ``modulo-renames`` (equal up to consistent local renames,
the class's own name, import spelling, or a function made a method of its first argument's
class or a static/class method), or ``different``."""

from __future__ import annotations

import ast
import copy
import re

from prreport.equivalence.canonical import canonical, module_bindings
from prreport.python.definitions import (
    Definition,
    dump,
    renamed_dump,
    same_tree,
    strip_docstring,
)
from prreport.python.parse import parse as parse_quietly


def equality(a: Definition, b: Definition) -> str:
    """``byte-identical``, ``modulo-renames`` or ``different``: removed ``a`` against added ``b``."""
    if a.kind == b.kind and a.text == b.text:
        return "byte-identical"  # the same text, name included (a renamed module's definitions)
    if a.kind == "function" and b.kind == "method":
        same = _becomes_method(a, b) or _becomes_static(a, b)
        return "modulo-renames" if same else "different"
    if a.kind == "class":
        if body_text(a) == body_text(b) and a.body == b.body:
            return "byte-identical"
        return "modulo-renames" if _class_key(a, b.name) == _class_key(b, b.name) else "different"
    if a.kind == "constant":
        return _constant_equality(a, b)
    if body_text(a) == body_text(b):
        return "byte-identical"
    return "modulo-renames" if a.renamed == b.renamed else "different"


def _class_key(cls: Definition, name: str) -> str:
    """A class (its name, docstrings and annotations aside; a string annotation made real) with
    every use of its own name spelled ``name``: ``super(Old, self)``, ``-> "Old"``, ``Old(...)``."""
    node = canonical(cls.node, {})
    assert isinstance(node, ast.ClassDef)
    node.name = name
    return dump(_SelfName(cls.name, name).visit(node))


class _SelfName(ast.NodeTransformer):
    """Spell a class's own name (``super(Old, self)``, ``Old.attr``, ``"Old"``) another way."""

    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id == self.old:
            node.id = self.new
        return node


def _constant_equality(a: Definition, b: Definition) -> str:
    """Two module-level assignments of one name: equal text, equal up to import spelling, or not."""
    if a.text == b.text:
        return "byte-identical"
    sa, sb = a.node, b.node
    assert isinstance(sa, (ast.Assign, ast.AnnAssign)) and isinstance(
        sb, (ast.Assign, ast.AnnAssign)
    )
    if sa.value is None or sb.value is None:
        return "different"
    if same_tree(sa.value, sb.value):
        return "modulo-renames"
    ta, tb = _module_tree(a), _module_tree(b)
    if ta is None or tb is None:
        return "different"
    # ``functools.partial`` in one module is ``partial`` (``from functools import partial``) in
    # the other: the same imported object spelled two ways.
    ca = canonical(sa.value, module_bindings(ta, a.path))
    cb = canonical(sb.value, module_bindings(tb, b.path))
    return "modulo-renames" if same_tree(ca, cb) else "different"


def _module_tree(d: Definition) -> ast.Module | None:
    try:
        return parse_quietly("".join(d.lines))
    except SyntaxError:
        return None


def _becomes_static(fn: Definition, meth: Definition) -> bool:
    """A module-level ``def f(x)`` that became ``@staticmethod def m(x)`` (or ``@classmethod
    def m(cls, x)`` not using ``cls``) with the same body: ``C.m(x)`` runs what ``f(x)`` ran.

    A class body mangles ``__names``, and zero-argument ``super()``/``__class__`` mean
    something else inside a class, so a body using them is not the same.
    """
    a, b = fn.node, meth.node
    if fn.parent or type(a) is not type(b):
        return False
    assert isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef))
    assert isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef))
    decos = [d.id if isinstance(d, ast.Name) else "" for d in b.decorator_list]
    if a.decorator_list or decos not in (["staticmethod"], ["classmethod"]):
        return False
    if names_own_class(a):
        return False
    b = copy.deepcopy(b)
    b.decorator_list = []
    if decos == ["classmethod"]:
        params = [*b.args.posonlyargs, *b.args.args]
        if not params:
            return False
        first = params[0].arg
        if any(isinstance(n, ast.Name) and n.id == first for n in ast.walk(b)):
            return False
        if b.args.posonlyargs:
            b.args.posonlyargs = b.args.posonlyargs[1:]
        else:
            b.args.args = b.args.args[1:]

    def key(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
        return renamed_dump([node.args, *(strip_docstring(node.body) or node.body)])

    return key(a) == key(b) and dump(a.returns or ast.Constant(None)) == dump(
        b.returns or ast.Constant(None)
    )


def names_own_class(node: ast.AST) -> bool:
    """A body whose meaning depends on sitting in a class (``super()``, ``__class__``, ``__x``)."""
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    attrs = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
    return bool(names & {"super", "__class__"}) or any(
        x.startswith("__") and not x.endswith("__") for x in names | attrs
    )


def _becomes_method(fn: Definition, meth: Definition) -> bool:
    """A module-level ``def f(x: C, ...)`` that became ``C.m(self, ...)`` with the same body.

    ``f(x)`` and ``x.m()`` run the same code only for instances of ``C``: the first parameter
    must be declared a ``C``, the method must be a plain one (no decorator), and the body must
    not name its class (zero-argument ``super()``, ``__class__``, mangled ``__names``).
    """
    a, b = fn.node, meth.node
    if fn.parent or type(a) is not type(b):
        return False
    assert isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef))
    assert isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef))
    if a.decorator_list or b.decorator_list:
        return False
    pa, pb = [*a.args.posonlyargs, *a.args.args], [*b.args.posonlyargs, *b.args.args]
    cls = meth.parent.rsplit(".", 1)[-1]
    if not pa or not pb or not _names_class(pa[0].annotation, cls):
        return False
    if names_own_class(a):
        return False

    def key(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
        node = copy.deepcopy(node)
        first = [*node.args.posonlyargs, *node.args.args][0]
        first.annotation = None  # the receiver's declared type; ``self`` has none
        return renamed_dump([node.args, *(strip_docstring(node.body) or node.body)])

    return key(a) == key(b)


def _names_class(ann: ast.expr | None, cls: str) -> bool:
    """An annotation that names class ``cls`` (``C``, ``mod.C`` or ``"C"``)."""
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        return ann.value.strip().rsplit(".", 1)[-1] == cls
    if isinstance(ann, ast.Attribute):
        return ann.attr == cls
    return isinstance(ann, ast.Name) and ann.id == cls


def body_text(d: Definition) -> str:
    """Definition text without its ``def name``/``class name`` so renames compare by body."""
    return re.sub(rf"\b(def|class)\s+{re.escape(d.name)}\b", r"\1 _", d.text, count=1)
