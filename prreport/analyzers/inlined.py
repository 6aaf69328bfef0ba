"""Inlined helpers: a function removed and its body placed at its call sites."""

from __future__ import annotations

import ast
import builtins
import dataclasses
from collections.abc import Callable, Iterable
from functools import partial

from prreport.analyzers import Analyzer, register
from prreport.bundle import PullRequestBundle
from prreport.equivalence.canonical import module_bindings, module_of
from prreport.equivalence.expansion.binding import class_bound, is_super
from prreport.equivalence.expansion.outcome import expansion_finding
from prreport.equivalence.expansion.sites import site_pairs
from prreport.equivalence.moves import carried, moves
from prreport.findings import ContextRequest, Finding
from prreport.python.definitions import (
    Change,
    Definition,
    definition_changes,
    dump,
    file_index,
    reference_request,
)
from prreport.python.hierarchy import overriding_subclasses
from prreport.python.sources import SourceFiles

_BUILTINS = frozenset(dir(builtins))


def _candidates(sources: SourceFiles) -> list[Definition]:
    change = definition_changes(sources)
    # A definition nested in a moved one (a method of a moved test's local class) is no new home.
    inside_moved = carried(change)
    added = {d.name for d in change.added if (d.path, d.qualname) not in inside_moved}
    # A moved or renamed definition is not inlined (symbols.py follows its callers).
    moved = {(m.old.path, m.old.qualname) for m in moves(change)} | inside_moved
    return [
        d
        for d in change.removed
        if d.kind in ("function", "method")
        and d.name not in added
        and (d.path, d.qualname) not in moved
    ]


def _overrides_elsewhere(
    sources: SourceFiles, bundle: PullRequestBundle, old: Definition
) -> list[str]:
    """Direct subclasses of ``old``'s class that define ``old.name`` themselves: there
    ``self.m(...)`` ran their method, which the pasted body no longer reaches."""
    cls = file_index(sources, old.path, "before").get(old.parent)
    if cls is None or cls.kind != "class":
        return []
    return list(overriding_subclasses(bundle, sources, cls, old.name))


@register
class InlinedAnalyzer(Analyzer):
    """A helper removed and its body pasted where it was called.

    before: ``def _get(info, name): node = info.get(name); return node.node if node else None``
    and ``v = _get(info, name)`` · after: ``node = info.get(name); v = node.node if node else None``
    → ``code.inlined`` (proven when the expanded call equals the new code).
    """

    name = "inlined"

    def requests(self, bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
        """Search the repository for the removed helpers' names (callers outside the PR)."""
        found = _candidates(sources)
        # The classes of removed methods: their subclasses may override them.
        classes = {
            d.parent.rpartition(".")[2] for d in found if d.parent and "<locals>" not in d.parent
        }
        return reference_request(bundle, {d.name for d in found} | classes)

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``code.inlined`` for removed helpers whose callers now hold their body."""
        change = definition_changes(sources)
        changed = {f.path for f in bundle.files} | {f.before_path for f in bundle.files}
        for old in _candidates(sources):
            pairs = site_pairs(
                sources, old, "before", partial(_through_super, sources, change, old)
            )
            if isinstance(pairs, str) or not pairs:
                continue
            if not any(p.proof.proven or p.proof.similar for p in pairs):
                continue
            # A use outside the changed files would now fail: the helper is gone.
            stale = sorted(
                hit
                for hit in bundle.references.get(old.name, ())
                if hit.rsplit(":", 1)[0] not in changed
            )
            overridden: list[str] = []
            if old.parent and "<locals>" in old.parent:
                stale = []  # a function defined inside another is reachable only there
            elif old.parent:
                # ``self.m(...)`` dispatches on the instance: a subclass that overrides the
                # method no longer has its override run there (unproven, like a stale caller).
                # A method's name used elsewhere is left to the reader (the grep cannot tell
                # its class).
                stale = overridden = _overrides_elsewhere(sources, bundle, old)
            f = change.file_of[old.path]
            fd = expansion_finding(sources, "code.inlined", old, f, pairs, "-", stale)
            if overridden:
                details = {**fd.details, "stale_references": [], "overridden_by": overridden}
                fd = dataclasses.replace(fd, details=details)
            yield fd


# -- a base class folded into its subclass: ``super().m(...)`` reached the base's method -------


def _through_super(
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

    cls_after = file_index(sources, f.path, "after").get(cls.qualname)
    there = _module(sources, f.path, "after")
    if not isinstance(getattr(cls_after, "node", None), ast.ClassDef):
        return match, f"class {cls.qualname} is gone after the change"
    assert cls_after is not None and isinstance(cls_after.node, ast.ClassDef)
    was = [home.meaning(b) for b in base.node.bases] + [dump(k) for k in base.node.keywords]
    now = [there.meaning(b) for b in cls_after.node.bases] + [
        dump(k) for k in cls_after.node.keywords
    ]
    if None in was or was != now:
        return match, (
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
        return match, f"{helper.qualname} uses {', '.join(own)}: {base_q}, not {cls.qualname}"
    base_own = _members(base.node)
    for attr in sorted(_instance_reads(helper)):
        # Where the instance finds it: its class, the removed base, or the bases they share.
        was_at = cls.qualname if attr in own_before else base_q if attr in base_own else ""
        now_at = cls.qualname if attr in own_after else ""
        came = (helper.path, f"{base_q}.{attr}", f.path, f"{cls.qualname}.{attr}") in moved
        if was_at != now_at and not (was_at == base_q and now_at and came):
            return match, (
                f"{helper.qualname} reads {attr!r} of its instance: "
                f"{_found_in(was_at, base_q)} before, {_found_in(now_at, base_q)} after the change"
            )
    for n in sorted(_globals_read(helper)):
        if (
            home.meaning(ast.Name(id=n)) != there.meaning(ast.Name(id=n))
            or home.meaning(ast.Name(id=n)) is None
        ):
            return match, f"{n!r} in {helper.qualname} names another object in {f.path}"
    return match, ""


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
