"""Moved and renamed definitions: where they went, and whether every user followed."""

from __future__ import annotations

import ast
import builtins
import copy
import dataclasses
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial

from prreport.analyzers import Analyzer, register
from prreport.bundle import FileChange, PullRequestBundle
from prreport.classify import category
from prreport.equivalence.canonical import canonical, locally_bound, module_bindings
from prreport.equivalence.canonical import module_of as module_path
from prreport.equivalence.expand import contained
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
    renamed_dump,
    residual,
    same_tree,
    strip_docstring,
    text_rows,
    word_hits,
)
from prreport.python.parse import parse as parse_quietly
from prreport.python.sources import SourceFiles

_BUILTINS = frozenset(dir(builtins))
_FAMILY = {
    "function": "callable",
    "method": "callable",
    "class": "class",
    "constant": "constant",
}


@dataclass(frozen=True)
class Move:
    """A removed definition and the added one it became."""

    old: Definition
    new: Definition
    kind: str  # symbol.moved | symbol.renamed
    equality: str  # byte-identical | modulo-renames | different
    # Names its definition reads when the new module runs that the module binds only later.
    unbound: tuple[str, ...] = ()
    # Globals its body reads that name another object (or nothing) in its new module.
    rebound: tuple[str, ...] = ()


def _equality(a: Definition, b: Definition) -> str:
    if a.kind == b.kind and a.text == b.text:
        return "byte-identical"  # the same text, name included (a renamed module's definitions)
    if a.kind == "function" and b.kind == "method":
        same = _becomes_method(a, b) or _becomes_static(a, b)
        return "modulo-renames" if same else "different"
    if a.kind == "class":
        if _body_text(a) == _body_text(b) and a.body == b.body:
            return "byte-identical"
        return "modulo-renames" if _class_key(a, b.name) == _class_key(b, b.name) else "different"
    if a.kind == "constant":
        return _constant_equality(a, b)
    if _body_text(a) == _body_text(b):
        return "byte-identical"
    return "modulo-renames" if a.renamed == b.renamed else "different"


def _class_key(cls: Definition, name: str) -> str:
    """A class (its name, docstrings and annotations aside; a string annotation made real) with
    every use of its own name spelled ``name``: ``super(Old, self)``, ``-> "Old"``, ``Old(...)``."""
    node = canonical(cls.node, {})
    assert isinstance(node, ast.ClassDef)
    node.name = name
    return dump(_SelfName(cls.name, name).visit(node))


class _SelfName(ast.NodeTransformer):
    """Spell a class's own name (``super(Old, self)``, ``Old.attr``, ``"Old"``) another way."""

    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id == self.old:
            node.id = self.new
        return node


def _constant_equality(a: Definition, b: Definition) -> str:
    """Two module-level assignments of one name: equal text, equal up to import spelling, or not."""
    if a.text == b.text:
        return "byte-identical"
    sa, sb = a.node, b.node
    assert isinstance(sa, (ast.Assign, ast.AnnAssign)) and isinstance(
        sb, (ast.Assign, ast.AnnAssign)
    )
    if sa.value is None or sb.value is None:
        return "different"
    if same_tree(sa.value, sb.value):
        return "modulo-renames"
    ta, tb = _module_tree(a), _module_tree(b)
    if ta is None or tb is None:
        return "different"
    # ``functools.partial`` in one module is ``partial`` (``from functools import partial``) in
    # the other: the same imported object spelled two ways.
    ca = canonical(sa.value, module_bindings(ta, a.path))
    cb = canonical(sb.value, module_bindings(tb, b.path))
    return "modulo-renames" if same_tree(ca, cb) else "different"


def _module_tree(d: Definition) -> ast.Module | None:
    try:
        return parse_quietly("".join(d.lines))
    except SyntaxError:
        return None


