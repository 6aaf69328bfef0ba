"""Scopes, import bindings, loops, guard chains and call sites of a stdlib ``ast`` tree.

One statement-level pass (expressions are only visited when call sites are asked for), so
indexing a file costs a fraction of ``ast.parse``; libcst is kept for the follow-up codemod.
"""

from __future__ import annotations

import ast
import bisect
import functools
import itertools
import posixpath
import re
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from prreport.textlines import split_lines

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
        cached: tuple[str, str] | None = self.__dict__.get("_key")
        if cached is None:
            if isinstance(self.node, ast.expr):
                cached = (self.kind, ast.dump(self.node))
            else:
                # Loops, try, except, with and match cases: the header, not the (changing) body.
                cached = (self.kind, _squash(self.text))
            object.__setattr__(self, "_key", cached)  # compared many times: dump once
        return cached

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
    classes: frozenset[str] = frozenset()  # the scopes that are class bodies


# Statements without nested bodies: the walk never descends into them.
SIMPLE_STATEMENTS: frozenset[type[ast.stmt]] = frozenset(
    {
        ast.Expr,
        ast.Assign,
        ast.AugAssign,
        ast.AnnAssign,
        ast.Return,
        ast.Import,
        ast.ImportFrom,
        ast.Pass,
        ast.Break,
        ast.Continue,
        ast.Raise,
        ast.Delete,
        ast.Global,
        ast.Nonlocal,
        ast.Assert,
    }
)
# Statements that hold other statements (definitions included), every Python version's.
COMPOUND_STATEMENTS: frozenset[type[ast.stmt]] = frozenset(
    {
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.ClassDef,
        ast.If,
        ast.For,
        ast.AsyncFor,
        ast.While,
        ast.With,
        ast.AsyncWith,
        ast.Try,
        ast.Match,
        *([getattr(ast, "TryStar")] if hasattr(ast, "TryStar") else []),  # noqa: B009
    }
)
# try/except and (3.11+) try/except*: the same fields.
_TRY: tuple[type[ast.stmt], ...] = (ast.Try, ast.TryStar) if hasattr(ast, "TryStar") else (ast.Try,)


def _squash(text: str) -> str:
    return "".join(text.split())


class _Source:
    """Source lines with byte-offset slicing (ast columns are UTF-8 byte offsets)."""

    def __init__(self, text: str) -> None:
        self.lines = split_lines(text)

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


@functools.lru_cache(maxsize=64)
def _source(text: str) -> _Source:
    """One split per text for the index, the call-site walk and ``source_lines`` (a few
    analyzers each asked for the lines of the same file sides; a PR's sides all fit)."""
    return _Source(text)


def source_lines(text: str) -> list[str]:
    """The lines of ``text`` as its syntax tree numbers them (shared: callers only read them)."""
    return _source(text).lines


def normalise(text: str) -> str:
    """Collapse whitespace and line breaks of a source fragment into one line."""
    out = " ".join(text.split())
    if "\n" in text:
        out = _SPACE_BEFORE_CLOSE.sub(r"\1", _SPACE_AFTER_OPEN.sub(r"\1", out))
    return out


def _handler_types(src: _Source, handler: ast.ExceptHandler) -> str:
    return src.segment(handler.type) if handler.type is not None else ""


class _Pending:
    """A guard whose normalised text is only computed when a finding needs it."""

    __slots__ = ("kind", "line", "node", "make", "_guard")

    def __init__(self, kind: str, line: int, node: ast.AST, make: Callable[[], str]) -> None:
        self.kind = kind
        self.line = line
        self.node = node
        self.make = make
        self._guard: Guard | None = None

    def guard(self) -> Guard:
        if self._guard is None:
            self._guard = Guard(self.kind, self.make(), self.line, self.node)
        return self._guard


Pending = tuple[_Pending, ...]


def realise(ctx: Pending) -> tuple[Guard, ...]:
    """The guard chain of a statement, texts computed (once per guard)."""
    return tuple(p.guard() for p in ctx)


