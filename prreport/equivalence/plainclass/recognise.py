"""Whether a class is a plain dataclass, read from its source in the repository (never guessed).

The conditions (decorator, options, bases, body, hooks, patching, rebound builtins) are in the
docstring of ``prreport.equivalence.plainclass``; a ``__post_init__`` is accepted only of the
shape ``post_init`` reads.
"""

from __future__ import annotations

import ast
import re

from prreport.equivalence.assume import dotted
from prreport.equivalence.canonical import module_bindings, module_of
from prreport.equivalence.plainclass.modules import module_file, read_at
from prreport.equivalence.plainclass.plain import Field, PlainClass, constant
from prreport.equivalence.plainclass.post_init import post_init_reads
from prreport.python.scopes import bound_anywhere, is_string_statement, single_binding
from prreport.python.sources import SourceFiles

_OPTIONS = frozenset(
    {
        "frozen",
        "eq",
        "order",
        "repr",
        "unsafe_hash",
        "kw_only",
        "slots",
        "match_args",
        "weakref_slot",
        "init",
    }
)
_FIELD_OPTIONS = frozenset({"default", "default_factory", "init", "repr", "compare", "hash"})
_FACTORIES = frozenset({"list", "dict", "set", "tuple"})
_HOOKS = frozenset(
    {
        "__init__",
        "__new__",
        "__del__",
        "__post_init__",
        "__setattr__",
        "__getattr__",
        "__getattribute__",
        "__delattr__",
        "__init_subclass__",
        "__set_name__",
        "__get__",
        "__set__",
        "__delete__",
        "__class_getitem__",
        "__slots__",
        "__dict__",
    }
)
_MAX_DEPTH = 4


def means(tree: ast.Module, path: str, expr: ast.expr, want: str) -> bool:
    """Whether ``expr`` (a name or ``module.name``) names the standard object ``want``."""
    name = dotted(expr)
    if name is None:
        return False
    head, _, rest = name.partition(".")
    if single_binding(tree, head) is None:
        return False
    target = module_bindings(tree, path).get(head)
    return target is not None and (f"{target}.{rest}" if rest else target) == want


def class_named(
    sources: SourceFiles, path: str, side: str, name: str, depth: int = 0
) -> PlainClass | None:
    """The plain dataclass ``name`` means in module ``path`` (its ``side``), or None."""
    key = f"plain-class:{name}"
    return sources.memo(path, side, key, lambda: _class_named(sources, path, side, name, depth))


def _class_named(
    sources: SourceFiles, path: str, side: str, name: str, depth: int
) -> PlainClass | None:
    tree = sources.tree(path, side)
    if tree is None or depth > _MAX_DEPTH:
        return None
    st = single_binding(tree, name)
    if isinstance(st, ast.ClassDef):
        return _plain(sources, tree, path, side, st, depth)
    if not isinstance(st, ast.ImportFrom):
        return None
    target = module_bindings(tree, path).get(name)
    if target is None:
        return None
    module, _, cls = target.rpartition(".")
    p = module_file(sources, module)
    if p is None:
        return None
    where, at = read_at(sources, p, side)
    if sources.tree(where, at) is not None:
        return class_named(sources, where, at, cls, depth + 1)
    return None


def patched(tree: ast.Module, names: set[str]) -> bool:
    """Whether the module sets or deletes an attribute of a class it names ``names``
    (``C.__post_init__ = f``, ``del C.x``, ``setattr(C, ...)``): then the class is not what its
    body says."""
    for n in ast.walk(tree):
        if (
            isinstance(n, ast.Attribute)
            and not isinstance(n.ctx, ast.Load)
            and isinstance(n.value, ast.Name)
            and n.value.id in names
        ):
            return True
        if (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name)
            and n.func.id in ("setattr", "delattr")
            and n.args
            and isinstance(n.args[0], ast.Name)
            and n.args[0].id in names
        ):
            return True
    return False


