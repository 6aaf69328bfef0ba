"""Annotations added to class attributes (responses-df920c09, setuptools-226e1a28): in a class
nothing reads annotations of at class creation they are plain annotations; a dataclass, a
pydantic model, a subclass of an unknown base or of a class with ``__init_subclass__`` keeps
them as fields. A module alias read only by string annotations is typing only."""

from __future__ import annotations

import ast
from pathlib import Path

from prreport.equivalence.canonical import annotation_blind
from prreport.python.importtime import annotation_only
from tests.gitrepo import analyse_commit

_PYPROJECT = '[project]\nname = "pkg"\nversion = "1"\nrequires-python = ">=3.8"\n'


def _verdict(tmp_path: Path, before: str, after: str) -> str:
    files = {"pkg/__init__.py": "", "pyproject.toml": _PYPROJECT, "pkg/m.py": before}
    return analyse_commit(tmp_path, files, {"pkg/m.py": after}).model.summary.verdict  # type: ignore[arg-type]


_BEFORE = """from typing import Optional


class Base(object):
    passthrough = False
    headers = None


class Passthrough(Base):
    passthrough = True


class Errors(list):
    kind = "e"
"""
_AFTER = """from typing import Optional


class Base(object):
    passthrough: bool = False
    headers: Optional[dict] = None


class Passthrough(Base):
    passthrough: bool = True


class Errors(list):
    kind: str = "e"
"""


def test_annotations_added_in_a_hierarchy_nothing_reads_them_of_are_pure(tmp_path: Path):
    assert _verdict(tmp_path, _BEFORE, _AFTER) == "pure-refactor"


def test_a_subclass_of_a_base_that_reads_annotations_is_not_proven(tmp_path: Path):
    hook = "    def __init_subclass__(cls, **kw):\n        cls.fields = dict(cls.__annotations__)\n"
    before = _BEFORE.replace("    headers = None\n", "    headers = None\n\n" + hook)
    after = _AFTER.replace(
        "    headers: Optional[dict] = None\n", "    headers: Optional[dict] = None\n\n" + hook
    )
    assert _verdict(tmp_path, before, after) != "pure-refactor"


def test_which_classes_are_annotation_blind() -> None:
    tree = ast.parse(
        "import dataclasses\nfrom pydantic import BaseModel\nfrom x import Unknown\n"
        "class A: pass\nclass B(A): pass\nclass C(list): pass\n"
        "@dataclasses.dataclass\nclass D: pass\nclass E(D): pass\nclass F(BaseModel): pass\n"
        "class G(Unknown): pass\nclass H(metaclass=type): pass\n"
        "class I:\n    def __init_subclass__(cls): pass\nclass J(I): pass\n"
        "class K: pass\nclass L(K): pass\nK = Unknown\n"
    )
    blind = annotation_blind(tree, lambda name: name not in {"Unknown", "BaseModel"})
    assert blind == {"A", "B", "C"}


def test_a_builtin_base_the_module_rebinds_is_not_the_builtin() -> None:
    tree = ast.parse("from x import list\nclass C(list): pass\n")
    assert "C" not in annotation_blind(tree, lambda name: name != "list")


def test_an_alias_only_string_annotations_read_is_annotation_only() -> None:
    src = (
        "from typing import Callable, Iterable\n"
        "_Matchers = Iterable[Callable[..., bool]]\n"
        'def f(match: "_Matchers" = ()) -> "Iterable[int]":\n    return match\n'
    )
    assert {"_Matchers", "Callable"} <= annotation_only(ast.parse(src), True)
    # read by running code too: not annotation only
    ran = src + "print(_Matchers)\n"
    assert "_Matchers" not in annotation_only(ast.parse(ran), True)