class _Walker:
    """Statement walk tracking scope qualname and the guard chain (reset at def/class).

    Guard texts are computed lazily: most statements never need theirs, and slicing source
    for every ``if``/loop/``with`` of a large file costs a sizeable share of ``ast.parse``.
    """

    prunes = False  # True when ``skip`` is overridden
    # Statement types ``on_stmt`` wants (None: all); the rest are walked without a call.
    wanted: frozenset[type[ast.stmt]] | None = None

    def __init__(self, src: _Source) -> None:
        self.src = src

    def skip(self, st: ast.stmt) -> bool:
        """Hook: True to leave a statement (and everything inside it) unvisited."""
        return False

    def on_stmt(self, st: ast.stmt, scope: str, ctx: Pending) -> None:
        """Hook: called for every statement before its bodies are walked."""

    def on_scope(self, qualname: str, st: ast.stmt) -> None:
        """Hook: called for every def/class with its qualname."""

    def enter(self, qualname: str) -> bool:
        """Hook: False to leave the body of a def/class unvisited (its header is visited)."""
        return True

    def walk(self, tree: ast.Module) -> None:
        self._block(tree.body, MODULE_SCOPE, False, ())

    def _block(self, body: Sequence[ast.stmt], scope: str, in_func: bool, ctx: Pending) -> None:
        seg = self.src.segment
        src = self.src
        skip = self.skip if self.prunes else None
        on_stmt = self.on_stmt
        wanted = self.wanted
        for st in body:
            if skip is not None and skip(st):
                continue
            t = type(st)
            if wanted is None or t in wanted:
                on_stmt(st, scope, ctx)
            if t in SIMPLE_STATEMENTS:
                continue
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if scope == MODULE_SCOPE:
                    q = st.name
                elif in_func:
                    q = f"{scope}.<locals>.{st.name}"
                else:
                    q = f"{scope}.{st.name}"
                self.on_scope(q, st)
                if self.enter(q):
                    self._block(st.body, q, not isinstance(st, ast.ClassDef), ())
            elif isinstance(st, ast.If):
                test = st.test
                make = functools.partial(seg, test)
                self._block(st.body, scope, in_func, (*ctx, _Pending("if", st.lineno, test, make)))
                if st.orelse:
                    guard = _Pending("else", st.lineno, test, make)
                    self._block(st.orelse, scope, in_func, (*ctx, guard))
            elif isinstance(st, (ast.For, ast.AsyncFor, ast.While)):
                make = functools.partial(loop_header, src, st)
                self._block(st.body, scope, in_func, (*ctx, _Pending("loop", st.lineno, st, make)))
                if st.orelse:
                    guard = _Pending("else", st.lineno, st, make)
                    self._block(st.orelse, scope, in_func, (*ctx, guard))
            elif isinstance(st, _TRY):
                tr: Any = st  # ast.Try or ast.TryStar (3.11+): same fields
                make = functools.partial(_try_text, src, tr)
                self._block(tr.body, scope, in_func, (*ctx, _Pending("try", st.lineno, st, make)))
                for h in tr.handlers:
                    guard = _Pending("except", h.lineno, h, functools.partial(_except_text, src, h))
                    self._block(h.body, scope, in_func, (*ctx, guard))
                if tr.orelse:
                    guard = _Pending("try", st.lineno, st, _const("try-else"))
                    self._block(tr.orelse, scope, in_func, (*ctx, guard))
                if tr.finalbody:
                    guard = _Pending("try", st.lineno, st, _const("finally"))
                    self._block(tr.finalbody, scope, in_func, (*ctx, guard))
            elif isinstance(st, (ast.With, ast.AsyncWith)):
                make = functools.partial(_with_text, src, st)
                self._block(st.body, scope, in_func, (*ctx, _Pending("with", st.lineno, st, make)))
            elif isinstance(st, ast.Match):
                for case in st.cases:
                    make = functools.partial(_case_text, src, st, case)
                    guard = _Pending("if", case.pattern.lineno, case, make)
                    self._block(case.body, scope, in_func, (*ctx, guard))


