"""Build and config lines that only configure development tools (a ``[flake8]`` section of
setup.cfg, ``[tool.ruff]`` of pyproject.toml) change nothing the project does: they are folded
as tooling and never make the verdict unknown; packaging lines beside them still count."""

from __future__ import annotations

from pathlib import Path

from prreport.classify import tool_config_lines
from tests.gitrepo import analyse_commit

_CFG = (
    "[metadata]\nname = pkg\n\n[options]\ninstall_requires =\n    attrs\n\n"
    "[flake8]\nignore = E203, W503\nmax-line-length = 88\n"
)
_TOML = (
    '[project]\nname = "pkg"\ndependencies = [\n    "attrs",\n]\n\n'
    '[tool.ruff.lint]\nselect = [\n    "E",\n]\n\n[[tool.mypy.overrides]]\nmodule = "x"\n'
)
_BASE = {
    "setup.cfg": _CFG,
    "pyproject.toml": _TOML,
    "pkg/__init__.py": "",
    "pkg/core.py": "def add(a, b):\n    return a + b\n",
}


def test_tool_sections_and_comments_are_the_tooling_lines():
    assert sorted(tool_config_lines("setup.cfg", _CFG)) == [8, 9, 10]
    assert sorted(tool_config_lines("pyproject.toml", _TOML)) == [7, 8, 9, 10, 11, 12, 13]
    # an indented "[...]" inside an array is a value, not a table header
    arr = '[project]\nclassifiers = [\n  ["tool.ruff"],\n]\n'
    assert not tool_config_lines("pyproject.toml", arr)
    assert not tool_config_lines("pkg/core.py", "[flake8]\n")


def test_a_refactor_beside_linter_settings_is_pure(tmp_path: Path):
    change = {
        "pkg/core.py": "def add(a, b):\n    total = a + b\n    return total\n",
        "setup.cfg": _CFG.replace("E203, W503", "E203, E731, W503"),
        "pyproject.toml": _TOML.replace('"E",', '"E",\n    "F",'),
    }
    a = analyse_commit(tmp_path, _BASE, change, message="refactor: name the sum (#3)")
    assert a.model.summary.verdict == "pure-refactor", a.model.summary
    kinds = {
        ln["kind"]
        for f in a.model.ledger["files"]
        for ln in f["lines"]
        if f["path"] != "pkg/core.py"
    }
    assert kinds == {"tooling"}
    from prreport.render.html import render_html

    assert "development-tool settings" in render_html(a.model, "en")
    assert "开发工具配置" in render_html(a.model, "zh")


def test_a_dependency_changed_beside_them_still_counts(tmp_path: Path):
    # near miss: the same refactor with a new install requirement is not judged pure
    change = {
        "pkg/core.py": "def add(a, b):\n    total = a + b\n    return total\n",
        "setup.cfg": _CFG.replace("    attrs\n", "    attrs\n    requests\n"),
    }
    a = analyse_commit(tmp_path, _BASE, change, message="refactor: name the sum (#3)")
    assert a.model.summary.verdict != "pure-refactor"


def test_a_type_stub_beside_a_proven_refactor_leaves_it_pure(tmp_path: Path):
    # more-itertools 27fe19e7 updated recipes.pyi with the code: stubs never run
    base = {**_BASE, "pkg/core.pyi": "def add(a: int, b: int) -> int: ...\n"}
    change = {
        "pkg/core.py": "def add(a, b):\n    total = a + b\n    return total\n",
        "pkg/core.pyi": "def add(a: int, b: int) -> int: ...\ndef sub(a: int, b: int) -> int: ...\n",
    }
    a = analyse_commit(tmp_path, base, change, message="refactor: name the sum (#3)")
    assert a.model.summary.verdict == "pure-refactor", a.model.summary
    assert {f.path: f.category for f in a.model.files}["pkg/core.pyi"] == "stubs"
