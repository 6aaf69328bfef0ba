"""Plain dataclasses of the repository: building one, or reading one of its fields, runs no code.

A class is *plain* when its source (read from the repository, never guessed) shows that

- it is decorated only by ``dataclass`` / ``dataclasses.dataclass`` (the names resolve to the
  standard library in its module), with constant options among ``frozen``, ``eq``, ``order``,
  ``repr``, ``unsafe_hash``, ``kw_only``, ``slots``, ``match_args``, ``weakref_slot`` (not
  ``init=False``: then ``object.__init__`` rejects keywords), and no metaclass or class keyword;
- its bases are none, ``object``, or one plain dataclass of the same module (no diamond, no
  field of the base redeclared: the field order stays the one written);
- its body holds only a docstring, ``pass``, fields (``name: T``, ``name: T = <constant>``,
  ``name: T = field(default=<constant>|default_factory=list|dict|set|tuple, init=..., ...)``
  with constant options; no ``ClassVar``, ``InitVar`` or ``KW_ONLY`` annotation), class
  attributes of constant value and ``def``s (decorated or not: they run when called, or are
  read by a name that is no field) whose names are not field names, its bases' included, and
  not a hook that runs on construction or attribute access (``__init__``, ``__new__``,
  ``__setattr__``, ``__getattr__``, ``__getattribute__``, ``__delattr__``, ``__init_subclass__``,
  ``__set_name__``, ``__get__``, ``__set__``, ``__delete__``, ``__class_getitem__``, nor
  ``__del__``, which runs when the object is dropped: a construction moved across a statement
  that raises would be built, and finalized, or not; a
  ``__post_init__`` only of the shape below);
- neither its module nor the module building it sets or deletes one of its attributes
  (``C.__post_init__ = f``, ``setattr(C, ...)``; patching from any other module of the
  repository, which is not searched, is outside what is checked);
- the builtins it uses as factories are not rebound in its module, and the class name is bound
  once in its module (``_pyscope.single_binding``), as is the name a caller builds it by.

Then ``C(f=a, g=b)`` (keywords only, each naming an ``__init__`` field, every field without a
default given, no ``*``/``**``) runs the generated ``__init__``: it stores the values, calls the
factories (``list()`` and friends) and nothing else; it cannot raise ``TypeError`` and returns a
new object each time. That is the fact ``constructions`` gives ``_rewrites`` (an assignment of
such a construction may move within its block like a constant: ``moved-assignment``).

Moving ``n = C(f=a)`` across statements of its block (``_rewrites``) is then sound when those
statements do not mention ``n`` (nor hold a nested def, lambda or class that could close over
it) and rebind none of the argument names, each a constant, an imported object (a name its one
import binds, not rebound anywhere in the module, e.g. by ``global`` in a function a call
between could run; not ``module.attr``, which any code may assign) or a local of
the function's own scope (a global could be rebound by any call; a name only a nested def
assigns is such a global) that is surely bound where the construction stood (a parameter, or
assigned by an earlier statement of the block) and that nothing unbinds (``del``,
``except ... as``: reading an unbound local raises): the construction has no effect to reorder and raises nothing, so
which statement raises first, or whether a ``yield``/``await`` suspends between, cannot tell
the two orders apart; it runs as many times as before (the same block), each time giving a new
object nothing else refers to (identity and aliasing unchanged); ``locals()``/``eval``/
``global``/``nonlocal`` in the function turn the rewrite off. The class name must mean the
class on both sides: bound once in its module, not a name the function binds.

One ``__post_init__`` shape is accepted under a stated assumption: each statement assigns
``self.<field> = <expr>`` (not in a frozen class) where ``<expr>`` is made of constants, tuple
displays, reads of ``__init__`` fields and ``tuple``/``list``/``set``/``frozenset``/``sorted``
of a field (``self.f or []`` too). Those read the *items* of the field, which could run code
(``__hash__``, ``__lt__``, ``__iter__``) or fail; the field must be annotated as a container of
``str`` (``Optional[List[str]]``) and the finding says so: *assumed a container of str, as
annotated, not changed by the statements the construction moved across* (the construction
snapshots the items, so a statement it moved across must not change them).

``moved_constructions`` says which modules to fetch for that: those defining the classes built
by keyword in functions whose change moves a line.

``stable_field`` proves the other fact: ``v.a`` reads the same object wherever it is read, when
``v`` is a local assigned once, by ``v = F(...)`` where ``F`` is a plain function of the same
module whose every exit is ``return C(...)`` (``C`` plain) or ``raise``, and every use of ``v``
is a read of an ``__init__`` field of ``C`` in a statement after ``v = F(...)`` in its own block
(so ``v`` is bound there: a read where it may be unbound raises, and the expansion may read it
fewer times): the object is new, only ``v`` refers to it (it is
never passed, called, stored or written through), so no code can reach it to change the field,
and reading a field of a plain class runs no code and cannot fail. Ruled out: a nested scope or
``locals()``/``eval``/``global`` seeing ``v``; ``v`` a parameter; a generator or decorated
``F``; a method called through ``v`` (its ``self`` would escape). Frame or ``gc`` introspection
is outside the model, as everywhere in prreport.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial

from prreport.bundle import FileChange
from prreport.equivalence.assume import dotted
from prreport.equivalence.canonical import module_bindings, module_of
from prreport.python.scopes import bound_anywhere, is_string_statement, single_binding
from prreport.python.sources import SourceFiles
from prreport.textlines import split_lines

_OPTIONS = frozenset(
    {
        "frozen",
        "eq",
        "order",
        "repr",
        "unsafe_hash",
        "kw_only",
        "slots",
        "match_args",
        "weakref_slot",
        "init",
    }
)
_FIELD_OPTIONS = frozenset({"default", "default_factory", "init", "repr", "compare", "hash"})
_FACTORIES = frozenset({"list", "dict", "set", "tuple"})
_HOOKS = frozenset(
    {
        "__init__",
        "__new__",
        "__del__",
        "__post_init__",
        "__setattr__",
        "__getattr__",
        "__getattribute__",
        "__delattr__",
        "__init_subclass__",
        "__set_name__",
        "__get__",
        "__set__",
        "__delete__",
        "__class_getitem__",
        "__slots__",
        "__dict__",
    }
)
_ITEM_READERS = frozenset({"tuple", "list", "set", "frozenset", "sorted"})
_STR_ITEMS = re.compile(
    r"^(?:typing\.)?(?:List|list|Sequence|Tuple|tuple|Set|set|FrozenSet|frozenset|Iterable)"
    r"\[str(?:, \.\.\.)?\]$"
)
_OPTIONAL = re.compile(r"^(?:typing\.)?Optional\[(.*)\]$")
_MAX_DEPTH = 4


@dataclass(frozen=True)
class Field:
    """One dataclass field: whether ``__init__`` takes it and whether it has a default."""

    name: str
    init: bool
    default: bool
    annotation: str


@dataclass(frozen=True)
class PlainClass:
    """A plain dataclass: its fields, where it is defined, and what its ``__post_init__``
    (if any) assumes about the fields whose items it reads (``(field, annotation)``)."""

    name: str
    path: str
    fields: tuple[Field, ...]
    assumes: tuple[tuple[str, str], ...] = ()
    members: frozenset[str] = frozenset()  # other names its class bodies bind (methods...)

    def builds(self, call: ast.Call) -> bool:
        """Whether ``call`` (of this class) binds its arguments without ``TypeError``."""
        if call.args or any(k.arg is None for k in call.keywords):
            return False
        init = {f.name: f for f in self.fields if f.init}
        given = [k.arg for k in call.keywords]
        if len(set(given)) != len(given) or not set(given) <= init.keys():
            return False
        return all(f.default or f.name in given for f in init.values())

    def fact(self) -> str:
        """What building it relies on, as a rewrite's detail: ``class|path|fields`` (the
        fields whose ``str`` items its ``__post_init__`` is assumed to read; the templates
        word it)."""
        return "|".join((self.name, self.path, ",".join(f for f, _ in self.assumes)))


def _means(tree: ast.Module, path: str, expr: ast.expr, want: str) -> bool:
    """Whether ``expr`` (a name or ``module.name``) names the standard object ``want``."""
    name = dotted(expr)
    if name is None:
        return False
    head, _, rest = name.partition(".")
    if single_binding(tree, head) is None:
        return False
    target = module_bindings(tree, path).get(head)
    return target is not None and (f"{target}.{rest}" if rest else target) == want


def _constant(node: ast.expr | None) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        node = node.operand
    return isinstance(node, ast.Constant)


def _module_files(sources: SourceFiles, module: str) -> list[str]:
    """Repository files that may hold a dotted module (source roots such as ``src/`` allowed)."""
    rel = module.replace(".", "/")
    wanted = (f"{rel}.py", f"{rel}/__init__.py")
    paths = set(sources.bundle.head_paths) | {f.path for f in sources.bundle.files}
    return sorted(p for p in paths if p in wanted or p.endswith(tuple("/" + w for w in wanted)))


def _module_file(sources: SourceFiles, module: str) -> str | None:
    """The one repository file a dotted module can be, or None: a package re-exporting the
    class (``__init__.py``) is not followed, and when several files could be the module (a
    vendored or test copy, ``src/pkg/m.py`` and ``examples/pkg/m.py``) which one is imported
    is not known."""
    found = _module_files(sources, module)
    if len(found) != 1 or found[0].endswith("__init__.py"):
        return None
    return found[0]


def _where(sources: SourceFiles, path: str, side: str) -> tuple[str, str]:
    """The (path, side) to read a module file at, for code of ``side``: a file the change
    touches at that side, any other at head (the same before and after)."""
    for f in sources.bundle.files:
        if f.path == path or f.before_path == path:
            return (f.before_path, "before") if side == "before" else (f.path, "after")
    return path, "head"


def defining_files(sources: SourceFiles, path: str, side: str, name: str) -> list[str]:
    """Files to fetch so that ``name`` (a module-level import in ``path``) can be judged."""
    tree = sources.tree(path, side)
    if tree is None or not isinstance(single_binding(tree, name), ast.ImportFrom):
        return []
    target = module_bindings(tree, path).get(name)
    if target is None:
        return []
    module = target.rpartition(".")[0]
    return [p for p in _module_files(sources, module) if sources.text(p, "head") is None]


def moved_constructions(sources: SourceFiles) -> set[str]:
    """Files defining the classes built by keyword (``n = C(a=x)``) in functions whose change
    moves a line (the same text removed and added): what ``moved-assignment`` needs. Worked
    out once per file (the planning rounds ask again)."""
    wanted: set[str] = set()
    for f in sources.bundle.files:
        if not f.path.endswith(".py") or f.before is None or f.after is None:
            continue
        build = partial(_moved_constructions, sources, f)
        wanted |= sources.memo(f.before_path, "before", "moved-constructions", build)
    return wanted


def _moved_constructions(sources: SourceFiles, f: FileChange) -> frozenset[str]:
    changed = sources.changed(f)
    if not changed.removed or not changed.added:
        return frozenset()
    old = sources.memo(f.before_path, "before", "lines", partial(split_lines, f.before or ""))
    new = sources.memo(f.path, "after", "lines", partial(split_lines, f.after or ""))
    came = {new[n - 1].strip() for n in changed.added if n <= len(new)}
    moved = sorted(
        n
        for n in changed.removed
        if n <= len(old)
        and (line := old[n - 1].strip())[:1].isalpha()
        and line in came
        # An import moved is an import move (imports are not compared as behaviour).
        and not line.startswith(("import ", "from "))
    )
    tree = sources.tree(f.before_path, "before") if moved else None
    if tree is None:
        return frozenset()
    wanted: set[str] = set()
    for fn in _functions_holding(tree.body, moved):
        for st in ast.walk(fn):
            if (
                isinstance(st, ast.Assign)
                and isinstance(st.value, ast.Call)
                and isinstance(st.value.func, ast.Name)
                and st.value.func.id[:1].isupper()
                and st.value.keywords
                and not st.value.args
            ):
                name = st.value.func.id
                wanted |= set(defining_files(sources, f.before_path, "before", name))
    return frozenset(wanted)


def _functions_holding(
    body: Sequence[ast.AST], lines: list[int]
) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The functions (nested ones too) whose span holds one of ``lines`` (sorted): only the
    statements spanning such a line are entered, not the whole tree."""
    for st in body:
        if isinstance(st, ast.match_case):  # no line numbers of its own
            yield from _functions_holding(st.body, lines)
            continue
        start = getattr(st, "lineno", 0)
        end = getattr(st, "end_lineno", None) or start
        i = bisect.bisect_left(lines, start)
        if i == len(lines) or lines[i] > end:
            continue
        if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef):
            yield st
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            sub = getattr(st, field, None)
            if isinstance(sub, list) and sub:
                yield from _functions_holding(sub, lines)


