"""Moved and renamed definitions: where they went, and whether every user followed."""

from __future__ import annotations

import ast
import copy
import dataclasses
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from functools import partial

from prreport.analyzers import Analyzer, register
from prreport.bundle import FileChange, PullRequestBundle
from prreport.equivalence.moves import (
    _DEFS,
    Move,
    _binds,
    _body_text,
    _code_lines,
    _Retarget,
    _runtime_reads,
    _scopes,
    _static_home,
    moves,
)
from prreport.findings import ContextRequest, Finding
from prreport.python.definitions import (
    Change,
    Definition,
    definition_changes,
    dump,
    explains,
    file_index,
    lines_with_blanks,
    module_of,
    reference_request,
    residual,
    same_tree,
    text_rows,
    word_hits,
)
from prreport.python.sources import SourceFiles


def _uses(node: ast.AST, name: str) -> bool:
    return any(
        (isinstance(n, ast.Name) and n.id == name)
        or (isinstance(n, ast.Attribute) and n.attr == name)
        for n in ast.walk(node)
    )


def _home(d: Definition) -> tuple[str, str]:
    """The module file and class a definition lives in (a function's locals are no home)."""
    return d.path, "" if "<locals>" in d.parent else d.parent


@register
class SymbolsAnalyzer(Analyzer):
    """Definitions moved to another file/class or renamed with an equal body.

    before: ``a.py: def f(): ...`` · after: ``b.py: def f(): ...`` → ``symbol.moved``.
    """

    name = "symbols"

    def requests(self, bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
        """Search the repository for old names, then fetch the files they occur in."""
        return reference_request(bundle, {m.old.name for m in moves(definition_changes(sources))})

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``symbol.moved`` / ``symbol.renamed`` with call-site and shim evidence."""
        change = definition_changes(sources)
        for m in moves(change):
            fd = self._finding(bundle, sources, change, m)
            yield fd
            # Moved and renamed at once: both facts, each its own finding.
            other = "symbol.moved" if m.kind == "symbol.renamed" else "symbol.renamed"
            if (other == "symbol.moved" and _home(m.old) != _home(m.new)) or (
                other == "symbol.renamed" and m.old.name != m.new.name
            ):
                yield dataclasses.replace(fd, kind=other)
        yield from _reordered(sources)

    def _finding(
        self, bundle: PullRequestBundle, sources: SourceFiles, change: Change, m: Move
    ) -> Finding:
        old, new = m.old, m.new
        old_file, new_file = change.file_of[old.path], change.file_of[new.path]
        old_mod = module_of(old_file.before_path, sources)
        new_mod = module_of(new_file.path, sources)
        old_after = sources.text(old_file.path, "after") if old_file.after is not None else None
        old_tree = sources.tree(old_file.path, "after") if old_file.after is not None else None
        shim_lines = _shim_lines(old_tree, old.name, new.name, new_mod, m.kind)
        in_all = bool(_all_lines(old_tree, old.name))
        stale, scope = _stale_references(bundle, sources, m, old_mod, shim_lines, old_file.path)
        inherits = None
        if old.parent and new.parent and old.parent != new.parent:
            old_cls = file_index(sources, old_file.path, "after").get(old.parent)
            new_cls_name = new.parent.rsplit(".", 1)[-1]
            inherits = old_cls is not None and any(
                b.rsplit(".", 1)[-1] == new_cls_name for b in old_cls.bases
            )
        # A use left on the old name with nothing re-exporting it now fails to import/resolve.
        broken = bool(stale) and not shim_lines
        ex: list[tuple[str, str, int]] = []
        if m.equality != "different" and not broken and not m.unbound and not m.rebound:
            ex += explains(
                old_file.path,
                "-",
                lines_with_blanks(
                    old_file.before, old.start, old.end, sources.changed(old_file).removed
                ),
            )
            ex += explains(
                new_file.path,
                "+",
                lines_with_blanks(
                    new_file.after, new.start, new.end, sources.changed(new_file).added
                ),
            )
            ex += _updated_lines(sources, m, old_mod, new_mod)
            if old_file.after is None:
                # A deleted module's ``from __future__`` imports compiled only that module.
                ex += explains(
                    old_file.before_path,
                    "-",
                    _future_lines(sources.tree(old_file.before_path, "before")),
                )
            if old_after is not None:
                kept = _all_lines(old_tree, old.name) if in_all else set()
                for n in sorted(shim_lines | kept):
                    ex += explains(
                        old_file.path,
                        "+",
                        lines_with_blanks(old_after, n, n, sources.changed(old_file).added),
                    )
        details = {
            "old_path": old_file.before_path,
            "new_path": new_file.path,
            "old_qualname": old.qualname,
            "new_qualname": new.qualname,
            "old_module": old_mod,
            "new_module": new_mod,
            "before_line": old.start,
            "after_line": new.start,
            "definition_kind": new.kind,
            "equality": m.equality,
            "residual": residual(_body_text(old), _body_text(new))
            if m.equality == "different"
            else [],
            "stale_references": stale,
            "call_sites_updated": not stale,
            "reference_scope": scope,
            "shim": bool(shim_lines),
            "shim_lines": sorted(shim_lines),
            "in_all": in_all,
            "old_class_inherits_new": inherits,
            "unbound_at_import": list(m.unbound),
            "globals_rebound": list(m.rebound),
            "behavior_change": broken
            or m.equality == "different"
            or bool(m.unbound)
            or bool(m.rebound),
        }
        where = f"{old_file.before_path}:{old.qualname} -> {new_file.path}:{new.qualname}"
        return Finding(
            m.kind, new_file.path, new.start, new.qualname, where, details, tuple(sorted(set(ex)))
        )


def _shim_lines(
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


def _future_lines(tree: ast.Module | None) -> list[int]:
    """Lines of the ``from __future__ import ...`` statements of a module."""
    body = tree.body if tree is not None else []
    return [
        n
        for st in body
        if isinstance(st, ast.ImportFrom) and st.module == "__future__"
        for n in range(st.lineno, (st.end_lineno or st.lineno) + 1)
    ]


def _all_lines(tree: ast.Module | None, name: str) -> set[int]:
    """Lines of an ``__all__`` assignment naming ``name`` (empty when there is none)."""
    for st in tree.body if tree is not None else ():
        if isinstance(st, (ast.Assign, ast.AugAssign)):
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                if any(isinstance(c, ast.Constant) and c.value == name for c in ast.walk(st.value)):
                    return set(range(st.lineno, (st.end_lineno or st.lineno) + 1))
    return set()


def _stale_references(
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


def _used_there(sources: SourceFiles, path: str, line: int, row: str, name: str) -> bool:
    """Whether ``name`` on this line is a use: code, or in a string or docstring spelled like one
    (``Progress.default_columns()``, ``"default_columns"``) -- not a word of prose."""
    code = sources.memo(
        path, "head", f"code-lines:{name}", partial(_code_lines, sources, path, name)
    )
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


def _updated_lines(
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
            new_row = _retargeted(row, m, old_mod, new_mod)
            if new_row != row and added.get(new_row):
                out += [(f.path, "-", n), (f.path, "+", added[new_row].pop(0))]
        out += _updated_functions(sources, f, m, old_mod, new_mod)
    return out


def _retargeted(row: str, m: Move, old_mod: str, new_mod: str) -> str:
    """A source line with the old name (a rename) and the old module (a move, absolute or
    relative: ``from ._old import x``) spelled the new way."""
    if m.old.name != m.new.name:
        row = re.sub(rf"(?<![\w]){re.escape(m.old.name)}(?![\w])", m.new.name, row)
    if old_mod != new_mod:
        row = row.replace(old_mod, new_mod)
        old_last, new_last = old_mod.rsplit(".", 1)[-1], new_mod.rsplit(".", 1)[-1]
        same_package = old_mod.rpartition(".")[0] == new_mod.rpartition(".")[0]
        if same_package:
            row = re.sub(
                rf"^(from\s+\.+){re.escape(old_last)}(\s+import\b)", rf"\g<1>{new_last}\2", row
            )
    return row


class _ThroughSelf(ast.NodeTransformer):
    """``self.m``/``cls.m`` spelled ``C.m``: where the instance's class finds ``m`` in ``C``."""

    def __init__(self, home: str, name: str) -> None:
        self.home, self.name = home, name

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        if (
            node.attr == self.name
            and isinstance(node.value, ast.Name)
            and node.value.id in ("self", "cls")
        ):
            node.value = ast.Name(id=self.home, ctx=ast.Load())
        return node


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
        moved = _Retarget(m, old_mod, new_mod).visit(copy.deepcopy(b.node))
        now = a.node
        home = _static_home(m)
        if home and a.kind == "method" and _finds_in(after, a.parent, home, m.new.name):
            now = _ThroughSelf(home, m.new.name).visit(copy.deepcopy(a.node))
        if same_tree(moved, now, (ast.Import, ast.ImportFrom)) or same_tree(moved, now):
            out += [(f.before_path, "-", n) for n in gone] + [(f.path, "+", n) for n in came]
    return out


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


# -- definitions reordered within one file ------------------------------------------------


def _reordered(sources: SourceFiles) -> Iterator[Finding]:
    """``behavior.unchanged`` for a function or class the diff shows removed and re-added,
    unchanged, in the same file and scope (reordered: no move to another file or class), when no
    code that runs at import time sees another order."""
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
            ex = explains(
                f.before_path, "-", lines_with_blanks(f.before, b.start, b.end, cl.removed)
            )
            ex += explains(f.path, "+", lines_with_blanks(f.after, a.start, a.end, cl.added))
            details = {
                "before_path": f.before_path,
                "before_line": b.start,
                "before_end": b.end,
                "after_line": a.start,
                "after_end": a.end,
                "residual": [],
                "reordered": True,
                "definition_kind": a.kind,
                "equal_modulo": "" if b.text == a.text else "formatting, comments",
            }
            where = f"{q} moved within the file (line {b.start} -> {a.start}), unchanged"
            yield Finding(
                "behavior.unchanged", f.path, a.start, q, where, details, tuple(sorted(set(ex)))
            )


def _order_changed(sources: SourceFiles, f: FileChange, b: Definition, a: Definition) -> bool:
    """Whether other definitions of its scope (on both sides) now come before it that did not
    (or the reverse): rewritten in place is no reordering."""
    row_b = _scopes(sources, f.before_path, "before").get(b.parent, [])
    row_a = _scopes(sources, f.path, "after").get(a.parent, [])
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
    if not isinstance(node, _DEFS):
        return None
    binders: dict[str, list[int]] = {}
    for i, st in enumerate(body):
        for n in _binds(st):
            binders.setdefault(n, []).append(i)
    if any(len(binders.get(n, [])) != 1 for n in (node.name,)):
        return None  # bound twice: which one wins depends on the order
    here = next(i for i, st in enumerate(body) if st is node)
    bodies = {st.name: st for st in body if isinstance(st, _DEFS)}
    out: list[tuple[str, bool]] = []
    # What the definition itself reads when it runs (decorators, defaults, bases, class body).
    for n in sorted(_runtime_reads(node, bodies, set())):
        for i in binders.get(n, []):
            out.append((f"needs {n}", i < here))
    # Who reads it when they run.
    for i, st in enumerate(body):
        if st is node:
            continue
        if node.name in _runtime_reads(st, bodies, set()):
            out.append((dump(st) if not isinstance(st, _DEFS) else f"def {st.name}", i > here))
    return sorted(out)
