"""Import statements paired across a change: which binding left one scope or file and appeared in another.

``import_moves`` matches the import bindings of the before and after trees (same object, any
spelling) and tells what each pair did (hoisted, sunk, moved, carried with moved code); the
import analyzers, the guard and loop analyzers and the cycle walk read the pairs."""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any

from prreport.bundle import FileChange, PullRequestBundle
from prreport.python.importobjects import ImportObjects
from prreport.python.lazyimports import NAME, lazy_modules, package_of, qualified
from prreport.python.modules import ModuleIndex, PathIndex, module_index
from prreport.python.scopeindex import ImportBinding, ScopeIndex, scope_index
from prreport.python.sources import SourceFiles
from prreport.textlines import split_lines


@dataclass(frozen=True)
class ImportMove:
    """One relocated, added or removed import binding."""

    # hoisted | sunk | moved | reguarded (same scope, other guards) | added | removed
    # | made-lazy / made-eager (same scope and guards, PEP 810 ``lazy`` added or dropped)
    # | stayed (same scope and guards: no finding)
    kind: str
    path: str  # the file of the after binding (of the before binding for ``removed``)
    before: ImportBinding | None
    after: ImportBinding | None
    merged_into_existing: bool = False
    already_bound: bool = False  # hoisted onto a module-level import that existed before
    before_path: str | None = None  # the (after) path of the source file of a cross-file move
    # A respelled move: every binding of the other spelling that loads the same object
    # (``from pkg import mod`` in a function -> ``from pkg.mod import a, b`` at module level).
    respelled: tuple[ImportBinding, ...] = ()
    # made-lazy: "keyword" (``lazy import``) or "__lazy_modules__" (listed there, 3.15 only)
    via: str = ""

    @property
    def local(self) -> ImportBinding | None:
        """The function-local side of a hoist or sink (the binding that moved)."""
        if self.kind == "hoisted":
            return self.before
        if self.kind == "sunk":
            return self.after
        return self.after or self.before


def _runtime_module(b: ImportBinding) -> bool:
    """Bound in the module namespace when the module runs (not only under TYPE_CHECKING)."""
    return b.at_module_level and not b.type_checking


Ident = Callable[[ImportBinding], tuple[Any, ...]]


def _identity(path: str, paths: PathIndex | None) -> Ident:
    """The position-independent identity of a binding of file ``path``.

    ``from .x import y`` and ``from pkg.x import y`` are the same binding.
    """

    def ident(b: ImportBinding) -> tuple[Any, ...]:
        if paths is not None and b.is_from:
            target = paths.module_path(b.module.lstrip("."), path, b.level)
            if target is not None:
                return (target, b.name, b.alias)
        return b.key

    return ident


def _pair_key(
    path: str,
    rb: list[ImportBinding],
    ra: list[ImportBinding],
    merged: Callable[[ImportBinding], bool],
) -> list[ImportMove]:
    """Moves of the before/after bindings of one identity in one file."""
    moves: list[ImportMove] = []
    stayed: list[ImportBinding] = []
    # Same scope and same guard chain: the binding stayed (perhaps on another line).
    for b in list(rb):
        same = next(
            (a for a in ra if a.scope == b.scope and a.context_key() == b.context_key()), None
        )
        if same is not None:
            rb.remove(b)
            ra.remove(same)
            stayed.append(same)
            if same.lazy != b.lazy and same.at_module_level:
                kind = "made-lazy" if same.lazy else "made-eager"
                moves.append(ImportMove(kind, path, b, same, via="keyword" if same.lazy else ""))
            else:
                moves.append(ImportMove("stayed", path, b, same))
    # Hoisted: a function-local import is now bound at module level (new there, or already).
    fresh = [a for a in ra if _runtime_module(a)]
    kept = [a for a in stayed if _runtime_module(a)]
    for b in [b for b in rb if not b.at_module_level and not b.type_checking]:
        if fresh:
            moves.append(ImportMove("hoisted", path, b, fresh[0], merged(fresh[0])))
        elif kept:
            moves.append(ImportMove("hoisted", path, b, kept[0], False, already_bound=True))
        else:
            continue
        rb.remove(b)
    if fresh and any(m.after is fresh[0] for m in moves):
        ra.remove(fresh[0])
    # Sunk: a module-level import gone from the module namespace, now function-local.
    gone = [b for b in rb if _runtime_module(b)]
    local = [a for a in ra if not a.at_module_level and not a.type_checking]
    if gone and local and not any(_runtime_module(a) for a in ra) and not kept:
        for a in local:
            moves.append(ImportMove("sunk", path, gone[0], a))
            ra.remove(a)
        rb.remove(gone[0])
    # Anything else that changed scope or guards is a move (runtime to runtime, TYPE_CHECKING
    # to TYPE_CHECKING); what is left is a new or a dropped dependency.
    for tc in (False, True):
        left_b = [b for b in rb if b.type_checking == tc]
        left_a = [a for a in ra if a.type_checking == tc]
        for b, a in zip(left_b, left_a, strict=False):
            # same scope, other guards (``if sys.version_info ...:`` dropped): not a relocation
            kind = "reguarded" if a.scope == b.scope else "moved"
            moves.append(ImportMove(kind, path, b, a, merged(a)))
        for b in left_b[len(left_a) :]:
            moves.append(ImportMove("removed", path, b, None))
        for a in left_a[len(left_b) :]:
            moves.append(ImportMove("added", path, None, a, merged(a)))
    return moves


