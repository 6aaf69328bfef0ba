"""The uses of a moved or renamed definition after the change: the changed lines that only
spell a use the new way (a line, or a whole function equal once retargeted), the uses still on
the old name or module (stale: they now fail to import or resolve), and the lines of the old
module that keep the old name working (a re-export, an alias, an ``__all__`` entry)."""

from __future__ import annotations

import ast
import copy
import re
from bisect import bisect_left, bisect_right
from functools import partial

from prreport.bundle import FileChange, PullRequestBundle
from prreport.equivalence.moves import Move
from prreport.equivalence.retarget import Retarget, ThroughSelf, retargeted_row, static_home
from prreport.python.definitions import Definition, file_index, same_tree, text_rows
from prreport.python.references import code_lines, word_hits
from prreport.python.sources import SourceFiles


def updated_lines(
    sources: SourceFiles, m: Move, old_mod: str, new_mod: str
) -> list[tuple[str, str, int]]:
    """Changed lines that only retarget a use from the old name/module to the new one."""
    out: list[tuple[str, str, int]] = []
    for f in sources.python_files():
        cl = sources.changed(f)
        before = text_rows(f.before or "")
        after = text_rows(f.after or "")
        # Equal rows (``@new_name`` on several classes) pair one to one, in order.
        added: dict[str, list[int]] = {}
        for n in cl.added:
            if 0 < n <= len(after):
                added.setdefault(after[n - 1].strip(), []).append(n)
        for n in cl.removed:
            if not 0 < n <= len(before):
                continue
            row = before[n - 1].strip()
            new_row = retargeted_row(row, m.old, m.new, old_mod, new_mod)
            if new_row != row and added.get(new_row):
                out += [(f.path, "-", n), (f.path, "+", added[new_row].pop(0))]
        out += _updated_functions(sources, f, m, old_mod, new_mod)
    return out


# (function before, its after version, its removed lines, its added lines)
_Edited = tuple[Definition, Definition, list[int], list[int]]


def _edited_functions(sources: SourceFiles, f: FileChange) -> list[_Edited]:
    """Functions of a file present on both sides whose lines changed (the outermost ones:
    a nested function is judged with the function around it)."""
    before = file_index(sources, f.before_path, "before")
    after = file_index(sources, f.path, "after")
    cl = sources.changed(f)
    removed, added = sorted(cl.removed), sorted(cl.added)
    funcs = [b for b in before.values() if b.kind in ("function", "method")]
    out: list[_Edited] = []
    for b in funcs:
        a = after.get(b.qualname)
        if a is None or a.kind != b.kind:
            continue
        gone = removed[bisect_left(removed, b.start) : bisect_right(removed, b.end)]
        came = added[bisect_left(added, a.start) : bisect_right(added, a.end)]
        if not gone and not came:
            continue
        if "<locals>" in b.qualname and any(
            x.start <= b.start and b.end <= x.end and x is not b for x in funcs
        ):
            continue  # judged with its enclosing function
        out.append((b, a, gone, came))
    return out


def _updated_functions(
    sources: SourceFiles, f: FileChange, m: Move, old_mod: str, new_mod: str
) -> list[tuple[str, str, int]]:
    """Changed lines of functions whose only change is using the new name (reformatting aside)."""
    if f.before is None or f.after is None:
        return []
    after = file_index(sources, f.path, "after")
    edited = sources.memo(
        f.path, "after", "edited-functions", partial(_edited_functions, sources, f)
    )
    out: list[tuple[str, str, int]] = []
    for b, a, gone, came in edited:
        if b is m.old or a is m.new or not _uses(b.node, m.old.name):
            continue
        moved = Retarget(m.old, m.new, old_mod, new_mod).visit(copy.deepcopy(b.node))
        now = a.node
        home = static_home(m.old, m.new)
        if home and a.kind == "method" and _finds_in(after, a.parent, home, m.new.name):
            now = ThroughSelf(home, m.new.name).visit(copy.deepcopy(a.node))
        if same_tree(moved, now, (ast.Import, ast.ImportFrom)) or same_tree(moved, now):
            out += [(f.before_path, "-", n) for n in gone] + [(f.path, "+", n) for n in came]
    return out


def _uses(node: ast.AST, name: str) -> bool:
    return any(
        (isinstance(n, ast.Name) and n.id == name)
        or (isinstance(n, ast.Attribute) and n.attr == name)
        for n in ast.walk(node)
    )


def _finds_in(index: dict[str, Definition], cls: str, home: str, name: str) -> bool:
    """``self.name`` in a method of ``cls`` reaches ``home.name``: ``home`` is ``cls`` or one of
    its bases in this file, and no other class among them defines ``name`` (whatever the MRO)."""
    seen: set[str] = set()
    todo = [cls]
    reached = False
    while todo:
        q = todo.pop()
        d = index.get(q)
        if d is None or d.kind != "class" or q in seen:
            continue
        seen.add(q)
        if d.name == home:
            reached = True
            continue
        if f"{q}.{name}" in index:
            return False
        for b in d.bases:
            short = b.rsplit(".", 1)[-1]
            todo += [x.qualname for x in index.values() if x.kind == "class" and x.name == short]
    return reached


