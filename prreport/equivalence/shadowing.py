"""The proof that a removed method was unreachable: every subclass shadows it, and nothing
reaches the class itself, its namespace, or the method through ``super()``.

before::

    class StatementVisitor(Generic[T]):
        @abstractmethod
        def visit_var(self, o): pass          # removed by the PR

    class NodeVisitor(ExpressionVisitor[T], StatementVisitor[T]):
        def visit_var(self, o): pass          # the only subclass defines it itself

after: ``StatementVisitor`` without ``visit_var`` → unchanged (``shadowed_by`` names the
subclasses that define it: the evidence).

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
from collections.abc import Callable
from dataclasses import dataclass

from prreport.bundle import PullRequestBundle
from prreport.python.definitions import Definition, definition_changes, file_index
from prreport.python.hierarchy import (
    NEUTRAL_BASES,
    base_name,
    bases_after,
    direct_subclasses,
    find_in_bases,
    mixins_before,
    resolve_class,
)
from prreport.python.importtime import defining_runs_nothing, identity_decorator
from prreport.python.references import searched_trees
from prreport.python.reflection import class_never_a_value, is_super_call, supers_start_at_home
from prreport.python.sources import SourceFiles

_METACLASSES = frozenset({"ABCMeta", "abc.ABCMeta"})
# What can drop a subclass's own definition from its namespace while it is built.
_NAMESPACE = frozenset({"locals", "vars", "exec", "eval"})
_MAX_DEPTH = 4


@dataclass(frozen=True)
class Candidate:
    """A method removed from a class that survives, with the class on both sides."""

    method: Definition  # before side
    before: ast.ClassDef
    after: ast.ClassDef
    path: str  # after path


def candidates(sources: SourceFiles) -> list[Candidate]:
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
        out.append(Candidate(d, before, after, f.path))
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


def search_names(c: Candidate) -> set[str]:
    """The names the repository search must find every use of: the class, the method, and the
    prefixes a run-time name could be composed from."""
    return {c.before.name, c.method.name, *_prefixes(c.method.name)}


def subclass_context(
    bundle: PullRequestBundle, sources: SourceFiles, cands: list[Candidate]
) -> tuple[frozenset[str], frozenset[str]]:
    """Once the first search is in: the files that would resolve the bases each subclass writes
    before the class, and the ``super(Sub`` searches for every subclass and such base found."""
    wanted: set[str] = set()
    supers: set[str] = set()
    for c in cands:
        if not all(n in bundle.references for n in search_names(c)):
            continue
        files = searched_trees(bundle, sources, search_names(c))
        for path, side, tree in files or ():
            for node in direct_subclasses(tree, c.before.name):
                supers.add(f"super({node.name}")
                mixins = mixins_before(sources, path, side, node, c.before.name)
                wanted |= set(mixins.wanted)
                supers |= {f"super({n}" for n in mixins.names}
    return frozenset(wanted), frozenset(supers)


def shadowed_by(bundle: PullRequestBundle, sources: SourceFiles, c: Candidate) -> list[str]:
    """``path:Class`` of every direct subclass, all defining the method; [] when anything
    could let a lookup reach the removed one (or when there is no subclass)."""
    d, cls = c.method, c.before.name
    names = search_names(c)
    if not all(n in bundle.references for n in names):
        return []
    f = sources.bundle.file(c.path)
    before_path = f.before_path if f is not None else c.path
    if not (
        _class_ok(sources, d, c.before, before_path, "before")
        and _class_ok(sources, d, c.after, c.path, "after")
    ):
        return []
    if not defining_runs_nothing(sources, d):
        return []
    files = searched_trees(bundle, sources, names)
    if files is None:
        return []
    found: list[str] = []
    spans: dict[str, list[tuple[str, int, int]]] = {}
    mixins: set[str] = set()
    prefixes = _prefixes(d.name)
    for path, side, tree in files:
        if not class_never_a_value(tree, cls, d.name, prefixes):
            return []
        for node in direct_subclasses(tree, cls):
            if not _subclass_ok(sources, path, side, node, cls, d.name):
                return []
            mixins.update(mixins_before(sources, path, side, node, cls).names)
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
    if any(not supers_start_at_home(tree) for _p, _side, tree in files):
        return []
    return sorted(found)


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
    if any(not identity_decorator(tree, x) for x in node.decorator_list):
        return False
    if any(base_name(b) == "Protocol" for b in node.bases):
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
        isinstance(n, ast.Call) and is_super_call(n) and (n.args or n.keywords)
        for n in ast.walk(node)
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
        if text in NEUTRAL_BASES:
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
        if isinstance(n, ast.Call) and is_super_call(n):
            up = parents.get(id(n))
            if not isinstance(up, ast.Attribute) or up.attr == method:
                return False
            if n.keywords or (
                n.args and not (isinstance(n.args[0], ast.Name) and n.args[0].id == node.name)
            ):
                return False
    if bases_after(node, cls):
        return False  # a base written after ``cls`` is not read: its metaclass may drop ``method``
    mixins = mixins_before(sources, path, side, node, cls)
    # A metaclass or ``__init_subclass__`` of one of them runs on the subclass.
    plain = all(_plain(n, sources.tree(p, s)) and _hierarchy_ok(n) for p, s, n in mixins.classes)
    return mixins.complete and plain and not any(_uses_super(n) for _p, _s, n in mixins.classes)


def _uses_super(node: ast.ClassDef) -> bool:
    return any(isinstance(n, ast.Name) and n.id == "super" for n in ast.walk(node))
