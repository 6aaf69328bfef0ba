"""Both parts of ``list-to-generator`` over the whole change, and ``consumed-generator`` at callers.

``proven`` keeps the candidates whose old body is the new generator (``as_generator``) and whose
every reference consumes the call at once (``consumers``), assuming the other candidates hold,
until the set is stable. ``generator_rewrites`` is the behaviour comparison's last resort: a
proven function is equal under ``list-to-generator`` (``ASSUME_PEP479``); a caller that now
wraps a proven call in ``list(...)`` is equal once ``list(_f(...))`` is read as ``_f(...)``
on both sides (``consumed-generator``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from prreport.equivalence.generators.as_generator import refs, same_generator
from prreport.equivalence.generators.bindings import bound_in
from prreport.equivalence.generators.candidates import candidates
from prreport.equivalence.generators.consumers import all_consume, trees_with
from prreport.equivalence.rewrites import Rewrite, see_through
from prreport.python.definitions import same_tree
from prreport.python.scopes import bound_anywhere
from prreport.python.sources import SourceFiles

_IMPORTS = (ast.Import, ast.ImportFrom)
ASSUME_PEP479 = "no StopIteration escapes the old body, which a generator turns into RuntimeError"


Canon = Callable[[ast.FunctionDef, str, ast.Module, str], ast.AST]


def proven(
    sources: SourceFiles, canon: Canon, low: tuple[int, ...] | None
) -> dict[tuple[str, str], list[Rewrite]]:
    """The candidates proven (both parts), by (after path, name), with their rewrites."""

    def build() -> dict[tuple[str, str], list[Rewrite]]:
        cands = candidates(sources)
        bundle = sources.bundle
        trees = {c.name: trees_with(c.name, sources, bundle) for c in cands}
        cands = [c for c in cands if trees[c.name] is not None]
        result: dict[tuple[str, str], list[Rewrite]] = {}
        while cands:
            result = {}
            names = {(c.path, c.name) for c in cands}
            for c in cands:
                old = canon(c.old, c.before_path, c.before, "before")
                new = canon(c.new, c.path, c.after, "after")
                assert isinstance(old, ast.FunctionDef) and isinstance(new, ast.FunctionDef)
                got = same_generator(old, new, c, cands, low)
                if got is None:
                    continue
                if not all(
                    all_consume(t, c.name, {n for p, n in names if p == path})
                    for path, t in trees[c.name] or ()
                ):
                    continue
                result[(c.path, c.name)] = got
            kept = [c for c in cands if (c.path, c.name) in result]
            if len(kept) == len(cands):
                break
            cands = kept
        return result

    done: dict[tuple[str, str], list[Rewrite]] = sources.memo("", "", "generators-proven", build)
    return done


def _unwrap(fn: ast.AST, is_ref: Callable[[ast.expr, set[str]], bool], rebinds: bool) -> set[str]:
    """Read ``list(_f(...))`` as ``_f(...)`` in place; the functions read so."""
    shadowed = bound_in(fn)
    if rebinds or "list" in shadowed:
        return set()
    found: set[str] = set()

    class _Strip(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call) -> ast.AST:
            self.generic_visit(node)
            inner = node.args[0] if len(node.args) == 1 else None
            if (
                isinstance(node.func, ast.Name)
                and node.func.id == "list"
                and not node.keywords
                and isinstance(inner, ast.Call)
                and isinstance(inner.func, ast.Name)
                and is_ref(inner.func, shadowed)
            ):
                found.add(inner.func.id.rsplit(".", 1)[-1])
                return inner
            return node

    _Strip().visit(fn)
    return found


def generator_rewrites(
    sources: SourceFiles,
    path: str,
    qualname: str,
    canon: Canon,
    pair: Callable[[], tuple[ast.AST, ast.AST]],
    low: tuple[int, ...] | None,
) -> list[Rewrite] | None:
    """Last resort of the behaviour comparison: the rewrites that make a changed function equal
    when it is a list builder made a generator, or a caller of one that now wraps it in
    ``list(...)``; None otherwise."""
    if not candidates(sources):
        return None
    done = proven(sources, canon, low)
    if not done:
        return None
    if (path, qualname) in done:
        return [Rewrite("list-to-generator", qualname, ASSUME_PEP479), *done[(path, qualname)]]
    cands = [c for c in candidates(sources) if (c.path, c.name) in done]
    is_ref = refs(cands, path)
    f = next((x for x in sources.bundle.files if x.path == path), None)
    if f is None:
        return None
    before, after = sources.tree(f.before_path, "before"), sources.tree(path, "after")
    if before is None or after is None:
        return None
    a, b = pair()
    na = _unwrap(a, is_ref, "list" in bound_anywhere(before))
    nb = _unwrap(b, is_ref, "list" in bound_anywhere(after))
    if not na and not nb:
        return None
    mine = [Rewrite("consumed-generator", f"list({n}(...))", n) for n in sorted(na | nb)]
    if same_tree(a, b, _IMPORTS):
        return mine
    more = see_through(a, b, low)
    return None if more is None else [*mine, *more]
