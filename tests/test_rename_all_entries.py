"""A rename that keeps the old name as an alias and lists the new one in ``__all__``
(more-itertools 27fe19e7: ``padnone`` -> ``pad_none``): the ``__all__`` entries of the old and
the new name are the rename, each by its value; an entry naming anything else is not (the
mutation check found a misspelt new entry explained by the rename)."""

from __future__ import annotations

from pathlib import Path

from tests.gitrepo import analyse_commit

_BEFORE = (
    "__all__ = [\n    'first',\n    'padnone',\n]\n\n\n"
    "def first(xs):\n    return xs[0]\n\n\n"
    "def padnone(iterable):\n    return list(iterable) + [None]\n"
)
_AFTER = (
    "__all__ = [\n    'first',\n    'padnone',\n    'pad_none',\n]\n\n\n"
    "def first(xs):\n    return xs[0]\n\n\n"
    "def pad_none(iterable):\n    return list(iterable) + [None]\n\n\npadnone = pad_none\n"
)
_BASE = {"pkg/__init__.py": "", "pkg/recipes.py": _BEFORE}


def test_the_new_name_listed_in_all_is_the_rename(tmp_path: Path):
    a = analyse_commit(tmp_path, _BASE, {"pkg/recipes.py": _AFTER}, "Rename padnone (#3)")
    assert [f.symbol for f in a.model.findings if f.kind == "symbol.renamed"] == ["pad_none"]
    assert a.model.summary.verdict == "pure-refactor"


def test_an_entry_naming_something_else_is_not(tmp_path: Path):
    after = _AFTER.replace("    'pad_none',\n", "    'pad_nones',\n")
    a = analyse_commit(tmp_path, _BASE, {"pkg/recipes.py": after}, "Rename padnone (#3)")
    assert a.model.summary.verdict != "pure-refactor"
