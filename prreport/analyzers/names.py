"""Name resolution on the after side of changed files: unresolved names (F821), unused added imports (F401)."""

from __future__ import annotations

import ast
import builtins
import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from prreport.analyzers import Analyzer, register
from prreport.bundle import FileChange, PullRequestBundle
from prreport.findings import Finding
from prreport.python.sources import SourceFiles

_BUILTINS = frozenset(dir(builtins)) | {
    "__file__",
    "__name__",
    "__doc__",
    "__spec__",
    "__loader__",
    "__package__",
    "__builtins__",
    "__path__",
    "__annotations__",
    "__cached__",
    "__dict__",
    "WindowsError",  # exists on Windows only; code guarded by a platform check uses it
}
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


class _Scope:
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

    def __init__(self, kind: str, qualname: str, parent: _Scope | None) -> None:
        self.kind = kind  # module | function | class | comprehension
        self.qualname = qualname
        self.parent = parent
        self.bound: set[str] = set()
        self.declared_global: set[str] = set()
        self.uses: list[tuple[str, int]] = []
        self.soft_uses: set[str] = set()  # names read only inside string annotations
        self.imports: list[tuple[str, str, str, int]] = []  # bound, module, name, line
        self.star_lines: list[tuple[int, str]] = []
        self.children: list[_Scope] = []


class _Binder(ast.NodeVisitor):
    """Builds the scope tree of a module in one pass (Python's LEGB rules, no flow analysis)."""

    def __init__(self) -> None:
        self.module = _Scope("module", "<module>", None)
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

    def _bind(self, name: str, scope: _Scope | None = None) -> None:
        scope = scope or self.scope
        if name in scope.declared_global:
            self.module.bound.add(name)
        else:
            scope.bound.add(name)

    def _child(self, kind: str, name: str) -> _Scope:
        prefix = self.scope.qualname
        if self.scope.kind == "module":
            qual = name
        elif self.scope.kind == "function":
            qual = f"{prefix}.<locals>.{name}"
        else:
            qual = f"{prefix}.{name}"
        child = _Scope(kind, qual, self.scope)
        self.scope.children.append(child)
        return child

    def _in(self, scope: _Scope, nodes: Iterable[ast.AST | None]) -> None:
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

    def _arguments(self, args: ast.arguments, scope: _Scope) -> None:
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
        scope.bound |= _type_params(node)
        if self.scope.kind == "class":
            scope.bound.add("__class__")  # the implicit cell behind zero-argument super()
        self._arguments(node.args, scope)
        self._annotation(node.returns)
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

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.visit(node.target)
        self._annotation(node.annotation)
        if node.value is not None:
            self.visit(node.value)

    def visit_arg(self, node: ast.arg) -> None:
        self._annotation(node.annotation)


def _type_params(node: ast.AST) -> set[str]:
    """Names of PEP 695 type parameters (``def f[T](x: T)``, Python 3.12+)."""
    return {p.name for p in getattr(node, "type_params", None) or () if getattr(p, "name", None)}


def scopes(tree: ast.Module) -> _Scope:
    """The module scope of a parsed file, with nested scopes as children."""
    binder = _Binder()
    binder.visit(tree)
    return binder.module


def _walk(scope: _Scope) -> list[_Scope]:
    """A scope and every scope nested in it, in pre-order."""
    out: list[_Scope] = []
    stack = [scope]
    while stack:
        s = stack.pop()
        out.append(s)
        stack.extend(reversed(s.children))
    return out


@dataclass(frozen=True)
class _Unresolved:
    name: str
    line: int
    scope: str


def _before_scopes(sources: SourceFiles, path: str, tree: ast.Module) -> _Scope:
    scope: _Scope = sources.memo(path, "before", "scopes", lambda: scopes(tree))
    return scope


def _unresolved_before(sources: SourceFiles) -> set[str]:
    """Names unbound in the before version of any changed Python file (memoised)."""

    def build() -> set[str]:
        out: set[str] = set()
        for f in sources.python_files():
            tree = sources.tree(f.before_path, "before") if f.before is not None else None
            if tree is not None:
                out |= {u.name for u in unresolved(_before_scopes(sources, f.before_path, tree))[0]}
        return out

    result: set[str] = sources.memo("", "before", "unresolved-names", build)
    return result


def unresolved(module: _Scope) -> tuple[list[_Unresolved], list[tuple[int, str]]]:
    """Reads bound in no visible scope nor builtins, and the star imports that make this uncertain."""
    out: list[_Unresolved] = []
    stars: list[tuple[int, str]] = []
    # Names bound in the enclosing function/module scopes of a scope (class bodies are not
    # enclosing for the code nested in them); the scope's own names are checked first.
    enclosing: dict[int, frozenset[str] | set[str]] = {id(module): frozenset()}
    for s in _walk(module):
        stars.extend(s.star_lines)
        outer = enclosing[id(s)]
        if s.children:
            inner = outer if s.kind == "class" else (s.bound | outer if outer else s.bound)
            for c in s.children:
                enclosing[id(c)] = inner
        if not s.uses:
            continue
        own = s.bound
        for name, line in s.uses:
            if name not in own and name not in outer and name not in _BUILTINS:
                out.append(_Unresolved(name, line, s.qualname))
    return out, sorted(stars)


