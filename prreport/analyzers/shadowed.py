"""Removed methods that no attribute lookup could reach: every subclass shadows them.

before::

    class StatementVisitor(Generic[T]):
        @abstractmethod
        def visit_var(self, o): pass          # removed by the PR

    class NodeVisitor(ExpressionVisitor[T], StatementVisitor[T]):
        def visit_var(self, o): pass          # the only subclass defines it itself

after: ``StatementVisitor`` without ``visit_var`` → ``behavior.unchanged`` naming the
subclasses that define it (``details.shadowed_by``).

Why the removal changes nothing a caller in the repository can observe. Python finds
``obj.m`` (and ``getattr(obj, "m")``, whatever string it is given) on the first class of
``type(obj).__mro__`` whose namespace holds ``m``. The removed ``C.m`` could only be found:

1. on ``C`` itself or an instance of ``C`` (``C.m``, ``C(...)``, ``getattr(C, name)``,
   ``vars(C)``, ``super(C, x)``) — so every occurrence of the name ``C`` in the repository
   must be a base in a ``class`` statement, an annotation, the class of an ``isinstance`` /
   ``issubclass`` test, an import of it under its own name or an ``__all__`` entry: then the
   class object never flows anywhere, and no instance of ``C`` can exist;
2. on an instance of a class ``X`` with ``C`` in its MRO — then some direct subclass ``S``
   of ``C`` is ``X`` or an ancestor of ``X``, and C3 puts ``S`` before ``C``. Every direct
   subclass in the repository (found by the whole-repository search for ``C``, on both sides
   of the changed files) must define ``m`` in its own body, so the lookup stops at ``S`` or
   earlier, before and after the change;
3. through a ``super()`` proxy from a class between the last definer and ``C``. C3 keeps each
   class's bases in their written order, so what an MRO puts between a direct subclass ``S``
   and ``C`` is a base written before ``C`` in some direct subclass (a mixin), its ancestors,
   or classes that reach ``C`` through another direct subclass (a definer). So: a direct
   subclass may use ``super()`` only as ``super().attr`` for an attribute other than ``m``
   (no ``getattr(super(), name)``); a base written before ``C`` (and its ancestors) must be a
   class of the repository whose body uses no ``super`` at all; ``C`` and its ancestors use
   no ``super(X, obj)`` with arguments and no ``__class__``; and ``super(S, ...)`` with a
   direct subclass ``S`` may appear nowhere outside ``S``, nor ``super(M, ...)`` with such a
   mixin ``M`` anywhere (whole-repository searches, and the before side of the changed
   files), since they skip ``S`` or start after ``M``.

Also ruled out: a base of ``C`` outside the repository or not read (it may call or inspect
anything: claim nothing), a base that defines ``m`` (``overrides.py`` judges that), a
``Protocol`` (``isinstance`` checks its members), a ``__subclasshook__`` or
``__init_subclass__`` on ``C`` or an ancestor, a metaclass other than ``ABCMeta``, a class
decorator on ``C`` or an ancestor other than those that return the class untouched
(``mypy_extensions.trait``, ``typing.final``: the decorator receives the class object), a
decorator on ``m`` other than ``abc.abstractmethod`` and the built-in ``property``,
``staticmethod`` and ``classmethod`` (a registering decorator runs at import), a default
value that is not a literal (it is evaluated at import), an annotation that is not built of
constants, names the module binds, attributes and subscripts of them (evaluated at import
unless ``from __future__ import annotations``; the one stated assumption: evaluating such an
annotation, which succeeded when the module was imported before, has no side effect, e.g.
subscripting a typing alias), ``m`` named again in ``C``'s body (``alias = m``,
``@m.setter``), ``__class__`` in ``C``'s body, a dunder or
private (mangled) name, a reference search that was not whole-repository (the GitHub
source) or a file it found that could not be read, and ``m`` as a string in code anywhere
in the files read (``"m" in klass.__dict__``), a file read that reaches a class object
without naming it (``__bases__``, ``__base__``, ``__mro__``, ``mro()``, ``__orig_bases__``,
``__subclasses__``, ``getmro``, ``__annotations__``, ``get_type_hints``, ``get_annotations``: then
``type(self).__bases__[0].m`` finds the removed method) or deletes ``m`` from a class
(``del Sub.m``, ``delattr`` with a composed name), and a direct subclass with a class decorator,
a metaclass other than ``ABCMeta`` (its own, or one of a base: a base written before ``C`` must
be plain and have no ``__init_subclass__``, and no base but ``Generic``/``object`` may be written
after ``C``, where it is not read), or ``locals``/``vars``/``exec``/``eval`` in its body (each can
drop its own ``m``, so that the lookup goes on to ``C``). A name composed at run time
(``getattr(self, "visit_" + kind)``) is a lookup like ``obj.m`` (case 2) unless it is made on
a class namespace or a super proxy: a file holding such a composed prefix of ``m`` must not
also read ``__dict__``, ``__mro__``, ``__bases__``, ``mro``, ``vars`` or ``getmro``, nor use
a bare ``super()`` value.

The removed body never ran, so what it would do (exceptions and their order, side effects,
closures and late binding, generators, ``locals()``) does not matter: only what defining it
ran (decorators, defaults, annotations) and what could find it.

As for dead code (``dead_code.py``), a definition of the repository that nothing in the
repository can reach is not behaviour: subclasses outside the repository and code that lists
every entry of every namespace along an MRO with no name in hand (a generic ``__dict__``
walk, which sees dead code too) are not counted; ``dir`` and ``inspect.getmembers`` on a
subclass still find its own ``m``.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from prreport.analyzers import Analyzer, register
from prreport.bundle import PullRequestBundle
from prreport.findings import ContextRequest, Finding
from prreport.python.definitions import (
    Definition,
    definition_changes,
    file_index,
    lines_with_blanks,
    reference_request,
    removal_explains,
)
from prreport.python.hierarchy import find_in_bases, resolve_class
from prreport.python.scopes import is_string_statement
from prreport.python.sources import SourceFiles

# Bases that define no method a subclass could lose (``Protocol`` is rejected, not skipped).
_NEUTRAL = frozenset({"object", "Generic", "typing.Generic", "ABC", "abc.ABC"})
_METACLASSES = frozenset({"ABCMeta", "abc.ABCMeta"})
_BUILTIN_DECORATORS = frozenset({"property", "staticmethod", "classmethod"})
# What reads a class namespace or walks an MRO (with a composed method name: not a lookup).
_REFLECTION = frozenset({"__dict__", "__mro__", "__bases__", "mro", "vars", "getmro", "delattr"})
# What yields a class object without naming it (``type(self).__bases__[0].m``): a file read
# that holds one of them could reach the removed method on the class itself.
_CLASS_VALUES = frozenset(
    {
        "__bases__",
        "__base__",
        "__mro__",
        "__orig_bases__",
        "__subclasses__",
        "__annotations__",
        "getmro",
        "get_type_hints",
        "get_annotations",
    }
)
# What can drop a subclass's own definition from its namespace while it is built.
_NAMESPACE = frozenset({"locals", "vars", "exec", "eval"})
_MAX_DEPTH = 4
# Class decorators that return the class unchanged and read none of its methods, by module.
_IDENTITY = {
    "mypy_extensions": frozenset({"trait"}),
    "typing": frozenset({"final"}),
    "typing_extensions": frozenset({"final"}),
}


def _identity(tree: ast.Module | None, deco: ast.expr) -> bool:
    """``@trait`` imported from ``mypy_extensions`` (``def trait(cls): return cls``), or
    ``@final`` from ``typing`` (it only sets ``__final__``), as a name or ``module.name``."""
    if isinstance(deco, ast.Attribute) and isinstance(deco.value, ast.Name):
        return deco.attr in _IDENTITY.get(deco.value.id, ()) and any(
            isinstance(st, ast.Import)
            and any(a.name == deco.value.id and not a.asname for a in st.names)
            for st in (tree.body if tree else [])
        )
    if not isinstance(deco, ast.Name):
        return False
    return any(
        isinstance(st, ast.ImportFrom)
        and not st.level
        and deco.id in _IDENTITY.get(st.module or "", ())
        and any(a.name == deco.id and not a.asname for a in st.names)
        for st in (tree.body if tree else [])
    )


@dataclass(frozen=True)
class _Candidate:
    """A method removed from a class that survives, with the class on both sides."""

    method: Definition  # before side
    before: ast.ClassDef
    after: ast.ClassDef
    path: str  # after path


def _candidates(sources: SourceFiles) -> list[_Candidate]:
    """Methods removed from a module-level class that still exists, no base of which
    defines them or is unread (those are ``overrides.py``'s or claimed by nobody)."""
    change = definition_changes(sources)
    out = []
    for d in change.removed:
        if d.kind != "method" or "." in d.parent or d.name.startswith("__"):
            continue
        f = change.file_of[d.path]
        if f.before is None or f.after is None:
            continue
        if any(a.name == d.name and a.parent == d.parent for a in change.added):
            continue
        before = _module_class(sources.tree(f.before_path, "before"), d.parent)
        after = _module_class(sources.tree(f.path, "after"), d.parent)
        if before is None or after is None:
            continue
        cls = file_index(sources, f.before_path, "before").get(d.parent)
        cls_after = file_index(sources, f.path, "after").get(d.parent)
        if cls is None or cls_after is None:
            continue
        look = find_in_bases(sources, f.before_path, "before", cls, d.name)
        look_after = find_in_bases(sources, f.path, "after", cls_after, d.name)
        if look.base or look.unresolved or look_after.base or look_after.unresolved:
            continue
        out.append(_Candidate(d, before, after, f.path))
    return out


def _module_class(tree: ast.Module | None, name: str) -> ast.ClassDef | None:
    """The one module-level ``class name`` of a file (None when absent or defined twice)."""
    found = [
        st for st in (tree.body if tree else []) if isinstance(st, ast.ClassDef) and st.name == name
    ]
    return found[0] if len(found) == 1 else None


def _prefixes(method: str) -> set[str]:
    """Prefixes of a method name a run-time name could be composed from (``visit_``)."""
    parts = method.split("_")
    out = {"_".join(parts[: i + 1]) + "_" for i in range(len(parts) - 1)}
    return {p for p in out if p.strip("_")}


def _names(c: _Candidate) -> set[str]:
    return {c.before.name, c.method.name, *_prefixes(c.method.name)}


@register
class ShadowedAnalyzer(Analyzer):
    """Removed methods every subclass defines itself, of a class never used as a value.

    before: ``class Base: def visit_var(self, o): pass`` and ``class Sub(Base): def
    visit_var(self, o): ...``, ``Base`` only ever a base or an annotation · after: ``Base``
    without ``visit_var`` → ``behavior.unchanged`` (no lookup reached it).
    """

    name = "shadowed"

    def requests(self, bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
        """Search the repository for the class, the method and its prefixes (then read the
        files), for the bases written before the class in its subclasses, and for
        ``super(Sub`` of each subclass found."""
        cands = _candidates(sources)
        if not cands:
            return ContextRequest()
        names: set[str] = set()
        for c in cands:
            names |= _names(c)
        request = reference_request(bundle, names)
        wanted: set[str] = set()
        supers: set[str] = set()
        for c in cands:
            if not all(n in bundle.references for n in _names(c)):
                continue
            files = _files(bundle, sources, _names(c))
            for path, side, tree in files or ():
                for node in _subclasses(tree, c.before.name):
                    supers.add(f"super({node.name}")
                    mixins = _mixins(sources, path, side, node, c.before.name)
                    wanted |= set(mixins.wanted)
                    supers |= {f"super({n}" for n in mixins.names}
        return request | ContextRequest(files=frozenset(wanted), references=frozenset(supers))

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``behavior.unchanged`` for each removed method no lookup could reach."""
        if bundle.reference_scope != "repository":
            return
        change = definition_changes(sources)
        for c in _candidates(sources):
            subs = _shadowing(bundle, sources, c)
            if not subs:
                continue
            d = c.method
            f = change.file_of[d.path]
            lines = lines_with_blanks(f.before, d.start, d.end, sources.changed(f).removed)
            ex = removal_explains(sources, f, d, lines)
            yield Finding(
                "behavior.unchanged",
                f.path,
                d.start,
                d.qualname,
                f"method {d.qualname} removed; no lookup reached it: every subclass in the "
                f"repository defines {d.name} itself ({', '.join(subs)}) and {d.parent} is "
                "never instantiated or read as a value",
                {
                    "removed": True,
                    "class": d.parent,
                    "method": d.name,
                    "shadowed_by": list(subs),
                    "before_path": d.path,
                    "before_line": d.start,
                    "before_end": d.end,
                    "residual": [],
                    "reference_scope": "repository",
                    "equal_modulo": "an unreachable method",
                    # Shown to the reader like a rewrite, with the assumption it rests on.
                    "rewrites": [
                        {"kind": "unreached-method", "text": d.name, "detail": ", ".join(subs)}
                    ],
                },
                ex,
            )


def _files(
    bundle: PullRequestBundle, sources: SourceFiles, names: Iterable[str]
) -> list[tuple[str, str, ast.Module]] | None:
    """Both sides of the changed Python files and, at head, every other file the search found
    the names in; None when one of them could not be read."""
    changed = {f.path for f in bundle.files} | {f.before_path for f in bundle.files}
    out: list[tuple[str, str, ast.Module]] = []
    python = {f.path for f in sources.python_files()}
    for f in bundle.files:
        if f.path.endswith(".py") and f.path not in python:
            return None  # a changed Python file that does not parse
    for f in sources.python_files():
        for path, side, text in ((f.before_path, "before", f.before), (f.path, "after", f.after)):
            tree = sources.tree(path, side) if text is not None else None
            if tree is not None:
                out.append((path, side, tree))
    hits = {h.rsplit(":", 1)[0] for n in names for h in bundle.references.get(n, ())}
    for path in sorted(hits - changed):
        if not path.endswith(".py"):
            continue
        tree = sources.tree(path, "head")
        if tree is None:
            return None
        out.append((path, "head", tree))
    return out


def _base_name(expr: ast.expr) -> str:
    """``C`` for a base written ``C``, ``mod.C``, ``C[T]`` or ``mod.C[T]``."""
    if isinstance(expr, ast.Subscript):
        expr = expr.value
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return ""


def _subclasses(tree: ast.Module, cls: str) -> Iterator[ast.ClassDef]:
    """Classes of a file (at any depth) with ``cls`` among their bases."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(_base_name(b) == cls for b in node.bases):
            yield node


def _before(node: ast.ClassDef, cls: str) -> list[ast.expr]:
    """The bases a class writes before ``cls`` (``Generic[T]``, ``object`` left out)."""
    out = []
    for b in node.bases:
        if _base_name(b) == cls:
            break
        if ast.unparse(b.value if isinstance(b, ast.Subscript) else b) not in _NEUTRAL:
            out.append(b)
    return out


@dataclass(frozen=True)
class _Mixins:
    """The classes a subclass writes before the removed method's class, with their ancestors."""

    nodes: tuple[ast.ClassDef, ...]
    names: tuple[str, ...]
    wanted: tuple[str, ...]  # files that would resolve the rest (none: all read, or not ours)
    complete: bool  # every one of them was read from the repository
    plain: bool = True  # no metaclass but ABCMeta, no class decorator, no subclass hook


def _mixins(sources: SourceFiles, path: str, side: str, node: ast.ClassDef, cls: str) -> _Mixins:
    nodes: list[ast.ClassDef] = []
    wanted: list[str] = []
    complete = True
    plain = True
    todo = [(path, side, b, 0) for b in _before(node, cls)]
    while todo:
        p, sd, base, depth = todo.pop()
        text = ast.unparse(base.value if isinstance(base, ast.Subscript) else base)
        found = resolve_class(sources, p, sd, text) if depth <= _MAX_DEPTH else []
        if isinstance(found, list):
            wanted += found
            complete = False
            continue
        bpath, bside, bdef = found
        if not isinstance(bdef.node, ast.ClassDef):
            complete = False
            continue
        nodes.append(bdef.node)
        if not (_plain(bdef.node, sources.tree(bpath, bside)) and _hierarchy_ok(bdef.node)):
            plain = False  # its metaclass or ``__init_subclass__`` runs on the subclass
        for b in bdef.node.bases:
            if ast.unparse(b.value if isinstance(b, ast.Subscript) else b) not in _NEUTRAL:
                todo.append((bpath, bside, b, depth + 1))
    names = tuple(sorted({n.name for n in nodes}))
    return _Mixins(tuple(nodes), names, tuple(wanted), complete, plain)


def _shadowing(bundle: PullRequestBundle, sources: SourceFiles, c: _Candidate) -> list[str]:
    """``path:Class`` of every direct subclass, all defining the method; [] when anything
    could let a lookup reach the removed one (or when there is no subclass)."""
    d, cls = c.method, c.before.name
    names = _names(c)
    if not all(n in bundle.references for n in names):
        return []
    f = sources.bundle.file(c.path)
    before_path = f.before_path if f is not None else c.path
    if not (
        _class_ok(sources, d, c.before, before_path, "before")
        and _class_ok(sources, d, c.after, c.path, "after")
    ):
        return []
    if not _removed_def_ok(sources, d):
        return []
    files = _files(bundle, sources, names)
    if files is None:
        return []
    found: list[str] = []
    spans: dict[str, list[tuple[str, int, int]]] = {}
    mixins: set[str] = set()
    prefixes = _prefixes(d.name)
    for path, side, tree in files:
        if not _uses_ok(tree, cls, d.name, prefixes):
            return []
        for node in _subclasses(tree, cls):
            if not _subclass_ok(sources, path, side, node, cls, d.name):
                return []
            mixins.update(_mixins(sources, path, side, node, cls).names)
            where = f"{path}:{node.name}"
            if where not in found:
                found.append(where)
            if side != "before":
                end = node.end_lineno or node.lineno
                spans.setdefault(node.name, []).append((path, node.lineno, end))
    # ``super(S, obj)`` skips S: anywhere but in S's own body it may reach the removed method;
    # ``super(M, obj)`` of a mixin written before the class (no super in its body) anywhere.
    for name in mixins - set(spans):
        spans[name] = []
    for name, where_ in spans.items():
        key = f"super({name}"
        if key not in bundle.references:
            return []
        for hit in bundle.references[key]:
            path, _, line = hit.rpartition(":")
            if not line.isdigit() or not any(
                p == path and a <= int(line) <= b for p, a, b in where_
            ):
                return []
    # The search read the head as written (``super(S``); every file read is checked too: the
    # before side of the changed files, and ``super(mod.S, ...)`` or ``super( S`` spellings.
    if any(not _explicit_supers_ok(tree) for _p, _side, tree in files):
        return []
    return sorted(found)


def _explicit_supers_ok(tree: ast.Module) -> bool:
    """``super(X, ...)`` with arguments appears only as ``super(S, ...)`` (or
    ``super(mod.S, ...)``) inside ``class S`` itself (any other start, ``type(obj)``, an alias
    or a subclass named elsewhere, may skip a subclass that defines the method)."""

    def walk(node: ast.AST, inside: str) -> bool:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                if not walk(child, child.name):
                    return False
                continue
            if (
                isinstance(child, ast.Call)
                and _is_super(child)
                and (child.args or child.keywords)
                and not (
                    child.args
                    and isinstance(child.args[0], ast.Name | ast.Attribute)
                    and _base_name(child.args[0]) == inside
                )
            ):
                # ``super(S, obj)`` skips S; so may ``super(type(obj), obj)`` or
                # ``super(alias, obj)`` with ``alias = S``: only ``super(Enclosing, ...)`` in
                # ``class Enclosing`` itself names where it starts.
                return False
            if not walk(child, inside):
                return False
        return True

    return walk(tree, "")


def _class_ok(
    sources: SourceFiles, d: Definition, node: ast.ClassDef, path: str, side: str
) -> bool:
    """The class (one side) and its ancestors let nothing inspect its namespace or reach the
    removed method through ``__class__`` or ``super(X, obj)``."""
    if not _plain(node, sources.tree(path, side)):
        return False
    own = d.node if side == "before" else None
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id == "__class__":
            return False
        if isinstance(n, ast.Name) and n.id == d.name and (own is None or not _inside(n, own)):
            return False  # ``alias = m`` keeps the function reachable
    return _hierarchy_ok(node) and _ancestors_ok(sources, path, side, node, 0, _hierarchy_ok)


def _plain(node: ast.ClassDef, tree: ast.Module | None) -> bool:
    """No class decorator but those that return the class as it is (``_IDENTITY``), no
    metaclass but ``ABCMeta``, no ``Protocol`` base."""
    if any(not _identity(tree, x) for x in node.decorator_list):
        return False
    if any(_base_name(b) == "Protocol" for b in node.bases):
        return False
    return all(k.arg == "metaclass" and ast.unparse(k.value) in _METACLASSES for k in node.keywords)


def _hierarchy_ok(node: ast.ClassDef) -> bool:
    """No subclass hook and no ``super(X, obj)`` (``super(type(self), self)`` starts at the
    subclass, and may go on to the removed method)."""
    if any(
        isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))
        and st.name in ("__init_subclass__", "__subclasshook__")
        for st in node.body
    ):
        return False
    return not any(
        isinstance(n, ast.Call) and _is_super(n) and (n.args or n.keywords) for n in ast.walk(node)
    )


