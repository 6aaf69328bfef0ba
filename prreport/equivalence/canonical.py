"""What a behaviour comparison sees through: docstrings, annotations, and the spelling of an imported object.

``canonical(node, bindings, local)`` returns a normalised copy of a function (or module) so two
versions that differ only in

- a docstring (the first string statement of a module, class or function body) or any other
  string statement (an attribute docstring: a string after an assignment),
- annotations (parameters, return, ``x: T = v``; the type argument of ``cast``; string
  annotations made real; ``typing.cast(T, x)`` is ``x``),
- the spelling of the same imported object (``from m import X`` / ``m.X`` / ``import m as n; n.X``,
  ``typing.overload`` / ``t.overload``)
- pyupgrade-style spellings of the same thing: ``open(f, "r")`` / ``open(f)``,
  ``"s".encode("utf-8")`` / ``"s".encode()`` (a str literal or f-string),
  ``super(C, self)`` / ``super()`` in a method of an undecorated class ``C``,
  ``class A(object):`` / ``class A:``, ``set(x for x in y)`` / ``{x for x in y}`` (and
  ``list``), ``"{} {!r}".format(a, b)`` / ``f"{a} {b!r}"`` (names,
  constants or attributes, each used once in order)

compare equal with :func:`prreport.python.definitions.same_tree`. Everything else (logic, messages,
defaults, decorators other than their spelling) stays.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable, Iterable

from prreport.equivalence.accumulators import fold_accumulators
from prreport.equivalence.fstrings import as_fstring
from prreport.equivalence.idioms import Idioms
from prreport.equivalence.typingnames import TypingNames
from prreport.python.parse import copy_tree
from prreport.python.scopes import bound_anywhere, is_string_statement

_SCOPES = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
_LAYOUT_ROOTS = ("src", "lib", "python")


def module_of(path: str) -> str:
    """Dotted module of a repository path (``src/pkg/sub/mod.py`` -> ``pkg.sub.mod``)."""
    parts = path[:-3].split("/") if path.endswith(".py") else path.split("/")
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    while parts and parts[0] in _LAYOUT_ROOTS:
        parts = parts[1:]
    return ".".join(parts)


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    base = package.split(".") if package else []
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def bindings(statements: Iterable[ast.AST], path: str) -> dict[str, str]:
    """Name -> canonical dotted object for the import statements among ``statements`` (walked deep)."""
    module = module_of(path)
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    out: dict[str, str] = {}
    for root in statements:
        for node in ast.walk(root):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        out[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        out[top] = top
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(node, package)
                for alias in node.names:
                    if alias.name != "*":
                        out[alias.asname or alias.name] = f"{base}.{alias.name}"
    return out


def module_bindings(tree: ast.Module, path: str) -> dict[str, str]:
    """Imports of module-level code (inside ``if``/``try``/``with`` too, not inside defs or classes)."""
    stack: list[ast.stmt] = list(tree.body)
    top: list[ast.stmt] = []
    while stack:
        st = stack.pop()
        if isinstance(st, (ast.Import, ast.ImportFrom)):
            top.append(st)
        elif not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for name in ("body", "orelse", "finalbody", "handlers"):
                for sub in getattr(st, name, ()) or ():
                    stack.extend(sub.body if isinstance(sub, ast.ExceptHandler) else [sub])
    return bindings(top, path)


def imports_in(node: ast.AST) -> list[ast.stmt]:
    """Import statements anywhere inside ``node``."""
    return [n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))]


def locally_bound(fn: ast.AST) -> set[str]:
    """Names a function binds other than by import (parameters, assignments, loops, defs, ``as``)."""
    out: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        elif (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and node is not fn
        ):
            out.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            out.update(node.names)
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            out.add(node.name)
    return out


def _dotted(node: ast.AST) -> list[str] | None:
    """``a.b.c`` as ``["a", "b", "c"]`` when the expression is a plain name chain."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None


