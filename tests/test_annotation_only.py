"""Names no running code reads (``importtime.annotation_only``): an import of one rebound to
another module is not a behaviour change (kombu-f2240005 moved ParamSpec into TYPE_CHECKING)."""

from __future__ import annotations

import ast

from prreport.python.importtime import annotation_only

_SRC = """from __future__ import annotations
import sys
from typing import TYPE_CHECKING, Callable
if TYPE_CHECKING:
    from typing_extensions import ParamSpec
    P = ParamSpec("P")
from x import Used, Alias2, Exported
A = Alias2[int]
def f(a: Callable[P, int], b: A) -> Used:
    return Used()
__all__ = ["f", "Exported"]
"""


def test_names_read_only_in_annotations_type_checking_or_aliases_of_them() -> None:
    assert annotation_only(ast.parse(_SRC)) == {"A", "Alias2", "Callable", "P", "ParamSpec"}


def test_a_name_read_by_running_code_exported_or_unused_is_not() -> None:
    got = annotation_only(ast.parse(_SRC))
    assert not {"Used", "Exported", "sys", "TYPE_CHECKING", "f"} & got


def test_without_postponed_annotations_every_annotation_runs() -> None:
    assert annotation_only(ast.parse(_SRC.split("\n", 1)[1])) == frozenset()
