"""Mixin members: the same method removed from several classes and added to one class they now
inherit it from (a mixin or base), compared copy by copy.

A copy counts when it equals the new member (or spells the same objects otherwise, or is the
same method edited on its way into a home its class lists); it is proven where the class's MRO
reaches the new home first, and flagged where the body depends on the class it is written in
or means other objects by its global names in its new module.
"""

from __future__ import annotations

import ast

from prreport.equivalence.canonical import (
    bindings,
    canonical,
    imports_in,
    locally_bound,
    module_bindings,
    rebound_builtins,
)
from prreport.equivalence.canonical import module_of as module_path
from prreport.equivalence.extraction.copies import Site, equality_of, module_globals
from prreport.python.definitions import (
    Change,
    Definition,
    dump,
    file_index,
    residual,
    strip_docstring,
)
from prreport.python.mro import base_index, mro_reaches
from prreport.python.sources import SourceFiles


def member_sites(sources: SourceFiles, change: Change, new: Definition) -> list[Site]:
    """The copies of a new method removed from other classes, when some former owner lists the
    new home or reaches it (a hoist); none otherwise."""
    if new.kind != "method":
        return []
    home = new.parent.rsplit(".", 1)[-1]
    home_cls = file_index(sources, new.path, "after").get(new.parent)
    # The parent may be bound by something other than a class statement (an import of it).
    home_node = home_cls.node if home_cls is not None else None
    home_members = {
        st.name
        for st in (home_node.body if isinstance(home_node, ast.ClassDef) else ())
        if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef)
    } or {new.name}
    sites = []
    related = False
    for old in change.removed:
        if old.kind != "method" or old.name != new.name or old.parent == new.parent:
            continue
        f = change.file_of[old.path]
        cls = file_index(sources, f.path, "after").get(old.parent) if f.after is not None else None
        if cls is None:
            continue  # the class itself is gone (moved, renamed, removed): not a hoist
        keep = module_globals(sources, old.path, "before") | module_globals(
            sources, new.path, "after"
        )
        eq = equality_of(old.text, new.text, [old.node], [new.node], keep | {old.name})
        if eq in (None, "different") and _canonical_member(
            sources, old, "before"
        ) == _canonical_member(sources, new, "after"):
            eq = "modulo-renames"  # the same objects spelled otherwise (``m.f`` / ``f``)
        lists_home = base_index(cls, home) is not None
        if eq is None and lists_home and _edited_copy(old.node, new.node):
            # The class now inherits the new home in place of its own copy, which was
            # edited on the way: the same method, reported with what changed.
            eq = "different"
        if eq is None:
            continue
        inherits, shadow = mro_reaches(sources, f.path, cls, new)
        related = related or lists_home or inherits is not False
        before_cls = file_index(sources, old.path, "before").get(old.parent)
        hb = ha = None
        if (
            before_cls is not None
            and inherits
            and _only_lost(before_cls, cls, _lost(change, old) & home_members, home)
            and (
                not lists_home
                or base_index(before_cls, home) is not None
                or _brings_only(home_cls, cls, _lost(change, old))
            )
        ):
            hb, ha = (before_cls.start, before_cls.end), (cls.start, cls.end)
        res = tuple(_unparsed_residual(old.node, new.node)) if eq == "different" else ()
        sites.append(
            Site(
                f.path,
                old.qualname,
                old.start,
                old.end,
                eq,
                res,
                (),
                old.parent,
                inherits,
                hb,
                ha,
                shadow,
                tuple(_class_relative(old.node)),
                tuple(_rebound_globals(sources, old, new)),
            )
        )
    # A hoist: some former owner lists the new home or reaches it (a class that lost the
    # method and does not inherit it is reported with them, not alone).
    return sites if related else []


def _module_names(sources: SourceFiles, path: str, side: str) -> tuple[dict[str, str], set[str]]:
    """The full name of every module-level binding of a file side (its imports, and its own
    definitions as ``module.name``), and the builtins it rebinds."""
    tree = sources.tree(path, side)
    if tree is None:
        return {}, set()

    def build() -> tuple[dict[str, str], set[str]]:
        module = module_path(path)
        top = {
            x.name: f"{module}.{x.name}"
            for x in file_index(sources, path, side).values()
            if not x.parent and x.kind != "import"
        }
        return {**top, **module_bindings(tree, path)}, rebound_builtins(tree)

    names: tuple[dict[str, str], set[str]] = sources.memo(path, side, "extracted-names", build)
    return names


def _canonical_member(sources: SourceFiles, d: Definition, side: str) -> str:
    """A method with docstrings and annotations dropped and every imported or module-level
    object spelled by its full name (``node_classes.const_factory`` in one module is
    ``const_factory`` in ``node_classes``), so copies in two modules compare alike."""
    names, rebound = _module_names(sources, d.path, side)
    own = bindings(imports_in(d.node), d.path)
    shadowed = locally_bound(d.node) - set(own)
    return dump(canonical(d.node, {**names, **own}, shadowed, rebound))


