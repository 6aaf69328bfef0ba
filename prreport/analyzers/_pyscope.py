"""Scopes, import bindings, loops, guard chains and call sites of a stdlib ``ast`` tree.

One statement-level pass (expressions are only visited when call sites are asked for), so
indexing a file costs a fraction of ``ast.parse``; libcst is kept for the follow-up codemod.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

MODULE_SCOPE = "<module>"

_SPACE_AFTER_OPEN = re.compile(r"([(\[{]) ")
_SPACE_BEFORE_CLOSE = re.compile(r",? ([)\]}])")


@dataclass(frozen=True)
class Guard:
    """One enclosing construct: kind ``if|else|loop|try|except|with`` and its normalised text."""

    kind: str
    text: str
    line: int
    node: ast.AST | None = field(default=None, compare=False, repr=False)

    def key(self) -> tuple[str, str]:
        """Formatting-independent identity (the construct's AST) for before/after comparison."""
        if isinstance(self.node, ast.expr):
            return (self.kind, ast.dump(self.node))
        # Loops, try, except, with and match cases: the header, not the (changing) body.
        return (self.kind, _squash(self.text))

    def as_dict(self) -> dict[str, Any]:
        """JSON form ``{kind, text, line}``."""
        return {"kind": self.kind, "text": self.text, "line": self.line}


@dataclass(frozen=True)
class ImportBinding:
    """A name bound by an import statement, where it is bound and under which guards."""

    module: str  # dotted, with leading dots for relative imports; for ``import a.b``: "a.b"
    name: str | None  # imported name for ``from X import name``; None for ``import X``
    alias: str | None
    bound: str
    line: int  # line of the name itself (inside a parenthesised block)
    end_line: int
    stmt_line: int
    stmt_end_line: int
    scope: str
    context: tuple[Guard, ...]
    level: int = 0
    stmt_size: int = 1
    is_from: bool = False

    @property
    def key(self) -> tuple[str, str | None, str | None]:
        """Identity across versions: (module, name, alias)."""
        return (self.module, self.name, self.alias)

    @property
    def at_module_level(self) -> bool:
        """True when bound in the module namespace (possibly under module-level guards)."""
        return self.scope == MODULE_SCOPE

    @property
    def type_checking(self) -> bool:
        """True when only bound under ``if TYPE_CHECKING:``."""
        return any(g.kind == "if" and g.text.endswith("TYPE_CHECKING") for g in self.context)

    def context_key(self) -> tuple[tuple[str, str], ...]:
        """Formatting-independent identity of the guard chain."""
        return tuple(g.key() for g in self.context)


@dataclass(frozen=True)
class Loop:
    """A loop with the import statements lexically in its body (same function)."""

    scope: str
    header: str
    line: int
    end_line: int
    import_lines: tuple[int, ...]
    context: tuple[Guard, ...]


@dataclass(frozen=True)
class CallSite:
    """A call of a name (``f(...)`` or ``f.attr(...)``) with its guard chain."""

    name: str
    line: int
    col: int
    scope: str
    context: tuple[Guard, ...]
    text: str


@dataclass(frozen=True)
class ScopeIndex:
    """Import bindings and loops of one file, in source order."""

    imports: tuple[ImportBinding, ...]
    loops: tuple[Loop, ...]
    scopes: dict[str, tuple[int, int]]


def _squash(text: str) -> str:
    return "".join(text.split())


class _Source:
    """Source lines with byte-offset slicing (ast columns are UTF-8 byte offsets)."""

    def __init__(self, text: str) -> None:
        self.lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")

    def segment(self, node: ast.AST) -> str:
        l0, l1 = node.lineno - 1, (node.end_lineno or node.lineno) - 1  # type: ignore[attr-defined]
        c0, c1 = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
        if l0 == l1:
            line = self.lines[l0]
            raw = line[c0:c1] if line.isascii() else line.encode()[c0:c1].decode("utf-8", "replace")
        else:
            first = self.lines[l0].encode()[c0:]
            last = self.lines[l1].encode()[:c1]
            mid = [ln.encode() for ln in self.lines[l0 + 1 : l1]]
            raw = b"\n".join([first, *mid, last]).decode("utf-8", "replace")
        return normalise(raw)


def normalise(text: str) -> str:
    """Collapse whitespace and line breaks of a source fragment into one line."""
    out = " ".join(text.split())
    if "\n" in text:
        out = _SPACE_BEFORE_CLOSE.sub(r"\1", _SPACE_AFTER_OPEN.sub(r"\1", out))
    return out


def _handler_types(src: _Source, handler: ast.ExceptHandler) -> str:
    return src.segment(handler.type) if handler.type is not None else ""


class _Walker:
    """Statement walk tracking scope qualname and the guard chain (reset at def/class)."""

    def __init__(self, src: _Source) -> None:
        self.src = src

    def on_stmt(self, st: ast.stmt, scope: str, ctx: tuple[Guard, ...]) -> None:
        """Hook: called for every statement before its bodies are walked."""

    def on_scope(self, qualname: str, st: ast.stmt) -> None:
        """Hook: called for every def/class with its qualname."""

    def walk(self, tree: ast.Module) -> None:
        self._block(tree.body, MODULE_SCOPE, False, ())

    def _block(
        self, body: Sequence[ast.stmt], scope: str, in_func: bool, ctx: tuple[Guard, ...]
    ) -> None:
        seg = self.src.segment
        for st in body:
            self.on_stmt(st, scope, ctx)
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if scope == MODULE_SCOPE:
                    q = st.name
                elif in_func:
                    q = f"{scope}.<locals>.{st.name}"
                else:
                    q = f"{scope}.{st.name}"
                self.on_scope(q, st)
                self._block(st.body, q, not isinstance(st, ast.ClassDef), ())
            elif isinstance(st, ast.If):
                text = seg(st.test)
                self._block(st.body, scope, in_func, (*ctx, Guard("if", text, st.lineno, st.test)))
                if st.orelse:
                    self._block(
                        st.orelse, scope, in_func, (*ctx, Guard("else", text, st.lineno, st.test))
                    )
            elif isinstance(st, (ast.For, ast.AsyncFor, ast.While)):
                header = loop_header(self.src, st)
                self._block(st.body, scope, in_func, (*ctx, Guard("loop", header, st.lineno, st)))
                if st.orelse:
                    self._block(
                        st.orelse, scope, in_func, (*ctx, Guard("else", header, st.lineno, st))
                    )
            elif isinstance(st, ast.Try) or type(st).__name__ == "TryStar":
                tr: Any = st  # ast.Try or ast.TryStar (3.11+): same fields
                types = [_handler_types(self.src, h) for h in tr.handlers]
                text = "try" + (f" / except {', '.join(t or '*' for t in types)}" if types else "")
                self._block(tr.body, scope, in_func, (*ctx, Guard("try", text, st.lineno, st)))
                for h, t in zip(tr.handlers, types, strict=True):
                    guard = Guard("except", f"except {t}".strip(), h.lineno, h)
                    self._block(h.body, scope, in_func, (*ctx, guard))
                if tr.orelse:
                    guard = Guard("try", "try-else", st.lineno, st)
                    self._block(tr.orelse, scope, in_func, (*ctx, guard))
                if tr.finalbody:
                    guard = Guard("try", "finally", st.lineno, st)
                    self._block(tr.finalbody, scope, in_func, (*ctx, guard))
            elif isinstance(st, (ast.With, ast.AsyncWith)):
                text = "with " + ", ".join(
                    seg(i.context_expr) + (f" as {seg(i.optional_vars)}" if i.optional_vars else "")
                    for i in st.items
                )
                self._block(st.body, scope, in_func, (*ctx, Guard("with", text, st.lineno, st)))
            elif isinstance(st, ast.Match):
                subject = seg(st.subject)
                for case in st.cases:
                    text = f"match {subject}: case {seg(case.pattern)}"
                    if case.guard is not None:
                        text += f" if {seg(case.guard)}"
                    self._block(
                        case.body,
                        scope,
                        in_func,
                        (*ctx, Guard("if", text, case.pattern.lineno, case)),
                    )


def loop_header(src: _Source, st: ast.For | ast.AsyncFor | ast.While) -> str:
    """Normalised loop header: ``while True`` / ``for x in xs``."""
    if isinstance(st, ast.While):
        return f"while {src.segment(st.test)}"
    prefix = "async for" if isinstance(st, ast.AsyncFor) else "for"
    return f"{prefix} {src.segment(st.target)} in {src.segment(st.iter)}"


class _Indexer(_Walker):
    def __init__(self, src: _Source) -> None:
        super().__init__(src)
        self.imports: list[ImportBinding] = []
        self.loop_imports: dict[int, list[int]] = {}
        self.loops: list[tuple[ast.For | ast.AsyncFor | ast.While, str, tuple[Guard, ...]]] = []
        self.scopes: dict[str, tuple[int, int]] = {}

    def on_scope(self, qualname: str, st: ast.stmt) -> None:
        self.scopes[qualname] = (st.lineno, st.end_lineno or st.lineno)

    def on_stmt(self, st: ast.stmt, scope: str, ctx: tuple[Guard, ...]) -> None:
        if isinstance(st, (ast.For, ast.AsyncFor, ast.While)):
            self.loops.append((st, scope, ctx))
            self.loop_imports[id(st)] = []
            return
        if isinstance(st, ast.Import):
            for a in st.names:
                bound = a.asname or a.name.split(".")[0]
                self.imports.append(
                    ImportBinding(
                        a.name,
                        None,
                        a.asname,
                        bound,
                        getattr(a, "lineno", st.lineno),
                        getattr(a, "end_lineno", st.end_lineno) or st.lineno,
                        st.lineno,
                        st.end_lineno or st.lineno,
                        scope,
                        ctx,
                        0,
                        len(st.names),
                        False,
                    )
                )
        elif isinstance(st, ast.ImportFrom):
            module = "." * st.level + (st.module or "")
            for a in st.names:
                self.imports.append(
                    ImportBinding(
                        module,
                        a.name,
                        a.asname,
                        a.asname or a.name,
                        getattr(a, "lineno", st.lineno),
                        getattr(a, "end_lineno", st.end_lineno) or st.lineno,
                        st.lineno,
                        st.end_lineno or st.lineno,
                        scope,
                        ctx,
                        st.level,
                        len(st.names),
                        True,
                    )
                )
        else:
            return
        for g in ctx:
            if g.kind == "loop" and g.node is not None:
                self.loop_imports[id(g.node)].append(st.lineno)


def index(tree: ast.Module, text: str) -> ScopeIndex:
    """Every import binding and loop of a parsed file."""
    src = _Source(text)
    ix = _Indexer(src)
    ix.walk(tree)
    loops = tuple(
        Loop(
            scope,
            loop_header(src, st),
            st.lineno,
            st.end_lineno or st.lineno,
            tuple(ix.loop_imports[id(st)]),
            ctx,
        )
        for st, scope, ctx in ix.loops
    )
    return ScopeIndex(tuple(ix.imports), loops, ix.scopes)


def _header_exprs(st: ast.stmt) -> Iterable[ast.AST]:
    """Expressions a statement evaluates itself (not those of its nested bodies)."""
    if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
        yield from st.decorator_list
        yield st.args
        if st.returns is not None:
            yield st.returns
    elif isinstance(st, ast.ClassDef):
        yield from st.decorator_list
        yield from st.bases
        yield from st.keywords
    elif isinstance(st, (ast.If, ast.While)):
        yield st.test
    elif isinstance(st, (ast.For, ast.AsyncFor)):
        yield st.target
        yield st.iter
    elif isinstance(st, (ast.With, ast.AsyncWith)):
        yield from st.items
    elif isinstance(st, ast.Match):
        yield st.subject
        for c in st.cases:
            if c.guard is not None:
                yield c.guard
    elif isinstance(st, ast.Try) or type(st).__name__ == "TryStar":
        for h in st.handlers:  # type: ignore[attr-defined]
            if h.type is not None:
                yield h.type
    else:
        yield st


def _root_name(func: ast.expr) -> str | None:
    while isinstance(func, ast.Attribute):
        func = func.value
    return func.id if isinstance(func, ast.Name) else None


class _CallFinder(_Walker):
    def __init__(self, src: _Source, names: frozenset[str]) -> None:
        super().__init__(src)
        self.names = names
        self.sites: list[CallSite] = []
        # Lines mentioning a name at all: everything else is skipped without walking it.
        pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(names))) + r")\b")
        self.hits = (
            {i for i, ln in enumerate(src.lines, 1) if pattern.search(ln)} if names else set()
        )

    def on_stmt(self, st: ast.stmt, scope: str, ctx: tuple[Guard, ...]) -> None:
        hits = self.hits
        first = st.lineno
        decorators = getattr(st, "decorator_list", None)
        if decorators:
            first = min(first, *(d.lineno for d in decorators))
        body = getattr(st, "body", None)
        last = body[0].lineno - 1 if body else (st.end_lineno or st.lineno)
        # try: the header has no expressions; handler types are checked below
        if not isinstance(st, ast.Try) and not any(
            n in hits for n in range(first, max(first, last) + 1)
        ):
            return
        for expr in _header_exprs(st):
            start = getattr(expr, "lineno", None)
            if start is not None and not any(
                n in hits for n in range(start, (getattr(expr, "end_lineno", None) or start) + 1)
            ):
                continue
            for node in ast.walk(expr):
                if isinstance(node, ast.Call):
                    name = _root_name(node.func)
                    if name in self.names:
                        self.sites.append(
                            CallSite(
                                name,
                                node.lineno,
                                node.col_offset,
                                scope,
                                ctx,
                                self.src.segment(node),
                            )
                        )


