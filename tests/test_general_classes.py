"""Classes of code seen on first-contact commits (tests/corpus/ cohorts 3-6), each proven by a
general fact rather than a rule for one commit's shape, with the near miss that must stay
unproven."""

from __future__ import annotations

from pathlib import Path

from prreport.pipeline import Analysis
from tests.gitrepo import analyse_commit

_PYPROJECT = '[project]\nname = "pkg"\nversion = "1"\nrequires-python = ">=3.8"\n'


def _analyse(tmp_path: Path, base: dict[str, str], pr: dict[str, str]) -> Analysis:
    files = {"pkg/__init__.py": "", "pyproject.toml": _PYPROJECT, **base}
    return analyse_commit(tmp_path, files, pr)  # type: ignore[arg-type]


def _verdict(a: Analysis) -> str:
    return a.model.summary.verdict


_FALLBACK = """import sys


def version():
    try:
        from importlib import metadata
    except ImportError:
        import importlib_metadata as metadata
    return metadata.version("pkg")
"""
_PLAIN = """import sys


def version():
    from importlib import metadata
    return metadata.version("pkg")
"""


def test_an_import_fallback_that_cannot_run_under_the_declared_python_is_gone(tmp_path: Path):
    a = _analyse(tmp_path, {"pkg/meta.py": _FALLBACK}, {"pkg/meta.py": _PLAIN})
    told = [f.details.get("rewrites") for f in a.findings if f.kind == "behavior.unchanged"]
    assert [{"kind": "idiom", "text": "unfailing-import", "detail": ""}] in told
    assert _verdict(a) == "pure-refactor"


def test_the_fallback_runs_when_the_declared_python_is_older(tmp_path: Path):
    old = _PYPROJECT.replace(">=3.8", ">=3.7")
    a = analyse_commit(
        tmp_path,
        {"pkg/__init__.py": "", "pyproject.toml": old, "pkg/meta.py": _FALLBACK},
        {"pkg/meta.py": _PLAIN},
    )
    assert _verdict(a) != "pure-refactor"


_TWO_TRIES = '''"""The command line."""

import argparse

try:
    from importlib import metadata
except ImportError:
    import importlib_metadata as metadata

try:
    from pkgutil import resolve_name
except ImportError:
    from pkgutil_resolve_name import resolve_name

PARSER = argparse.ArgumentParser(prog=metadata.version("pkg"), description=str(resolve_name))
'''
_ONE_TRY = '''"""The command line."""

from importlib import metadata
import argparse

try:
    from pkgutil import resolve_name
except ImportError:
    from pkgutil_resolve_name import resolve_name

PARSER = argparse.ArgumentParser(prog=metadata.version("pkg"), description=str(resolve_name))
'''


def test_the_fallback_removed_is_the_one_of_its_import_not_the_next_one(tmp_path: Path):
    # Two ``try`` fallbacks in a row: the one dropped is the one whose import is now plain (the
    # other still guards pkgutil.resolve_name, new in 3.9: it must not be read as dropped).
    a = _analyse(tmp_path, {"pkg/cli.py": _TWO_TRIES}, {"pkg/cli.py": _ONE_TRY})
    drops = [f for f in a.findings if f.kind == "guard.dropped"]
    assert [(f.details["before_line"], f.details["proven"]) for f in drops] == [(5, True)]
    assert "importlib.metadata" in drops[0].details["proof"]
    assert _verdict(a) == "pure-refactor"


_ALIASES = """from typing import Union

import os

StrPath = Union[str, os.PathLike]


def ensure(path: StrPath) -> StrPath:
    return os.fspath(path)
"""
_MARKED = """from __future__ import annotations

from typing import TYPE_CHECKING, Union

import os

if TYPE_CHECKING:
    from typing_extensions import TypeAlias

StrPath: TypeAlias = Union[str, os.PathLike]


def ensure(path: StrPath) -> StrPath:
    return os.fspath(path)
"""


def test_type_aliases_marked_typealias_with_postponed_annotations_are_annotations(
    tmp_path: Path,
):
    a = _analyse(tmp_path, {"pkg/paths.py": _ALIASES}, {"pkg/paths.py": _MARKED})
    assert _verdict(a) == "pure-refactor"
    near = _MARKED.replace("Union[str, os.PathLike]", "Union[str, bytes]")
    b = _analyse(
        tmp_path / "near",
        {"pkg/paths.py": _ALIASES + "\nKIND = StrPath\n"},
        {"pkg/paths.py": near + "\nKIND = StrPath\n"},
    )
    assert _verdict(b) != "pure-refactor"


_EVAL = """def run(code, glob, local_ns):
    interrupt_occured = False
    try:
        out = eval(code, glob, local_ns)
    except KeyboardInterrupt:
        interrupt_occured = True
        out = None
    if interrupt_occured:
        return None
    return out
"""