# Builtin classes whose subclasses are made by ``type``: nothing reads their annotations.
_BLIND_BUILTINS = frozenset(
    {"object", "list", "dict", "set", "frozenset", "tuple", "str", "bytes", "int", "float"}
    | {"Exception", "BaseException", "ValueError", "TypeError", "KeyError", "RuntimeError"}
)


def annotation_blind(tree: ast.Module, is_builtin: Callable[[str], bool]) -> frozenset[str]:
    """Top-level classes of the module whose class-level annotations nothing reads at class
    creation: no decorator, no keyword (``metaclass=``), no ``__init_subclass__``, and every base
    a builtin class of ``_BLIND_BUILTINS`` or an earlier such class of the module (a name the
    module binds once). A dataclass, a pydantic model or a ``NamedTuple`` is never one."""
    once = _bound_once(tree)
    blind: set[str] = set()
    for st in tree.body:
        if not isinstance(st, ast.ClassDef) or st.decorator_list or st.keywords:
            continue
        if any(
            isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef) and d.name == "__init_subclass__"
            for d in st.body
        ):
            continue
        if (
            all(
                isinstance(b, ast.Name)
                and ((b.id in _BLIND_BUILTINS and is_builtin(b.id)) or b.id in blind)
                for b in st.bases
            )
            and st.name in once
        ):
            blind.add(st.name)
    return frozenset(blind)