def stale_references(
    bundle: PullRequestBundle,
    sources: SourceFiles,
    m: Move,
    old_mod: str,
    shim: set[int],
    change_path: str,
) -> tuple[list[str], str]:
    """Uses at head that still reach the definition by its old name or old module."""
    name = m.old.name
    if name in bundle.references:
        hits, scope = list(bundle.references[name]), bundle.reference_scope
    else:
        hits = [f"{f.path}:{n}" for f in sources.python_files() for n in word_hits(f.after, name)]
        scope = "changed-files"
    old_path = change_path
    stale = []
    for hit in sorted(set(hits)):
        path, _, line = hit.rpartition(":")
        text = sources.text(path, "head")
        rows = text_rows(text) if text else []
        row = rows[int(line) - 1] if line.isdigit() and 0 < int(line) <= len(rows) else None
        if row is None:
            if m.kind == "symbol.renamed":
                stale.append(hit)  # unread file: a rename leaves no legitimate use of the old name
            continue
        if row.lstrip().startswith("#") or (path == old_path and int(line) in shim):
            continue
        if m.kind == "symbol.renamed" and _aliased_to_old(sources, path, name, m.new.name):
            continue  # ``from m import new as old``: the old name there is the new definition
        if m.kind == "symbol.renamed" and not _used_there(sources, path, int(line), row, name):
            continue  # the word in prose (a docstring, a message), not a use of the definition
        if m.kind == "symbol.renamed":
            if _imports_from_elsewhere(row, old_mod):
                continue  # the same name of another module (``from dataclasses import dataclass``)
            if not re.match(rf"\s*(async\s+def|def|class)\s+{re.escape(name)}\b", row):
                stale.append(hit)
        elif m.old.path != m.new.path and (
            f"{old_mod}.{name}" in row or re.search(rf"from\s+{re.escape(old_mod)}\s+import\b", row)
        ):
            stale.append(hit)
    return stale, scope


def _aliased_to_old(sources: SourceFiles, path: str, old: str, new: str) -> bool:
    """The file imports the renamed definition under its old name (``from m import new as
    old``): every use of the old name there reaches the new definition."""
    tree = sources.tree(path, "head")
    return tree is not None and any(
        isinstance(n, ast.ImportFrom) and any(a.name == new and a.asname == old for a in n.names)
        for n in ast.walk(tree)
    )


def _used_there(sources: SourceFiles, path: str, line: int, row: str, name: str) -> bool:
    """Whether ``name`` on this line is a use: code, or in a string or docstring spelled like one
    (``Progress.default_columns()``, ``"default_columns"``) -- not a word of prose."""
    code = code_lines(sources, path, name)
    if code is None or line in code:
        return True
    n = re.escape(name)
    return bool(re.search(rf"\.{n}\b|\b{n}\s*\(|[\"'`]{n}[\"'`]", row))


def _imports_from_elsewhere(row: str, old_mod: str) -> bool:
    """A one-line ``from X import ...`` of an absolute module other than the old one."""
    found = re.match(r"\s*from\s+([\w.]+)\s+import\b", row)
    if found is None:
        return False
    module = found.group(1)
    return (
        not module.startswith(".") and module != old_mod and not row.rstrip().endswith(("(", "\\"))
    )


def shim_lines(
    tree: ast.Module | None, old_name: str, new_name: str, new_mod: str, kind: str
) -> set[int]:
    """Lines of the old module that keep the old name importable (re-export or alias)."""
    out: set[int] = set()
    for st in tree.body if tree is not None else ():
        if isinstance(st, ast.ImportFrom) and (
            st.level
            or st.module == new_mod
            or (st.module or "").endswith(new_mod.rsplit(".", 1)[-1])
        ):
            if any((a.asname or a.name) == old_name and a.name == new_name for a in st.names):
                out.add(st.lineno)
        if (
            kind == "symbol.renamed"
            and isinstance(st, ast.Assign)
            and isinstance(st.value, ast.Name)
        ):
            if st.value.id == new_name and any(
                isinstance(t, ast.Name) and t.id == old_name for t in st.targets
            ):
                out.add(st.lineno)
    return out


def all_lines(tree: ast.Module | None, name: str) -> set[int]:
    """Lines of an ``__all__`` assignment naming ``name`` (empty when there is none)."""
    for st in tree.body if tree is not None else ():
        if isinstance(st, (ast.Assign, ast.AugAssign)):
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                if any(isinstance(c, ast.Constant) and c.value == name for c in ast.walk(st.value)):
                    return set(range(st.lineno, (st.end_lineno or st.lineno) + 1))
    return set()


def all_entry_lines(tree: ast.Module | None, names: set[str]) -> set[int]:
    """Lines of an ``__all__`` assignment whose string entries all name ``names`` or a name the
    module binds at its top level (``__all__ = ["BINARY", "dunder"]``, or one ``'pad_none',``
    per line); a line holding an entry the module does not bind (misspelt) is not one."""
    if tree is not None:
        names = names | _top_level_names(tree)
    out: set[int] = set()
    other: set[int] = set()
    for st in tree.body if tree is not None else ():
        if isinstance(st, (ast.Assign, ast.AugAssign)):
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                for c in ast.walk(st.value):
                    if isinstance(c, ast.Constant):
                        (out if c.value in names else other).add(c.lineno)
    return out - other


def _top_level_names(tree: ast.Module) -> set[str]:
    out: set[str] = set()
    for st in tree.body:
        if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(st.name)
        elif isinstance(st, ast.Import | ast.ImportFrom):
            out |= {(a.asname or a.name).partition(".")[0] for a in st.names}
        elif isinstance(st, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            out |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return out


def future_lines(tree: ast.Module | None) -> list[int]:
    """Lines of the ``from __future__ import ...`` statements of a module."""
    body = tree.body if tree is not None else []
    return [
        n
        for st in body
        if isinstance(st, ast.ImportFrom) and st.module == "__future__"
        for n in range(st.lineno, (st.end_lineno or st.lineno) + 1)
    ]
