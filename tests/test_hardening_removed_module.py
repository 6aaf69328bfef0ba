"""A deleted module that code left in the repository still imports (Hardening II, G5).

``pkg/a.py`` removed while ``pkg/b.py`` (not part of the PR) keeps ``from pkg.a import helper``:
no finding named the broken import and the breakdown said "no unresolved name reported".
"""

from __future__ import annotations

from pathlib import Path

from prreport.config import Config, GitConfig
from prreport.pipeline import Analysis, analyse, gather
from prreport.render.markdown import render_markdown
from prreport.sources.git import GitSource
from tests.gitrepo import Repo

_BASE = {
    "pkg/__init__.py": "",
    "pkg/a.py": "def helper():\n    return 1\n",
    "pkg/b.py": "from pkg.a import helper\n\n\ndef use():\n    return helper()\n",
}


def _run(tmp_path: Path, base: dict[str, str], change: dict[str, str | None], mv=None) -> Analysis:
    repo = Repo(tmp_path / "repo")
    repo.commit("init", base)
    if mv:
        repo.git("mv", *mv)
    repo.commit("refactor(pkg): drop the a module (#5)", change)
    cfg = Config()
    src = GitSource("5", GitConfig(repo=str(repo.path)))
    try:
        return analyse(gather(src, cfg), cfg)
    finally:
        src.close()


def _broken(a: Analysis) -> list[tuple[str, int, str]]:
    return sorted(
        (f.path, f.line or 0, f.symbol)
        for f in a.findings
        if f.kind == "names.unresolved" and f.details.get("reason") == "module-removed"
    )


def test_the_issue_case_names_the_import_left_on_the_deleted_module(tmp_path: Path):
    a = _run(tmp_path, _BASE, {"pkg/a.py": None})
    assert _broken(a) == [("pkg/b.py", 1, "pkg.a.helper")]
    assert a.model.summary.verdict != "pure-refactor"
    md = render_markdown(a.model, "en")
    assert "no unresolved name reported" not in md
    assert "1 unresolved name" in md
    assert (
        "`from pkg.a import helper` at `pkg/b.py:1` fails with ImportError: this PR deletes "
        "`pkg/a.py`" in md
    )
    assert "ImportError" in render_markdown(a.model, "zh")


def test_every_spelling_of_the_import_is_found_also_after_a_rename(tmp_path: Path):
    base = dict(
        _BASE,
        **{"pkg/c.py": "from . import a\nimport pkg.a\nfrom .a import helper as h\n"},
        **{"other/__init__.py": "", "other/d.py": "import pkg.a.sub\n"},
    )
    a = _run(tmp_path, base, {}, mv=("pkg/a.py", "pkg/core.py"))
    assert _broken(a) == [
        ("other/d.py", 1, "pkg.a.sub"),
        ("pkg/b.py", 1, "pkg.a.helper"),
        ("pkg/c.py", 1, "pkg.a"),
        ("pkg/c.py", 2, "pkg.a"),
        ("pkg/c.py", 3, "pkg.a.helper"),
    ]
    (fd,) = [f for f in a.findings if f.path == "pkg/b.py" and f.kind == "names.unresolved"]
    assert fd.details["renamed_to"] == "pkg/core.py"
    assert "renames `pkg/a.py` to `pkg/core.py`" in render_markdown(a.model, "en")


def test_imports_that_still_work_are_not_reported(tmp_path: Path):
    base = {
        "pkg/__init__.py": "from pkg.core import helper as a\n",
        "pkg/core.py": "def helper():\n    return 1\n",
        "pkg/a.py": "def helper():\n    return 1\n",
        # a fallback, a name the package binds itself, a module of the same name elsewhere
        "pkg/b.py": (
            "try:\n    from pkg.a import helper\nexcept ImportError:\n    helper = None\n"
            "from pkg import a\nfrom other import a as b\n"
        ),
        "other/__init__.py": "a = 1\n",
        "pkg/e.py": "def f():\n    return 2\n",
    }
    a = _run(tmp_path, base, {"pkg/a.py": None, "pkg/e.py": "def f():\n    return 3\n"})
    assert _broken(a) == []


def test_a_module_that_only_moved_its_file_is_not_reported(tmp_path: Path):
    # pkg/a.py became the package pkg/a/__init__.py: ``pkg.a`` still imports.
    a = _run(
        tmp_path, _BASE, {"pkg/a.py": None, "pkg/a/__init__.py": "def helper():\n    return 1\n"}
    )
    assert _broken(a) == []
