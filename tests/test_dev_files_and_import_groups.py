"""Development tooling files never make the verdict unknown (arrow-6c4e0db8 bumped pre-commit
hooks and .gitignore next to a lint fix), and ``from`` imports of one module merged or split
are formatting (pyjwt-d3219c5c merged two ``from .algorithms import`` statements)."""

from __future__ import annotations

import ast

import pytest

from prreport.classify import category
from prreport.equivalence.modulecode import reordered_imports


@pytest.mark.parametrize(
    "path",
    [
        ".gitignore",
        ".pre-commit-config.yaml",
        ".github/dependabot.yml",
        ".github/CODEOWNERS",
        "sub/.gitattributes",
        ".bzrignore",
        # run by hand to time the project, never installed or imported
        "benchmarks/bench_parse.py",
    ],
)
def test_development_tooling_is_its_own_category(path: str) -> None:
    assert category(path) == "dev"


@pytest.mark.parametrize(
    ("path", "cat"),
    [
        (".github/workflows/ci.yml", "ci"),
        (".travis.yml", "ci"),
        ("tox.ini", "ci"),
        (".circleci/config.yml", "ci"),
        ("pyproject.toml", "build"),
        ("pkg/gitignore.py", "source"),
        ("integration/main.py", "test"),
        ("e2e/test_login.py", "test"),
        ("pkg/integration/django.py", "source"),
        ("src/pkg/e2e.py", "source"),
        # examples are code users run (what they do is documentation); a document named NEWS
        ("examples/basic/app.py", "source"),
        ("pkg/benchmarks/timing.py", "source"),
        ("NEWS", "docs"),
        ("more_itertools/recipes.pyi", "stubs"),
        ("AUTHORS", "docs"),
        ("pkg/news.py", "source"),
    ],
)
def test_other_files_keep_their_category(path: str, cat: str) -> None:
    assert category(path) == cat


def _kept(before: str, after: str) -> tuple[set[int], set[int]]:
    return reordered_imports(ast.parse(before), ast.parse(after))


def test_from_imports_of_one_module_merged_are_formatting() -> None:
    before = "from .a import x  # noqa\nfrom .a import y, z\nimport os\n\nos.sep\n"
    after = "from .a import (\n    x,\n    y,\n    z,\n)\nimport os\n\nos.sep\n"
    assert _kept(before, after) == ({1, 2, 3}, {1, 2, 3, 4, 5, 6})  # `import os` unchanged


def test_a_name_dropped_or_code_between_is_not() -> None:
    # The statement kept as it was is formatting; the one whose name went is not.
    assert _kept("from .a import x\nfrom .a import y\n", "from .a import x\n") == ({1}, {1})
    split = "from .a import x\nprint(1)\nfrom .a import y\n"
    assert _kept(split, "from .a import x, y\nprint(1)\n") == (set(), set())