def _inside(n: ast.AST, fn: ast.AST) -> bool:
    line = getattr(n, "lineno", 0)
    return getattr(fn, "lineno", 0) <= line <= (getattr(fn, "end_lineno", 0) or 0)


def _ancestors_ok(
    sources: SourceFiles,
    path: str,
    side: str,
    node: ast.ClassDef,
    depth: int,
    ok: Callable[[ast.ClassDef], bool],
) -> bool:
    """Every base class (recursively, read from the repository) is plain and passes ``ok``;
    False when one cannot be read or the hierarchy is deeper than the search goes."""
    for b in node.bases:
        text = ast.unparse(b.value if isinstance(b, ast.Subscript) else b)
        if text in _NEUTRAL:
            continue
        if depth >= _MAX_DEPTH:
            return False
        found = resolve_class(sources, path, side, text)
        if isinstance(found, list):
            return False
        bpath, bside, bdef = found
        base = bdef.node
        plain = isinstance(base, ast.ClassDef) and _plain(base, sources.tree(bpath, bside))
        if not isinstance(base, ast.ClassDef) or not plain or not ok(base):
            return False
        if not _ancestors_ok(sources, bpath, bside, base, depth + 1, ok):
            return False
    return True


def _removed_def_ok(sources: SourceFiles, d: Definition) -> bool:
    """Defining the removed method ran nothing: known decorators, literal defaults, and
    annotations that only name what the module binds."""
    fn = d.node
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    tree = sources.tree(d.path, "before")
    defs = file_index(sources, d.path, "before")
    if not all(_decorator_ok(tree, defs, x) for x in fn.decorator_list):
        return False
    a = fn.args
    for default in [*a.defaults, *(x for x in a.kw_defaults if x is not None)]:
        try:
            ast.literal_eval(default)
        except (ValueError, TypeError, SyntaxError, RecursionError):
            return False
    lazy = tree is not None and any(
        isinstance(st, ast.ImportFrom)
        and st.module == "__future__"
        and any(x.name == "annotations" for x in st.names)
        for st in tree.body
    )
    if lazy:
        return True
    params = [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
    notes = [p.annotation for p in params if p is not None and p.annotation is not None]
    notes += [fn.returns] if fn.returns is not None else []
    for note in notes:
        for n in ast.walk(note):
            if not isinstance(
                n,
                (
                    ast.Constant,
                    ast.Name,
                    ast.Attribute,
                    ast.Subscript,
                    ast.Tuple,
                    ast.List,
                    ast.BinOp,
                    ast.BitOr,
                    ast.Load,
                ),
            ):
                return False
            if isinstance(n, ast.Name) and n.id not in defs and not hasattr(builtins, n.id):
                return False
    return True


def _decorator_ok(tree: ast.Module | None, defs: dict[str, Definition], deco: ast.expr) -> bool:
    """``abstractmethod`` imported from ``abc`` (or ``abc.abstractmethod``), or a built-in
    ``property``/``staticmethod``/``classmethod`` the module does not rebind: they register
    nothing when the class is made."""
    if isinstance(deco, ast.Name) and deco.id in _BUILTIN_DECORATORS:
        return deco.id not in defs
    if isinstance(deco, ast.Name) and deco.id == "abstractmethod":
        return any(
            isinstance(st, ast.ImportFrom)
            and st.module == "abc"
            and not st.level
            and any(a.name == "abstractmethod" and not a.asname for a in st.names)
            for st in (tree.body if tree else [])
        ) and _bound_once(tree, "abstractmethod")
    if isinstance(deco, ast.Attribute) and isinstance(deco.value, ast.Name):
        return (
            deco.attr == "abstractmethod" and deco.value.id == "abc" and _plain_import(tree, "abc")
        )
    return False


def _binds(node: ast.AST, name: str) -> bool:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return any((a.asname or a.name.split(".")[0]) == name for a in node.names)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name == name
    return isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)


