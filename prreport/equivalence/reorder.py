"""A function or class the diff shows removed and re-added, unchanged, in the same file and
scope: reordered, and equal in behaviour when no code that runs as its scope runs sees another
order (what its decorators, defaults and bases read is bound before it on both sides alike, and
whatever reads it runs after it on both sides alike)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from prreport.bundle import FileChange
from prreport.python.definitions import (
    Definition,
    dump,
    file_index,
    same_tree,
    scope_rows,
    text_rows,
)
from prreport.python.importtime import DEFINITIONS, binds, runtime_reads
from prreport.python.sources import SourceFiles


def reordered(sources: SourceFiles) -> Iterator[tuple[FileChange, Definition, Definition]]:
    """(file, before, after) of each definition reordered within its scope, unchanged, where the
    order changes nothing that runs (a reordered class takes its members along)."""
    for f in sources.python_files():
        if f.before is None or f.after is None:
            continue
        before = file_index(sources, f.before_path, "before")
        after = file_index(sources, f.path, "after")
        cl = sources.changed(f)
        gone, came = set(cl.removed), set(cl.added)
        rows_b: list[str] = []
        rows_a: list[str] = []
        done: list[str] = []  # a reordered class takes its members along
        for q, b in before.items():
            a = after.get(q)
            if a is None or b.kind not in ("function", "method", "class") or a.kind != b.kind:
                continue
            if "<locals>" in q or b.node.lineno not in gone or a.node.lineno not in came:  # type: ignore[attr-defined]
                continue
            rows_b = rows_b or text_rows(f.before)
            rows_a = rows_a or text_rows(f.after)
            if not _whole(rows_b, b, gone) or not _whole(rows_a, a, came):
                continue
            if not same_tree(b.node, a.node) or not _order_changed(sources, f, b, a):
                continue
            if any(q.startswith(p + ".") for p in done) or not _order_safe(sources, f, b, a):
                continue
            done.append(q)
            yield f, b, a


def _order_changed(sources: SourceFiles, f: FileChange, b: Definition, a: Definition) -> bool:
    """Whether other definitions of its scope (on both sides) now come before it that did not
    (or the reverse): rewritten in place is no reordering."""
    row_b = scope_rows(sources, f.before_path, "before").get(b.parent, [])
    row_a = scope_rows(sources, f.path, "after").get(a.parent, [])
    common = {x.qualname for x in row_b} & {x.qualname for x in row_a}

    def ahead(row: list[Definition], d: Definition) -> set[str]:
        return {x.qualname for x in row if x.start < d.start and x.qualname in common}

    return ahead(row_b, b) != ahead(row_a, a)


def _whole(rows: list[str], d: Definition, changed: set[int]) -> bool:
    """Every non-blank line of the definition is among the changed lines."""
    return all(n in changed for n in range(d.start, d.end + 1) if rows[n - 1].strip())


def _order_safe(sources: SourceFiles, f: FileChange, b: Definition, a: Definition) -> bool:
    """Whether moving ``b`` to where ``a`` stands changes nothing that runs when its scope runs:
    the names its decorators, defaults, bases (class body) read are bound before it on both sides
    alike, and every statement of the scope that reads it (or calls what reads it) runs after
    it on both sides alike."""
    scope_b = _scope_body(sources.tree(f.before_path, "before"), b)
    scope_a = _scope_body(sources.tree(f.path, "after"), a)
    if scope_b is None or scope_a is None:
        return False
    side_b, side_a = _relation(scope_b, b.node), _relation(scope_a, a.node)
    return side_b is not None and side_a is not None and side_b == side_a


def _scope_body(tree: ast.Module | None, d: Definition) -> list[ast.stmt] | None:
    """The statement list holding ``d`` directly (the module or a class body)."""
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef)) and any(st is d.node for st in node.body):
            return node.body
    return None


def _relation(body: list[ast.stmt], node: ast.AST) -> list[tuple[str, bool]] | None:
    """For each statement of the scope that involves ``node`` at run time: its dump and whether
    it runs after ``node`` (sorted, so two orders compare as multisets); None when unsure."""
    if not isinstance(node, DEFINITIONS):
        return None
    binders: dict[str, list[int]] = {}
    for i, st in enumerate(body):
        for n in binds(st):
            binders.setdefault(n, []).append(i)
    if any(len(binders.get(n, [])) != 1 for n in (node.name,)):
        return None  # bound twice: which one wins depends on the order
    here = next(i for i, st in enumerate(body) if st is node)
    bodies = {st.name: st for st in body if isinstance(st, DEFINITIONS)}
    out: list[tuple[str, bool]] = []
    # What the definition itself reads when it runs (decorators, defaults, bases, class body).
    for n in sorted(runtime_reads(node, bodies, set())):
        for i in binders.get(n, []):
            out.append((f"needs {n}", i < here))
    # Who reads it when they run.
    for i, st in enumerate(body):
        if st is node:
            continue
        if node.name in runtime_reads(st, bodies, set()):
            out.append(
                (dump(st) if not isinstance(st, DEFINITIONS) else f"def {st.name}", i > here)
            )
    return sorted(out)