def _bound_once(tree: ast.Module) -> set[str]:
    """Names the module binds exactly once, anywhere in it (a class name rebound later may be
    another class when a subclass's base is read)."""
    count: dict[str, int] = {}
    for n in ast.walk(tree):
        name = None
        if isinstance(n, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            name = n.name
        elif isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            name = n.id
        elif isinstance(n, ast.alias):
            name = (n.asname or n.name).split(".")[0]
        elif isinstance(n, ast.Global | ast.Nonlocal):
            count.update({g: 2 for g in n.names})
        if name is not None:
            count[name] = count.get(name, 0) + 1
    return {k for k, v in count.items() if v == 1}


class _Canon(ast.NodeTransformer):
    def __init__(
        self,
        names: dict[str, str],
        shadowed: set[str],
        rebound: set[str],
        method_of: tuple[str, str] | None = None,
    ) -> None:
        self.names = {k: v for k, v in names.items() if k not in shadowed}
        self.rebound = shadowed | rebound
        self._fields: set[int] = set()
        self._blind: frozenset[str] = frozenset()  # the module's annotation-blind classes
        self.whole: ast.Module | None = None  # the module the classes are read from
        # (class, first parameter) of the method being canonicalised, when ``super(C, p)``
        # in its own body is ``super()``; the depth of functions entered (1: the method).
        self.method_of = method_of
        self._depth = 0

    # Docstrings (a body's first string, and attribute docstrings: a string statement after
    # an assignment) and annotations say nothing about what the code does.
    def _strip_doc(self, node: ast.AST) -> None:
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and any(is_string_statement(st) for st in block):
                setattr(
                    node, name, [st for st in block if not is_string_statement(st)] or [ast.Pass()]
                )

    def generic_visit(self, node: ast.AST) -> ast.AST:
        if isinstance(node, ast.stmt | ast.ExceptHandler | ast.match_case):
            self._strip_doc(node)
        return super().generic_visit(node)

    def visit_Module(self, node: ast.Module) -> ast.AST:
        self._strip_doc(node)
        self._blind = annotation_blind(self.whole or node, self.is_builtin)
        self.whole = None  # read once: held longer, a cycle around this visitor keeps the tree
        return self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        self._strip_doc(node)
        if len(node.bases) == 1 and not node.keywords and self._builtin(node.bases[0], "object"):
            node.bases = []  # ``class A(object):`` is ``class A:`` in Python 3
        # Class-level annotations are fields (dataclasses, pydantic): kept, only their spelling
        # is normalised (a string annotation made real is the same annotation). In a class
        # nothing reads them of (``annotation_blind``) they are plain annotations.
        plain = (not node.bases and not node.decorator_list and not node.keywords) or (
            node.name in self._blind
        )
        for st in node.body:
            if isinstance(st, ast.AnnAssign):
                st.annotation = self._annotation(st.annotation)
        fields = [] if plain else node.body
        self._fields = {id(st) for st in fields if isinstance(st, ast.AnnAssign)}
        return self.generic_visit(node)

    def _annotation(self, ann: ast.expr) -> ast.expr:
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            try:
                ann = ast.parse(ann.value, mode="eval").body
            except SyntaxError:
                return ann
        return self.visit(ann)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
        self._strip_doc(node)
        node.returns = None
        node.type_comment = None
        return self._nested(node)

    def _nested(self, node: ast.AST) -> ast.AST:
        self._depth += 1
        try:
            return self.generic_visit(node)
        finally:
            self._depth -= 1

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function
    # Their own frames: ``super()`` with no arguments does not work in them (Python < 3.12).
    visit_Lambda = visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _nested

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.annotation = None
        node.type_comment = None
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        if id(node) in self._fields:
            node.target = self.visit(node.target)
            node.value = self.visit(node.value) if node.value is not None else None
            return node
        if node.value is not None:
            # ``x: T = v`` is ``x = v``: the annotation says nothing about what the code does.
            made = ast.Assign(targets=[node.target], value=node.value)
            return self.generic_visit(ast.copy_location(made, node))
        node.annotation = ast.Constant(value=None)
        return self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        parts = _dotted(node.func)
        if parts and parts[-1] == "cast" and len(node.args) == 2:
            # typing.cast(T, x) returns x whatever T is (a string or a real type).
            node.args = [ast.Constant(value=None), node.args[1]]
        if self._builtin(node.func, "open"):
            _drop_default_mode(node)
        _drop_default_encoding(node)
        if (
            self.method_of is not None
            and self._depth == 1
            and self._builtin(node.func, "super")
            and not node.keywords
            and [getattr(a, "id", None) for a in node.args] == list(self.method_of)
            and all(isinstance(a, ast.Name) for a in node.args)
        ):
            node.args = []  # super(C, self) in a method of C is super()
        comp = {"set": ast.SetComp, "list": ast.ListComp}.get(getattr(node.func, "id", ""))
        if (
            comp is not None
            and self._builtin(node.func, node.func.id)  # type: ignore[attr-defined]
            and len(node.args) == 1
            and isinstance(node.args[0], ast.GeneratorExp)
            and not node.keywords
        ):
            # set(x for x in y) is {x for x in y}; list(...) is [...].
            gen = node.args[0]
            return self.visit(ast.copy_location(comp(elt=gen.elt, generators=gen.generators), node))
        visited = self.generic_visit(node)
        if (
            isinstance(visited, ast.Call)
            and isinstance(visited.func, ast.Name)
            and visited.func.id in _CASTS
            and len(visited.args) == 2
            and not visited.keywords
        ):
            # typing.cast(T, x) is x: a cast added or removed around a value changes nothing
            # (the type is not looked at; as for annotations, its spelling does not count).
            return visited.args[1]
        return as_fstring(visited) if isinstance(visited, ast.Call) else visited

    def _builtin(self, func: ast.AST, name: str) -> bool:
        """``func`` is the builtin ``name``: not imported, assigned or defined in the file."""
        return isinstance(func, ast.Name) and func.id == name and self.is_builtin(name)

    def is_builtin(self, name: str) -> bool:
        """The name ``name`` means the builtin: not imported, assigned or defined in the file."""
        return name not in self.names and name not in self.rebound

    # The same imported object, however it is spelled, becomes one canonical name.
    def _canonical(self, node: ast.Name | ast.Attribute) -> ast.AST | None:
        parts = _dotted(node)
        if not parts or parts[0] not in self.names:
            return None
        full = ".".join([self.names[parts[0]], *parts[1:]])
        return ast.copy_location(ast.Name(id="@" + full, ctx=ast.Load()), node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.ctx, ast.Load):
            new = self._canonical(node)
            if new is not None:
                return new
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load):
            new = self._canonical(node)
            if new is not None:
                return new
        return node