def _plain_import(tree: ast.Module | None, module: str) -> bool:
    """The module is bound once, by ``import module``."""
    if tree is None:
        return False
    plain = any(
        isinstance(st, ast.Import) and any(a.name == module and not a.asname for a in st.names)
        for st in tree.body
    )
    return plain and _bound_once(tree, module)


def _bound_once(tree: ast.Module | None, name: str) -> bool:
    """Nothing else in the file (at any depth) binds the name."""
    return tree is not None and sum(1 for n in ast.walk(tree) if _binds(n, name)) == 1


def _is_super(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Name) and call.func.id == "super"


def _subclass_ok(
    sources: SourceFiles, path: str, side: str, node: ast.ClassDef, cls: str, method: str
) -> bool:
    """A direct subclass defines the method in its own body, reaches the removed one through
    no ``super()``, and every base it writes before ``cls`` is a class of the repository
    (with its ancestors) that uses no ``super``."""
    if not _plain(node, sources.tree(path, side)):
        return False  # a class decorator or metaclass may delete or replace its ``method``
    if any(isinstance(n, ast.Name) and n.id in _NAMESPACE for n in ast.walk(node)):
        return False  # ``locals().pop(...)`` in the class body drops the definition
    defines = False
    for st in node.body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) and st.name == method:
            defines = True
        elif isinstance(st, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == method for t in st.targets
        ):
            defines = True
        elif (
            isinstance(st, ast.AnnAssign)
            and st.value is not None
            and isinstance(st.target, ast.Name)
            and st.target.id == method
        ):
            defines = True
        elif isinstance(st, ast.Delete):
            return False
    if not defines:
        return False
    parents = {id(c): p for p in ast.walk(node) for c in ast.iter_child_nodes(p)}
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and _is_super(n):
            up = parents.get(id(n))
            if not isinstance(up, ast.Attribute) or up.attr == method:
                return False
            if n.keywords or (
                n.args and not (isinstance(n.args[0], ast.Name) and n.args[0].id == node.name)
            ):
                return False
    if _after(node, cls):
        return False  # a base written after ``cls`` is not read: its metaclass may drop ``method``
    mixins = _mixins(sources, path, side, node, cls)
    return mixins.complete and mixins.plain and not any(_uses_super(m) for m in mixins.nodes)


