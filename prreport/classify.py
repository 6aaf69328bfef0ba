"""File classification: category, module name and change type of a changed file."""

from __future__ import annotations

import fnmatch
import functools
import posixpath
import re
from collections.abc import Iterable, Sequence

_DOC_EXT = (".md", ".rst", ".txt", ".adoc")
_CONFIG_EXT = (".toml", ".yaml", ".yml", ".ini", ".cfg", ".json", ".conf", ".env")
_DATA_EXT = (
    ".csv",
    ".tsv",
    ".parquet",
    ".jsonl",
    ".npy",
    ".npz",
    ".pkl",
    ".bin",
    ".pt",
    ".png",
    ".jpg",
)
_BUILD_NAMES = {
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "makefile",
    "dockerfile",
    "cmakelists.txt",
    "requirements.txt",
    "poetry.lock",
    "uv.lock",
    "manifest.in",
}


# Development tooling: version control, editors, linters and hooks, repository metadata. No
# installed or imported code reads them, so they never change what the project does.
_DEV_NAMES = {
    ".gitignore",
    ".gitattributes",
    ".hgignore",
    ".bzrignore",
    ".git-blame-ignore-revs",
    ".mailmap",
    ".editorconfig",
    ".pre-commit-config.yaml",
    ".pre-commit-hooks.yaml",
    ".flake8",
    ".pylintrc",
    ".coveragerc",
    ".codecov.yml",
    "codecov.yml",
    ".readthedocs.yml",
    ".readthedocs.yaml",
    ".isort.cfg",
    "mypy.ini",
    ".mypy.ini",
    "ruff.toml",
    ".ruff.toml",
    ".yamllint",
    ".markdownlint.json",
    "renovate.json",
    "codeowners",
    "funding.yml",
}


# Continuous integration and test orchestration: they run the project, never change it.
_CI_NAMES = {
    ".gitlab-ci.yml", "action.yml", ".travis.yml", "appveyor.yml", ".appveyor.yml",
    "azure-pipelines.yml", ".cirrus.yml", ".drone.yml", "jenkinsfile", "tox.ini",
}  # fmt: skip
# Project documents named without an extension (``NEWS``, ``AUTHORS``, ``LICENSE``).
_DOC_NAMES = {
    "news", "changes", "changelog", "history", "authors", "contributors", "credits",
    "license", "licence", "copying", "notice", "readme", "todo", "thanks",
}  # fmt: skip
# Top-level folders of benchmarks: run by hand to time the project, never installed or imported
# by its code. (Examples are not among them: what an example does is documentation users run.)
_OUTSIDE_DIRS = {"benchmarks", "benchmark", "asv_bench"}


@functools.lru_cache(maxsize=4096)  # a pure function of the path, asked per finding and per line
def category(path: str) -> str:
    """One of source, test, docs, config, build, ci, data, dev (development tooling and
    benchmarks: nothing installed reads them), stubs (``.pyi`` type stubs)."""
    low = path.lower()
    name = posixpath.basename(low)
    parts = low.split("/")
    if name in _DEV_NAMES or (
        low.startswith(".github/") and not low.startswith(".github/workflows/")
    ):
        return "dev"
    if (
        low.startswith(".github/workflows/")
        or low.startswith(".ci/")
        or low.startswith((".circleci/", ".azure-pipelines/"))
        or name in _CI_NAMES
    ):
        return "ci"
    if name.endswith(".pyi"):
        return "stubs"  # type stubs: read by type checkers only, never run
    code = name.endswith(".py")  # requirements.py, data/loader.py: a module like any other
    if (
        name in _BUILD_NAMES
        or (name.startswith("requirements") and not code)
        or name.endswith(".lock")
    ):
        return "build"
    if (
        any(p in ("test", "tests", "testing") for p in parts[:-1])
        # A top-level integration or end-to-end suite (invoke's ``integration/``); inside a
        # package such a directory may be library code (``pkg/integration/django.py``).
        or (len(parts) > 1 and parts[0] in ("integration", "e2e"))
        or name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
    ):
        return "test"
    if name.endswith(_DOC_EXT) or any(p in ("docs", "doc") for p in parts[:-1]):
        return "docs"
    if name in _DOC_NAMES:
        return "docs"
    if len(parts) > 1 and parts[0] in _OUTSIDE_DIRS:
        return "dev"
    if name.endswith(_DATA_EXT) or (not code and any(p == "data" for p in parts[:-1])):
        return "data"
    if name.endswith(_CONFIG_EXT):
        return "config"
    return "source"