def _becomes_static(fn: Definition, meth: Definition) -> bool:
    """A module-level ``def f(x)`` that became ``@staticmethod def m(x)`` (or ``@classmethod
    def m(cls, x)`` not using ``cls``) with the same body: ``C.m(x)`` runs what ``f(x)`` ran.

    A class body mangles ``__names``, and zero-argument ``super()``/``__class__`` mean
    something else inside a class, so a body using them is not the same.
    """
    a, b = fn.node, meth.node
    if fn.parent or type(a) is not type(b):
        return False
    assert isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef))
    assert isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef))
    decos = [d.id if isinstance(d, ast.Name) else "" for d in b.decorator_list]
    if a.decorator_list or decos not in (["staticmethod"], ["classmethod"]):
        return False
    if _names_own_class(a):
        return False
    b = copy.deepcopy(b)
    b.decorator_list = []
    if decos == ["classmethod"]:
        params = [*b.args.posonlyargs, *b.args.args]
        if not params:
            return False
        first = params[0].arg
        if any(isinstance(n, ast.Name) and n.id == first for n in ast.walk(b)):
            return False
        if b.args.posonlyargs:
            b.args.posonlyargs = b.args.posonlyargs[1:]
        else:
            b.args.args = b.args.args[1:]

    def key(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
        return renamed_dump([node.args, *(strip_docstring(node.body) or node.body)])

    return key(a) == key(b) and dump(a.returns or ast.Constant(None)) == dump(
        b.returns or ast.Constant(None)
    )


def _names_own_class(node: ast.AST) -> bool:
    """A body whose meaning depends on sitting in a class (``super()``, ``__class__``, ``__x``)."""
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    attrs = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
    return bool(names & {"super", "__class__"}) or any(
        x.startswith("__") and not x.endswith("__") for x in names | attrs
    )


def _becomes_method(fn: Definition, meth: Definition) -> bool:
    """A module-level ``def f(x: C, ...)`` that became ``C.m(self, ...)`` with the same body.

    ``f(x)`` and ``x.m()`` run the same code only for instances of ``C``: the first parameter
    must be declared a ``C``, the method must be a plain one (no decorator), and the body must
    not name its class (zero-argument ``super()``, ``__class__``, mangled ``__names``).
    """
    a, b = fn.node, meth.node
    if fn.parent or type(a) is not type(b):
        return False
    assert isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef))
    assert isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef))
    if a.decorator_list or b.decorator_list:
        return False
    pa, pb = [*a.args.posonlyargs, *a.args.args], [*b.args.posonlyargs, *b.args.args]
    cls = meth.parent.rsplit(".", 1)[-1]
    if not pa or not pb or not _names_class(pa[0].annotation, cls):
        return False
    if _names_own_class(a):
        return False

    def key(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
        node = copy.deepcopy(node)
        first = [*node.args.posonlyargs, *node.args.args][0]
        first.annotation = None  # the receiver's declared type; ``self`` has none
        return renamed_dump([node.args, *(strip_docstring(node.body) or node.body)])

    return key(a) == key(b)


def _names_class(ann: ast.expr | None, cls: str) -> bool:
    """An annotation that names class ``cls`` (``C``, ``mod.C`` or ``"C"``)."""
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        return ann.value.strip().rsplit(".", 1)[-1] == cls
    if isinstance(ann, ast.Attribute):
        return ann.attr == cls
    return isinstance(ann, ast.Name) and ann.id == cls


def _body_text(d: Definition) -> str:
    """Definition text without its ``def name``/``class name`` so renames compare by body."""
    return re.sub(rf"\b(def|class)\s+{re.escape(d.name)}\b", r"\1 _", d.text, count=1)


def moves(change: Change) -> list[Move]:
    """Pair removed and added definitions: same name elsewhere (moved), equal body (renamed),
    the same place or the same callers under a new name (renamed), or a renamed module (moved)."""
    return list(_paired(change)[0])


def carried(change: Change) -> frozenset[tuple[str, str]]:
    """``(path, qualname)`` of the removed and added definitions nested in a definition that moved
    or was renamed (a method of a moved class, a local class of a moved test): they travelled
    inside it, and are neither removed, added, nor moved on their own."""
    return _paired(change)[1]


def _paired(change: Change) -> tuple[tuple[Move, ...], frozenset[tuple[str, str]]]:
    sources = change.sources
    if sources is None:
        return _pair_with_parents(change)
    return sources.memo("", "", "symbol-moves", lambda: _pair_with_parents(change))


# Pairing rounds: each may find containers whose nested definitions then stop competing for
# names (a local ``__setitem__`` of a moved test made ``CaselessDict.__setitem__`` ambiguous).
_ROUNDS = 4


def _pair_with_parents(change: Change) -> tuple[tuple[Move, ...], frozenset[tuple[str, str]]]:
    """Pair the definitions, then again without those nested in a paired definition, until the
    nested ones no longer change."""
    removed = [d for d in change.removed if _pairable(d)]
    added = [d for d in change.added if _pairable(d)]
    inside: frozenset[tuple[str, str]] = frozenset()
    pairs: list[Move] = []
    for _ in range(_ROUNDS):
        pairs = _moves(
            change,
            [d for d in removed if (d.path, d.qualname) not in inside],
            [a for a in added if (a.path, a.qualname) not in inside],
        )
        now = _nested_in(pairs, change)
        if now == inside:
            break
        inside = now
    return tuple(pairs), inside


def _nested_in(pairs: list[Move], change: Change) -> frozenset[tuple[str, str]]:
    """The removed definitions nested in an old side of a pair, and the added ones in its new side."""
    out: set[tuple[str, str]] = set()
    for side, defs in (("old", change.removed), ("new", change.added)):
        homes = {(getattr(m, side).path, getattr(m, side).qualname + ".") for m in pairs}
        out |= {
            (d.path, d.qualname)
            for d in defs
            if any(d.path == p and d.qualname.startswith(q) for p, q in homes)
        }
    return frozenset(out)


def _pairable(d: Definition) -> bool:
    """Functions, methods, classes, and module-level constants other than dunders (``__all__``)."""
    if d.kind == "constant":
        return not d.parent and not (d.name.startswith("__") and d.name.endswith("__"))
    return d.kind in _FAMILY


def _moves(change: Change, removed: list[Definition], added: list[Definition]) -> list[Move]:
    pairs: list[Move] = []
    for d in removed:
        same_name = [a for a in added if a.name == d.name and _FAMILY[a.kind] == _FAMILY[d.kind]]
        if d.kind == "constant":
            # A module-level name is only a move to another module, and only with an equal value
            # (``logger = getLogger(__name__)`` in two modules is two loggers).
            same_name = [
                a
                for a in same_name
                if change.file_of[a.path] is not change.file_of[d.path]
                and not _reads_module_dunder(d)
            ]
            if len(same_name) == 1 and _equality(d, same_name[0]) != "different":
                pairs.append(Move(d, same_name[0], "symbol.moved", _equality(d, same_name[0])))
            continue
        if len(same_name) > 1:
            # Several new definitions of that name: the one with an equal body is where it went
            # (the others are new code), when only one is equal.
            same_name = [a for a in same_name if _equality(d, a) != "different"]
            if len(same_name) != 1:
                continue  # ambiguous: several new homes, or none equal
        if same_name:
            a = same_name[0]
            pairs.append(Move(d, a, "symbol.moved", _equality(d, a)))
            continue
        equal = [
            a
            for a in added
            if _FAMILY[a.kind] == _FAMILY[d.kind]
            and a.kind != "constant"
            and a.name != d.name
            and _equality(d, a) != "different"
            and not any(r.name == a.name for r in change.removed)
        ]
        if len(equal) == 1:
            pairs.append(Move(d, equal[0], "symbol.renamed", _equality(d, equal[0])))
    pairs += _renamed_and_changed(change, removed, added, pairs)
    pairs += _module_renames(change)
    pairs = [_with_import_order(change, m) for m in pairs]
    pairs = [_with_globals(change, m, pairs) for m in pairs]
    # A function's local class or function that now sits in another function travelled with
    # the code around it (extracted or inlined): a local is no symbol anyone imports or calls.
    pairs = [
        m for m in pairs if not ("<locals>" in m.old.qualname and "<locals>" in m.new.qualname)
    ]
    # A new definition that several removed ones map to is an extraction (extracted.py).
    targets: dict[tuple[str, str], int] = {}
    for m in pairs:
        key = (m.new.path, m.new.qualname)
        targets[key] = targets.get(key, 0) + 1
    pairs = [m for m in pairs if targets[(m.new.path, m.new.qualname)] == 1]
    # Members of a moved class move with it.
    moved_classes = {(m.old.path, m.old.qualname) for m in pairs if m.old.kind == "class"}
    return [
        m
        for m in pairs
        if not any(m.old.path == p and m.old.qualname.startswith(q + ".") for p, q in moved_classes)
    ]


def _with_import_order(change: Change, m: Move) -> Move:
    """``m`` with the names its new module-level definition reads as it runs (a constant's value,
    a class's bases and body, decorators, defaults) that its new module binds only below it:
    the move raises NameError at import."""
    sources = change.sources
    new = m.new
    if sources is None or new.parent or m.old.path == new.path:
        return m
    tree = sources.tree(new.path, "after")
    if tree is None:
        return m
    node = new.node
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _future_annotations(tree):
        node = copy.copy(node)
        node.args = copy.copy(node.args)
        for field in ("posonlyargs", "args", "kwonlyargs"):
            setattr(node.args, field, [])
        node.args.vararg = node.args.kwarg = None
        node.returns = None
    first = sources.memo(new.path, "after", "first-bindings", partial(_first_bindings, tree))
    late = sorted(
        n
        for n in _runtime_reads(node, {}, set())
        if n != new.name and n in first and first[n] > new.start
    )
    return dataclasses.replace(m, unbound=tuple(late)) if late else m


def _with_globals(change: Change, m: Move, pairs: list[Move]) -> Move:
    """``m`` with the global names its body reads that mean another object in its new module:
    the same import on both sides, a definition that moved along under its name (or that the
    new module imports back from the old one), an unshadowed builtin; anything else is listed."""
    sources = change.sources
    old, new = m.old, m.new
    if sources is None or old.path == new.path:
        return m
    old_tree, new_tree = sources.tree(old.path, "before"), sources.tree(new.path, "after")
    if old_tree is None or new_tree is None:
        return m
    old_imp = sources.memo(
        old.path, "before", "module-bindings", partial(module_bindings, old_tree, old.path)
    )
    new_imp = sources.memo(
        new.path, "after", "module-bindings", partial(module_bindings, new_tree, new.path)
    )
    old_top = {d.name for d in file_index(sources, old.path, "before").values() if not d.parent}
    new_top = {d.name for d in file_index(sources, new.path, "after").values() if not d.parent}
    along = {
        x.old.name: x.new.name
        for x in pairs
        if x.old.path == old.path and x.new.path == new.path and not x.old.parent
    }
    old_mod, new_mod = module_path(old.path), module_path(new.path)
    free = {
        n.id for n in ast.walk(old.node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    } - locally_bound(old.node)
    if isinstance(old.node, ast.ClassDef):
        free -= {x.name for x in old.node.body if isinstance(x, _DEFS)}
    # A name the new version does not read at all is spelled another way there: the equality
    # test compared what the two spellings mean (``functools.partial`` / ``partial``).
    free &= {n.id for n in ast.walk(new.node) if isinstance(n, ast.Name)}
    bad = []
    for n in sorted(free - {old.name, new.name}):
        if n in old_imp:
            same = new_imp.get(n) == old_imp[n] or (
                old_imp[n] == f"{new_mod}.{n}" and n in new_top and n not in new_imp
            )
        elif n in old_top:
            same = along.get(n) == n or new_imp.get(n) == f"{old_mod}.{n}"
        elif n in _BUILTINS:
            same = n not in new_top and n not in new_imp
        else:
            same = True  # unresolved before as well (names.py reports it)
        if not same:
            bad.append(n)
    return dataclasses.replace(m, rebound=tuple(bad)) if bad else m


def _first_bindings(tree: ast.Module) -> dict[str, int]:
    """Name -> the line of the first module-level statement binding it."""
    first: dict[str, int] = {}
    for st in tree.body:
        for n in _binds(st):
            first.setdefault(n, st.lineno)
    return first


def _future_annotations(tree: ast.Module) -> bool:
    return any(
        isinstance(st, ast.ImportFrom)
        and st.module == "__future__"
        and any(a.name == "annotations" for a in st.names)
        for st in tree.body
    )


def _reads_module_dunder(d: Definition) -> bool:
    """A value that reads ``__name__``, ``__file__``...: it means something else in another module."""
    return any(
        isinstance(n, ast.Name) and n.id.startswith("__") and n.id.endswith("__")
        for n in ast.walk(d.node)
    )


def _renamed_and_changed(
    change: Change, removed: list[Definition], added: list[Definition], pairs: list[Move]
) -> list[Move]:
    """A definition renamed whose body changed too: proven by its place or by its callers.

    Its place: the new name stands where the old one stood (same file and scope, between the
    same neighbours, same parameters). Its callers: every function that used the old name now
    uses the new one and is otherwise unchanged (a nested helper hoisted and renamed).
    """
    sources = change.sources
    if sources is None:
        return []
    done_old = {id(m.old) for m in pairs}
    done_new = {id(m.new) for m in pairs}
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
    mapped = {(m.old.path, m.old.qualname): m.new.qualname for m in pairs}
    found: list[tuple[Definition, Definition]] = []
    for d in olds:
        users = _users(sources, d)
        cands = [
            a
            for a in news
            if _FAMILY[a.kind] == _FAMILY[d.kind]
            and not ("<locals>" in d.qualname and "<locals>" in a.qualname)
            and (
                (_same_place(sources, change, d, a, mapped) and _alike(d, a))
                or (bool(users) and _callers_follow(users or [], d, a))
            )
        ]
        if len(cands) == 1:
            found.append((d, cands[0]))
    once = [(d, a) for d, a in found if sum(1 for _, x in found if x is a) == 1]
    return [Move(d, a, "symbol.renamed", _equality(d, a)) for d, a in once]


def _still_used(sources: SourceFiles, name: str) -> bool:
    """Whether ``name`` is code (a name, attribute, import or definition) in the after side of
    a changed Python file."""
    return any(
        sources.memo(
            f.path, "head", f"code-lines:{name}", partial(_code_lines, sources, f.path, name)
        )
        for f in sources.python_files()
        if f.after is not None
    )


def _alike(d: Definition, a: Definition) -> bool:
    """Most of each body is in the other, in order: a rewrite in place is not a rename."""
    old, new = _body_text(d), _body_text(a)
    return min(contained(old, new), contained(new, old)) >= 0.5


def _scopes(sources: SourceFiles, path: str, side: str) -> dict[str, list[Definition]]:
    """Functions, classes and constants of each scope of a file side, in file order (memoised)."""

    def build() -> dict[str, list[Definition]]:
        out: dict[str, list[Definition]] = {}
        for x in file_index(sources, path, side).values():
            if x.kind in _FAMILY:
                out.setdefault(x.parent, []).append(x)
        return {k: sorted(v, key=lambda x: x.start) for k, v in out.items()}

    return dict(sources.memo(path, side, "definition-scopes", build))


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
    prev_b, next_b = _neighbours(_scopes(sources, f.before_path, "before")[d.parent], d)
    prev_a, next_a = _neighbours(_scopes(sources, f.path, "after")[a.parent], a)

    def same(b: str | None, x: str | None) -> bool:
        return b == x if b is None or x is None else mapped.get((d.path, b), b) == x

    return same(prev_b, prev_a) and same(next_b, next_a) and (prev_b, next_b) != (None, None)


def _param_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    a = fn.args
    return [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)] + [
        f"*{p.arg}" for p in (a.vararg, a.kwarg) if p is not None
    ]


def _uses(node: ast.AST, name: str) -> bool:
    return any(
        (isinstance(n, ast.Name) and n.id == name)
        or (isinstance(n, ast.Attribute) and n.attr == name)
        for n in ast.walk(node)
    )


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
    probe = Move(d, a, "symbol.renamed", "different")
    for b, x, _ in users:
        got = _Retarget(probe, "", "").visit(_without(b.node, d.node))
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


def _module_renames(change: Change) -> list[Move]:
    """Definitions of a library module that was renamed (or moved to another package): each now
    lives in another module, under its own name (a renamed one is paired above)."""
    sources = change.sources
    if sources is None:
        return []
    out: list[Move] = []
    for f in sources.python_files():
        if f.before is None or f.after is None or f.before_path == f.path:
            continue
        if category(f.path) != "source" or module_of(f.before_path, sources) == module_of(
            f.path, sources
        ):
            continue
        before = file_index(sources, f.before_path, "before")
        after = file_index(sources, f.path, "after")
        for q, d in before.items():
            x = after.get(q)
            if d.parent or not _pairable(d) or x is None or x.kind != d.kind:
                continue
            out.append(Move(d, x, "symbol.moved", _equality(d, x)))
    return out


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


def _code_lines(sources: SourceFiles, path: str, name: str) -> frozenset[int] | None:
    """Lines of a file at head where ``name`` is code (a name, attribute, import or definition),
    or None when the file's syntax tree is not at hand."""
    tree = sources.tree(path, "head")
    if tree is None:
        return None
    out: set[int] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id == name:
            out.add(n.lineno)
        elif isinstance(n, ast.Attribute) and n.attr == name:
            out.add(n.end_lineno or n.lineno)
        elif isinstance(n, ast.alias) and name in (n.name.split(".")[-1], n.asname):
            out.add(n.lineno)
        elif isinstance(n, (*_DEFS,)) and n.name == name:
            out.add(n.lineno)
        elif isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names:
            out.add(n.lineno)
    return frozenset(out)


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


class _Retarget(ast.NodeTransformer):
    """A before-side function with uses of the old name/module spelled the new way."""

    def __init__(self, m: Move, old_mod: str, new_mod: str) -> None:
        self.old, self.new = m.old.name, m.new.name
        self.method = m.old.kind == "method"
        # A function that became a static or class method of C: f(x) -> C.m(x).
        self.home = _static_home(m)
        # A function that became a method of its first argument's class: f(x, y) -> x.m(y).
        self.to_method = m.old.kind == "function" and m.new.kind == "method" and not self.home
        self.old_mod, self.new_mod = old_mod, new_mod

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if (
            self.to_method
            and isinstance(node.func, ast.Name)
            and node.func.id == self.old
            and node.args
            and not isinstance(node.args[0], ast.Starred)
        ):
            func = ast.Attribute(value=node.args[0], attr=self.new, ctx=ast.Load())
            return ast.Call(func=func, args=node.args[1:], keywords=node.keywords)
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if self.home and node.id == self.old and isinstance(node.ctx, ast.Load):
            return ast.Attribute(
                value=ast.Name(id=self.home, ctx=ast.Load()), attr=self.new, ctx=ast.Load()
            )
        if not self.method and not self.to_method and node.id == self.old:
            node.id = self.new
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        if node.attr == self.old:
            node.attr = self.new
        return node

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST:
        if node.module == self.old_mod:
            node.module = self.new_mod
        for a in node.names:
            if a.name == self.old:
                a.name = self.home or self.new
        return node


def _static_home(m: Move) -> str:
    """The class a module-level function became a static/class method of ("" otherwise)."""
    if m.old.kind != "function" or m.new.kind != "method":
        return ""
    decos = getattr(m.new.node, "decorator_list", [])
    if [d.id if isinstance(d, ast.Name) else "" for d in decos] not in (
        ["staticmethod"],
        ["classmethod"],
    ):
        return ""
    return m.new.parent.rsplit(".", 1)[-1]


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

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


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


def _binds(st: ast.stmt) -> set[str]:
    if isinstance(st, _DEFS):
        return {st.name}
    if isinstance(st, (ast.Import, ast.ImportFrom)):
        return {a.asname or a.name.split(".")[0] for a in st.names}
    return {
        n.id
        for n in ast.walk(st)
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))
    }


