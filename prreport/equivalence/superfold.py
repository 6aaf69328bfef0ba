"""A base class folded into its subclass: ``super().m(...)`` in the subclass reached the base's
method, and the method's body, spliced at that call, runs the same when the subclass now has the
removed base's bases (``super()`` and inherited attributes in the body go on to the same
classes) and whatever the body reads through its instance, or as a global, is the same object.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from functools import partial

from prreport.equivalence.canonical import module_bindings, module_of
from prreport.equivalence.expansion.binding import class_bound, is_super
from prreport.equivalence.moves import moves
from prreport.python.definitions import Change, Definition, dump, file_index
from prreport.python.sources import SourceFiles

_BUILTINS = frozenset(dir(builtins))


def through_super(
    sources: SourceFiles,
    change: Change,
    helper: Definition,
    caller: Definition,
    index: dict[str, Definition],
) -> tuple[Callable[[ast.Call], bool], str] | None:
    """How ``super().name(...)`` in ``caller`` (a method, before the change) reaches ``helper``, a
    method of a class the change removes, with ``caller``'s class listing that class as its only
    base; and what keeps its body from running the same when spliced into the caller ("" for
    nothing): the caller's class, after the change, must have the removed class's bases (so
    ``super()`` and attribute lookup in the body go on to the same classes), and whatever the
    body reads through its instance from the removed class must be the caller's class's own,
    before and after, or have moved there unchanged."""
    base_q, name = helper.parent, helper.name
    if helper.kind != "method" or caller.kind != "method" or "." in base_q:
        return None
    if any(getattr(d.node, "decorator_list", None) for d in (helper, caller)):
        return None  # plain methods both: super() binds the caller's instance to the helper's
    removed = {(d.path, d.qualname): d for d in change.removed}
    base = removed.get((helper.path, base_q))
    cls = index.get(caller.parent)
    f = change.file_of.get(caller.path)
    if base is None or base.kind != "class" or cls is None or f is None or f.after is None:
        return None
    assert isinstance(base.node, ast.ClassDef) and isinstance(cls.node, ast.ClassDef)
    here = _module(sources, caller.path, "before")
    home = _module(sources, helper.path, "before")
    if (
        len(cls.node.bases) != 1
        or here.meaning(cls.node.bases[0]) != f"{module_of(helper.path)}.{base_q}"
    ):
        return None

    def match(c: ast.Call) -> bool:
        return isinstance(c.func, ast.Attribute) and c.func.attr == name and is_super(c.func.value)

    return match, _what_differs(sources, change, helper, base, cls, f.path, home)


def _what_differs(
    sources: SourceFiles,
    change: Change,
    helper: Definition,
    base: Definition,
    cls: Definition,
    path: str,
    home: _Module,
) -> str:
    """What keeps ``helper``'s body (a method of the removed class ``base``) from running the
    same spliced into a method of ``cls`` (its subclass, in file ``path`` after the change); ""
    for nothing."""
    base_q = base.qualname
    assert isinstance(base.node, ast.ClassDef) and isinstance(cls.node, ast.ClassDef)
    cls_after = file_index(sources, path, "after").get(cls.qualname)
    there = _module(sources, path, "after")
    if not isinstance(getattr(cls_after, "node", None), ast.ClassDef):
        return f"class {cls.qualname} is gone after the change"
    assert cls_after is not None and isinstance(cls_after.node, ast.ClassDef)
    was = [home.meaning(b) for b in base.node.bases] + [dump(k) for k in base.node.keywords]
    now = [there.meaning(b) for b in cls_after.node.bases] + [
        dump(k) for k in cls_after.node.keywords
    ]
    if None in was or was != now:
        return (
            f"{cls.qualname} now has the bases ({_listed(cls_after.node)}), {base_q} had "
            f"({_listed(base.node)}): super() and inherited attributes in {helper.qualname} "
            "resolve elsewhere"
        )
    moved = {
        (m.old.path, m.old.qualname, m.new.path, m.new.qualname)
        for m in moves(change)
        if m.equality != "different"
    }
    own_before = _members(cls.node)
    own_after = _members(cls_after.node)
    own = [x for x in class_bound(helper.node) if x != "super()"]  # super(): the bases, above
    if own:
        return f"{helper.qualname} uses {', '.join(own)}: {base_q}, not {cls.qualname}"
    base_own = _members(base.node)
    for attr in sorted(_instance_reads(helper)):
        # Where the instance finds it: its class, the removed base, or the bases they share.
        was_at = cls.qualname if attr in own_before else base_q if attr in base_own else ""
        now_at = cls.qualname if attr in own_after else ""
        came = (helper.path, f"{base_q}.{attr}", path, f"{cls.qualname}.{attr}") in moved
        if was_at != now_at and not (was_at == base_q and now_at and came):
            return (
                f"{helper.qualname} reads {attr!r} of its instance: "
                f"{_found_in(was_at, base_q)} before, {_found_in(now_at, base_q)} after the change"
            )
    for n in sorted(_globals_read(helper)):
        if (
            home.meaning(ast.Name(id=n)) != there.meaning(ast.Name(id=n))
            or home.meaning(ast.Name(id=n)) is None
        ):
            return f"{n!r} in {helper.qualname} names another object in {path}"
    return ""


class _Module:
    """What names mean in a module file side: imports, module-level definitions, builtins."""

    def __init__(self, sources: SourceFiles, path: str, side: str) -> None:
        tree = sources.tree(path, side)
        self.imports = module_bindings(tree, path) if tree is not None else {}
        defs = file_index(sources, path, side).values()
        self.top = {d.name for d in defs if not d.parent and d.kind != "import"}
        self.module = module_of(path)

    def meaning(self, expr: ast.expr) -> str | None:
        """The dotted object a name or attribute chain means here (None when unsure)."""
        parts: list[str] = []
        while isinstance(expr, ast.Attribute):
            parts.append(expr.attr)
            expr = expr.value
        if not isinstance(expr, ast.Name):
            return None
        head = expr.id
        if head in self.imports and head in self.top:
            return None  # bound twice: which one holds depends on the order
        if head in self.imports:
            root = self.imports[head]
        elif head in self.top:
            root = f"{self.module}.{head}"
        elif head in _BUILTINS:
            root = f"builtins.{head}"
        else:
            return None
        return ".".join([root, *reversed(parts)])


def _module(sources: SourceFiles, path: str, side: str) -> _Module:
    return sources.memo(path, side, "name-meanings", partial(_Module, sources, path, side))


def _found_in(where: str, base: str) -> str:
    return f"{where}'s own" if where else f"what the bases of {base} have"


def _listed(cls: ast.ClassDef) -> str:
    return ", ".join(ast.unparse(x) for x in (*cls.bases, *cls.keywords))


def _members(cls: ast.ClassDef) -> set[str]:
    """Names a class body binds (methods, nested classes, attributes)."""
    out: set[str] = set()
    for st in cls.body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(st.name)
        elif isinstance(st, (ast.Assign, ast.AnnAssign)):
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            out |= {t.id for t in targets if isinstance(t, ast.Name)}
    return out


def _instance_reads(helper: Definition) -> set[str]:
    """Attributes a method reads through its first parameter (``self.x``)."""
    node = helper.node
    assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    params = [*node.args.posonlyargs, *node.args.args]
    if not params:
        return set()
    me = params[0].arg
    return {
        n.attr
        for n in ast.walk(node)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == me
    }


def _globals_read(helper: Definition) -> set[str]:
    """Names a method's body reads that it does not bind (globals and builtins)."""
    node = helper.node
    bound = {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    } | {a.arg for a in ast.walk(node) if isinstance(a, ast.arg)}
    body = [*node.body, *node.decorator_list]  # type: ignore[attr-defined]
    return {
        n.id
        for st in body
        for n in ast.walk(st)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in bound
    }
