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
from typing import Any

from prreport.bundle import FileChange, PullRequestBundle
from prreport.python.scopes import ImportBinding, PathIndex, ScopeIndex, index
from prreport.python.sources import SourceFiles
from prreport.textlines import split_lines


@dataclass(frozen=True)
class ImportMove:
    """One relocated, added or removed import binding."""

    # hoisted | sunk | moved | reguarded (same scope, other guards) | added | removed
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

    @property
    def local(self) -> ImportBinding | None:
        """The function-local side of a hoist or sink (the binding that moved)."""
        if self.kind == "hoisted":
            return self.before
        if self.kind == "sunk":
            return self.after
        return self.after or self.before


def scope_index(sources: SourceFiles, path: str, side: str) -> ScopeIndex | None:
    """The (memoised) scope index of a file side, or None when absent or unparseable."""

    def build() -> ScopeIndex | None:
        tree = sources.tree(path, side)
        text = sources.text(path, side)
        return None if tree is None or text is None else index(tree, text)

    return sources.memo(path, side, "pyscope", build)


def _stmt_id(b: ImportBinding) -> tuple[str, int]:
    return (b.scope, b.stmt_line)


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
    objects: _Objects | None = None,
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
        after_stmt_keys.setdefault(_stmt_id(a), set()).add(ident(a))

    def merged(a: ImportBinding) -> bool:
        others = after_stmt_keys[_stmt_id(a)] - {ident(a)}
        return a.is_from and a.at_module_level and bool(others & before_module_keys)

    moves: list[ImportMove] = []
    for key in sorted(set(by_b) | set(by_a), key=repr):
        moves += _pair_key(path, list(by_b.get(key, ())), list(by_a.get(key, ())), merged)
    if objects is not None:
        moves = _respell(path, moves, ax, objects, merged)
    return moves


