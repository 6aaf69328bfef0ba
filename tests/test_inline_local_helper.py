"""A helper defined inside a function and inlined at its one call (pip 239accb1: ``clobber``
in ``install_unpacked_wheel``, 270 lines of real pip). The loop variable it brings, ``file``,
is also the parameter of another nested function there: that is another scope, not a clash.
Were the other function to read ``file`` from the enclosing scope instead, the inlined loop
would change what it sees, and nothing may be claimed."""

from __future__ import annotations

from pathlib import Path

import pytest

from prreport.bundle import load_bundle
from prreport.pipeline import Analysis
from tests.gitrepo import analyse_commit
from tests.test_corpus import CORPUS

WHEEL = "src/pip/_internal/operations/install/wheel.py"
_PARAM = "    def is_entrypoint_wrapper(file):\n        # type: (File) -> bool\n"


@pytest.fixture(scope="module")
def wheel_py() -> tuple[str, str]:
    f = load_bundle(CORPUS / "bundles" / "pip-239accb1.json.gz").file(WHEEL)
    assert f is not None and f.before and f.after
    return f.before, f.after


def _run(tmp_path: Path, before: str, after: str) -> Analysis:
    base = {"src/pip/__init__.py": "", "src/pip/_internal/__init__.py": "", WHEEL: before}
    return analyse_commit(tmp_path, base, {WHEEL: after}, "Inline clobber (#8562)")


def _inlined(a: Analysis) -> dict:
    [fd] = [f for f in a.findings if f.kind == "code.inlined"]
    return fd.details


def test_a_local_helper_inlined_where_another_scope_names_its_variable(
    tmp_path: Path, wheel_py: tuple[str, str]
):
    a = _run(tmp_path, *wheel_py)
    d = _inlined(a)
    assert d["proven"] is True and d["stale_references"] == []
    assert a.model.summary.verdict == "pure-refactor"


def test_a_closure_reading_the_inlined_name_is_not_proven(
    tmp_path: Path, wheel_py: tuple[str, str]
):
    before, after = wheel_py
    assert before.count(_PARAM) == 1 and after.count(_PARAM) == 1
    # The wrapper's parameter renamed: its body now reads ``file`` from the enclosing scope.
    closure = _PARAM.replace("(file)", "(entry)")
    a = _run(tmp_path, before.replace(_PARAM, closure), after.replace(_PARAM, closure))
    assert _inlined(a)["proven"] is False
    assert a.model.summary.verdict != "pure-refactor"