def call_sites(tree: ast.Module, text: str, names: Iterable[str]) -> list[CallSite]:
    """Calls of any of ``names`` (by root name), with scope and guard chain, in source order."""
    finder = _CallFinder(_Source(text), frozenset(names))
    finder.walk(tree)
    return sorted(finder.sites, key=lambda c: (c.line, c.col))


# --- module <-> path resolution ---------------------------------------------------------


class PathIndex:
    """Resolve dotted module names to repository paths (any source root, e.g. ``python/``)."""

    def __init__(self, head_paths: Iterable[str]) -> None:
        self.paths = frozenset(head_paths)
        self._by_tail: dict[str, list[str]] = {}
        for p in sorted(self.paths):
            if p.endswith(".py"):
                tail = posixpath.basename(p)
                if tail == "__init__.py":
                    tail = posixpath.basename(posixpath.dirname(p)) + "/__init__.py"
                self._by_tail.setdefault(tail, []).append(p)

    def _find(self, rel: str) -> str | None:
        if rel in self.paths:
            return rel
        parts = rel.split("/")
        tail = "/".join(parts[-2:]) if parts[-1] == "__init__.py" else parts[-1]
        found = [p for p in self._by_tail.get(tail, ()) if p.endswith("/" + rel)]
        return min(found, key=lambda p: (len(p), p)) if found else None

    def module_path(self, dotted: str, importer: str | None = None, level: int = 0) -> str | None:
        """Path of module ``dotted`` (relative to ``importer`` when ``level`` > 0), or None."""
        if level:
            if importer is None:
                return None
            base = posixpath.dirname(importer).split("/") if posixpath.dirname(importer) else []
            if level > 1:
                base = base[: len(base) - (level - 1)] if level - 1 <= len(base) else []
            parts = base + ([p for p in dotted.split(".") if p] if dotted else [])
            stem = "/".join(parts)
            for cand in (f"{stem}.py", f"{stem}/__init__.py" if stem else "__init__.py"):
                if cand in self.paths:
                    return cand
            return None
        stem = dotted.replace(".", "/")
        return self._find(f"{stem}.py") or self._find(f"{stem}/__init__.py")

    def binding_target(self, b: ImportBinding, importer: str) -> str | None:
        """Path of the module an import binding loads (a submodule when ``name`` is one)."""
        base = b.module.lstrip(".")
        if b.is_from and b.name and b.name != "*":
            sub = f"{base}.{b.name}" if base else b.name
            hit = self.module_path(sub, importer, b.level)
            if hit:
                return hit
        return self.module_path(base, importer, b.level)
