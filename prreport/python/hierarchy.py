"""Class hierarchy of the repository: the classes a name resolves to, the definition a base class
supplies for a method, and the subclasses that override one."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

from prreport.bundle import PullRequestBundle
from prreport.python.definitions import (
    Definition,
    file_index,
    index,
    module_of,
)
from prreport.python.sources import SourceFiles

_MAX_DEPTH = 4


@dataclass(frozen=True)
class _Lookup:
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


def _import_of(tree: ast.Module | None, name: str, path: str, sources: SourceFiles) -> str | None:
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
) -> _Lookup:
    """Search the bases of ``cls`` (same file, then imported modules) for ``method``."""
    unresolved: list[str] = []
    wanted: list[str] = []
    for i, base in enumerate(_real_bases(cls)):
        found = _resolve_class(sources, path, side, base)
        if isinstance(found, list):
            unresolved.append(base)
            wanted += found
            continue
        bpath, bside, bcls = found
        hit = (
            file_index(sources, bpath, bside).get(f"{bcls.qualname}.{method}")
            if bside != "head"
            else _head_index(sources, bpath).get(f"{bcls.qualname}.{method}")
        )
        if hit is not None:
            # A depth-first hit past the first base may not be what the C3 MRO picks (diamonds).
            return _Lookup(hit, bpath, tuple(unresolved), tuple(wanted), i == 0)
        if depth < _MAX_DEPTH:
            deeper = find_in_bases(sources, bpath, bside, bcls, method, depth + 1)
            if deeper.base is not None:
                single = len(_real_bases(cls)) == 1
                return _Lookup(
                    deeper.base,
                    deeper.base_path,
                    deeper.unresolved,
                    deeper.wanted,
                    deeper.linear and single,
                )
            unresolved += deeper.unresolved
            wanted += deeper.wanted
    return _Lookup(None, "", tuple(unresolved), tuple(wanted))


def _head_index(sources: SourceFiles, path: str) -> dict[str, Definition]:
    return sources.memo(
        path,
        "head",
        "defs",
        lambda: index(path, sources.tree(path, "head"), sources.text(path, "head")),
    )


def _resolve_class(
    sources: SourceFiles, path: str, side: str, base: str
) -> tuple[str, str, Definition] | list[str]:
    """(path, side, class) of a base name, or the files that would have to be fetched."""
    defs = file_index(sources, path, side) if side != "head" else _head_index(sources, path)
    head, _, last = base.rpartition(".")
    local = defs.get(base)
    if local is not None and local.kind == "class":
        return path, side, local
    tree = sources.tree(path, side)
    module = _import_of(tree, last, path, sources) if not head else head
    if module is None and head:
        module = head
    if module is None:
        return []
    files = _candidates(module, sources.bundle.head_paths)
    for p in files:
        if sources.text(p, "head") is not None:
            d = _head_index(sources, p).get(last)
            if d is not None and d.kind == "class":
                return p, "head", d
            # A package re-exporting the class: follow one more import.
            sub = _import_of(sources.tree(p, "head"), last, p, sources)
            for q in _candidates(sub, sources.bundle.head_paths) if sub else []:
                if sources.text(q, "head") is not None:
                    d = _head_index(sources, q).get(last)
                    if d is not None and d.kind == "class":
                        return q, "head", d
                else:
                    return [q]
    return [p for p in files if sources.text(p, "head") is None] or []


def resolve_class(
    sources: SourceFiles, path: str, side: str, base: str
) -> tuple[str, str, Definition] | list[str]:
    """(path, side, class) of a class name as a file side writes it (``C``, ``mod.C``), or
    the files that would have to be fetched to read it ([] when it is not in the repository)."""
    return _resolve_class(sources, path, side, base)


@dataclass(frozen=True)
class _Subclasses:
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
    subs = _subclasses(bundle, sources, cls, method)
    return subs.overriding if subs is not None else ()


def _subclasses(
    bundle: PullRequestBundle, sources: SourceFiles, cls: Definition, method: str
) -> _Subclasses | None:
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
    return _Subclasses(tuple(overriding), tuple(relying), instantiated)
