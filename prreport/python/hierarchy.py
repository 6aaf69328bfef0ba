"""Class hierarchy of the repository: the classes a name resolves to, the definition a base class
supplies for a method, the subclasses that override one, and the bases a subclass writes
before a class (the mixins an MRO may put between them)."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from prreport.bundle import PullRequestBundle
from prreport.python.definitions import Definition, file_index, module_of
from prreport.python.sources import SourceFiles

_MAX_DEPTH = 4


@dataclass(frozen=True)
class Lookup:
    """Where a method was found along the base classes, and what could not be resolved."""

    base: Definition | None  # the base-class method
    base_path: str
    unresolved: tuple[str, ...]  # bases whose source is not available
    wanted: tuple[str, ...]  # files that would resolve them
    # Found where the C3 MRO must look first too: in the first base, or along single inheritance.
    linear: bool = True


def _candidates(module: str, head_paths: Iterable[str]) -> list[str]:
    """Files at head that may hold a dotted module (source roots such as ``python/`` allowed)."""
    rel = module.replace(".", "/")
    wanted = (f"{rel}.py", f"{rel}/__init__.py")
    return sorted(
        p for p in head_paths if p in wanted or p.endswith(tuple("/" + w for w in wanted))
    )


def imported_from(
    tree: ast.Module | None, name: str, path: str, sources: SourceFiles
) -> str | None:
    """Dotted module a module-level ``from X import name`` binds ``name`` from."""
    for st in tree.body if tree else []:
        if isinstance(st, ast.ImportFrom):
            for a in st.names:
                if (a.asname or a.name) == name:
                    if st.level:
                        pkg = module_of(path, sources).split(".")
                        pkg = (
                            pkg[: len(pkg) - st.level]
                            if not path.endswith("__init__.py")
                            else pkg[: len(pkg) - st.level + 1]
                        )
                        return ".".join([*pkg, st.module] if st.module else pkg)
                    return st.module
    return None


def _real_bases(cls: Definition) -> list[str]:
    """Bases that may define methods (``object``, ``ABC``, ``Generic[...]`` left out), without
    their type arguments (``BaseReporter[R, C, str]`` is the class ``BaseReporter``)."""
    names = [b.partition("[")[0].strip() for b in cls.bases]
    return [
        b
        for b in names
        if b not in ("object", "ABC", "abc.ABC", "Generic", "Protocol", "typing.Generic")
    ]


def find_in_bases(
    sources: SourceFiles, path: str, side: str, cls: Definition, method: str, depth: int = 0
) -> Lookup:
    """Search the bases of ``cls`` (same file, then imported modules) for ``method``."""
    unresolved: list[str] = []
    wanted: list[str] = []
    for i, base in enumerate(_real_bases(cls)):
        found = resolve_class(sources, path, side, base)
        if isinstance(found, list):
            unresolved.append(base)
            wanted += found
            continue
        bpath, bside, bcls = found
        hit = file_index(sources, bpath, bside).get(f"{bcls.qualname}.{method}")
        if hit is not None:
            # A depth-first hit past the first base may not be what the C3 MRO picks (diamonds).
            return Lookup(hit, bpath, tuple(unresolved), tuple(wanted), i == 0)
        if depth < _MAX_DEPTH:
            deeper = find_in_bases(sources, bpath, bside, bcls, method, depth + 1)
            if deeper.base is not None:
                single = len(_real_bases(cls)) == 1
                return Lookup(
                    deeper.base,
                    deeper.base_path,
                    deeper.unresolved,
                    deeper.wanted,
                    deeper.linear and single,
                )
            unresolved += deeper.unresolved
            wanted += deeper.wanted
    return Lookup(None, "", tuple(unresolved), tuple(wanted))


def resolve_class(
    sources: SourceFiles, path: str, side: str, base: str
) -> tuple[str, str, Definition] | list[str]:
    """(path, side, class) of a class name as a file side writes it (``C``, ``mod.C``), or
    the files that would have to be fetched to read it ([] when it is not in the repository)."""
    defs = file_index(sources, path, side)
    head, _, last = base.rpartition(".")
    local = defs.get(base)
    if local is not None and local.kind == "class":
        return path, side, local
    tree = sources.tree(path, side)
    module = imported_from(tree, last, path, sources) if not head else head
    if module is None and head:
        module = head
    if module is None:
        return []
    files = _candidates(module, sources.bundle.head_paths)
    for p in files:
        if sources.text(p, "head") is not None:
            d = file_index(sources, p, "head").get(last)
            if d is not None and d.kind == "class":
                return p, "head", d
            # A package re-exporting the class: follow one more import.
            sub = imported_from(sources.tree(p, "head"), last, p, sources)
            for q in _candidates(sub, sources.bundle.head_paths) if sub else []:
                if sources.text(q, "head") is not None:
                    d = file_index(sources, q, "head").get(last)
                    if d is not None and d.kind == "class":
                        return q, "head", d
                else:
                    return [q]
    return [p for p in files if sources.text(p, "head") is None] or []


@dataclass(frozen=True)
class Subclasses:
    """Direct subclasses of a class in the repository, by how they treat one method."""

    overriding: tuple[str, ...]  # define it themselves, without calling super()'s
    relying: tuple[str, ...]  # inherit it, or call super().method()
    instantiated: bool  # the class itself is called somewhere (its own body would run)


def _calls_super(fn: ast.AST, method: str) -> bool:
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == method
        and isinstance(n.func.value, ast.Call)
        and isinstance(n.func.value.func, ast.Name)
        and n.func.value.func.id == "super"
        for n in ast.walk(fn)
    )


def overriding_subclasses(
    bundle: PullRequestBundle, sources: SourceFiles, cls: Definition, method: str
) -> tuple[str, ...]:
    """``path:Class`` of the direct subclasses of ``cls`` that define ``method`` without
    calling ``super()``'s (none found when the repository could not be searched)."""
    subs = subclasses_of(bundle, sources, cls, method)
    return subs.overriding if subs is not None else ()