def class_named(
    sources: SourceFiles, path: str, side: str, name: str, depth: int = 0
) -> PlainClass | None:
    """The plain dataclass ``name`` means in module ``path`` (its ``side``), or None."""
    key = f"plain-class:{name}"
    return sources.memo(path, side, key, lambda: _class_named(sources, path, side, name, depth))


def _class_named(
    sources: SourceFiles, path: str, side: str, name: str, depth: int
) -> PlainClass | None:
    tree = sources.tree(path, side)
    if tree is None or depth > _MAX_DEPTH:
        return None
    st = single_binding(tree, name)
    if isinstance(st, ast.ClassDef):
        return _plain(sources, tree, path, side, st, depth)
    if not isinstance(st, ast.ImportFrom):
        return None
    target = module_bindings(tree, path).get(name)
    if target is None:
        return None
    module, _, cls = target.rpartition(".")
    p = _module_file(sources, module)
    if p is None:
        return None
    where, at = _where(sources, p, side)
    if sources.tree(where, at) is not None:
        return class_named(sources, where, at, cls, depth + 1)
    return None


def _patched(tree: ast.Module, names: set[str]) -> bool:
    """Whether the module sets or deletes an attribute of a class it names ``names``
    (``C.__post_init__ = f``, ``del C.x``, ``setattr(C, ...)``): then the class is not what its
    body says."""
    for n in ast.walk(tree):
        if (
            isinstance(n, ast.Attribute)
            and not isinstance(n.ctx, ast.Load)
            and isinstance(n.value, ast.Name)
            and n.value.id in names
        ):
            return True
        if (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name)
            and n.func.id in ("setattr", "delattr")
            and n.args
            and isinstance(n.args[0], ast.Name)
            and n.args[0].id in names
        ):
            return True
    return False