@functools.lru_cache(maxsize=16)
def _package_dirs(head_paths: tuple[str, ...]) -> frozenset[str]:
    """Directories holding an ``__init__.py`` (asked once per file of a PR, and per head path
    when every module's name is listed: made once per set of head paths)."""
    return frozenset(posixpath.dirname(p) for p in head_paths if p.endswith("__init__.py"))


def module_name(path: str, globs: Sequence[tuple[str, str]], head_paths: Iterable[str]) -> str:
    """Module label from ``[modules]`` globs, else the dotted package path of the file's directory."""
    for pattern, label in globs:
        if fnmatch.fnmatch(path, pattern):
            return label
    directory = posixpath.dirname(path)
    if not path.endswith(".py"):
        return directory or "."
    inits = _package_dirs(tuple(head_paths))
    parts = directory.split("/") if directory else []
    # Walk up while each directory is a package; the first non-package ancestor is the root.
    start = len(parts)
    while start > 0 and "/".join(parts[:start]) in inits:
        start -= 1
    pkg = parts[start:]
    return ".".join(pkg) if pkg else (directory or ".")


def python_module_path(path: str, head_paths: Iterable[str]) -> str:
    """Dotted import name of a Python file (``python/pkg/sub/mod.py`` -> ``pkg.sub.mod``)."""
    inits = _package_dirs(tuple(head_paths))
    directory = posixpath.dirname(path)
    parts = directory.split("/") if directory else []
    start = len(parts)
    while start > 0 and "/".join(parts[:start]) in inits:
        start -= 1
    stem = posixpath.basename(path)[:-3]
    mod = [*parts[start:], *([] if stem == "__init__" else [stem])]
    return ".".join(mod)


# Sections of packaging and config files that only configure development tools (linters,
# formatters, type checkers, test runners, coverage): ``[flake8]`` of setup.cfg, ``[tool.ruff]``
# (and its sub-tables) of pyproject.toml. No installed code reads them.
_TOOL_INI = re.compile(
    r"^(flake8|pycodestyle|pep8|pydocstyle|isort|tool:isort|mypy|mypy-.*|tool:pytest|pytest|"
    r"coverage:.*|pylint.*|yapf|bandit|darglint|doc8|codespell|pyright)$"
)
_TOOL_TOML = re.compile(
    r"^tool\.(black|ruff|isort|mypy|pytest|coverage|pylint|pyright|basedpyright|codespell|"
    r"bandit|pydocstyle|docformatter|yapf|towncrier|interrogate|vulture|deptry|autoflake|"
    r"pycln|mutmut|flake8|flakeheaven|check-manifest|typos|pyupgrade|refurb|tox)(\..*)?$"
)
_HEADER = re.compile(r"^\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:[#;].*)?$")


def tool_config_lines(path: str, text: str) -> frozenset[int]:
    """The 1-based lines of a setup.cfg, tox.ini, .cfg/.ini or pyproject.toml-style text that
    configure development tools only: the lines of such sections (their headers included) and
    the file's comment lines. Other files: none."""
    low = path.lower()
    toml = low.endswith(".toml")
    if not (toml or low.endswith((".cfg", ".ini"))):
        return frozenset()
    tool = _TOOL_TOML if toml else _TOOL_INI
    out: set[int] = set()
    inside = False
    for n, line in enumerate(text.splitlines(), 1):
        m = _HEADER.match(line)
        if m:
            name = m.group(1).strip().strip("\"'")
            inside = bool(tool.match(name if toml else name.lower()))
        if inside or line.lstrip().startswith(("#", ";")):
            out.add(n)
    return frozenset(out)
