"""Import moves: bindings matched before vs after by (module, name, alias), scope and guards."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from prreport.analyzers import Analyzer, SourceFiles, register
from prreport.analyzers._pyscope import MODULE_SCOPE, ImportBinding, PathIndex, ScopeIndex, index
from prreport.bundle import FileChange, PullRequestBundle
from prreport.findings import Finding

Line = tuple[str, str, int]


@dataclass(frozen=True)
class ImportMove:
    """One relocated, added or removed import binding."""

    kind: str  # hoisted | sunk | moved | added | removed
    path: str
    before: ImportBinding | None
    after: ImportBinding | None
    merged_into_existing: bool = False
    already_bound: bool = False  # hoisted onto a module-level import that existed before
    before_path: str | None = None


def scope_index(sources: SourceFiles, path: str, side: str) -> ScopeIndex | None:
    """The (memoised) scope index of a file side, or None when absent or unparseable."""

    def build() -> ScopeIndex | None:
        tree = sources.tree(path, side)
        text = sources.text(path, side)
        return None if tree is None or text is None else index(tree, text)

    return sources.memo(path, side, "pyscope", build)


def _stmt_id(b: ImportBinding) -> tuple[str, int]:
    return (b.scope, b.stmt_line)


def _match_file(
    path: str, bx: ScopeIndex | None, ax: ScopeIndex | None, paths: PathIndex | None = None
) -> list[ImportMove]:
    before = list(bx.imports) if bx else []
    after = list(ax.imports) if ax else []

    def ident(b: ImportBinding) -> tuple[Any, ...]:
        # ``from .x import y`` and ``from pkg.x import y`` are the same binding
        if paths is not None and b.is_from:
            target = paths.module_path(b.module.lstrip("."), path, b.level)
            if target is not None:
                return (target, b.name, b.alias)
        return b.key

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
        rb = list(by_b.get(key, ()))
        ra = list(by_a.get(key, ()))
        all_a = list(ra)
        # Same scope and same guard chain: the binding stayed (perhaps on another line).
        for b in list(rb):
            same = next(
                (a for a in ra if a.scope == b.scope and a.context_key() == b.context_key()), None
            )
            if same is not None:
                rb.remove(b)
                ra.remove(same)
        used_b: set[int] = set()
        used_a: set[int] = set()
        for i, b in enumerate(rb):
            if b.at_module_level:
                continue
            fresh = [j for j, a in enumerate(ra) if a.at_module_level]
            if fresh:
                a = ra[fresh[0]]
                used_a.add(fresh[0])
                moves.append(ImportMove("hoisted", path, b, a, merged(a)))
                used_b.add(i)
            else:
                kept = [a for a in all_a if a.at_module_level]
                if kept:
                    moves.append(ImportMove("hoisted", path, b, kept[0], False, already_bound=True))
                    used_b.add(i)
        gone_module = [i for i, b in enumerate(rb) if b.at_module_level and i not in used_b]
        for j, a in enumerate(ra):
            if j in used_a or a.at_module_level or not gone_module:
                continue
            moves.append(ImportMove("sunk", path, rb[gone_module[0]], a))
            used_a.add(j)
        used_b.update(
            gone_module[:1]
            if any(m.kind == "sunk" and m.before is rb[gone_module[0]] for m in moves)
            else []
        )
        left_b = [b for i, b in enumerate(rb) if i not in used_b]
        left_a = [a for j, a in enumerate(ra) if j not in used_a]
        for b, a in zip(left_b, left_a, strict=False):
            moves.append(ImportMove("moved", path, b, a, merged(a)))
        for b in left_b[len(left_a) :]:
            moves.append(ImportMove("removed", path, b, None))
        for a in left_a[len(left_b) :]:
            moves.append(ImportMove("added", path, None, a, merged(a)))
    return moves


def _cross_file(moves: list[ImportMove]) -> list[ImportMove]:
    """A binding removed from one file and added to another (absolute imports) is a move."""
    removed = [m for m in moves if m.kind == "removed" and m.before and not m.before.level]
    out = [m for m in moves if m not in removed and m.kind != "added"]
    added = [m for m in moves if m.kind == "added"]
    for m in added:
        assert m.after is not None
        src = next(
            (
                r
                for r in removed
                if r.path != m.path
                and r.before
                and r.before.key == m.after.key
                and not m.after.level
            ),
            None,
        )
        if src is None:
            out.append(m)
            continue
        removed.remove(src)
        out.append(
            ImportMove(
                "moved", m.path, src.before, m.after, m.merged_into_existing, before_path=src.path
            )
        )
    return out + removed


def import_moves(bundle: PullRequestBundle, sources: SourceFiles) -> list[ImportMove]:
    """Every import move of the changed Python files (memoised; shared with other analyzers)."""

    def build() -> list[ImportMove]:
        moves: list[ImportMove] = []
        paths = PathIndex(bundle.head_paths) if bundle.head_paths else None
        for f in sources.python_files():
            bx = scope_index(sources, f.before_path, "before") if f.before is not None else None
            ax = scope_index(sources, f.path, "after") if f.after is not None else None
            if (f.before is not None and bx is None) or (f.after is not None and ax is None):
                continue  # unparseable side: the parser diagnostic says so
            moves.extend(_match_file(f.path, bx, ax, paths))
        return _cross_file(moves)

    return sources.memo("", "", "import-moves", build)


# --- explained lines ----------------------------------------------------------------------


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


def _side_lines(
    b: ImportBinding, whole_stmt: bool, lines: list[str], changed: set[int]
) -> list[int]:
    if whole_stmt:
        rng = set(range(b.stmt_line, b.stmt_end_line + 1))
        return sorted(
            (rng & changed) | set(_blank_neighbours(lines, b.stmt_line, b.stmt_end_line, changed))
        )
    return sorted(set(range(b.line, b.end_line + 1)) & changed)


def _explains(
    m: ImportMove,
    f: FileChange,
    sources: SourceFiles,
    leaving: set[tuple[Any, ...]],
    arriving: set[tuple[Any, ...]],
    stmt_counts: dict[tuple[str, str, int], int],
) -> tuple[Line, ...]:
    changed = sources.changed(f)
    out: list[Line] = []
    if m.before is not None and m.before_path is None:
        lines = _lines(sources, f, "before")
        whole = _all_leaving(m.before, leaving, stmt_counts, "b")
        out += [(f.path, "-", n) for n in _side_lines(m.before, whole, lines, set(changed.removed))]
    if m.after is not None and not m.already_bound:
        lines = _lines(sources, f, "after")
        whole = _all_leaving(m.after, arriving, stmt_counts, "a")
        out += [(f.path, "+", n) for n in _side_lines(m.after, whole, lines, set(changed.added))]
    return tuple(out)


def _lines(sources: SourceFiles, f: FileChange, side: str) -> list[str]:
    """Lines of one side of a changed file (split once, not once per import)."""
    text = f.before if side == "before" else f.after
    lines: list[str] = sources.memo(f.path, side, "lines", lambda: (text or "").split("\n"))
    return lines


def _all_leaving(
    b: ImportBinding,
    moving: set[tuple[Any, ...]],
    stmt_counts: dict[tuple[str, str, int], int],
    side: str,
) -> bool:
    return stmt_counts.get((side, b.scope, b.stmt_line), 0) == sum(
        1 for k in moving if k[:2] == (b.scope, b.stmt_line)
    )


def _merged_block_lines(m: ImportMove, f: FileChange, bx: ScopeIndex | None) -> list[Line]:
    """Lines of a reflowed existing ``from X import (...)`` block that gained the name."""
    if not m.merged_into_existing or m.after is None or bx is None:
        return []
    olds = [b for b in bx.imports if b.at_module_level and b.is_from and b.module == m.after.module]
    return [(f.path, "-", n) for b in olds for n in range(b.stmt_line, b.stmt_end_line + 1)]


@register
class ImportMovesAnalyzer(Analyzer):
    """Imports hoisted, sunk, moved, added or removed.

    before: ``def f():\\n    from x import y`` · after: ``from x import y`` at module level
    → ``import.hoisted`` (y, from ``f`` to ``<module>``).
    """

    name = "imports"

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit one ``import.*`` finding per moved, added or removed binding."""
        moves = import_moves(bundle, sources)
        findings = []
        for f in sources.python_files():
            mine = [m for m in moves if m.path == f.path]
            if not mine:
                continue
            bx = scope_index(sources, f.before_path, "before") if f.before is not None else None
            ax = scope_index(sources, f.path, "after") if f.after is not None else None
            counts: dict[tuple[str, str, int], int] = {}
            for side, ix in (("b", bx), ("a", ax)):
                for b in ix.imports if ix else ():
                    k = (side, b.scope, b.stmt_line)
                    counts[k] = counts.get(k, 0) + 1
            # (scope, stmt_line, key) of bindings leaving the before file / arriving in the after file
            leaving = {
                (m.before.scope, m.before.stmt_line, m.before.key)
                for m in mine
                if m.before and m.before_path is None
            }
            arriving = {
                (m.after.scope, m.after.stmt_line, m.after.key)
                for m in mine
                if m.after and not m.already_bound
            }
            changed = sources.changed(f)
            for m in mine:
                ref = m.after or m.before
                if (
                    m.kind in ("added", "removed")
                    and ref is not None
                    and ref.module == "__future__"
                ):
                    continue  # a compiler directive, not a dependency: left to the behaviour check
                explains = set(_explains(m, f, sources, leaving, arriving, counts))
                removed = set(changed.removed)
                explains |= {e for e in _merged_block_lines(m, f, bx) if e[2] in removed}
                if m.merged_into_existing and m.after is not None:
                    added = set(changed.added)
                    explains |= {
                        (f.path, "+", n)
                        for n in range(m.after.stmt_line, m.after.stmt_end_line + 1)
                        if n in added
                    }
                findings.append(_finding(m, tuple(sorted(explains, key=lambda e: (e[1], e[2])))))
        return sorted(findings, key=Finding.sort_key)