def canonical(
    node: ast.AST,
    names: dict[str, str],
    shadowed: set[str] | None = None,
    rebound: set[str] | None = None,
    method_of: tuple[str, str] | None = None,
    applied: list[str] | None = None,
    fold: bool = True,
    generics: bool = False,
    exceptions: frozenset[str] | None = None,
    whole: ast.Module | None = None,
) -> ast.AST:
    """A normalised deep copy of ``node`` (see the module docstring), each idiom of
    ``equivalence.idioms`` in its one form; ``node`` is not changed.

    ``shadowed``: names ``node`` binds itself (not the imported object of that name);
    ``rebound``: builtins the file binds (see ``rebound_builtins``); ``method_of``: (class,
    first parameter) when ``node`` is a method whose ``super(C, p)`` is ``super()``;
    ``applied``: extended with the idioms rewritten; ``fold``: list-filling loops made
    comprehensions too (not for a reader of the loops themselves); ``generics``: the project
    requires Python >= 3.9, so ``typing.Dict[...]`` is ``dict[...]`` (``typingnames``);
    ``exceptions``: the module's exception classes (``raise E()`` is ``raise E``); ``whole``:
    the whole module ``node`` is a copy of without its functions (what its classes define).
    """
    canon = _Canon(names, shadowed or set(), rebound or set(), method_of)
    canon.whole = whole
    own = exceptions or frozenset()
    idioms = Idioms(canon.is_builtin, lambda n: n in own and n not in canon.rebound)
    out = idioms.visit(canon.visit(copy_tree(node)))
    done = fold_accumulators(out, canon.is_builtin) if fold else []
    if generics:
        spelled = TypingNames(canon.is_builtin)
        out = spelled.visit(out)
        done += ["typing-generic"] * spelled.applied
    if applied is not None:
        applied.extend(idioms.applied + done)
    return out


_CASTS = frozenset({"@typing.cast", "@typing_extensions.cast"})
_BUILTINS = frozenset(dir(builtins))


def rebound_builtins(tree: ast.Module) -> set[str]:
    """The builtins the file binds itself (``canonical`` does not read them as the builtins)."""
    return set(bound_anywhere(tree).intersection(_BUILTINS))


def _drop_default_mode(call: ast.Call) -> None:
    """``open(f, "rt")`` / ``open(f, mode="r")`` as ``open(f)``, ``"wt"`` as ``"w"``: text mode
    and reading are the defaults."""
    modes = [a for a in call.args[1:2]] + [k.value for k in call.keywords if k.arg == "mode"]
    for mode in modes:
        if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
            if "b" not in mode.value and "t" in mode.value:
                mode.value = mode.value.replace("t", "")
    if len(call.args) == 2 and _is_str(call.args[1], ("r",)):
        call.args = call.args[:1]
    elif len(call.args) <= 1:
        call.keywords = [
            k for k in call.keywords if not (k.arg == "mode" and _is_str(k.value, ("r",)))
        ]


def _drop_default_encoding(call: ast.Call) -> None:
    """``"text".encode("utf-8")`` / ``f"{x}".encode("utf8")`` as ``.encode()``: a str literal's
    encode defaults to UTF-8 (only literals: another object's ``encode`` may not)."""
    func = call.func
    if not (
        isinstance(func, ast.Attribute)
        and func.attr == "encode"
        and (
            isinstance(func.value, ast.JoinedStr)
            or (isinstance(func.value, ast.Constant) and isinstance(func.value.value, str))
        )
    ):
        return
    utf8 = ("utf-8", "utf8", "UTF-8", "UTF8", "utf_8")
    if len(call.args) == 1 and not call.keywords and _is_str(call.args[0], utf8):
        call.args = []
    elif not call.args:
        call.keywords = [
            k for k in call.keywords if not (k.arg == "encoding" and _is_str(k.value, utf8))
        ]


def _is_str(node: ast.AST, values: tuple[str, ...]) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in values