def subclasses_of(
    bundle: PullRequestBundle, sources: SourceFiles, cls: Definition, method: str
) -> Subclasses | None:
    """Direct subclasses of ``cls`` in the changed files (after) and the files the repository
    search found it in; None when the repository could not be searched."""
    if bundle.reference_scope != "repository":
        return None
    hits = {h.rsplit(":", 1)[0] for h in bundle.references.get(cls.name, ())}
    paths = {(f.path, "after") for f in sources.python_files() if f.after is not None}
    paths |= {(p, "head") for p in hits if p.endswith(".py") and bundle.file(p) is None}
    overriding, relying = [], []
    instantiated = False
    for path, side in sorted(paths):
        tree = sources.tree(path, side)
        if tree is None:
            if path in hits:
                return None  # a file that mentions the class could not be read
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and any(
                ast.unparse(b).partition("[")[0].rsplit(".", 1)[-1] == cls.name for b in node.bases
            ):
                own = next(
                    (
                        st
                        for st in node.body
                        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))
                        and st.name == method
                    ),
                    None,
                )
                where = f"{path}:{node.name}"
                if own is None or _calls_super(own, method):
                    relying.append(where)
                else:
                    overriding.append(where)
            elif isinstance(node, ast.Call):
                func = ast.unparse(node.func).split(".")
                if func[-1] == cls.name:
                    instantiated = True
                elif func[-2:] == [cls.name, method]:
                    # ``Common.method(self)``: the dropped body called by name.
                    relying.append(f"{path}:{ast.unparse(node.func)}")
    return Subclasses(tuple(overriding), tuple(relying), instantiated)


# Bases that define no method a subclass could lose (``Protocol`` is no such base).
NEUTRAL_BASES = frozenset({"object", "Generic", "typing.Generic", "ABC", "abc.ABC"})


def base_name(expr: ast.expr) -> str:
    """``C`` for a base written ``C``, ``mod.C``, ``C[T]`` or ``mod.C[T]``."""
    if isinstance(expr, ast.Subscript):
        expr = expr.value
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return ""


def _written(base: ast.expr) -> str:
    """A base as written, without its type arguments (``mod.C`` for ``mod.C[T]``)."""
    return ast.unparse(base.value if isinstance(base, ast.Subscript) else base)


def direct_subclasses(tree: ast.Module, cls: str) -> Iterator[ast.ClassDef]:
    """Classes of a file (at any depth) with ``cls`` among their bases."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(base_name(b) == cls for b in node.bases):
            yield node


def bases_before(node: ast.ClassDef, cls: str) -> list[ast.expr]:
    """The bases a class writes before ``cls`` (``Generic[T]``, ``object`` left out)."""
    out = []
    for b in node.bases:
        if base_name(b) == cls:
            break
        if _written(b) not in NEUTRAL_BASES:
            out.append(b)
    return out


def bases_after(node: ast.ClassDef, cls: str) -> list[ast.expr]:
    """The bases a class writes after ``cls`` (``Generic[T]``, ``object`` left out)."""
    names = [base_name(b) for b in node.bases]
    if cls not in names:
        return []
    return [b for b in node.bases[names.index(cls) + 1 :] if _written(b) not in NEUTRAL_BASES]


@dataclass(frozen=True)
class Mixins:
    """The classes a subclass writes before a class among its bases, with their ancestors."""

    classes: tuple[tuple[str, str, ast.ClassDef], ...]  # (path, side, class) of each one read
    wanted: tuple[str, ...]  # files that would resolve the rest (none: all read, or not ours)
    complete: bool  # every one of them was read from the repository

    @property
    def names(self) -> tuple[str, ...]:
        """Their class names, sorted, once each."""
        return tuple(sorted({n.name for _p, _s, n in self.classes}))


def mixins_before(
    sources: SourceFiles, path: str, side: str, node: ast.ClassDef, cls: str
) -> Mixins:
    """What an MRO may put between the subclass ``node`` and ``cls``: the bases it writes before
    ``cls`` and their ancestors (up to ``_MAX_DEPTH`` deep), read from the repository."""
    classes: list[tuple[str, str, ast.ClassDef]] = []
    wanted: list[str] = []
    complete = True
    todo = [(path, side, b, 0) for b in bases_before(node, cls)]
    while todo:
        p, sd, base, depth = todo.pop()
        found = resolve_class(sources, p, sd, _written(base)) if depth <= _MAX_DEPTH else []
        if isinstance(found, list):
            wanted += found
            complete = False
            continue
        bpath, bside, bdef = found
        if not isinstance(bdef.node, ast.ClassDef):
            complete = False
            continue
        classes.append((bpath, bside, bdef.node))
        for b in bdef.node.bases:
            if _written(b) not in NEUTRAL_BASES:
                todo.append((bpath, bside, b, depth + 1))
    return Mixins(tuple(classes), tuple(wanted), complete)