def _plain(
    sources: SourceFiles, tree: ast.Module, path: str, side: str, cls: ast.ClassDef, depth: int
) -> PlainClass | None:
    if cls.keywords or len(cls.decorator_list) != 1:
        return None
    if _patched(tree, {cls.name}):
        return None
    deco = cls.decorator_list[0]
    frozen = False
    if isinstance(deco, ast.Call):
        if deco.args or not _means(tree, path, deco.func, "dataclasses.dataclass"):
            return None
        for k in deco.keywords:
            if k.arg not in _OPTIONS or not isinstance(k.value, ast.Constant):
                return None
            if k.arg == "init" and k.value.value is not True:
                return None
            frozen = frozen or (k.arg == "frozen" and bool(k.value.value))
    elif not _means(tree, path, deco, "dataclasses.dataclass"):
        return None
    fields: list[Field] = []
    assumes: tuple[tuple[str, str], ...] = ()
    inherited_members: frozenset[str] = frozenset()
    if len(cls.bases) > 1:
        return None
    rebound = bound_anywhere(tree)
    if cls.bases:
        base = cls.bases[0]
        if isinstance(base, ast.Name) and base.id == "object" and "object" not in rebound:
            pass
        elif isinstance(base, ast.Name):
            parent = class_named(sources, path, side, base.id, depth + 1)
            if parent is None or parent.path != path:
                return None
            fields, assumes = list(parent.fields), parent.assumes
            inherited_members = parent.members
        else:
            return None
    inherited = {f.name for f in fields}
    post: ast.FunctionDef | None = None
    methods: set[str] = set()
    for st in cls.body:
        if is_string_statement(st) or isinstance(st, ast.Pass):
            continue
        if isinstance(st, ast.AnnAssign):
            got = _field(tree, path, st, rebound)
            if got is None or got.name in inherited | inherited_members:
                return None
            fields.append(got)
        elif isinstance(st, ast.Assign):
            if not _constant(st.value) or not all(isinstance(t, ast.Name) for t in st.targets):
                return None
            methods |= {t.id for t in st.targets if isinstance(t, ast.Name)}
        elif isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef):
            if st.name == "__post_init__" and isinstance(st, ast.FunctionDef) and post is None:
                post = st
                continue
            if st.name in _HOOKS:
                return None
            methods.add(st.name)
        elif isinstance(st, ast.ClassDef):
            methods.add(st.name)
        else:
            return None
    names = [f.name for f in fields]
    if len(set(names)) != len(names) or methods & set(names) or methods & _HOOKS:
        return None
    if post is not None:
        if frozen or assumes:
            return None
        read = _post_init_reads(post, fields, rebound)
        if read is None:
            return None
        assumes = read
    members = inherited_members | methods
    return PlainClass(f"{module_of(path)}.{cls.name}", path, tuple(fields), assumes, members)


