"""Parsing the Python a PR changes: quietly, since the warnings compiling it gives (an invalid
escape sequence: ``SyntaxWarning`` from Python 3.12) are about that code, not this run."""

from __future__ import annotations

import ast
import warnings


def parse(text: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse`` of analysed code with its compile warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text, filename=filename)
