"""``stable_field``: a field of a fresh plain instance reads the same object wherever it is read.

``v.a`` is that when ``v`` is a local assigned once, by ``v = F(...)`` where every exit of the
module function ``F`` is ``return C(...)`` (``C`` plain) or ``raise``, and every use of ``v`` is a
read of an ``__init__`` field of ``C`` after that assignment in its own block: nothing can reach
the object to change the field, and reading it runs no code. The conditions are in the
docstring of ``prreport.equivalence.plainclass``.
"""

from __future__ import annotations

import ast

from prreport.equivalence.plainclass.plain import PlainClass
from prreport.equivalence.plainclass.recognise import class_named
from prreport.python.scopes import bindings_of, module_level_statements, single_binding
from prreport.python.sources import SourceFiles


def stable_field(
    sources: SourceFiles,
    path: str,
    side: str,
    fn: ast.AST,
    read: ast.expr,
) -> str | None:
    """Why ``read`` (``v.a`` in ``fn``) is the same object wherever ``fn`` reads it, or None."""
    if not (isinstance(read, ast.Attribute) and isinstance(read.value, ast.Name)):
        return None
    if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    v = read.value.id
    tree = sources.tree(path, side)
    if tree is None:
        return None
    made = _made_once(fn, v)
    if made is None or not isinstance(made.value, ast.Call):
        return None
    stores = [
        n
        for n in ast.walk(fn)
        if isinstance(n, ast.Name) and n.id == v and not isinstance(n.ctx, ast.Load)
    ]
    if len(stores) != 1:
        return None
    maker = made.value.func
    if not isinstance(maker, ast.Name) or any(
        isinstance(n, ast.Name) and n.id == maker.id and not isinstance(n.ctx, ast.Load)
        for n in ast.walk(fn)
    ):
        return None
    cls = _always_builds(sources, path, side, maker.id)
    if cls is None:
        return None
    fields = {f.name for f in cls.fields if f.init or f.default}
    parents = {id(c): p for p in ast.walk(fn) for c in ast.iter_child_nodes(p)}
    after = _after_in_block(fn, made)
    for n in ast.walk(fn):
        if not (isinstance(n, ast.Name) and n.id == v and isinstance(n.ctx, ast.Load)):
            continue
        if id(n) not in after:
            return None  # maybe read before ``v`` is bound: that read raises, a later one not
        up = parents.get(id(n))
        if not (
            isinstance(up, ast.Attribute)
            and up.value is n
            and isinstance(up.ctx, ast.Load)
            and up.attr in fields
        ):
            return None  # passed, called through, written or deleted: it may change
    # ``fresh|variable|class|function``: a rewrite's detail (the templates word it).
    return "|".join(("fresh", v, cls.name, maker.id))


def _made_once(fn: ast.FunctionDef | ast.AsyncFunctionDef, v: str) -> ast.Assign | None:
    """The one plain assignment ``v = ...`` of ``fn``, or None when there is none or ``fn`` can
    reach ``v`` another way (a parameter, an import or ``except`` binding, a nested scope
    mentioning it, ``locals()``/``eval``/``global``)."""
    made: ast.Assign | None = None
    for node in ast.walk(fn):
        if isinstance(node, ast.Global | ast.Nonlocal):
            return None
        if isinstance(node, ast.Name) and node.id in ("locals", "vars", "eval", "exec"):
            return None
        if isinstance(node, ast.arg) and node.arg == v:
            return None
        if isinstance(node, ast.alias) and (node.asname or node.name.split(".")[0]) == v:
            return None
        if isinstance(node, ast.ExceptHandler) and node.name == v:
            return None
        if (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and node is not fn
        ):
            if node.name == v or any(isinstance(n, ast.Name) and n.id == v for n in ast.walk(node)):
                return None
        if isinstance(node, ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp):
            if any(isinstance(n, ast.Name) and n.id == v for n in ast.walk(node)):
                return None
        if isinstance(node, ast.GeneratorExp):
            if any(isinstance(n, ast.Name) and n.id == v for n in ast.walk(node)):
                return None
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == v for t in node.targets
        ):
            if made is not None or len(node.targets) != 1:
                return None
            made = node
    return made


def _after_in_block(fn: ast.AST, st: ast.stmt) -> set[int]:
    """The nodes of the statements that follow ``st`` in its own block: whenever one of them
    runs, ``st`` has just run to its end (a read there of what ``st`` binds cannot fail)."""
    for node in ast.walk(fn):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and any(x is st for x in block):
                i = next(k for k, x in enumerate(block) if x is st)
                return {id(n) for x in block[i + 1 :] for n in ast.walk(x)}
    return set()


def _always_builds(sources: SourceFiles, path: str, side: str, name: str) -> PlainClass | None:
    """The plain class every exit of module function ``name`` returns a new instance of."""
    tree = sources.tree(path, side)
    fn = single_binding(tree, name) if tree is not None else None
    if not isinstance(fn, ast.FunctionDef) or fn.decorator_list:
        return None
    own: list[ast.AST] = []
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        own.append(node)
        stack.extend(ast.iter_child_nodes(node))
    if any(isinstance(n, ast.Yield | ast.YieldFrom | ast.Await) for n in own):
        return None
    local = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)} | {
        n.id for n in own if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    }
    if not _exits(fn.body):
        return None
    found: PlainClass | None = None
    for r in (n for n in own if isinstance(n, ast.Return)):
        call = r.value
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id not in local
        ):
            return None
        cls = class_named(sources, path, side, call.func.id)
        if cls is None or (found is not None and cls != found):
            return None
        found = cls
    return found


def _exits(body: list[ast.stmt]) -> bool:
    """Every path through ``body`` ends in ``return`` or ``raise`` (never falls off the end)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, ast.Return | ast.Raise):
        return True
    if isinstance(last, ast.If):
        return _exits(last.body) and _exits(last.orelse)
    return False


def module_attribute(
    sources: SourceFiles,
    path: str,
    side: str,
    fn: ast.AST,
    read: ast.expr,
) -> str | None:
    """Why ``read`` (``m.a``, or ``m.a.b``, in ``fn``) is the same object wherever it is read,
    or None: ``m`` is an imported module, bound once in its module by an ``import`` statement
    and by nothing else anywhere (not a local of ``fn``). The fact stated assumes, as any reader
    of the code does, that running code does not reassign another module's attributes."""
    root = read
    while isinstance(root, ast.Attribute):
        root = root.value
    if read is root or not isinstance(root, ast.Name):
        return None
    tree = sources.tree(path, side)
    if tree is None or any(
        (isinstance(n, ast.Name) and n.id == root.id and not isinstance(n.ctx, ast.Load))
        or (isinstance(n, ast.arg) and n.arg == root.id)
        for n in ast.walk(fn)
    ):
        return None
    # ``import ast`` (or a fallback ``try: import a as m except ImportError: import b as m``),
    # each at module level, and no other binding of the name anywhere
    bound = bindings_of(tree, root.id)
    module_level = set(map(id, module_level_statements(tree.body)))
    if not bound or not all(isinstance(b, ast.Import) and id(b) in module_level for b in bound):
        return None
    return f"an attribute of the imported module {root.id!r}"
