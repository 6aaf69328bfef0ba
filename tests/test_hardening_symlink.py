"""A symbolic link is reported as one, never parsed as Python (Hardening II, G14).

git stores a link's target path as its blob: ``pkg/alias.py -> a.py`` read as Python text is
the expression ``a.py``, which gave a false unresolved name ``a``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from prreport.config import Config, GitConfig
from prreport.pipeline import analyse, gather
from prreport.render.markdown import render_markdown
from prreport.sources.git import GitSource
from tests.gitrepo import Repo


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_a_symlink_to_a_module_is_a_symlink_not_python(tmp_path: Path):
    repo = Repo(tmp_path / "repo")
    repo.commit("init", {"pkg/__init__.py": "", "pkg/a.py": "def f():\n    return 1\n"})
    os.symlink("a.py", repo.path / "pkg" / "alias.py")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "feat(pkg): an alias module (#5)")
    cfg = Config()
    src = GitSource("5", GitConfig(repo=str(repo.path)))
    try:
        a = analyse(gather(src, cfg), cfg)
    finally:
        src.close()
    (f,) = a.bundle.files
    assert f.path == "pkg/alias.py" and f.binary and f.after is None
    assert not [x for x in a.findings if x.kind.startswith("names.")]
    assert a.model.summary.verdict != "pure-refactor"
    assert "pkg/alias.py is a symbolic link to a.py" in render_markdown(a.model, "en")
