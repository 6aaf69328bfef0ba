"""What each scope of a module binds and reads: the scope tree of a parsed file, built in one
pass by Python's scoping rules (LEGB: functions, lambdas, comprehensions and class bodies are
scopes; ``global`` rebinds in the module; no flow analysis), with the imports and star imports
of each scope and the names read only inside string annotations.

Which of those reads resolve is ``python.resolution``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import Any

# Nodes without names below them: contexts, operators, constants, and plain field values.
_LEAVES = frozenset(
    {ast.Load, ast.Store, ast.Del, ast.Constant, ast.Pass, ast.Break, ast.Continue}
    | {
        getattr(ast, n)
        for n in (
            "Add",
            "Sub",
            "Mult",
            "MatMult",
            "Div",
            "Mod",
            "Pow",
            "LShift",
            "RShift",
            "BitOr",
            "BitXor",
            "BitAnd",
            "FloorDiv",
        )
    }
    | {
        getattr(ast, n)
        for n in (
            "And",
            "Or",
            "Invert",
            "Not",
            "UAdd",
            "USub",
            "Eq",
            "NotEq",
            "Lt",
            "LtE",
            "Gt",
            "GtE",
            "Is",
            "IsNot",
            "In",
            "NotIn",
        )
    }
    | {str, int, float, complex, bytes, bool, type(None), type(...)}
)


# Fields that only ever hold strings, numbers or leaf nodes: never worth a ``getattr``.
_SCALAR_FIELDS = frozenset(
    {
        "ctx",
        "op",
        "id",
        "attr",
        "name",
        "arg",
        "asname",
        "module",
        "level",
        "kind",
        "type_comment",
        "is_async",
        "conversion",
        "simple",
    }
)


_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


# Node types whose only possible child is one node (never a list), by field name.
_ONE_CHILD: dict[type, str] = {
    getattr(ast, t): f
    for t, f in (
        ("Attribute", "value"),
        ("keyword", "value"),
        ("Expr", "value"),
        ("Return", "value"),
        ("Starred", "value"),
        ("Await", "value"),
        ("UnaryOp", "operand"),
        ("Yield", "value"),
        ("YieldFrom", "value"),
    )
}


def _child_fields(t: type) -> tuple[str, ...]:
    """Fields of a node type that may hold nodes with names below them."""
    fields = _CHILD_FIELDS.get(t)
    if fields is None:
        fields = _CHILD_FIELDS[t] = tuple(
            f for f in getattr(t, "_fields", ()) if f not in _SCALAR_FIELDS
        )
    return fields


class Scope:
    """One Python scope: what it binds, what it reads, and where it sits."""

    # A plain slotted class: one is made per function, lambda and comprehension.
    __slots__ = (
        "kind",
        "qualname",
        "parent",
        "bound",
        "declared_global",
        "uses",
        "soft_uses",
        "imports",
        "star_lines",
        "children",
    )

    def __init__(self, kind: str, qualname: str, parent: Scope | None) -> None:
        self.kind = kind  # module | function | class | comprehension
        self.qualname = qualname
        self.parent = parent
        self.bound: set[str] = set()
        self.declared_global: set[str] = set()
        self.uses: list[tuple[str, int]] = []
        self.soft_uses: set[str] = set()  # names read only inside string annotations
        self.imports: list[tuple[str, str, str, int]] = []  # bound, module, name, line
        self.star_lines: list[tuple[int, str]] = []
        self.children: list[Scope] = []


class _Binder(ast.NodeVisitor):
    """Builds the scope tree of a module in one pass (Python's LEGB rules, no flow analysis)."""

    def __init__(self) -> None:
        self.module = Scope("module", "<module>", None)
        self.scope = self.module
        # Dispatch by type once, instead of NodeVisitor's per-node method-name lookup.
        self._dispatch = {
            getattr(ast, attr[6:]): getattr(self, attr)
            for attr in dir(self)
            if attr.startswith("visit_") and hasattr(ast, attr[6:])
        }

    def visit(self, node: ast.AST) -> None:
        """Visit one node (the hot path of the analyzer: keep it lean)."""
        handler = self._dispatch.get(type(node))
        if handler is not None:
            handler(node)
        else:
            self.generic_visit(node)

    def generic_visit(self, node: ast.AST) -> None:
        """Visit the children, skipping leaves that can hold no name (names are handled inline)."""
        dispatch = self._dispatch
        leaves = _LEAVES
        name_t, load_t = ast.Name, ast.Load
        for field_name in _CHILD_FIELDS.get(type(node)) or _child_fields(type(node)):
            value = getattr(node, field_name, None)
            child: Any
            for child in value if type(value) is list else (value,):
                while True:
                    t = type(child)
                    if t in leaves:
                        break
                    if t is name_t:
                        if type(child.ctx) is load_t:
                            self.scope.uses.append((child.id, child.lineno))
                        else:
                            self._bind(child.id)
                        break
                    handler = dispatch.get(t)
                    if handler is not None:
                        handler(child)
                        break
                    only = _ONE_CHILD.get(t)
                    if only is not None:
                        # ``a.b.c``, ``return x``, ``f(k=v)``: follow the one child, no recursion
                        child = getattr(child, only, None)
                        continue
                    if isinstance(child, ast.AST):
                        self.generic_visit(child)
                    break

    # -- helpers ---------------------------------------------------------------------------

    def _bind(self, name: str, scope: Scope | None = None) -> None:
        scope = scope or self.scope
        if name in scope.declared_global:
            self.module.bound.add(name)
        else:
            scope.bound.add(name)

    def _child(self, kind: str, name: str) -> Scope:
        prefix = self.scope.qualname
        if self.scope.kind == "module":
            qual = name
        elif self.scope.kind == "function":
            qual = f"{prefix}.<locals>.{name}"
        else:
            qual = f"{prefix}.{name}"
        child = Scope(kind, qual, self.scope)
        self.scope.children.append(child)
        return child

    def _in(self, scope: Scope, nodes: Iterable[ast.AST | None]) -> None:
        saved, self.scope = self.scope, scope
        dispatch = self._dispatch
        for n in nodes:
            if n is not None:
                handler = dispatch.get(type(n))  # ``visit`` inlined: one call less per statement
                if handler is not None:
                    handler(n)
                else:
                    self.generic_visit(n)
        self.scope = saved

    def _annotation(self, node: ast.expr | None) -> None:
        if node is None:
            return
        for sub in ast.walk(node):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                try:
                    expr = ast.parse(sub.value, mode="eval")
                except SyntaxError:
                    continue
                self.scope.soft_uses |= {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
        self.visit(node)

    def _arguments(self, args: ast.arguments, scope: Scope) -> None:
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        every += [a for a in (args.vararg, args.kwarg) if a is not None]
        for a in every:
            scope.bound.add(a.arg)
            if a.annotation is not None:
                self._annotation(a.annotation)
        for d in [*args.defaults, *args.kw_defaults]:
            if d is not None:
                self.visit(d)

    # -- binding constructs ----------------------------------------------------------------

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.scope.uses.append((node.id, node.lineno))
        else:
            self._bind(node.id)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for d in node.decorator_list:
            self.visit(d)
        self._bind(node.name)
        scope = self._child("function", node.name)
        params = _type_params(node)
        scope.bound |= params
        if self.scope.kind == "class":
            scope.bound.add("__class__")  # the implicit cell behind zero-argument super()
        saved = self.scope
        if params:
            # PEP 695: the annotations are read in a scope that binds the type parameters.
            self.scope = Scope("function", f"{scope.qualname}.<type params>", saved)
            self.scope.bound |= params
            saved.children.append(self.scope)
        self._arguments(node.args, scope)
        self._annotation(node.returns)
        self.scope = saved
        self._in(scope, node.body)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Lambda(self, node: ast.Lambda) -> None:
        scope = self._child("function", "<lambda>")
        self._arguments(node.args, scope)
        self._in(scope, [node.body])

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for n in [*node.decorator_list, *node.bases, *node.keywords]:
            self.visit(n)
        self._bind(node.name)
        scope = self._child("class", node.name)
        scope.bound |= {"__module__", "__qualname__"} | _type_params(node)
        self._in(scope, node.body)

    def _comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp
    ) -> None:
        # The first iterable is evaluated in the enclosing scope, everything else inside.
        self.visit(node.generators[0].iter)
        scope = self._child("comprehension", "<comprehension>")
        rest: list[ast.AST] = []
        for i, gen in enumerate(node.generators):
            rest.append(gen.target)
            if i:
                rest.append(gen.iter)
            rest.extend(gen.ifs)
        rest.extend([node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt])
        self._in(scope, rest)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension  # type: ignore[assignment]

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        scope = self.scope
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent
        self._bind(node.target.id, scope)
        self.visit(node.value)

    def visit_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        for a in node.names:
            line = getattr(a, "lineno", None) or node.lineno
            module = (node.module or "") if isinstance(node, ast.ImportFrom) else a.name
            if a.name == "*":
                self.scope.star_lines.append((line, module))
                continue
            if isinstance(node, ast.Import):
                bound = a.asname or a.name.split(".")[0]
            else:
                bound = a.asname or a.name
            self._bind(bound)
            explicit = a.asname is not None and a.asname == a.name.split(".")[-1]
            if module != "__future__" and not explicit:
                self.scope.imports.append((bound, module, a.name, line))

    visit_ImportFrom = visit_Import  # type: ignore[assignment]

    def visit_Global(self, node: ast.Global) -> None:
        self.scope.declared_global |= set(node.names)
        self.module.bound |= set(node.names)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        return None

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self._bind(node.name)
        self.generic_visit(node)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        if node.name:
            self._bind(node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self._bind(node.name)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        if node.rest:
            self._bind(node.rest)
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        params = getattr(node, "type_params_lowered", ())
        if not params:
            self.generic_visit(node)
            return
        # ``type Pair[T] = tuple[T, T]`` lowered: its value is read in a scope binding ``T``.
        for target in node.targets:
            self.visit(target)
        scope = self._child("function", "<type alias>")
        scope.bound |= set(params)
        self._in(scope, [node.value])

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.visit(node.target)
        self._annotation(node.annotation)
        if node.value is not None:
            self.visit(node.value)

    def visit_arg(self, node: ast.arg) -> None:
        self._annotation(node.annotation)


def _type_params(node: ast.AST) -> set[str]:
    """Names of PEP 695 type parameters (``def f[T](x: T)``, Python 3.12+, or lowered by the
    parse door from newer syntax: ``type_params_lowered``)."""
    native = {p.name for p in getattr(node, "type_params", None) or () if getattr(p, "name", None)}
    return native | set(getattr(node, "type_params_lowered", ()))


def scope_tree(tree: ast.Module) -> Scope:
    """The module scope of a parsed file, with nested scopes as children."""
    binder = _Binder()
    binder.visit(tree)
    return binder.module


def walk(scope: Scope) -> list[Scope]:
    """A scope and every scope nested in it, in pre-order."""
    out: list[Scope] = []
    stack = [scope]
    while stack:
        s = stack.pop()
        out.append(s)
        stack.extend(reversed(s.children))
    return out
