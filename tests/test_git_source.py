"""The local git source: targets, file statuses, counts equal to git's numstat, bare clones."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from prreport.config import GitConfig
from prreport.errors import SourceError
from prreport.sources.git import GitSource
from tests.gitrepo import Repo


def _fetch(repo_path: Path, target: str, **kw):
    src = GitSource(target, GitConfig(repo=str(repo_path), **kw))
    try:
        return src.fetch()
    finally:
        src.close()


@pytest.fixture()
def mixed_repo(tmp_path: Path) -> tuple[Repo, str, str]:
    repo = Repo(tmp_path / "mixed")
    base = repo.commit(
        "init",
        {
            "pkg/__init__.py": "",
            "pkg/old_name.py": "".join(f"def f{i}():\n    return {i}\n\n" for i in range(20)),
            "pkg/gone.py": "x = 1\ny = 2\n",
            "pkg/edit.py": "a = 1\nb = 2\nc = 3\n",
            "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00binary",
            "legacy.py": "s = 'caf\xe9'\n".encode("latin-1"),
        },
    )
    files = {
        "pkg/new_name.py": "".join(f"def f{i}():\n    return {i}\n\n" for i in range(20))
        + "def g():\n    return 0\n",
        "pkg/old_name.py": None,
        "pkg/gone.py": None,
        "pkg/edit.py": "a = 1\nb = 20\nc = 3\nd = 4\n",
        "pkg/added.py": "import os\n",
        "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00binary-changed",
        "legacy.py": "s = 'caf\xe9!'\n".encode("latin-1"),
    }
    head = repo.commit("feat(pkg): rename and edit (#7)\n\nBody text mentions #3.", files)
    return repo, base, head


def test_pr_number_squash_commit(mixed_repo):
    repo, base, head = mixed_repo
    b = _fetch(repo.path, "#7")
    assert b.pr.number == 7
    assert b.pr.title == "feat(pkg): rename and edit"
    assert b.pr.body == "Body text mentions #3."
    assert b.pr.base_sha == base and b.pr.head_sha == head
    assert b.pr.author == "Alice Author"
    assert b.pr.merged_at.startswith("2026-")


def test_counts_equal_git_numstat_and_statuses(mixed_repo):
    repo, base, head = mixed_repo
    b = _fetch(repo.path, "7")
    numstat = repo.numstat(base, head)
    got = {f.path: (f.additions, f.deletions) for f in b.files}
    assert got == numstat
    by = {f.path: f for f in b.files}
    assert by["pkg/new_name.py"].status == "renamed"
    assert by["pkg/new_name.py"].old_path == "pkg/old_name.py"
    assert by["pkg/new_name.py"].before is not None and "def f19" in by["pkg/new_name.py"].before
    assert by["pkg/gone.py"].status == "deleted" and by["pkg/gone.py"].after is None
    assert by["pkg/gone.py"].before == "x = 1\ny = 2\n"
    assert by["pkg/added.py"].status == "added" and by["pkg/added.py"].before is None
    assert by["logo.png"].binary and by["logo.png"].before is None and by["logo.png"].patch is None
    assert by["legacy.py"].note == "not UTF-8 text" and by["legacy.py"].after is None
    assert "+b = 20" in by["pkg/edit.py"].patch


def test_merge_commit_pr(tmp_path: Path):
    repo = Repo(tmp_path / "m")
    base = repo.commit("init", {"a.py": "x = 1\n"})
    repo.git("checkout", "-q", "-b", "feature")
    repo.commit("change a", {"a.py": "x = 2\n"}, author="Bob Branch")
    repo.git("checkout", "-q", "main")
    repo.git(
        "merge",
        "-q",
        "--no-ff",
        "feature",
        "-m",
        "Merge pull request #12 from bob/feature\n\nMake x two",
    )
    b = _fetch(repo.path, "12")
    assert b.pr.number == 12
    assert b.pr.title == "Make x two"
    assert b.pr.base_sha == base
    assert b.pr.author == "Bob Branch"
    assert b.pr.merged_by == "Carol Committer"
    assert [f.path for f in b.files] == ["a.py"]
    assert b.files[0].before == "x = 1\n" and b.files[0].after == "x = 2\n"


def test_revision_and_range(mixed_repo):
    repo, base, head = mixed_repo
    b = _fetch(repo.path, "HEAD")
    assert b.pr.head_sha == head and b.pr.base_sha == base and b.pr.number == 7
    r = _fetch(repo.path, f"{base}..{head}")
    assert (
        r.pr.number is None
        and r.pr.base_sha == base
        and {f.path for f in r.files} == {f.path for f in b.files}
    )


def test_bare_clone_and_work_tree_untouched(mixed_repo, tmp_path: Path):
    repo, base, head = mixed_repo
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.path), str(bare)], check=True)
    b = _fetch(bare, "7")
    assert b.pr.head_sha == head and len(b.files) == 6
    status_before = repo.git("status", "--porcelain")
    _fetch(repo.path, "7")
    assert repo.git("status", "--porcelain") == status_before


def test_errors_name_the_problem(mixed_repo, tmp_path: Path):
    repo, _, _ = mixed_repo
    with pytest.raises(SourceError, match="no commit on HEAD of .* '\\(#99\\)'.*--repo"):
        _fetch(repo.path, "99")
    with pytest.raises(SourceError, match="unknown revision 'nope'"):
        _fetch(repo.path, "nope")
    (tmp_path / "plain").mkdir()
    with pytest.raises(SourceError, match="is not a git repository"):
        _fetch(tmp_path / "plain", "HEAD")


def test_oversize_file_is_listed_not_read(mixed_repo):
    repo, _, _ = mixed_repo
    b = _fetch(repo.path, "7", max_file_bytes=100)
    by = {f.path: f for f in b.files}
    assert by["pkg/new_name.py"].after is None and "too large" in by["pkg/new_name.py"].note
    assert by["pkg/edit.py"].after is not None


def test_related_prs_from_history(seed_repo):
    repo, _, _ = seed_repo
    b = _fetch(repo.path, "35980")
    rel = {r.number: r for r in b.related}
    assert rel[35948].relation == "predecessor"  # same series, same file
    assert rel[36030].relation == "follow-up"  # same series, mentions #35980
    assert rel[35838].relation == "same-series"
    assert 35960 not in rel  # docs PR, different series and files
