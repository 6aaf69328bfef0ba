"""Parsing the Python a PR changes: quietly, since the warnings compiling it gives (an invalid
escape sequence: ``SyntaxWarning`` from Python 3.12) are about that code, not this run."""

from __future__ import annotations

import ast
import re
import warnings
from typing import TypeVar

from prreport.textlines import has_lone_cr


def parse(text: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse`` of analysed code with its compile warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text, filename=filename)


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