def test_a_local_renamed_where_eval_reads_its_own_namespace(tmp_path: Path):
    after = _EVAL.replace("interrupt_occured", "interrupt_occurred")
    a = _analyse(tmp_path, {"pkg/run.py": _EVAL}, {"pkg/run.py": after})
    assert _verdict(a) == "pure-refactor"
    # eval(code) with no namespace reads the frame: a renamed local may change what it sees.
    frame = _EVAL.replace("eval(code, glob, local_ns)", "eval(code)")
    b = _analyse(
        tmp_path / "frame",
        {"pkg/run.py": frame},
        {"pkg/run.py": frame.replace("interrupt_occured", "interrupt_occurred")},
    )
    assert _verdict(b) != "pure-refactor"


_EVAL_MOD = '''"""Safe evaluation."""

import ast

BINARY = {ast.Add: "__add__", ast.Sub: "__sub__"}


def dunder(op):
    return BINARY[type(op)]
'''
_EVAL_AFTER = '''"""Safe evaluation."""

import ast

from pkg._ops import BINARY

__all__ = ["BINARY", "dunder"]


def dunder(op):
    return BINARY[type(op)]
'''
_OPS = '''"""Operator tables, in a module of their own so that importing them is cheap."""

import ast

__all__ = ["BINARY"]

BINARY = {ast.Add: "__add__", ast.Sub: "__sub__"}
'''


def test_a_module_made_for_moved_code_carries_only_glue(tmp_path: Path):
    # Its docstring, an __all__ of its own names and the stdlib import the moved table reads
    # are explained by the move; a module-level call in it would not be.
    a = _analyse(
        tmp_path,
        {"pkg/evaluate.py": _EVAL_MOD},
        {"pkg/evaluate.py": _EVAL_AFTER, "pkg/_ops.py": _OPS},
    )
    assert [f.symbol for f in a.findings if f.kind == "symbol.moved"] == ["BINARY"]
    assert _verdict(a) == "pure-refactor"
    acting = _OPS + '\nprint("loaded")\n'
    b = _analyse(
        tmp_path / "near",
        {"pkg/evaluate.py": _EVAL_MOD},
        {"pkg/evaluate.py": _EVAL_AFTER, "pkg/_ops.py": acting},
    )
    assert _verdict(b) != "pure-refactor"


def test_typing_generics_spelled_as_builtins_need_python_39(tmp_path: Path):
    before = "from typing import Dict, List, Optional\n\nTable = Dict[str, List[int]]\nMaybe = Optional[int]\n"
    after = "from typing import Optional, Union\n\nTable = dict[str, list[int]]\nMaybe = Union[int, None]\n"
    py39 = _PYPROJECT.replace(">=3.8", ">=3.9")
    a = analyse_commit(
        tmp_path,
        {"pkg/__init__.py": "", "pyproject.toml": py39, "pkg/types.py": before},
        {"pkg/types.py": after},
    )
    assert _verdict(a) == "pure-refactor"
    # On Python 3.8 ``dict[str, ...]`` raises TypeError at import: not the same.
    b = _analyse(tmp_path / "py38", {"pkg/types.py": before}, {"pkg/types.py": after})
    assert _verdict(b) != "pure-refactor"


def test_annotations_in_a_plain_class_are_annotations_but_fields_elsewhere(tmp_path: Path):
    before = "class Response:\n    passthrough = False\n\n    def read(self):\n        return self.passthrough\n"
    after = before.replace("passthrough = False", "passthrough: bool = False")
    a = _analyse(tmp_path, {"pkg/resp.py": before}, {"pkg/resp.py": after})
    assert _verdict(a) == "pure-refactor"
    # A base class may read its subclasses' annotations (pydantic, NamedTuple): a field now.
    based = before.replace("class Response:", "class Response(Model):")
    b = _analyse(
        tmp_path / "based",
        {
            "pkg/resp.py": "from pkg.model import Model\n\n\n" + based,
            "pkg/model.py": "class Model:\n    pass\n",
        },
        {
            "pkg/resp.py": "from pkg.model import Model\n\n\n"
            + based.replace("passthrough = False", "passthrough: bool = False")
        },
    )
    assert _verdict(b) != "pure-refactor"


_ERRORS = """class ParseError(ValueError):
    pass


class Strict(ParseError):
    pass


class Plain:
    def __init__(self):
        log("made")


def parse(text):
    if not text:
        raise {a}()
    return text
"""


def test_raising_an_exception_class_of_the_module_without_parentheses(tmp_path: Path):
    for i, name in enumerate(("ParseError", "Strict")):
        before, after = (
            _ERRORS.format(a=name),
            _ERRORS.format(a=name).replace(f"raise {name}()", f"raise {name}"),
        )
        a = _analyse(tmp_path / str(i), {"pkg/errors.py": before}, {"pkg/errors.py": after})
        assert _verdict(a) == "pure-refactor", name
    # Not an exception class: ``raise Plain`` is a TypeError, ``raise Plain()`` first runs __init__.
    before = _ERRORS.format(a="Plain")
    b = _analyse(
        tmp_path / "plain",
        {"pkg/errors.py": before},
        {"pkg/errors.py": before.replace("raise Plain()", "raise Plain")},
    )
    assert _verdict(b) != "pure-refactor"