def _rebound_globals(sources: SourceFiles, old: Definition, new: Definition) -> list[str]:
    """Global names a method uses that mean another object where it now lives: a definition
    of its old module that the new one binds otherwise (``TIMEOUT = 5`` there, ``TIMEOUT =
    10`` here) or not at all, an import of another object, a builtin shadowed on one side. A
    module-level definition repeated word for word (``logger = logging.getLogger(__name__)``)
    counts as the same, as a moved definition does."""
    before, _ = _module_names(sources, old.path, "before")
    after, _ = _module_names(sources, new.path, "after")
    local = locally_bound(old.node) | set(bindings(imports_in(old.node), old.path))
    used = {n.id for n in ast.walk(old.node) if isinstance(n, ast.Name)} - local
    out = []
    for name in sorted(used):
        was, now = before.get(name), after.get(name)
        if was == now:
            continue
        a = file_index(sources, old.path, "before").get(name)
        b = file_index(sources, new.path, "after").get(name)
        if a is None or b is None or a.kind == "import" or a.text != b.text:
            out.append(name)
    return out


def _class_relative(fn: ast.AST) -> list[str]:
    """What a method's body resolves through the class it is written in: ``super``,
    ``__class__`` and private (name-mangled) ``__names``."""
    out: set[str] = set()
    for node in ast.walk(fn):
        name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
        if name in ("super", "__class__") or (
            isinstance(name, str) and name.startswith("__") and not name.endswith("__")
        ):
            out.add(name)
    return sorted(out)


def _edited_copy(old: ast.AST, new: ast.AST) -> bool:
    """True when two methods of one name take the same parameters and run the same kinds of
    statements in the same order: one method edited on its way, not another method."""
    if not isinstance(old, (ast.FunctionDef, ast.AsyncFunctionDef)) or type(old) is not type(new):
        return False
    assert isinstance(new, (ast.FunctionDef, ast.AsyncFunctionDef))
    return dump(old.args) == dump(new.args) and [type(x) for x in strip_docstring(old.body)] == [
        type(x) for x in strip_docstring(new.body)
    ]


def _unparsed_residual(old: ast.AST, new: ast.AST) -> list[str]:
    """The lines that differ between two definitions printed alike (layout and comments aside)."""
    return residual(ast.unparse(old), ast.unparse(new))


def only_members(home: Definition, names: set[str]) -> bool:
    """True when a new class holds nothing but the extracted methods, a docstring and
    annotations without a value (``staging_requests: dict``: the attributes a mixin expects
    of its host, which bind nothing)."""
    body = strip_docstring(home.node.body)  # type: ignore[attr-defined]
    return all(
        (isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) and st.name in names)
        or (isinstance(st, ast.AnnAssign) and st.value is None and isinstance(st.target, ast.Name))
        for st in body
    )


def _lost(change, old: Definition) -> set[str]:
    """Names of the methods the class holding ``old`` lost in the change."""
    return {d.name for d in change.removed if d.path == old.path and d.parent == old.parent}


def _brings_only(home: Definition | None, cls: Definition, lost: set[str]) -> bool:
    """True when ``cls``, newly listing ``home`` as a base, gains nothing from it but methods it
    lost itself: no other member, class attribute, base, metaclass or class decorator, and no
    instance ``__dict__`` (a class with ``__slots__`` would get one from a base without)."""
    if home is None:
        return False
    node, own = home.node, cls.node
    assert isinstance(node, ast.ClassDef) and isinstance(own, ast.ClassDef)
    slotted = any(
        isinstance(t, ast.Name) and t.id == "__slots__"
        for st in own.body
        if isinstance(st, (ast.Assign, ast.AnnAssign))
        for t in (st.targets if isinstance(st, ast.Assign) else [st.target])
    )
    return (
        all(b == "object" for b in home.bases)
        and not node.keywords
        and not node.decorator_list
        and not slotted
        and only_members(home, lost)
    )


def _only_lost(before: Definition, after: Definition, moved: set[str], home: str) -> bool:
    """True when a class differs only by the methods it lost to the new home (``moved``) and
    the new home among its bases."""
    b, a = before.node, after.node
    kept = [
        st
        for st in b.body  # type: ignore[attr-defined]
        if not (isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) and st.name in moved)
    ]
    a_body = a.body  # type: ignore[attr-defined]
    if not kept and len(a_body) == 1 and isinstance(a_body[0], ast.Pass):
        a_body = []

    def bases(cls: ast.AST, home: str = "") -> list[str]:  # ``(object)`` is no base in Python 3
        names = [ast.unparse(x) for x in cls.bases]  # type: ignore[attr-defined]
        return [x for x in names if x != "object" and x.rsplit(".", 1)[-1] != home]

    return (
        dump(kept) == dump(a_body)
        and bases(a, home) == bases(b, home)
        and dump(a.keywords) == dump(b.keywords)  # type: ignore[attr-defined]
    )