class _Objects:
    """What an import binding loads: a module file, or the definition a name resolves to.

    Module-level names are followed through re-exports (``from .b import f`` in ``a``) in the
    changed files and the context files, before or after the change.
    """

    def __init__(self, bundle: PullRequestBundle, sources: SourceFiles, paths: PathIndex | None):
        self.bundle = bundle
        self.sources = sources
        self.paths = paths
        self._names: dict[tuple[str, str], tuple[set[str], dict[str, tuple[str, int, str]]]] = {}

    def _module(self, dotted: str, importer: str, level: int) -> str | None:
        if self.paths is not None:
            hit = self.paths.module_path(dotted, importer, level)
            if hit is not None:
                return hit
            if level:
                return None
            top = self.paths.module_path(dotted.split(".")[0])
            if top is not None:
                return None  # first-party, but no such module: not a module
        return None if level else f"dotted:{dotted}"

    def module_ref(self, b: ImportBinding, importer: str) -> str | None:
        """The module object a binding binds: ``import a.b`` / ``from a import b`` (a module)."""
        if not b.is_from:
            return self._module(b.module, importer, 0)
        if not b.name or b.name == "*":
            return None
        base = b.module.lstrip(".")
        return self._module(f"{base}.{b.name}" if base else b.name, importer, b.level)

    def from_module(self, b: ImportBinding, importer: str) -> str | None:
        """The module a ``from M import x`` binding takes ``x`` from."""
        if not b.is_from:
            return None
        return self._module(b.module.lstrip("."), importer, b.level)

    def _tree(self, path: str, side: str) -> ast.Module | None:
        bundle, sources = self.bundle, self.sources
        if side == "after":
            f = bundle.file(path)
            if f is not None:
                return sources.tree(path, "after") if f.after is not None else None
        else:
            fb = next((f for f in bundle.files if f.before_path == path), None)
            if fb is not None:
                return sources.tree(path, "before") if fb.before is not None else None
            if bundle.file(path) is not None:
                return None  # added by the change: absent before
        # an unchanged file is the same before and after
        return sources.tree(path, "head") if bundle.context_files.get(path) else None

    def _module_names(
        self, path: str, side: str
    ) -> tuple[set[str], dict[str, tuple[str, int, str]]] | None:
        """(names defined, {name: (module, level, imported name)}) at module level of a file."""
        key = (path, side)
        if key not in self._names:
            tree = self._tree(path, side)
            if tree is None:
                return None
            defs: set[str] = set()
            imports: dict[str, tuple[str, int, str]] = {}
            for st in _module_statements(tree.body):
                if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    defs.add(st.name)
                elif isinstance(st, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                    targets = st.targets if isinstance(st, ast.Assign) else [st.target]
                    for t in targets:
                        defs.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
                elif isinstance(st, ast.ImportFrom):
                    for a in st.names:
                        imports[a.asname or a.name] = (st.module or "", st.level, a.name)
            self._names[key] = (defs, imports)
        return self._names[key]

    def origin(self, path: str, name: str, side: str, depth: int = 4) -> tuple[str, str] | None:
        """(file, name) of the definition a module-level name resolves to, None when unknown."""
        names = self._module_names(path, side)
        if names is None:
            return None
        defs, imports = names
        if name in defs:
            return (path, name)
        if name in imports:
            module, level, orig = imports[name]
            target = self._module(module, path, level)
            if target is None:
                return None
            if depth > 0 and not target.startswith("dotted:"):
                found = self.origin(target, orig, side, depth - 1)
                if found is not None:
                    return found
            return (target, orig)
        return None

    def same_object(self, b: ImportBinding, b_file: str, a: ImportBinding, a_file: str) -> bool:
        """``from A import n`` and ``from B import n`` bind the same object after the change.

        Either spelling re-exports the other after the change, or the definition of ``n`` moved
        from ``A`` to ``B`` (the symbol analyzers judge the moved body).
        """
        if not (b.is_from and a.is_from) or b.bound != a.bound or "*" in (b.name, a.name):
            return False
        if b.name is None or a.name is None:
            return False
        pb = self.from_module(b, b_file)
        pa = self.from_module(a, a_file)
        if pb is None or pa is None or pb.startswith("dotted:") or pa.startswith("dotted:"):
            return False
        ob, oa = self.origin(pb, b.name, "after"), self.origin(pa, a.name, "after")
        if ob is not None and ob == oa:
            return True
        return (
            self.origin(pb, b.name, "before") == (pb, b.name)
            and oa == (pa, a.name)
            and self.origin(pa, a.name, "before") != (pa, a.name)
            and ob != (pb, b.name)
        )

    def same(self, b: ImportBinding, b_file: str, a: ImportBinding, a_file: str) -> bool:
        """Whether two spellings load the same module object or bind the same definition."""
        mb, ma = self.module_ref(b, b_file), self.module_ref(a, a_file)
        if mb is not None and (mb == ma or mb == self.from_module(a, a_file)):
            return True
        fb = self.from_module(b, b_file)
        if fb is not None and fb == ma:
            return True
        return self.same_object(b, b_file, a, a_file)


def _module_statements(body: Iterable[ast.stmt]) -> Iterable[ast.stmt]:
    """Statements run when the module is imported (module-level blocks included)."""
    for st in body:
        yield st
        if isinstance(st, ast.If):
            yield from _module_statements(st.body)
            yield from _module_statements(st.orelse)
        elif isinstance(st, (ast.Try, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))):
            yield from _module_statements(st.body)  # type: ignore[attr-defined]
            for h in st.handlers:  # type: ignore[attr-defined]
                yield from _module_statements(h.body)
            yield from _module_statements(st.orelse)  # type: ignore[attr-defined]
            yield from _module_statements(st.finalbody)  # type: ignore[attr-defined]
        elif isinstance(st, (ast.With, ast.AsyncWith)):
            yield from _module_statements(st.body)


def _respell(
    path: str,
    moves: list[ImportMove],
    ax: ScopeIndex | None,
    objects: _Objects,
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
    lines = _lines(sources, f, side)
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
        objects = _Objects(bundle, sources, paths)
        for f in sources.python_files():
            bx = scope_index(sources, f.before_path, "before") if f.before is not None else None
            ax = scope_index(sources, f.path, "after") if f.after is not None else None
            if (f.before is not None and bx is None) or (f.after is not None and ax is None):
                continue  # unparseable side: the parser diagnostic says so
            moves.extend(_match_file(f.path, bx, ax, paths, objects))
        return _cross_file(moves, bundle, sources, paths)

    return sources.memo("", "", "import-moves", build)


def _lines(sources: SourceFiles, f: FileChange, side: str) -> list[str]:
    """Lines of one side of a changed file (split once, not once per import)."""
    text = f.before if side == "before" else f.after
    lines: list[str] = sources.memo(f.path, side, "lines", lambda: split_lines(text or ""))
    return lines