def _match_file(
    path: str,
    bx: ScopeIndex | None,
    ax: ScopeIndex | None,
    paths: PathIndex | None = None,
    objects: ImportObjects | None = None,
) -> list[ImportMove]:
    before = list(bx.imports) if bx else []
    after = list(ax.imports) if ax else []
    ident = _identity(path, paths)
    by_b: dict[tuple[Any, ...], list[ImportBinding]] = {}
    by_a: dict[tuple[Any, ...], list[ImportBinding]] = {}
    for b in before:
        by_b.setdefault(ident(b), []).append(b)
    for a in after:
        by_a.setdefault(ident(a), []).append(a)
    before_module_keys = {ident(b) for b in before if b.at_module_level and b.is_from}
    after_stmt_keys: dict[tuple[str, int], set[tuple[Any, ...]]] = {}
    for a in after:
        after_stmt_keys.setdefault(a.statement, set()).add(ident(a))

    def merged(a: ImportBinding) -> bool:
        others = after_stmt_keys[a.statement] - {ident(a)}
        return a.is_from and a.at_module_level and bool(others & before_module_keys)

    moves: list[ImportMove] = []
    for key in sorted(set(by_b) | set(by_a), key=repr):
        moves += _pair_key(path, list(by_b.get(key, ())), list(by_a.get(key, ())), merged)
    if objects is not None:
        moves = _respell(path, moves, ax, objects, merged)
    return moves


def _respell(
    path: str,
    moves: list[ImportMove],
    ax: ScopeIndex | None,
    objects: ImportObjects,
    merged: Callable[[ImportBinding], bool],
) -> list[ImportMove]:
    """Dropped and new bindings of one file that are one import spelled two ways.

    ``from pkg import mod`` in a method and ``from pkg.mod import f, g`` at module level load
    the same module: a hoist; the reverse is a sink. So are ``from a import f`` and
    ``from b import f`` when one module re-exports the other's ``f`` (or ``f`` moved there).
    """
    runtime = [m for m in moves if m.kind in ("removed", "added")]
    removed = [
        m for m in runtime if m.kind == "removed" and m.before and not m.before.type_checking
    ]
    added = [m for m in runtime if m.kind == "added" and m.after and not m.after.type_checking]
    if not removed or not added:
        return moves
    gone: set[int] = set()
    out: list[ImportMove] = []
    after_module = [a for a in (ax.imports if ax else ()) if _runtime_module(a)]
    new_ids = {id(m.after) for m in added}
    # hoists: a function-local binding dropped, the same object bound at module level
    for r in removed:
        b = r.before
        assert b is not None
        if b.at_module_level:
            continue
        group = [a for a in after_module if objects.same(b, path, a, path)]
        if not group:
            continue
        fresh = [a for a in group if id(a) in new_ids]
        target = (fresh or group)[0]
        out.append(
            ImportMove(
                "hoisted",
                path,
                b,
                target,
                merged(target) if fresh else False,
                already_bound=not fresh,
                respelled=tuple(group),
            )
        )
        gone.add(id(r))
        fresh_ids = {id(a) for a in fresh}
        gone.update(id(m) for m in added if id(m.after) in fresh_ids)
    # sinks: module-level bindings dropped, the same object imported inside functions
    left_removed = [r for r in removed if id(r) not in gone and r.before.at_module_level]  # type: ignore[union-attr]
    for m in added:
        a = m.after
        assert a is not None
        if id(m) in gone or a.at_module_level:
            continue
        sources_ = [r for r in left_removed if objects.same(r.before, path, a, path)]  # type: ignore[arg-type]
        if not sources_:
            continue
        if any(objects.same(x, path, a, path) for x in after_module):
            continue  # still loaded at module level: not lazy
        first = sources_[0].before
        assert first is not None
        out.append(
            ImportMove(
                "sunk", path, first, a, respelled=tuple(r.before for r in sources_ if r.before)
            )
        )
        gone.add(id(m))
        gone.update(id(r) for r in sources_)
    if not out:
        return moves
    return [m for m in moves if id(m) not in gone] + out


