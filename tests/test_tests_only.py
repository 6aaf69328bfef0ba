"""A change confined to test code is judged on that code (issue 29): a proven refactoring of
the tests is `pure-refactor` and says the shipped code is untouched; new or changed test
behaviour is not called pure (the verdict stays `unknown`: no library code changed)."""

from __future__ import annotations

from pathlib import Path

from prreport.render import render_markdown
from tests.gitrepo import analyse_commit

_LIB = "def area(w, h):\n    return w * h\n"
_TESTS = (
    "from pkg.geo import area\n\n\n"
    "def _check(w, h, want):\n    assert area(w, h) == want\n\n\n"
    "def test_square():\n    _check(2, 2, 4)\n\n\n"
    "def test_wide():\n    _check(3, 1, 3)\n"
)


def test_a_test_helper_renamed_everywhere_is_a_pure_refactor(tmp_path: Path) -> None:
    a = analyse_commit(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/geo.py": _LIB, "tests/test_geo.py": _TESTS},
        {"tests/test_geo.py": _TESTS.replace("_check", "_expect_area")},
    )
    assert a.model.summary.verdict == "pure-refactor", [f.kind for f in a.findings]
    assert "Only test code changed" in render_markdown(a.model, "en")
    assert "只改动了测试代码" in render_markdown(a.model, "zh")


def test_a_new_test_is_not_called_pure(tmp_path: Path) -> None:
    more = _TESTS + "\n\ndef test_tall():\n    _check(1, 3, 3)\n"
    a = analyse_commit(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/geo.py": _LIB, "tests/test_geo.py": _TESTS},
        {"tests/test_geo.py": more},
    )
    assert a.model.summary.verdict == "unknown"
    assert "Only test code changed" not in render_markdown(a.model, "en")
