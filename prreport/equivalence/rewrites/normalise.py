"""One side rewritten to a fixed point: every statement list of a tree, innermost first.

Each pass applies the rewrites of ``conditions`` to the statements of a block (a test the
declared Python fixes, nested or chained ``if``s, a ``match`` on literals, a loop-invariant
test) and, inside a function, those of ``assignments`` (an assignment moved to its first use,
a once-used local written at its use); then folds expressions on fixed values. A pass can
enable another (a folded value becomes inlinable), so passes repeat until nothing changes.
"""

from __future__ import annotations

import ast
from collections import Counter

from prreport.equivalence.rewrites.assignments import inline_locals, name_uses, sink_assignments
from prreport.equivalence.rewrites.conditions import (
    Fold,
    fixed,
    hoisted_test,
    joined_elif,
    match_chain,
    merged_if,
)
from prreport.equivalence.rewrites.rewrite import Inert, Rewrite, Trace

_IMPORTS = (ast.Import, ast.ImportFrom)
_BLOCKS = ("body", "orelse", "finalbody")


class Normalise:
    """The rewrites of one side, applied in place (``run``); what they did is ``trace``."""

    def __init__(self, low: tuple[int, ...] | None, inert: Inert | None = None) -> None:
        self.trace = Trace(low, inert)
        self._uses_key: tuple[int, int] | None = None
        self._uses_value: tuple[Counter[str], Counter[str], bool] = (Counter(), Counter(), False)

    def run(self, tree: ast.AST) -> list[Rewrite]:
        for _ in range(8):  # each pass can enable another (a folded value becomes inlinable)
            mark = len(self.trace.done)
            self._blocks(tree)
            if len(self.trace.done) == mark:
                break
        return self.trace.done

    # -- statement lists ------------------------------------------------------------------

    def _blocks(self, node: ast.AST) -> None:
        self._visit(node, None)
        Fold(self.trace).visit(node)

    def _visit(self, node: ast.AST, fn: ast.FunctionDef | ast.AsyncFunctionDef | None) -> None:
        """Rewrite every statement list under ``node``, innermost first; ``fn`` encloses it."""
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            fn = node
        elif isinstance(node, ast.ClassDef | ast.Lambda):
            fn = None
        owners: list[ast.AST] = [node]
        owners += getattr(node, "handlers", None) or []
        owners += getattr(node, "cases", None) or []
        for owner in owners:
            for name in _BLOCKS:
                block = getattr(owner, name, None)
                if not (isinstance(block, list) and block and isinstance(block[0], ast.stmt)):
                    continue
                for st in block:
                    self._visit(st, fn)
                setattr(owner, name, self._block(block, fn, owner) or [ast.Pass()])

    def _block(
        self,
        block: list[ast.stmt],
        fn: ast.FunctionDef | ast.AsyncFunctionDef | None,
        owner: ast.AST | None = None,
    ) -> list[ast.stmt]:
        """``owner``: the node (in ``fn``'s tree) whose statement list ``block`` is."""
        out: list[ast.stmt] = []
        for st in block:
            if isinstance(st, _IMPORTS):
                continue  # import placement is the import analyzers' business
            if isinstance(st, ast.If):
                value = fixed(self.trace, st.test)
                if value is not None:
                    kept = st.body if value else st.orelse
                    out.extend(s for s in kept if not isinstance(s, ast.Pass))
                    continue
                merged = merged_if(st)
                if merged is not None:
                    self.trace.done.append(Rewrite("merged-if", ast.unparse(merged.test)))
                    st = merged
                joined = joined_elif(st)
                if joined is not None:
                    self.trace.done.append(Rewrite("merged-elif", ast.unparse(joined.test)))
                    st = joined
            if isinstance(st, ast.Match):
                chain = match_chain(st)
                if chain is not None:
                    subject = st.subject
                    plain = isinstance(subject, ast.Name)
                    self.trace.done.append(
                        Rewrite("match-chain", ast.unparse(subject), "" if plain else "again")
                    )
                    st = chain
            if isinstance(st, ast.For | ast.AsyncFor):
                hoisted = hoisted_test(st)
                if hoisted is not None:
                    test, new = hoisted
                    self.trace.done.append(
                        Rewrite("loop-invariant-if", ast.unparse(test), ast.unparse(st.iter))
                    )
                    st = new
            out.append(st)
        if fn is not None:
            out = sink_assignments(self.trace, out, fn, owner, self._uses(fn))
            out = inline_locals(self.trace, out, fn, self._uses(fn))
        return out

    def _uses(self, fn: ast.AST) -> tuple[Counter[str], Counter[str], bool]:
        """``name_uses(fn)``, counted again only after a rewrite changed the tree."""
        key = (id(fn), len(self.trace.done))
        if self._uses_key != key:
            self._uses_key, self._uses_value = key, name_uses(fn)
        return self._uses_value
