"""Import-move findings: one per hoisted, sunk, moved, added or removed binding, with the changed
lines it explains (the pairing itself is ``prreport.python.importmoves``)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

from prreport.analyzers import Analyzer, register
from prreport.bundle import PullRequestBundle
from prreport.config import AnalysisConfig
from prreport.findings import ContextRequest, Finding
from prreport.python.importeffects import Deferred, deferred_effects
from prreport.python.importmoves import ImportMove, import_moves, side_lines
from prreport.python.importtime import annotation_only
from prreport.python.lazyimports import (
    NAME,
    heavy_loaded,
    lazy_modules,
    lazy_target,
    names_read,
    package_of,
)
from prreport.python.modules import ModuleIndex, module_index
from prreport.python.scopeindex import ImportBinding, scope_index
from prreport.python.sources import SourceFiles
from prreport.python.versions import PACKAGING, declared_min_python

Line = tuple[str, str, int]

Stmt = tuple[str, int]  # (scope, first line) of an import statement in one file side


def _blank_neighbours(lines: list[str], first: int, last: int, changed: set[int]) -> list[int]:
    """Blank lines removed/added together with a statement (after it, else before it)."""
    out = []
    k = last + 1
    while k <= len(lines) and not lines[k - 1].strip() and k in changed:
        out.append(k)
        k += 1
    if not out:
        k = first - 1
        while k >= 1 and not lines[k - 1].strip() and k in changed:
            out.append(k)
            k -= 1
    return out


class _Statements:
    """Import statements of the changed files touched by moves, for the explained lines.

    Every changed line of an import statement that loses or gains a binding is explained by
    the moves of that statement; a statement that keeps some of its names also explains its
    counterpart on the other side (``from m import a, b`` -> ``from m import b``).
    """

    def __init__(self, sources: SourceFiles, moves: list[ImportMove]) -> None:
        self.sources = sources
        self.files = {f.path: f for f in sources.python_files()}
        # (file, side) -> statement -> bindings of that statement
        self.members: dict[tuple[str, str], dict[Stmt, list[ImportBinding]]] = {}
        self.moving: dict[tuple[str, str], set[int]] = {}  # ids of bindings that move
        self.partner: dict[tuple[str, str], dict[int, tuple[str, ImportBinding]]] = {}
        self._changed_sets: dict[tuple[str, str], set[int]] = {}
        self._shared_given: set[tuple[str, str, Stmt]] = set()
        for path, f in self.files.items():
            for side, ix_path in (("-", f.before_path), ("+", f.path)):
                present = f.before if side == "-" else f.after
                ix = (
                    scope_index(sources, ix_path, "before" if side == "-" else "after")
                    if present is not None
                    else None
                )
                stmts: dict[Stmt, list[ImportBinding]] = {}
                for b in ix.imports if ix else ():
                    stmts.setdefault(b.statement, []).append(b)
                self.members[(path, side)] = stmts
        for m in moves:
            if m.kind == "stayed":
                assert m.before is not None and m.after is not None
                self.partner.setdefault((m.path, "-"), {})[id(m.before)] = (m.path, m.after)
                self.partner.setdefault((m.path, "+"), {})[id(m.after)] = (m.path, m.before)
                continue
            for b in _befores(m):
                self.moving.setdefault((m.before_path or m.path, "-"), set()).add(id(b))
            for a in _afters(m):
                self.moving.setdefault((m.path, "+"), set()).add(id(a))

    def _changed(self, path: str, side: str) -> set[int]:
        key = (path, side)
        if key not in self._changed_sets:
            ch = self.sources.changed(self.files[path])
            self._changed_sets[key] = set(ch.removed if side == "-" else ch.added)
        return self._changed_sets[key]

    def lines(self, path: str, side: str, b: ImportBinding) -> set[Line]:
        """Changed lines explained by ``b`` moving: its statement, blank lines, counterparts.

        The lines a statement shares (its header, blank neighbours, counterparts) go to the
        first of its bindings asked about; later ones add their own lines only. The union is
        the same, and a block of n hoisted names costs n lines, not n * n.
        """
        if path not in self.files:
            return set()
        changed = self._changed(path, side)
        own = {(path, side, n) for n in range(b.line, b.end_line + 1) if n in changed}
        key = (path, side, b.statement)
        if key in self._shared_given:
            return own
        self._shared_given.add(key)
        return own | self._statement_lines(path, side, b, changed)

    def _statement_lines(
        self, path: str, side: str, b: ImportBinding, changed: set[int]
    ) -> set[Line]:
        f = self.files[path]
        stmt = self.members[(path, side)].get(b.statement, [b])
        rng = range(b.stmt_line, b.stmt_end_line + 1)
        out = {(path, side, n) for n in rng if n in changed}
        moving = self.moving.get((path, side), set())
        if all(id(x) in moving for x in stmt):
            text = side_lines(self.sources, f, "before" if side == "-" else "after")
            out |= {
                (path, side, n)
                for n in _blank_neighbours(text, b.stmt_line, b.stmt_end_line, changed)
            }
        for g in b.context:
            # ``if TYPE_CHECKING:`` added or dropped with the only-for-typing import under it
            if g.kind == "if" and g.text.endswith("TYPE_CHECKING") and g.line in changed:
                out.add((path, side, g.line))
        other = "+" if side == "-" else "-"
        partners = self.partner.get((path, side), {})
        seen: set[tuple[str, int]] = set()
        for x in stmt:
            if id(x) in partners:
                ppath, p = partners[id(x)]
                if (ppath, p.stmt_line) in seen:
                    continue  # one counterpart statement, many names
                seen.add((ppath, p.stmt_line))
                pchanged = self._changed(ppath, other)
                out |= {
                    (ppath, other, n)
                    for n in range(p.stmt_line, p.stmt_end_line + 1)
                    if n in pchanged
                }
        return out


def _befores(m: ImportMove) -> tuple[ImportBinding, ...]:
    """Before-side bindings a move accounts for."""
    if m.before is None:
        return ()
    extra = m.respelled if m.kind == "sunk" else ()
    return tuple({id(b): b for b in (m.before, *extra)}.values())


def _afters(m: ImportMove) -> tuple[ImportBinding, ...]:
    """After-side bindings a move accounts for (none when hoisted onto an existing import)."""
    if m.after is None or m.already_bound:
        return ()
    extra = m.respelled if m.kind == "hoisted" else ()
    return tuple({id(a): a for a in (m.after, *extra)}.values())


@register
class ImportMovesAnalyzer(Analyzer):
    """Imports hoisted, sunk, moved, added or removed.

    before: ``def f():\\n    from x import y`` · after: ``from x import y`` at module level
    → ``import.hoisted`` (y, from ``f`` to ``<module>``).
    """

    name = "imports"

    def requests(self, bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
        """The first-party modules a module-level import made lazy loads (their import-time
        effects are deferred), and the packaging files that say which Pythons are supported."""
        index = module_index(sources, self.config.first_party)
        moves = import_moves(bundle, sources)
        wanted = {
            p
            for m in moves
            if m.kind == "made-lazy"
            for p in self._deferred(sources, index, m).missing
        }
        if any(m.after is not None and m.after.lazy for m in moves):
            # ``lazy import`` is a SyntaxError before 3.15: which Pythons the project declares
            heads = set(bundle.head_paths)
            wanted |= {p for p in PACKAGING if p in heads and bundle.file(p) is None}
        return ContextRequest(files=frozenset(wanted - {""}))

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit one ``import.*`` finding per moved, added or removed binding."""
        moves = import_moves(bundle, sources)
        stmts = _Statements(sources, moves)
        index = module_index(sources, self.config.first_party)
        findings = []
        for m in moves:
            if m.kind == "stayed":
                continue
            ref = m.after or m.before
            if m.kind in ("added", "removed") and ref is not None and ref.module == "__future__":
                continue  # a compiler directive, not a dependency: left to the behaviour check
            explains: set[Line] = set()
            for b in _befores(m):
                explains |= stmts.lines(m.before_path or m.path, "-", b)
            for a in _afters(m):
                explains |= stmts.lines(m.path, "+", a)
            fd = _finding(m, tuple(sorted(explains, key=lambda e: (e[1], e[2], e[0]))))
            if m.kind in ("added", "removed") and _annotation_only(sources, m):
                fd.details["annotation_only"] = True
            if fd.kind == "import.made-eager":
                # import-time cost, as for a hoist: heavy packages now loaded at import
                loaded = (m.after.module if m.after else "", _target(index, m))
                importer = index.module_of(m.path) or ""
                cost = heavy_loaded(sources, index, importer, loaded, *_heavy(self.config))
                fd.details["heavy_loaded"] = cost
            if fd.kind == "import.made-lazy":
                deferred = self._deferred(sources, index, m)
                fd = _lazy(fd, m, deferred, declared_min_python(sources))
                if _never_loaded(sources, m, deferred):
                    fd = _never_read(fd)
            findings.append(fd)
        return sorted(_with_listings(sources, index, findings), key=Finding.sort_key)

    def _deferred(self, sources: SourceFiles, index: ModuleIndex, m: ImportMove) -> Deferred:
        """What a module-level import made lazy defers (nothing for a function-local one: it
        ran at first use before too)."""
        if m.kind != "made-lazy":
            return Deferred()
        importer = index.module_of(m.path) or ""
        return deferred_effects(
            sources, index, _target(index, m), importer, self.config.cycle_depth
        )