def _after(node: ast.ClassDef, cls: str) -> list[ast.expr]:
    """The bases a class writes after ``cls`` (``Generic[T]``, ``object`` left out)."""
    names = [_base_name(b) for b in node.bases]
    if cls not in names:
        return []
    return [
        b
        for b in node.bases[names.index(cls) + 1 :]
        if ast.unparse(b.value if isinstance(b, ast.Subscript) else b) not in _NEUTRAL
    ]


def _uses_super(node: ast.ClassDef) -> bool:
    return any(isinstance(n, ast.Name) and n.id == "super" for n in ast.walk(node))


def _allowed(tree: ast.Module) -> set[int]:
    """Nodes of a file where a class name is no value: bases, annotations, ``isinstance``
    classes, ``__all__`` entries and docstrings."""
    keep: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            keep += [b.value if isinstance(b, ast.Subscript) else b for b in node.bases]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            params = [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
            keep += [p.annotation for p in params if p is not None and p.annotation is not None]
            keep += [node.returns] if node.returns is not None else []
        if isinstance(node, ast.AnnAssign):
            keep.append(node.annotation)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("isinstance", "issubclass")
            and len(node.args) == 2
        ):
            keep.append(node.args[1])
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            keep.append(node.value)
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and is_string_statement(body[0]):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                keep.append(body[0])
    return {id(n) for k in keep for n in ast.walk(k)}