def child_blocks(st: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists of a compound statement in source order: body, handlers, else,
    finally, match cases."""
    if type(st) in SIMPLE_STATEMENTS:
        return []
    out = [getattr(st, "body", None) or []]
    out += [h.body for h in getattr(st, "handlers", ())]
    out += [getattr(st, "orelse", None) or [], getattr(st, "finalbody", None) or []]
    out += [c.body for c in getattr(st, "cases", ())]
    return [b for b in out if b]


def all_statements(body: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of ``body`` and of the blocks nested in it, definitions included, in
    source order; expressions are not walked (a statement can only sit in a statement list)."""
    stack: list[Iterator[ast.stmt]] = [iter(body)]
    while stack:
        for st in stack[-1]:
            yield st
            blocks = child_blocks(st)
            if blocks:
                stack.append(itertools.chain.from_iterable(blocks))
                break
        else:
            stack.pop()


def _const(text: str) -> Callable[[], str]:
    return lambda: text


def _try_text(src: _Source, tr: Any) -> str:
    types = [_handler_types(src, h) for h in tr.handlers]
    return "try" + (f" / except {', '.join(t or '*' for t in types)}" if types else "")


def _except_text(src: _Source, h: ast.ExceptHandler) -> str:
    return f"except {_handler_types(src, h)}".strip()


def _with_text(src: _Source, st: ast.With | ast.AsyncWith) -> str:
    seg = src.segment
    return "with " + ", ".join(
        seg(i.context_expr) + (f" as {seg(i.optional_vars)}" if i.optional_vars else "")
        for i in st.items
    )


def _case_text(src: _Source, st: ast.Match, case: ast.match_case) -> str:
    text = f"match {src.segment(st.subject)}: case {src.segment(case.pattern)}"
    if case.guard is not None:
        text += f" if {src.segment(case.guard)}"
    return text


def loop_header(src: _Source, st: ast.For | ast.AsyncFor | ast.While) -> str:
    """Normalised loop header: ``while True`` / ``for x in xs``."""
    if isinstance(st, ast.While):
        return f"while {src.segment(st.test)}"
    prefix = "async for" if isinstance(st, ast.AsyncFor) else "for"
    return f"{prefix} {src.segment(st.target)} in {src.segment(st.iter)}"


class _Indexer(_Walker):
    wanted = frozenset({ast.Import, ast.ImportFrom, ast.For, ast.AsyncFor, ast.While})

    def __init__(self, src: _Source) -> None:
        super().__init__(src)
        self.imports: list[ImportBinding] = []
        self.loop_imports: dict[int, list[int]] = {}
        self.loops: list[tuple[ast.For | ast.AsyncFor | ast.While, str, Pending]] = []
        self.scopes: dict[str, tuple[int, int]] = {}
        self.classes: set[str] = set()

    def on_scope(self, qualname: str, st: ast.stmt) -> None:
        self.scopes[qualname] = (st.lineno, st.end_lineno or st.lineno)
        if isinstance(st, ast.ClassDef):
            self.classes.add(qualname)

    def on_stmt(self, st: ast.stmt, scope: str, ctx: Pending) -> None:
        if isinstance(st, (ast.For, ast.AsyncFor, ast.While)):
            self.loops.append((st, scope, ctx))
            self.loop_imports[id(st)] = []
            return
        if isinstance(st, ast.Import):
            guards = realise(ctx)
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
                        guards,
                        0,
                        len(st.names),
                        False,
                    )
                )
        elif isinstance(st, ast.ImportFrom):
            module = "." * st.level + (st.module or "")
            guards = realise(ctx)
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
                        guards,
                        st.level,
                        len(st.names),
                        True,
                    )
                )
        else:
            return
        for g in ctx:
            if g.kind == "loop":
                self.loop_imports[id(g.node)].append(st.lineno)