def _plain(
    sources: SourceFiles, tree: ast.Module, path: str, side: str, cls: ast.ClassDef, depth: int
) -> PlainClass | None:
    if cls.keywords or len(cls.decorator_list) != 1:
        return None
    if patched(tree, {cls.name}):
        return None
    deco = cls.decorator_list[0]
    frozen = False
    if isinstance(deco, ast.Call):
        if deco.args or not means(tree, path, deco.func, "dataclasses.dataclass"):
            return None
        for k in deco.keywords:
            if k.arg not in _OPTIONS or not isinstance(k.value, ast.Constant):
                return None
            if k.arg == "init" and k.value.value is not True:
                return None
            frozen = frozen or (k.arg == "frozen" and bool(k.value.value))
    elif not means(tree, path, deco, "dataclasses.dataclass"):
        return None
    fields: list[Field] = []
    assumes: tuple[tuple[str, str], ...] = ()
    inherited_members: frozenset[str] = frozenset()
    if len(cls.bases) > 1:
        return None
    rebound = bound_anywhere(tree)
    if cls.bases:
        base = cls.bases[0]
        if isinstance(base, ast.Name) and base.id == "object" and "object" not in rebound:
            pass
        elif isinstance(base, ast.Name):
            parent = class_named(sources, path, side, base.id, depth + 1)
            if parent is None or parent.path != path:
                return None
            fields, assumes = list(parent.fields), parent.assumes
            inherited_members = parent.members
        else:
            return None
    inherited = {f.name for f in fields}
    post: ast.FunctionDef | None = None
    methods: set[str] = set()
    for st in cls.body:
        if is_string_statement(st) or isinstance(st, ast.Pass):
            continue
        if isinstance(st, ast.AnnAssign):
            got = _field(tree, path, st, rebound)
            if got is None or got.name in inherited | inherited_members:
                return None
            fields.append(got)
        elif isinstance(st, ast.Assign):
            if not constant(st.value) or not all(isinstance(t, ast.Name) for t in st.targets):
                return None
            methods |= {t.id for t in st.targets if isinstance(t, ast.Name)}
        elif isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef):
            if st.name == "__post_init__" and isinstance(st, ast.FunctionDef) and post is None:
                post = st
                continue
            if st.name in _HOOKS:
                return None
            methods.add(st.name)
        elif isinstance(st, ast.ClassDef):
            methods.add(st.name)
        else:
            return None
    names = [f.name for f in fields]
    if len(set(names)) != len(names) or methods & set(names) or methods & _HOOKS:
        return None
    if post is not None:
        if frozen or assumes:
            return None
        read = post_init_reads(post, fields, rebound)
        if read is None:
            return None
        assumes = read
    members = inherited_members | methods
    return PlainClass(f"{module_of(path)}.{cls.name}", path, tuple(fields), assumes, members)


def _field(tree: ast.Module, path: str, st: ast.AnnAssign, rebound: frozenset[str]) -> Field | None:
    if not isinstance(st.target, ast.Name) or not st.simple:
        return None
    note = ast.unparse(st.annotation)
    if re.search(rf"\b({'|'.join(_pseudo_fields(tree))})\b", note):
        return None
    name = st.target.id
    if st.value is None:
        return Field(name, True, False, note)
    if constant(st.value):
        return Field(name, True, True, note)
    call = st.value
    if not (isinstance(call, ast.Call) and means(tree, path, call.func, "dataclasses.field")):
        return None
    if call.args:
        return None
    init, default = True, False
    for k in call.keywords:
        if k.arg not in _FIELD_OPTIONS:
            return None
        if k.arg == "default_factory":
            v = k.value
            if not (isinstance(v, ast.Name) and v.id in _FACTORIES and v.id not in rebound):
                return None
            default = True
            continue
        if not constant(k.value):
            return None
        if k.arg == "default":
            default = True
        if k.arg == "init":
            init = bool(getattr(k.value, "value", True))
    return Field(name, init, default, note)


def _pseudo_fields(tree: ast.Module) -> list[str]:
    """Names that make an annotation no ``__init__`` field: ``ClassVar``, ``InitVar``,
    ``KW_ONLY`` and whatever the module binds to them under another name."""
    out = ["ClassVar", "InitVar", "KW_ONLY"]
    for st in tree.body:
        if isinstance(st, ast.ImportFrom):
            out += [a.asname for a in st.names if a.asname and a.name in out[:3]]
        elif isinstance(st, ast.Assign) and re.search(
            r"\b(ClassVar|InitVar|KW_ONLY)\b", ast.unparse(st.value)
        ):
            out += [t.id for t in st.targets if isinstance(t, ast.Name)]
    return out