def _heavy(config: AnalysisConfig) -> tuple[frozenset[str], int]:
    return frozenset(config.heavy_packages), max(1, config.cycle_depth)


def _annotation_only(sources: SourceFiles, m: ImportMove) -> bool:
    """The binding's name is read by no code that runs, in the module it is added to or
    removed from (``importtime.annotation_only``): which object it names changes nothing."""
    side, path = ("after", m.path) if m.kind == "added" else ("before", m.before_path or m.path)
    binding = m.after if m.kind == "added" else m.before
    tree = sources.tree(path, side)
    if tree is None or binding is None:
        return False
    names = sources.memo(path, side, "annotation-only", lambda: annotation_only(tree))
    return binding.bound in names


def _spelling(b: ImportBinding) -> str:
    """The statement form of one binding (``from m import x as y`` / ``import m``)."""
    alias = f" as {b.alias}" if b.alias else ""
    if b.is_from:
        return f"from {b.module} import {b.name}{alias}"
    return f"import {b.module}{alias}"


def _shown(b: ImportBinding) -> str:
    """The name a reader knows the import by: ``urllib.request`` for ``import urllib.request``
    (which binds only ``urllib``), else the bound name."""
    if not b.is_from and not b.alias and b.module and "." in b.module:
        return b.module
    return b.bound