def _uses_ok(tree: ast.Module, cls: str, method: str, prefixes: set[str]) -> bool:
    """The class is named only where it is no value, the method name is no string in code,
    and a name composed from one of its prefixes is not looked up in a class namespace."""
    allowed = _allowed(tree)
    word_cls = re.compile(rf"(?<!\w){re.escape(cls)}(?!\w)")
    word_method = re.compile(rf"(?<!\w){re.escape(method)}(?!\w)")
    composed = [re.compile(rf"(?<!\w){re.escape(p)}(?!\w)") for p in prefixes]
    composes = False
    reflects = False
    parents: dict[int, ast.AST] | None = None
    for n in ast.walk(tree):
        if isinstance(n, ast.alias) and n.name.rpartition(".")[2] == cls and n.asname:
            return False  # imported under another name: its uses are not searched
        if id(n) in allowed:
            continue
        if (isinstance(n, ast.Attribute) and n.attr in _CLASS_VALUES) or (
            isinstance(n, ast.Name) and n.id in _CLASS_VALUES
        ):
            return False  # the class reached as a value without its name
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "mro":
            return False  # ``type(x).mro()``
        if isinstance(n, ast.Delete) and any(
            isinstance(t, ast.Attribute) and t.attr == method for t in n.targets
        ):
            return False  # ``del Sub.m`` makes the lookup go on to the removed method
        if isinstance(n, ast.Name) and n.id == cls:
            return False
        if isinstance(n, ast.Attribute) and n.attr == cls:
            return False
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            if word_cls.search(n.value) or word_method.search(n.value):
                return False
            composes = composes or any(p.search(n.value) for p in composed)
        if (isinstance(n, ast.Attribute) and n.attr in _REFLECTION) or (
            isinstance(n, ast.Name) and n.id in _REFLECTION
        ):
            reflects = True
        if isinstance(n, ast.Call) and _is_super(n):
            if parents is None:
                parents = {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
            if not isinstance(parents.get(id(n)), ast.Attribute):
                reflects = True
    return not (composes and reflects)