def _field(tree: ast.Module, path: str, st: ast.AnnAssign, rebound: frozenset[str]) -> Field | None:
    if not isinstance(st.target, ast.Name) or not st.simple:
        return None
    note = ast.unparse(st.annotation)
    if re.search(rf"\b({'|'.join(_pseudo_fields(tree))})\b", note):
        return None
    name = st.target.id
    if st.value is None:
        return Field(name, True, False, note)
    if _constant(st.value):
        return Field(name, True, True, note)
    call = st.value
    if not (isinstance(call, ast.Call) and _means(tree, path, call.func, "dataclasses.field")):
        return None
    if call.args:
        return None
    init, default = True, False
    for k in call.keywords:
        if k.arg not in _FIELD_OPTIONS:
            return None
        if k.arg == "default_factory":
            v = k.value
            if not (isinstance(v, ast.Name) and v.id in _FACTORIES and v.id not in rebound):
                return None
            default = True
            continue
        if not _constant(k.value):
            return None
        if k.arg == "default":
            default = True
        if k.arg == "init":
            init = bool(getattr(k.value, "value", True))
    return Field(name, init, default, note)


def _pseudo_fields(tree: ast.Module) -> list[str]:
    """Names that make an annotation no ``__init__`` field: ``ClassVar``, ``InitVar``,
    ``KW_ONLY`` and whatever the module binds to them under another name."""
    out = ["ClassVar", "InitVar", "KW_ONLY"]
    for st in tree.body:
        if isinstance(st, ast.ImportFrom):
            out += [a.asname for a in st.names if a.asname and a.name in out[:3]]
        elif isinstance(st, ast.Assign) and re.search(
            r"\b(ClassVar|InitVar|KW_ONLY)\b", ast.unparse(st.value)
        ):
            out += [t.id for t in st.targets if isinstance(t, ast.Name)]
    return out