_COMMENT = re.compile(r"#.*$")


_SAME_CODE = 0.75  # difflib ratio of a line that moved with small edits


def _code_lines(
    sources: SourceFiles, f: FileChange, side: str, name: str, skip: Iterable[int]
) -> set[str]:
    """Changed lines of one side of ``f`` (other than ``skip``) naming ``name``, normalised."""
    text = f.before if side == "before" else f.after
    if not text:
        return set()
    changed = sources.changed(f)
    numbers = set(changed.removed if side == "before" else changed.added) - set(skip)
    lines = side_lines(sources, f, side)
    word = re.compile(rf"(?<![\w.]){re.escape(name)}\b")
    out = set()
    for n in numbers:
        if 0 < n <= len(lines):
            code = " ".join(_COMMENT.sub("", lines[n - 1]).split()).rstrip(",")
            if word.search(code):
                out.add(code)
    return out


def _code_statements(sources: SourceFiles, f: FileChange, side: str, name: str) -> set[str]:
    """Simple statements on changed lines of one side of ``f`` that use ``name``, printed alike
    (a call wrapped over several lines is the statement it was on one)."""
    tree = sources.tree(f.before_path if side == "before" else f.path, side)
    if tree is None:
        return set()
    changed = sources.changed(f)
    numbers = set(changed.removed if side == "before" else changed.added)
    root = name.split(".")[0]
    return {
        ast.unparse(st)
        for st in ast.walk(tree)
        if isinstance(st, ast.stmt)
        and not hasattr(st, "body")
        and any(n in numbers for n in range(st.lineno, (st.end_lineno or st.lineno) + 1))
        and any(isinstance(x, ast.Name) and x.id == root for x in ast.walk(st))
    }


def _moved_with_code(
    sources: SourceFiles, src: FileChange, b: ImportBinding, dst: FileChange, a: ImportBinding
) -> bool:
    """Some line using the name left ``src`` and arrived, the same up to layout, in ``dst``."""
    gone = _code_lines(sources, src, "before", b.bound, range(b.stmt_line, b.stmt_end_line + 1))
    if not gone:
        return False
    came = _code_lines(sources, dst, "after", a.bound, range(a.stmt_line, a.stmt_end_line + 1))
    if gone & came:
        return True
    if _code_statements(sources, src, "before", b.bound) & _code_statements(
        sources, dst, "after", a.bound
    ):
        return True
    # moved with small edits (``"k": f(x),`` -> ``return f(x)``): mostly the same text
    return any(
        difflib.SequenceMatcher(None, g, c).ratio() >= _SAME_CODE for g in gone for c in came
    )


def _cross_ident(b: ImportBinding, path: str, paths: PathIndex | None) -> tuple[Any, ...] | None:
    """Identity of a binding across files (relative imports resolved), None when unresolvable."""
    if b.is_from and b.level:
        target = paths.module_path(b.module.lstrip("."), path, b.level) if paths else None
        return None if target is None else (target, b.name, b.alias)
    if b.is_from and paths is not None:
        target = paths.module_path(b.module, path, 0)
        if target is not None:
            return (target, b.name, b.alias)
    return b.key