def _used_below(scope: _Scope) -> set[str]:
    names: set[str] = set()
    for s in _walk(scope):
        names |= {n for n, _ in s.uses}
        names |= s.soft_uses
    return names


def _dunder_all(tree: ast.Module) -> set[str]:
    """Names listed in a module-level ``__all__`` (assigned, extended or added to)."""
    out: set[str] = set()
    for st in tree.body:
        value: ast.AST | None = None
        if isinstance(st, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                value = st.value
        elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
            fn = st.value.func
            if (
                isinstance(fn, ast.Attribute)
                and isinstance(fn.value, ast.Name)
                and fn.value.id == "__all__"
            ):
                value = st.value.args[0] if st.value.args else None
        if value is not None:
            out |= {
                n.value
                for n in ast.walk(value)
                if isinstance(n, ast.Constant) and isinstance(n.value, str)
            }
    return out


@register
class NameAnalyzer(Analyzer):
    """Names the change leaves unbound, and imports it adds that nothing uses.

    before: ``def f(): from m import g; g()`` · after: ``def f(): g()`` (no module-level
    import) → ``names.unresolved`` for ``g``; after: ``import os`` never read → ``names.unused-import``.
    """

    name = "names"

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``names.unresolved``, ``names.not-checkable`` and ``names.unused-import`` per changed file."""
        findings: list[Finding] = []
        for f in sources.python_files():
            if f.after is None:
                continue
            tree = sources.tree(f.path, "after")
            if tree is None:
                continue
            module: _Scope = sources.memo(
                f.path, "after", "scopes", functools.partial(scopes, tree)
            )
            findings.extend(self._unresolved(f, sources, module))
            findings.extend(self._unused(f, sources, tree, module))
        return sorted(findings, key=Finding.sort_key)

    def _unresolved(self, f: FileChange, sources: SourceFiles, module: _Scope) -> list[Finding]:
        """Unbound names the PR introduced (or kept while moving them: then ``preexisting``)."""
        missing, stars = unresolved(module)
        if not missing:
            return []
        added = set(sources.changed(f).added)
        before_missing: set[str] | None = None
        if f.before is not None:
            before_tree = sources.tree(f.before_path, "before")
            if before_tree is not None:
                before_scope = sources.memo(
                    f.before_path, "before", "scopes", lambda: scopes(before_tree)
                )
                before_missing = {u.name for u in unresolved(before_scope)[0]}
        # Report what the PR broke: reads on added lines, or names that resolved before.
        by_name: dict[str, list[_Unresolved]] = {}
        for u in missing:
            new_read = u.line in added
            was_bound = before_missing is not None and u.name not in before_missing
            if new_read or was_bound or before_missing is None:
                by_name.setdefault(u.name, []).append(u)
        out = []
        for name, uses in sorted(by_name.items()):
            uses.sort(key=lambda u: u.line)
            details: dict[str, object] = {
                "scope": uses[0].scope,
                "lines": [u.line for u in uses],
                "scopes": sorted({u.scope for u in uses}),
            }
            if name in _unresolved_before(sources):
                # Already unbound before the PR (in this file or where the code came from):
                # moving such code along changes nothing; the finding says so.
                details["preexisting"] = True
            if stars:
                details["star_imports"] = [{"line": ln, "module": m} for ln, m in stars]
                out.append(
                    Finding(
                        "names.not-checkable",
                        f.path,
                        uses[0].line,
                        name,
                        f"{name} may come from a star import",
                        details,
                    )
                )
            else:
                out.append(
                    Finding(
                        "names.unresolved",
                        f.path,
                        uses[0].line,
                        name,
                        f"{name} is not bound",
                        details,
                    )
                )
        return out

    def _unused(
        self, f: FileChange, sources: SourceFiles, tree: ast.Module, module: _Scope
    ) -> list[Finding]:
        added = set(sources.changed(f).added) if f.before is not None else None
        reexport = f.path.endswith("__init__.py")
        exported = _dunder_all(tree)
        out = []
        for s in _walk(module):
            if not s.imports:
                continue
            used = _used_below(s)
            for bound, mod, name, line in s.imports:
                if added is not None and line not in added:
                    continue
                if bound in used:
                    continue
                if s is module and (reexport or bound in exported):
                    continue
                out.append(
                    Finding(
                        "names.unused-import",
                        f.path,
                        line,
                        bound,
                        f"{bound} is imported but never used",
                        {"module": mod, "name": name if name != mod else "", "scope": s.qualname},
                    )
                )
        return out