def _post_init_reads(
    fn: ast.FunctionDef, fields: list[Field], rebound: frozenset[str]
) -> tuple[tuple[str, str], ...] | None:
    """The fields whose items a ``__post_init__`` of the accepted shape reads (with their
    annotations), or None when its shape is another."""
    a = fn.args
    if (
        fn.decorator_list
        or a.posonlyargs
        or a.vararg
        or a.kwarg
        or a.kwonlyargs
        or a.defaults
        or len(a.args) != 1
    ):
        return None
    me = a.args[0].arg
    by_name = {f.name: f for f in fields}
    items: dict[str, str] = {}

    def field_read(e: ast.expr) -> Field | None:
        if (
            isinstance(e, ast.Attribute)
            and isinstance(e.value, ast.Name)
            and e.value.id == me
            and e.attr in by_name
            and by_name[e.attr].init
        ):
            return by_name[e.attr]
        return None

    def item_source(e: ast.expr) -> bool:
        """``self.f`` or ``self.f or <empty display>``: the items of a ``str``-container field."""
        if isinstance(e, ast.BoolOp) and isinstance(e.op, ast.Or) and len(e.values) == 2:
            empty = e.values[1]
            if not (isinstance(empty, ast.List | ast.Tuple) and not empty.elts):
                return False
            e = e.values[0]
        f = field_read(e)
        if f is None:
            return False
        note = f.annotation.replace("typing.", "")
        opt = _OPTIONAL.match(note)
        inner = opt.group(1) if opt else re.sub(r"\s*\|\s*None$", "", note)
        if not _STR_ITEMS.match(inner):
            return False
        items[f.name] = f.annotation
        return True

    def reader(e: ast.expr) -> bool:
        return (
            isinstance(e, ast.Call)
            and isinstance(e.func, ast.Name)
            and e.func.id in _ITEM_READERS
            and e.func.id not in rebound
            and len(e.args) == 1
            and not isinstance(e.args[0], ast.Starred)
            and not e.keywords
        )

    def value(e: ast.expr) -> bool:
        if _constant(e) or field_read(e) is not None:
            return True
        if isinstance(e, ast.Tuple):
            return all(value(x) for x in e.elts)
        if reader(e):
            assert isinstance(e, ast.Call)
            arg = e.args[0]
            return item_source(arg) or (reader(arg) and value(arg))
        return False

    body = fn.body[1:] if fn.body and is_string_statement(fn.body[0]) else fn.body
    for st in body:
        if not (isinstance(st, ast.Assign) and len(st.targets) == 1):
            return None
        t = st.targets[0]
        if not (
            isinstance(t, ast.Attribute)
            and isinstance(t.value, ast.Name)
            and t.value.id == me
            and t.attr in by_name
        ):
            return None
        if not value(st.value):
            return None
    return tuple(sorted(items.items()))