def index(tree: ast.Module, text: str) -> ScopeIndex:
    """Every import binding and loop of a parsed file."""
    src = _source(text)
    ix = _Indexer(src)
    ix.walk(tree)
    loops = tuple(
        Loop(
            scope,
            loop_header(src, st),
            st.lineno,
            st.end_lineno or st.lineno,
            tuple(ix.loop_imports[id(st)]),
            realise(ctx),
        )
        for st, scope, ctx in ix.loops
    )
    return ScopeIndex(tuple(ix.imports), loops, ix.scopes, frozenset(ix.classes))


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
    elif isinstance(st, _TRY):
        for h in st.handlers:  # type: ignore[attr-defined]
            if h.type is not None:
                yield h.type
    else:
        yield st


_WORD = re.compile(r"\w")
_WORDS = re.compile(r"\w+")
_FIND_NAMES = 16  # up to this many names, ``str.find`` per name beats a pass over every word


def _word_lines(text: str, names: Iterable[str]) -> list[int]:
    """Sorted line numbers where any of ``names`` occurs as a whole word (``\\bname\\b``)."""
    found: set[int] = set()
    names = [n for n in names if n]
    simple = {n for n in names if n.isidentifier()}
    if len(simple) > _FIND_NAMES:
        # Many names (a large file's call sites): one pass over the words, not one per name.
        line, counted = 1, 0
        for m in _WORDS.finditer(text):
            if m.group() in simple:
                line += text.count("\n", counted, m.start())
                counted = m.start()
                found.add(line)
        names = [n for n in names if n not in simple]
    for name in names:
        line, counted = 1, 0
        pos = text.find(name)
        while pos >= 0:
            end = pos + len(name)
            # str.find is fast; the word-boundary test only runs at the rare candidates
            before_ok = pos == 0 or not _WORD.match(text, pos - 1)
            after_ok = end == len(text) or not _WORD.match(text, end)
            if before_ok and after_ok:
                line += text.count("\n", counted, pos)
                counted = pos
                found.add(line)
            pos = text.find(name, pos + 1)
    return sorted(found)


def _root_name(func: ast.expr) -> str | None:
    while isinstance(func, ast.Attribute):
        func = func.value
    return func.id if isinstance(func, ast.Name) else None


class _CallFinder(_Walker):
    def __init__(self, src: _Source, names: frozenset[str], within: frozenset[str] | None) -> None:
        super().__init__(src)
        self.names = names
        # Qualnames that are, enclose, or sit inside one of the ``within`` scopes get walked.
        self.roots = within if within is None or MODULE_SCOPE not in within else None
        self.ancestors = {
            r[:i] for r in self.roots or () for i in range(len(r) + 1) if r[i : i + 1] in (".", "")
        }
        self.sites: list[CallSite] = []
        # Lines mentioning a name at all: everything else is skipped without walking it.
        self.hits = _word_lines("\n".join(src.lines), names)

    def _hit(self, first: int, last: int) -> bool:
        """Whether any line in ``first..last`` mentions a wanted name."""
        i = bisect.bisect_left(self.hits, first)
        return i < len(self.hits) and self.hits[i] <= last

    prunes = True

    def enter(self, qualname: str) -> bool:
        if self.roots is None or qualname in self.ancestors:
            return True
        parts = qualname.split(".")
        return any(".".join(parts[:i]) in self.roots for i in range(1, len(parts)))

    def skip(self, st: ast.stmt) -> bool:
        first = st.lineno
        decorators = getattr(st, "decorator_list", None)
        if decorators:
            first = min(first, *(d.lineno for d in decorators))
        return not self._hit(first, st.end_lineno or st.lineno)

    def on_stmt(self, st: ast.stmt, scope: str, ctx: Pending) -> None:
        first = st.lineno
        decorators = getattr(st, "decorator_list", None)
        if decorators:
            first = min(first, *(d.lineno for d in decorators))
        body = getattr(st, "body", None)
        last = body[0].lineno - 1 if body else (st.end_lineno or st.lineno)
        # try: the header has no expressions; handler types are checked below
        if not isinstance(st, ast.Try) and not self._hit(first, max(first, last)):
            return
        for expr in _header_exprs(st):
            start = getattr(expr, "lineno", None)
            if start is not None and not self._hit(
                start, getattr(expr, "end_lineno", None) or start
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
                                realise(ctx),
                                self.src.segment(node),
                            )
                        )


