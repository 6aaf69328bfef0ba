"""File classification: category, module name and change type of a changed file."""

from __future__ import annotations

import fnmatch
import functools
import posixpath
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


@functools.lru_cache(maxsize=4096)  # a pure function of the path, asked per finding and per line
def category(path: str) -> str:
    """One of source, test, docs, config, build, ci, data, dev (development tooling)."""
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
        or name in (".gitlab-ci.yml", "action.yml")
    ):
        return "ci"
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
