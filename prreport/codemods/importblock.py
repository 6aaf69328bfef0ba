"""A module's import block as the hoist codemods see it: its text and lines, where the block
ends, isort's sections and order, statement spans. Shared by the text edits (``hoist``) and
the libcst edits (``hoist_cst``), which import it and not each other."""

from __future__ import annotations

import ast
import re
import sys

from prreport.python.scopes import COMPOUND_STATEMENTS
from prreport.textlines import split_lines

_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))
COMPOUND = COMPOUND_STATEMENTS
DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
FIRST_BREAK = re.compile(r"\r\n|\r|\n")


def isort_key(name: str) -> tuple[int, str]:
    """isort's ``order_by_type``: CONSTANTS, then Classes, then functions."""
    if name.isupper() and len(name) > 1:
        return (0, name.lower())
    if name[:1].isupper():
        return (1, name.lower())
    return (2, name.lower())


def section(module: str) -> int:
    """isort section of an imported module: 0 future, 1 standard library, 2 third/first party,
    3 relative (``module`` with its leading dots)."""
    if module.startswith("."):
        return 3
    top = module.split(".")[0]
    return 0 if top == "__future__" else 1 if top in _STDLIB else 2


def span(st: ast.stmt) -> tuple[int, int]:
    """First line (decorators included) and last line of a statement."""
    decorators = getattr(st, "decorator_list", None) or []
    return min([st.lineno, *(d.lineno for d in decorators)]), st.end_lineno or st.lineno


class ModuleText:
    """A module's text, its lines (ends kept), its first line break, and its import block: the
    top-level statements before the first ``def``/``class`` (``top``: how many; ``top_end``:
    the last line before that definition)."""

    def __init__(self, text: str, tree: ast.Module) -> None:
        self.text = text
        self.tree = tree
        self.source_lines = split_lines(text, keepends=True)
        first = FIRST_BREAK.search(text)
        self.newline = first.group() if first else "\n"  # libcst's default: the first one
        top = tree.body
        self.top = next((i for i, st in enumerate(top) if isinstance(st, DEFS)), len(top))
        self.top_end = span(top[self.top])[0] - 1 if self.top < len(top) else len(self.source_lines)