def call_sites(
    tree: ast.Module, text: str, names: Iterable[str], within: Iterable[str] | None = None
) -> list[CallSite]:
    """Calls of any of ``names`` (by root name), with scope and guard chain, in source order.

    With ``within`` (scope qualnames), calls are only looked for in those scopes and the code
    nested in them (``<module>`` means everywhere), plus the headers of enclosing definitions.
    """
    finder = _CallFinder(
        _source(text), frozenset(names), None if within is None else frozenset(within)
    )
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


_OWN_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_OWN_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def own_nodes(stmts: Sequence[ast.AST]) -> Iterator[ast.AST]:
    """Nodes of ``stmts`` in their own scope, in order: nested functions, classes and lambdas are
    not entered, but their decorators, defaults and bases (run in this scope) are."""
    stack = list(reversed(stmts))
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, _OWN_SCOPES):
            # Decorators and defaults run in the enclosing scope; the body does not.
            if isinstance(n, (*_OWN_FUNCS, ast.Lambda)):
                stack.extend(n.args.defaults)
                stack.extend(d for d in n.args.kw_defaults if d is not None)
            if isinstance(n, (*_OWN_FUNCS, ast.ClassDef)):
                stack.extend(n.decorator_list)
            if isinstance(n, ast.ClassDef):
                stack.extend(n.bases)
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(n))))


def is_string_statement(st: ast.AST) -> bool:
    """A statement that is only a str literal: a docstring or an attribute docstring."""
    return (
        isinstance(st, ast.Expr)
        and isinstance(st.value, ast.Constant)
        and isinstance(st.value.value, str)
    )


def single_binding(tree: ast.Module, name: str) -> ast.stmt | None:
    """The one module-level statement binding ``name`` when nothing else anywhere rebinds it."""
    found = _bindings(tree).get(name, [])
    if len(found) != 1 or not any(found[0] is st for st in tree.body):
        return None
    return found[0]  # type: ignore[return-value]


_BINDINGS: weakref.WeakKeyDictionary[ast.Module, dict[str, list[ast.AST]]] = (
    weakref.WeakKeyDictionary()
)
_PARAMETERS: weakref.WeakKeyDictionary[ast.Module, frozenset[str]] = weakref.WeakKeyDictionary()


def bound_anywhere(tree: ast.Module) -> frozenset[str]:
    """Every name ``tree`` binds anywhere: definitions, imports, stores and deletes,
    ``global``/``nonlocal`` names and parameters (from the same one walk as ``single_binding``)."""
    return frozenset(_bindings(tree)) | _PARAMETERS[tree]


def _bindings(tree: ast.Module) -> dict[str, list[ast.AST]]:
    """Every node that binds each name anywhere in ``tree`` (one walk per tree, kept while the
    tree lives): definitions, imports, stores and deletes, ``global``/``nonlocal``; the
    parameters' names are kept aside (``bound_anywhere``)."""
    index = _BINDINGS.get(tree)
    if index is not None:
        return index
    index = {}
    parameters: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            parameters.add(node.arg)
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            index.setdefault(node.name, []).append(node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                index.setdefault(a.asname or a.name.split(".")[0], []).append(node)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            index.setdefault(node.id, []).append(node)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for n in node.names:
                index.setdefault(n, []).append(node)
    _BINDINGS[tree] = index
    _PARAMETERS[tree] = frozenset(parameters)
    return index