def _finding(m: ImportMove, explains: tuple[Line, ...]) -> Finding:
    b, a = m.before, m.after
    ref = a or b
    assert ref is not None
    # The binding that moved: the function-local side of a hoist or sink names it.
    local = m.local or ref
    module = ref.module
    details: dict[str, Any] = {
        "module": module,
        "name": local.name,
        "alias": local.alias,
        "from_scope": b.scope if b else None,
        "from_line": b.line if b else None,
        "from_context": [g.as_dict() for g in b.context] if b else [],
        "to_scope": a.scope if a else None,
        "to_line": a.line if a else None,
        "to_context": [g.as_dict() for g in a.context] if a else [],
        "merged_into_existing": m.merged_into_existing,
        "block_line": a.stmt_line if a else None,
        "type_checking": bool(ref.type_checking),
    }
    if m.already_bound:
        details["already_bound"] = True
    if m.before_path:
        details["from_path"] = m.before_path
    if m.respelled:
        details["respelled"] = {
            "before": sorted({_spelling(x) for x in _befores(m)}),
            "after": sorted({_spelling(x) for x in (_afters(m) or ((a,) if a else ()))}),
        }
    if m.kind == "removed":
        line = b.line if b else None
    else:
        line = a.line if a else None
    where_from = f"{m.before_path}:" if m.before_path else ""
    name = _shown(local)
    if m.kind == "hoisted":
        msg = f"{name} hoisted from {where_from}{b.scope if b else '?'} to module level"
    elif m.kind == "sunk":
        msg = f"{name} moved from module level into {a.scope if a else '?'}"
    elif m.kind == "reguarded":
        msg = f"{name} now imported under other guards in {a.scope if a else '?'}"
    elif m.kind == "moved":
        msg = f"{name} moved from {where_from}{b.scope if b else '?'} to {a.scope if a else '?'}"
    elif m.kind == "added":
        msg = f"new import of {name} in {a.scope if a else '?'}"
    else:
        msg = f"import of {name} removed from {b.scope if b else '?'}"
    kind = "import.guard-changed" if m.kind == "reguarded" else f"import.{m.kind}"
    if m.kind == "hoisted" and a is not None and a.lazy:
        kind = "import.made-lazy"  # a function-local import now a module-level ``lazy`` one
        msg = f"{name} made a module-level lazy import (was imported in {b.scope if b else '?'})"
    elif m.kind == "made-lazy":
        how = "listed in __lazy_modules__" if m.via == NAME else "made lazy"
        msg = f"{name}: module-level import {how}"
    elif m.kind == "made-eager" and m.via == NAME:
        msg = f"{name}: taken out of __lazy_modules__, loaded at import again on Python 3.15"
        details |= {"via": NAME, "differences": ["eager-on-3.15"]}
    elif m.kind == "made-eager":
        msg = f"{name}: module-level lazy import made eager"
    return Finding(kind, m.path, line, name, msg, details, explains)


