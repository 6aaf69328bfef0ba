"""Call sites of names (``f(...)``, ``f.attr(...)``) with their scope and guard chain.

Only lines that mention a wanted name are walked, and only the scopes asked for.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass

from prreport.python.scopes import MODULE_SCOPE, TRY_STATEMENTS, SourceText, source_text
from prreport.python.walk import Guard, Pending, Walker, realise


@dataclass(frozen=True)
class CallSite:
    """A call of a name (``f(...)`` or ``f.attr(...)``) with its guard chain."""

    name: str
    line: int
    col: int
    scope: str
    context: tuple[Guard, ...]
    text: str


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
    elif isinstance(st, TRY_STATEMENTS):
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


class _CallFinder(Walker):
    def __init__(
        self, src: SourceText, names: frozenset[str], within: frozenset[str] | None
    ) -> None:
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
        source_text(text), frozenset(names), None if within is None else frozenset(within)
    )
    finder.walk(tree)
    return sorted(finder.sites, key=lambda c: (c.line, c.col))