def _finding(m: ImportMove, explains: tuple[Line, ...]) -> Finding:
    b, a = m.before, m.after
    ref = a or b
    assert ref is not None
    details: dict[str, Any] = {
        "module": ref.module,
        "name": ref.name,
        "alias": ref.alias,
        "from_scope": b.scope if b else None,
        "from_line": b.line if b else None,
        "from_context": [g.as_dict() for g in b.context] if b else [],
        "to_scope": a.scope if a else None,
        "to_line": a.line if a else None,
        "to_context": [g.as_dict() for g in a.context] if a else [],
        "merged_into_existing": m.merged_into_existing,
        "block_line": a.stmt_line if a else None,
    }
    if m.already_bound:
        details["already_bound"] = True
    if m.before_path:
        details["from_path"] = m.before_path
    line = (
        (a.line if a and not m.already_bound else None)
        if m.kind != "removed"
        else (b.line if b else None)
    )
    if line is None and m.kind == "hoisted" and b is not None:
        line = a.line if a else b.line
    where_from = f"{m.before_path}:" if m.before_path else ""
    if m.kind == "hoisted":
        msg = f"{ref.bound} hoisted from {where_from}{b.scope if b else '?'} to module level"
    elif m.kind == "sunk":
        msg = f"{ref.bound} moved from module level into {a.scope if a else '?'}"
    elif m.kind == "moved":
        msg = (
            f"{ref.bound} moved from {where_from}{b.scope if b else '?'} to {a.scope if a else '?'}"
        )
    elif m.kind == "added":
        msg = f"new import of {ref.bound} in {a.scope if a else '?'}"
    else:
        msg = f"import of {ref.bound} removed from {b.scope if b else '?'}"
    return Finding(f"import.{m.kind}", m.path, line, ref.bound, msg, details, explains)


__all__ = ["MODULE_SCOPE", "ImportMove", "import_moves", "scope_index"]
