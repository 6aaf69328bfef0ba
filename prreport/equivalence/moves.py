"""Definitions paired across a change: moved to another file or class, renamed, or carried inside
another definition, with the proof that the pair is equal (body, globals it reads, import order)."""

from __future__ import annotations

import ast
import builtins
import copy
import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial

from prreport.classify import category
from prreport.equivalence.canonical import canonical, locally_bound, module_bindings
from prreport.equivalence.canonical import module_of as module_path
from prreport.equivalence.expansion.similarity import contained
from prreport.python.definitions import (
    Change,
    Definition,
    dump,
    file_index,
    module_of,
    renamed_dump,
    same_tree,
    strip_docstring,
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


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


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
