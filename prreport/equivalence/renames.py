"""A definition renamed whose body changed too, proven by its place or by its callers.

Its place: the new name stands where the old one stood (same file and scope, between the same
neighbours, same parameters or bases) and most of each body is in the other. Its callers: every
function that used the old name now uses the new one and is otherwise unchanged (a nested
helper hoisted and renamed).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Sequence
from functools import partial

from prreport.equivalence.equality import body_text
from prreport.equivalence.expansion.similarity import contained
from prreport.equivalence.retarget import Retarget
from prreport.python.definitions import (
    FAMILY,
    Change,
    Definition,
    file_index,
    same_tree,
    scope_rows,
)
from prreport.python.references import code_lines, word_hits
from prreport.python.sources import SourceFiles


def renamed_and_changed(
    change: Change,
    removed: list[Definition],
    added: list[Definition],
    pairs: Sequence[tuple[Definition, Definition]],
) -> list[tuple[Definition, Definition]]:
    """(old, new) for each of removed renamed to one of added whose body changed too,
    proven by its place or by its callers; pairs are the definitions paired already."""
    sources = change.sources
    if sources is None:
        return []
    done_old = {id(old) for old, _ in pairs}
    done_new = {id(new) for _, new in pairs}
    old_names = {d.name for d in change.removed}
    new_names = {a.name for a in change.added}
    # A name still used as code after the change lives on (a base class took it over): the
    # definition that left is no rename.
    olds = [
        d
        for d in removed
        if id(d) not in done_old
        and d.kind != "constant"
        and d.name not in new_names
        and not _still_used(sources, d.name)
    ]
    news = [
        a
        for a in added
        if id(a) not in done_new and a.kind != "constant" and a.name not in old_names
    ]
    mapped = {(old.path, old.qualname): new.qualname for old, new in pairs}
    found: list[tuple[Definition, Definition]] = []
    for d in olds:
        users = _users(sources, d)
        cands = [
            a
            for a in news
            if FAMILY[a.kind] == FAMILY[d.kind]
            and not ("<locals>" in d.qualname and "<locals>" in a.qualname)
            and (
                (_same_place(sources, change, d, a, mapped) and _alike(d, a))
                or (bool(users) and _callers_follow(users or [], d, a))
            )
        ]
        if len(cands) == 1:
            found.append((d, cands[0]))
    return [(d, a) for d, a in found if sum(1 for _, x in found if x is a) == 1]


def _still_used(sources: SourceFiles, name: str) -> bool:
    """Whether ``name`` is code (a name, attribute, import or definition) in the after side of
    a changed Python file."""
    return any(
        code_lines(sources, f.path, name) for f in sources.python_files() if f.after is not None
    )


def _alike(d: Definition, a: Definition) -> bool:
    """Most of each body is in the other, in order: a rewrite in place is not a rename."""
    old, new = body_text(d), body_text(a)
    return min(contained(old, new), contained(new, old)) >= 0.5


def _neighbours(row: list[Definition], d: Definition) -> tuple[str | None, str | None]:
    i = next(i for i, x in enumerate(row) if x is d)
    return (
        row[i - 1].qualname if i > 0 else None,
        row[i + 1].qualname if i + 1 < len(row) else None,
    )


def _same_place(
    sources: SourceFiles,
    change: Change,
    d: Definition,
    a: Definition,
    mapped: dict[tuple[str, str], str],
) -> bool:
    """``a`` stands where ``d`` stood: same file, scope, neighbours (mapped through other moves)
    and parameters (or bases)."""
    f = change.file_of[d.path]
    if change.file_of[a.path] is not f or d.parent != a.parent or d.kind != a.kind:
        return False
    if isinstance(d.node, ast.ClassDef) and isinstance(a.node, ast.ClassDef):
        if d.bases != a.bases:
            return False
    elif isinstance(d.node, (ast.FunctionDef, ast.AsyncFunctionDef)) and isinstance(
        a.node, (ast.FunctionDef, ast.AsyncFunctionDef)
    ):
        if _param_names(d.node) != _param_names(a.node):
            return False
    else:
        return False
    prev_b, next_b = _neighbours(scope_rows(sources, f.before_path, "before")[d.parent], d)
    prev_a, next_a = _neighbours(scope_rows(sources, f.path, "after")[a.parent], a)

    def same(b: str | None, x: str | None) -> bool:
        return b == x if b is None or x is None else mapped.get((d.path, b), b) == x

    return same(prev_b, prev_a) and same(next_b, next_a) and (prev_b, next_b) != (None, None)


def _param_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    a = fn.args
    return [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)] + [
        f"*{p.arg}" for p in (a.vararg, a.kwarg) if p is not None
    ]


def _used_names(index: dict[str, Definition]) -> dict[str, frozenset[str]]:
    """For each function of a file side: every name and attribute name it mentions."""
    return {
        q: frozenset(
            n.id if isinstance(n, ast.Name) else n.attr
            for n in ast.walk(d.node)
            if isinstance(n, (ast.Name, ast.Attribute))
        )
        for q, d in index.items()
        if d.kind in ("function", "method")
    }


# (function before, its after version, the names the after version mentions)
_User = tuple[Definition, Definition, frozenset[str]]


def _users(sources: SourceFiles, d: Definition) -> list[_User] | None:
    """The outermost functions that used ``d``'s name, with their after versions; None when one
    of them cannot be followed (gone, still using the old name, or in a deleted file)."""
    out: list[_User] = []
    for f in sources.python_files():
        if f.before is None or f.after is None:
            if f.before is not None and f.before_path != d.path and word_hits(f.before, d.name):
                return None  # a deleted file used the old name: nothing to compare with
            continue
        before = file_index(sources, f.before_path, "before")
        after = file_index(sources, f.path, "after")
        used_b = sources.memo(f.before_path, "before", "used-names", partial(_used_names, before))
        used_a = sources.memo(f.path, "after", "used-names", partial(_used_names, after))
        users = [
            q
            for q, names in used_b.items()
            if d.name in names and q != d.qualname and not q.startswith(d.qualname + ".")
        ]
        for q in users:
            if any(q.startswith(o + ".") for o in users):
                continue  # judged with its enclosing function
            x = after.get(q)
            if x is None or x.kind != before[q].kind or d.name in used_a.get(q, ()):
                return None
            out.append((before[q], x, used_a.get(q, frozenset())))
    return out


def _callers_follow(users: list[_User], d: Definition, a: Definition) -> bool:
    """Every function that used ``d``'s name uses ``a``'s after the change, otherwise unchanged."""
    if not all(a.name in names for _, _, names in users):
        return False
    for b, x, _ in users:
        got = Retarget(d, a, "", "").visit(_without(b.node, d.node))
        if not same_tree(got, x.node, (ast.Import, ast.ImportFrom)):
            return False
    return True


def _without(root: ast.AST, drop: ast.AST) -> ast.AST:
    """A deep copy of ``root`` without the statement ``drop`` (when it sits in ``root``)."""
    memo: dict[int, object] = {}
    out = copy.deepcopy(root, memo)
    for parent in ast.walk(root):
        for name, value in ast.iter_fields(parent):
            if isinstance(value, list) and any(x is drop for x in value):
                twin = memo[id(parent)]
                kept = [x for x, y in zip(getattr(twin, name), value, strict=True) if y is not drop]
                setattr(twin, name, kept or [ast.Pass()])
    return out
