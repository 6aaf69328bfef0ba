"""The one parse door: the Python a PR changes, read into a stdlib ``ast`` tree whatever its syntax.

The fast path is the running interpreter's ``ast.parse``, quietly (the warnings compiling the
code gives, e.g. an invalid escape sequence's ``SyntaxWarning`` from Python 3.12, are about that
code, not this run). A file in syntax newer than the running Python (PEP 810 ``lazy import``,
PEP 695 type parameters, PEP 758 ``except A, B:``) is read by libcst and lowered to the same
lines in older syntax (``prreport.python.lowering``, loaded only then), what was lowered kept on
the nodes."""

from __future__ import annotations

import ast
import re
import warnings
from typing import TypeVar

from prreport.textlines import has_lone_cr


def parse(text: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse`` of analysed code with its compile warnings silenced; syntax newer than the
    running Python is lowered first (the first ``SyntaxError`` is raised when that fails too)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(text, filename=filename)
        except SyntaxError as first:
            tree = _parse_lowered(text, filename)
            if tree is None:
                raise first from None
            return tree


def _parse_lowered(text: str, filename: str) -> ast.Module | None:
    from prreport.python import lowering  # libcst: only for files the running Python cannot read

    lowered = lowering.lower(text)
    if lowered is None:
        return None
    code, facts = lowered
    try:
        tree = ast.parse(code, filename=filename)
    except SyntaxError:
        return None
    lowering.mark(tree, facts)
    return tree


_CONFLICT = re.compile(r"^(<{7}|={7}|>{7})(?: |$)", re.MULTILINE)

_T = TypeVar("_T", bound=ast.AST)


def copy_tree(node: _T) -> _T:
    """A deep copy of a syntax tree, for transformers that rewrite it in place; several times
    faster than ``copy.deepcopy`` (no memo: ``ast`` trees share no mutable nodes)."""
    cls = node.__class__
    new = cls.__new__(cls)
    fields = new.__dict__
    for key, value in node.__dict__.items():
        if isinstance(value, ast.AST):
            fields[key] = copy_tree(value)
        elif isinstance(value, list):
            fields[key] = [copy_tree(v) if isinstance(v, ast.AST) else v for v in value]
        else:
            fields[key] = value
    return new


def parse_source(text: str, path: str) -> tuple[ast.Module | None, str, int | None]:
    """(tree, why not analysed, line): the tree only when every analyzer can safely walk it."""
    if has_lone_cr(text):
        return (
            None,
            "old-Mac (CR-only) line breaks: git and Python number its lines differently",
            None,
        )
    try:
        tree = parse(text, path)
    except (SyntaxError, ValueError) as exc:
        conflict = _CONFLICT.search(text)
        if conflict:
            line = text.count("\n", 0, conflict.start()) + 1
            return None, "merge-conflict markers", line
        if "\0" in text:
            return None, "null bytes in the source", None
        return (
            None,
            f"does not parse: {getattr(exc, 'msg', str(exc))}",
            getattr(exc, "lineno", None),
        )
    except (RecursionError, MemoryError):
        return None, "expressions nested too deeply to parse", None
    return tree, "", None
