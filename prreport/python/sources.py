"""The before/after text of a PR's changed files and the context files, parsed once and shared.

``SourceFiles`` is what every analyzer and proof reads a file through: its text by side
(``before``, ``after``, ``head``), its ``ast`` (parse failures kept as diagnostics, once per
file side), its changed lines, and a memo of values derived from one file side.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from prreport.bundle import FileChange, PullRequestBundle
from prreport.diffparse import ChangedLines, changed_lines
from prreport.findings import Diagnostic
from prreport.python.parse import parse_source


class SourceFiles:
    """Lazily parsed before/after text of changed files and context files, shared by analyzers.

    Parse failures are remembered once per (path, side) and surfaced as diagnostics.
    """

    def __init__(self, bundle: PullRequestBundle) -> None:
        self.bundle = bundle
        self._ast: dict[tuple[str, str], ast.Module | None] = {}
        self._memo: dict[tuple[str, str, str], Any] = {}
        self._changed: dict[str, ChangedLines] = {}
        self.parse_errors: dict[tuple[str, str], Diagnostic] = {}
        self._python: list[FileChange] | None = None

    def python_files(self) -> list[FileChange]:
        """Changed ``.py`` files with text on at least one side, every side of which parses.

        A file with a side that does not parse is not analysed at all (its parser diagnostic
        says why): half a file would yield false findings, e.g. every definition of an
        unparseable after-file "removed".
        """
        if self._python is None:
            self._python = [
                f
                for f in self.bundle.files
                if f.path.endswith(".py")
                and not f.binary
                and (f.before is not None or f.after is not None)
                and (f.before is None or self.tree(f.before_path, "before") is not None)
                and (f.after is None or self.tree(f.path, "after") is not None)
            ]
        return list(self._python)

    def modified(self) -> list[tuple[FileChange, ast.Module, ast.Module]]:
        """Changed Python files present on both sides, with their before and after trees."""
        out = []
        for f in self.python_files():
            if f.before is None or f.after is None:
                continue
            before, after = self.tree(f.before_path, "before"), self.tree(f.path, "after")
            if before is not None and after is not None:
                out.append((f, before, after))
        return out

    def text(self, path: str, side: str) -> str | None:
        """Text of a changed file (side ``"before"`` or ``"after"``) or a context file (``"head"``)."""
        return _without_bom(self._raw_text(path, side))

    def _raw_text(self, path: str, side: str) -> str | None:
        if side == "head":
            f = self.bundle.file(path)
            if f is not None:
                return f.after
            return self.bundle.context_files.get(path)
        for f in self.bundle.files:
            if side == "after" and f.path == path:
                return f.after
            if side == "before" and f.before_path == path:
                return f.before
        return None

    def tree(self, path: str, side: str) -> ast.Module | None:
        """``ast`` of a file side, or None when absent or unparseable (then a diagnostic is kept)."""
        key = (path, side)
        if side == "head" and key not in self._ast and self.bundle.file(path) is not None:
            # a changed file's head is its after side: one parse serves both names
            tree = self.tree(path, "after")
            self._ast[key] = tree
            return tree
        if key not in self._ast:
            text = self.text(path, side)
            tree = None
            if text is not None:
                tree, problem, line = parse_source(text, path)
                if problem:
                    self.parse_errors[key] = Diagnostic(
                        "parser", path, f"{side} version not analysed: {problem}", line
                    )
            self._ast[key] = tree
        return self._ast[key]

    def drop_too_deep(self) -> bool:
        """Stop analysing parsed files deeper than ``MAX_TREE_DEPTH`` (after a RecursionError).

        Depth is measured only then: a walk of every tree costs as much as parsing it. Values
        derived from the trees are forgotten; True when some file was dropped.
        """
        dropped = False
        for key, tree in self._ast.items():
            if tree is not None and _depth(tree) > MAX_TREE_DEPTH:
                self._ast[key] = None
                self.parse_errors[key] = Diagnostic(
                    "parser",
                    key[0],
                    f"{key[1]} version not analysed: syntax tree deeper than {MAX_TREE_DEPTH} levels",
                )
                dropped = True
        if dropped:
            self._memo.clear()
            self._python = None
        return dropped

    def adopt(self, old: SourceFiles) -> None:
        """Keep the trees (and values derived from one file side alone) that ``old`` made of
        file sides whose text this bundle shares: a context round adds files, never edits one."""
        texts: dict[tuple[str, str], str | None] = {}
        for f in self.bundle.files:
            texts[(f.path, "after")] = f.after
            texts[(f.before_path, "before")] = f.before
        kept = set()
        for key, tree in old._ast.items():
            path, side = key
            mine = texts.get(key) if side != "head" else self._raw_text(path, side)
            if key not in self._ast and mine is not None and mine == old._raw_text(path, side):
                self._ast[key] = tree
                if key in old.parse_errors:
                    self.parse_errors[key] = old.parse_errors[key]
                kept.add(key)
        for (path, side, what), value in old._memo.items():
            if what in _PER_SIDE and (path, side) in kept:
                self._memo.setdefault((path, side, what), value)

    def release(self) -> None:
        """Forget every tree and derived value once the analysis is over: a memoised value may
        point back at these sources (a reference cycle through every tree, which only a
        collector pass would free)."""
        self._memo.clear()
        self._ast.clear()
        self._changed.clear()
        self._python = None

    def memo(self, path: str, side: str, what: str, build: Callable[[], Any]) -> Any:
        """Cache a derived value (e.g. a libcst tree or a scope index) per file side."""
        key = (path, side, what)
        if key not in self._memo:
            self._memo[key] = build()
        return self._memo[key]

    def changed(self, f: FileChange) -> ChangedLines:
        """Removed/added line numbers of a changed file."""
        if f.path not in self._changed:
            self._changed[f.path] = changed_lines(f.patch)
        return self._changed[f.path]


# ``memo`` values that are functions of one file side's text alone (``adopt`` keeps them).
_PER_SIDE = frozenset(
    {
        "pyscope",
        "functions",
        "module-bindings",
        "rebound-builtins",
        "defs",
        "lines",
        "scopes",
        "optional-flags",
        "if-tests",
        "module-imports",
        "api-surface",
    }
)
# Deepest syntax tree the analyzers are asked to walk once one of them ran out of recursion:
# their recursive visitors (and ``ast.unparse``, libcst) need a few frames per level. Real
# code stays far below (the deepest module of the standard library: 87 levels).
MAX_TREE_DEPTH = 100


def _without_bom(text: str | None) -> str | None:
    # Python ignores a leading byte-order mark; so do line and column numbers.
    return text[1:] if text is not None and text.startswith("\ufeff") else text


def _depth(tree: ast.AST) -> int:
    """Depth of a syntax tree, walked without recursion."""
    deepest = 0
    stack = [(tree, 1)]
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        stack.extend((child, d + 1) for child in ast.iter_child_nodes(node))
    return deepest