def _target(index: ModuleIndex, m: ImportMove) -> str | None:
    """The first-party module an import made lazy loads."""
    a = m.after
    if a is None:
        return None
    module = a.module[a.level :] if a.is_from else a.module
    return lazy_target(
        index,
        module,
        a.level,
        a.name or "" if a.is_from else "",
        index.module_of(m.path) or "",
        m.path,
    )


# Standard-library modules imported for what importing them does.
_EFFECT_STDLIB = frozenset({"readline", "rlcompleter", "this", "antigravity", "site"})


def _never_loaded(sources: SourceFiles, m: ImportMove, deferred: Deferred) -> bool:
    """A module-level import made lazy of a module outside the repository whose name nothing in
    the module reads (an import for its effect): lazy, it is never loaded."""
    a = m.after
    if m.kind != "made-lazy" or a is None or deferred.target:
        return False
    top = a.module.lstrip(".").split(".")[0]
    if a.level == 0 and top in sys.stdlib_module_names and top not in _EFFECT_STDLIB:
        return False  # the standard library acts at import only in the modules listed above
    tree = sources.tree(m.path, "after")
    if tree is None:
        return False
    read = sources.memo(m.path, "after", "names-read", lambda: names_read(tree))
    return a.bound not in read


def _never_read(fd: Finding) -> Finding:
    d = {**fd.details, "never_read": True, "proven": False}
    return Finding(fd.kind, fd.path, fd.line, fd.symbol, fd.message, d, ())


def _with_listings(
    sources: SourceFiles, index: ModuleIndex, findings: list[Finding]
) -> list[Finding]:
    """The lines of a new ``__lazy_modules__`` are explained by the imports it makes lazy, when
    each of them is proven (the first one carries them)."""
    by_file: dict[str, list[int]] = {}
    for i, fd in enumerate(findings):
        if fd.kind == "import.made-lazy" and fd.details.get("via") == NAME:
            by_file.setdefault(fd.path, []).append(i)
    for path, idx in by_file.items():
        f = sources.bundle.file(path)
        package = package_of(index.module_of(path) or "", path)
        listing = lazy_modules(sources.tree(path, "after"), package)
        if f is None or listing is None or not all(findings[i].details["proven"] for i in idx):
            continue
        old = lazy_modules(sources.tree(f.before_path, "before"), package) if f.before else None
        if old is not None and old.names - listing.names:
            continue  # a module taken out is eager again on 3.15: not told here, left to review
        added = set(sources.changed(f).added)
        lines = {(path, "+", n) for n in range(listing.line, listing.end_line + 1) if n in added}
        first = findings[idx[0]]
        explains = tuple(sorted({*first.explains, *lines}, key=lambda e: (e[1], e[2], e[0])))
        findings[idx[0]] = Finding(
            first.kind, first.path, first.line, first.symbol, first.message, first.details, explains
        )
    return findings


def _lazy(
    fd: Finding, m: ImportMove, deferred: Deferred, min_python: tuple[int, ...] | None
) -> Finding:
    """``import.made-lazy`` with what still differs, the effects it defers and whether it is
    proven (a module whose import-time effects now run at first use is not)."""
    d = fd.details
    local = m.kind == "hoisted"
    d["via"] = m.via or "keyword"
    d["from_function"] = local
    d["loops_freed"] = (
        [g["text"] for g in d["from_context"] if g["kind"] == "loop"] if local else []
    )
    differences = ["eager-when-disabled"]  # -X lazy_imports=none: loaded at import, as a hoist
    if local:
        differences.insert(0, "module-attribute")  # the name is now a global of the module
    else:
        differences.append("loaded-at-first-use")
    if d["via"] == NAME:
        differences.append("eager-before-3.15")  # __lazy_modules__ is an unused constant there
    else:
        differences.append("needs-3.15")
    d["differences"] = differences
    d["target_module"] = deferred.target
    d["target_path"] = deferred.path
    d["effects_checked"] = deferred.checked
    d["effects"] = [
        {"path": path, "line": e.line, "what": e.what, "statement": e.statement}
        for path, e in deferred.effects
    ]
    unsupported = d["via"] != NAME and min_python is not None and min_python < (3, 15)
    if unsupported:
        # ``lazy import`` is a SyntaxError on every Python the project still declares.
        d["requires_python"] = ".".join(map(str, min_python or ()))
        d["behavior_change"] = True
    proven = not unsupported and (local or (deferred.checked and not deferred.effects))
    d["proven"] = proven
    if not proven and not unsupported:
        fd = Finding(fd.kind, fd.path, fd.line, fd.symbol, fd.message, d, ())
    return fd