def constructions(
    sources: SourceFiles, path: str, side: str, local: frozenset[str] = frozenset()
) -> Callable[[ast.Call], str | None]:
    """A test for calls in module ``path`` (its ``side``): the fact that makes ``Name(...)``
    the construction of a plain dataclass that binds its arguments, or None. ``local``: names
    the calling function binds itself (they do not mean the module's class)."""

    def fact(call: ast.Call) -> str | None:
        func = call.func
        cls: PlainClass | None = None
        if isinstance(func, ast.Name) and func.id.startswith("@"):
            # A canonical tree spells an imported object ``@module.Name``.
            module, _, name = func.id[1:].rpartition(".")
            p = _module_file(sources, module)
            if p is not None:
                where, at = _where(sources, p, side)
                cls = class_named(sources, where, at, name)
        elif isinstance(func, ast.Name) and func.id not in local:
            cls = class_named(sources, path, side, func.id)
        if cls is None or not cls.builds(call):
            return None
        tree = sources.tree(path, side)
        if tree is None or not isinstance(func, ast.Name):
            return None
        full = func.id[1:] if func.id.startswith("@") else None
        spelled = {func.id} | {
            n for n, t in module_bindings(tree, path).items() if full is not None and t == full
        }
        if _patched(tree, spelled):
            return None  # the calling module patches the class
        if not all(_stays(sources, path, side, n.id[1:]) for n in _imported(call)):
            return None
        return cls.fact()

    return fact


def _imported(call: ast.Call) -> Iterator[ast.Name]:
    """The imported objects (``@module.name`` in a canonical tree) among a call's arguments."""
    for k in call.keywords:
        for n in ast.walk(k.value):
            if isinstance(n, ast.Name) and n.id.startswith("@"):
                yield n


def _stays(sources: SourceFiles, path: str, side: str, full: str) -> bool:
    """``full`` is what a name of module ``path`` is bound to by its one import, bound nowhere
    else in the module (no ``global name`` in a function a moved-across call could run), so
    reading it gives the same object before and after the statements a construction moves
    across. ``module.attr`` through a module object is not: any code may assign it."""
    tree = sources.tree(path, side)
    if tree is None:
        return False
    names = module_bindings(tree, path)
    return any(
        target == full and isinstance(single_binding(tree, name), ast.Import | ast.ImportFrom)
        for name, target in names.items()
    )