def _cross_file(
    moves: list[ImportMove],
    bundle: PullRequestBundle,
    sources: SourceFiles,
    paths: PathIndex | None,
) -> list[ImportMove]:
    """A binding dropped from one file and added to another, with the code that uses it: a move.

    Some line naming it must leave the source file and arrive, equal up to layout, in the
    destination; otherwise one file lost a dependency and another gained one.
    """
    removed = [m for m in moves if m.kind == "removed" and m.before is not None]
    added = [m for m in moves if m.kind == "added" and m.after is not None]
    if not removed or not added:
        return moves
    files = {f.path: f for f in sources.python_files()}
    rid = {id(r): _cross_ident(r.before, files[r.path].before_path, paths) for r in removed}  # type: ignore[arg-type]
    taken: set[int] = set()
    out: list[ImportMove] = []
    for m in added:
        a = m.after
        assert a is not None
        ident = _cross_ident(a, m.path, paths)
        if ident is None:
            out.append(m)
            continue
        # Code from several files merged into one (methods hoisted into a shared base class):
        # the one import there is where each of their imports went.
        srcs = [
            r
            for r in removed
            if id(r) not in taken
            and r.path != m.path
            and rid[id(r)] == ident
            and r.before is not None
            and r.before.type_checking == a.type_checking
            and _moved_with_code(sources, files[r.path], r.before, files[m.path], a)
        ]
        if not srcs:
            out.append(m)
            continue
        for src in srcs:
            taken.add(id(src))
            out.append(
                ImportMove(
                    "moved", m.path, src.before, a, m.merged_into_existing, before_path=src.path
                )
            )
    return [m for m in moves if m.kind != "added" and id(m) not in taken] + out


def import_moves(bundle: PullRequestBundle, sources: SourceFiles) -> list[ImportMove]:
    """Every import move of the changed Python files (memoised; shared with other analyzers)."""

    def build() -> list[ImportMove]:
        moves: list[ImportMove] = []
        paths = PathIndex(bundle.head_paths) if bundle.head_paths else None
        objects = ImportObjects(bundle, sources, paths)
        modules = partial(module_index, sources, ())  # only for a file with __lazy_modules__
        for f in sources.python_files():
            bx = scope_index(sources, f.before_path, "before") if f.before is not None else None
            ax = scope_index(sources, f.path, "after") if f.after is not None else None
            if (f.before is not None and bx is None) or (f.after is not None and ax is None):
                continue  # unparseable side: the parser diagnostic says so
            found = _match_file(f.path, bx, ax, paths, objects)
            moves.extend(_listed_lazy(sources, f, found, modules))
        return _cross_file(moves, bundle, sources, paths)

    return sources.memo("", "", "import-moves", build)


def _listed_lazy(
    sources: SourceFiles, f: FileChange, moves: list[ImportMove], modules: Callable[[], ModuleIndex]
) -> list[ImportMove]:
    """Module-level imports a new ``__lazy_modules__`` lists: made lazy on Python 3.15; those it
    no longer lists (or a listing removed): made eager there again.

    Python checks each import statement's fully qualified module name against the container;
    an import in a ``try`` statement (or only under ``TYPE_CHECKING``) is never lazy."""
    tree = sources.tree(f.path, "after") if f.after is not None else None
    old = sources.tree(f.before_path, "before") if f.before is not None else None
    if tree is None or not any(_assigns_listing(st) for t in (tree, old) if t for st in t.body):
        return moves
    importer = modules().module_of(f.path) or ""
    package = f.path.endswith("__init__.py")
    own = package_of(importer, f.path)
    after = lazy_modules(tree, own)
    before = lazy_modules(old, own)
    if after is None and (before is None or any(_assigns_listing(st) for st in tree.body)):
        return moves  # a listing that is not a literal: what it holds is unknown
    had = before.names if before is not None else frozenset()
    has = after.names if after is not None else frozenset()
    out = []
    for m in moves:
        a = m.after
        if (
            m.kind == "stayed"
            and a is not None
            and a.at_module_level
            and not a.lazy
            and not a.type_checking
            and not any(g.kind in ("try", "except") for g in a.context)
            and (a.level == 0 or importer)
        ):
            name = qualified(a.module.lstrip("."), a.level, importer, package)
            if name in has and name not in had:
                m = ImportMove("made-lazy", m.path, m.before, a, via=NAME)
            elif name in had and name not in has:
                m = ImportMove("made-eager", m.path, m.before, a, via=NAME)
        out.append(m)
    return out


def _assigns_listing(st: ast.stmt) -> bool:
    targets = st.targets if isinstance(st, ast.Assign) else [getattr(st, "target", None)]
    return any(isinstance(t, ast.Name) and t.id == NAME for t in targets)


def side_lines(sources: SourceFiles, f: FileChange, side: str) -> list[str]:
    """Lines of one side (``before``/``after``) of a changed file, split once per side (not once
    per import); the import analyzer reads the same lists."""
    text = f.before if side == "before" else f.after
    lines: list[str] = sources.memo(f.path, side, "lines", lambda: split_lines(text or ""))
    return lines
