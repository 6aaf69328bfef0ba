"""A shallow clone is an error that says how to fix it, not a PR of files all "added" (Hardening II, G3).

``actions/checkout`` fetches one commit by default: the parent of HEAD is not in the clone, and
diffed against the empty tree every file would read as added.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import run_cli
from tests.gitrepo import Repo


def _clone(src: Path, dst: Path, depth: int) -> Path:
    subprocess.run(
        ["git", "clone", "-q", f"--depth={depth}", src.resolve().as_uri(), str(dst)],
        check=True,
        capture_output=True,
    )
    return dst


def _repo(tmp_path: Path) -> Repo:
    repo = Repo(tmp_path / "origin")
    repo.commit("init", {"pkg/__init__.py": "", "pkg/a.py": "def f():\n    return 1\n"})
    repo.commit("refactor(pkg): tidy (#3)", {"pkg/a.py": "def f():\n    return 2\n"})
    return repo


def test_a_depth_1_clone_is_one_error_line_naming_the_fix(tmp_path: Path):
    clone = _clone(_repo(tmp_path).path, tmp_path / "shallow", depth=1)
    for target in ("HEAD", "3"):
        res = run_cli(target, "--repo", str(clone), "--out", str(tmp_path / "out"))
        assert res.returncode == 2, res.stdout + res.stderr
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
        assert "shallow clone" in lines[0] and "fetch-depth: 2" in lines[0]
        assert "Traceback" not in res.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_a_depth_2_clone_and_a_true_root_commit_still_report(tmp_path: Path):
    repo = _repo(tmp_path)
    clone = _clone(repo.path, tmp_path / "deeper", depth=2)
    res = run_cli("HEAD", "--repo", str(clone), "--format", "json", "--out", "-")
    assert res.returncode == 0, res.stderr
    assert '"status": "modified"' in res.stdout
    root = run_cli("HEAD~1", "--repo", str(repo.path), "--format", "json", "--out", "-")
    assert root.returncode == 0, root.stderr
    assert '"status": "added"' in root.stdout
