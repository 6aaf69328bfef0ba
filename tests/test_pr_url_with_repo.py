"""A PR URL together with ``--repo`` (issue 36): the local clone answers for that PR number when
its origin is the URL's repository; another origin is one error line, no network either way."""

from __future__ import annotations

import subprocess

from tests.conftest import run_cli
from tests.gitrepo import Repo


def _repo(tmp_path, origin: str) -> Repo:
    repo = Repo(tmp_path / "clone")
    repo.commit("init", {"pkg/__init__.py": "", "pkg/a.py": "def f():\n    return 1\n"})
    repo.commit("refactor(pkg): tidy (#3)", {"pkg/a.py": "def f():\n    return 2\n"})
    subprocess.run(
        ["git", "-C", str(repo.path), "remote", "add", "origin", origin],
        check=True,
        capture_output=True,
    )
    return repo


def test_a_pr_url_with_a_clone_of_that_repository_reads_the_clone(tmp_path):
    repo = _repo(tmp_path, "git@github.com:Acme/Widgets.git")
    url = "https://github.com/acme/widgets/pull/3"
    # An unreachable API: reading GitHub would fail; the clone needs no network.
    env = {"GITHUB_API_URL": "http://127.0.0.1:9", "GITHUB_TOKEN": "x"}
    res = run_cli(
        url, "--repo", str(repo.path), "--format", "json", "--out", "-", env=env, cwd=tmp_path
    )
    assert res.returncode == 0, res.stderr
    assert '"number": 3' in res.stdout and '"source": "git"' in res.stdout


def test_a_clone_of_another_repository_is_one_error_line(tmp_path):
    repo = _repo(tmp_path, "https://github.com/other/thing.git")
    res = run_cli("https://github.com/acme/widgets/pull/3", "--repo", str(repo.path))
    assert res.returncode == 2
    assert res.stderr.startswith("error: --repo ") and "other/thing" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr
    # --github OWNER/NAME with --repo names two sources: still exclusive.
    res = run_cli("3", "--github", "acme/widgets", "--repo", str(repo.path))
    assert res.returncode == 2 and "exclusive" in res.stderr