def _runtime_reads(st: ast.AST, bodies: Mapping[str, ast.AST], seen: set[str]) -> set[str]:
    """Names a statement reads when it runs, following the scope's own functions and classes
    it may call (their bodies run then too)."""
    out: set[str] = set()
    stack: list[ast.AST] = [st]
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            # the header runs now; the body only when called
            stack.extend(n.args.defaults)
            stack.extend(x for x in n.args.kw_defaults if x is not None)
            if not isinstance(n, ast.Lambda):
                stack.extend(n.decorator_list)
                stack.extend(x.annotation for x in _all_args(n) if x.annotation is not None)
                if n.returns is not None:
                    stack.append(n.returns)
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            out.add(n.id)
        stack.extend(ast.iter_child_nodes(n))
    for name in sorted(out & set(bodies)):
        if name not in seen and bodies[name] is not st:
            seen.add(name)
            # A call of a function (or class) of the scope runs its whole body now.
            out |= {x.id for x in ast.walk(bodies[name]) if isinstance(x, ast.Name)}
            out |= _runtime_reads(bodies[name], bodies, seen)
    return out


def _all_args(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    a = fn.args
    return [*a.posonlyargs, *a.args, *a.kwonlyargs, *(x for x in (a.vararg, a.kwarg) if x)]