def stable_field(
    sources: SourceFiles,
    path: str,
    side: str,
    fn: ast.AST,
    read: ast.expr,
) -> str | None:
    """Why ``read`` (``v.a`` in ``fn``) is the same object wherever ``fn`` reads it, or None."""
    if not (isinstance(read, ast.Attribute) and isinstance(read.value, ast.Name)):
        return None
    if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    v = read.value.id
    tree = sources.tree(path, side)
    if tree is None:
        return None
    made: ast.Assign | None = None
    for node in ast.walk(fn):
        if isinstance(node, ast.Global | ast.Nonlocal):
            return None
        if isinstance(node, ast.Name) and node.id in ("locals", "vars", "eval", "exec"):
            return None
        if isinstance(node, ast.arg) and node.arg == v:
            return None
        if isinstance(node, ast.alias) and (node.asname or node.name.split(".")[0]) == v:
            return None
        if isinstance(node, ast.ExceptHandler) and node.name == v:
            return None
        if (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and node is not fn
        ):
            if node.name == v or any(isinstance(n, ast.Name) and n.id == v for n in ast.walk(node)):
                return None
        if isinstance(node, ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp):
            if any(isinstance(n, ast.Name) and n.id == v for n in ast.walk(node)):
                return None
        if isinstance(node, ast.GeneratorExp):
            if any(isinstance(n, ast.Name) and n.id == v for n in ast.walk(node)):
                return None
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == v for t in node.targets
        ):
            if made is not None or len(node.targets) != 1:
                return None
            made = node
    if made is None or not isinstance(made.value, ast.Call):
        return None
    stores = [
        n
        for n in ast.walk(fn)
        if isinstance(n, ast.Name) and n.id == v and not isinstance(n.ctx, ast.Load)
    ]
    if len(stores) != 1:
        return None
    maker = made.value.func
    if not isinstance(maker, ast.Name) or any(
        isinstance(n, ast.Name) and n.id == maker.id and not isinstance(n.ctx, ast.Load)
        for n in ast.walk(fn)
    ):
        return None
    cls = _always_builds(sources, path, side, maker.id)
    if cls is None:
        return None
    fields = {f.name for f in cls.fields if f.init or f.default}
    parents = {id(c): p for p in ast.walk(fn) for c in ast.iter_child_nodes(p)}
    after = _after_in_block(fn, made)
    for n in ast.walk(fn):
        if not (isinstance(n, ast.Name) and n.id == v and isinstance(n.ctx, ast.Load)):
            continue
        if id(n) not in after:
            return None  # maybe read before ``v`` is bound: that read raises, a later one not
        up = parents.get(id(n))
        if not (
            isinstance(up, ast.Attribute)
            and up.value is n
            and isinstance(up.ctx, ast.Load)
            and up.attr in fields
        ):
            return None  # passed, called through, written or deleted: it may change
    # ``fresh|variable|class|function``: a rewrite's detail (the templates word it).
    return "|".join(("fresh", v, cls.name, maker.id))


def _after_in_block(fn: ast.AST, st: ast.stmt) -> set[int]:
    """The nodes of the statements that follow ``st`` in its own block: whenever one of them
    runs, ``st`` has just run to its end (a read there of what ``st`` binds cannot fail)."""
    for node in ast.walk(fn):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and any(x is st for x in block):
                i = next(k for k, x in enumerate(block) if x is st)
                return {id(n) for x in block[i + 1 :] for n in ast.walk(x)}
    return set()


def _always_builds(sources: SourceFiles, path: str, side: str, name: str) -> PlainClass | None:
    """The plain class every exit of module function ``name`` returns a new instance of."""
    tree = sources.tree(path, side)
    fn = single_binding(tree, name) if tree is not None else None
    if not isinstance(fn, ast.FunctionDef) or fn.decorator_list:
        return None
    own: list[ast.AST] = []
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        own.append(node)
        stack.extend(ast.iter_child_nodes(node))
    if any(isinstance(n, ast.Yield | ast.YieldFrom | ast.Await) for n in own):
        return None
    local = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)} | {
        n.id for n in own if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    }
    if not _exits(fn.body):
        return None
    found: PlainClass | None = None
    for r in (n for n in own if isinstance(n, ast.Return)):
        call = r.value
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id not in local
        ):
            return None
        cls = class_named(sources, path, side, call.func.id)
        if cls is None or (found is not None and cls != found):
            return None
        found = cls
    return found


def _exits(body: list[ast.stmt]) -> bool:
    """Every path through ``body`` ends in ``return`` or ``raise`` (never falls off the end)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, ast.Return | ast.Raise):
        return True
    if isinstance(last, ast.If):
        return _exits(last.body) and _exits(last.orelse)
    return False
