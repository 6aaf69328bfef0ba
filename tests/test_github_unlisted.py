"""Files GitHub's PR files listing leaves out (it stops at 3000): read from the git trees of the
merge base and the head, or else a high risk that keeps the verdict from pure and the action
from "skim". Against the local GitHub server (tests/ghserver.py) and a generated 3,003-file PR
(tests/bigpr.py) whose unseen file changes ``return user.is_admin`` to ``return True``."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from prreport.bundle import bundle_to_json, load_bundle
from prreport.config import GitHubConfig
from prreport.sources.github import source as github_source
from prreport.sources.github.patch import reverse_apply, unified_patch
from prreport.sources.github.source import GitHubSource
from prreport.sources.github.unlisted import TreeItem, tree_changes
from tests import bigpr
from tests.conftest import load_json, run_cli
from tests.ghserver import GitHubServer

TOKEN = "ghp_test0123456789abcdefSECRET"
REPORT = f"{bigpr.REPO.replace('/', '-')}-pr-{bigpr.NUMBER}"
CHANGED = ("behavior-change", "refactor-with-behavior-change")


@pytest.fixture
def server():
    with GitHubServer(token=TOKEN) as srv:
        yield srv


def _serve(srv: GitHubServer, **kw) -> dict:
    repo = bigpr.big_repo(**kw)
    srv.state.repos[bigpr.REPO] = repo
    return repo


def _pr(repo: dict) -> dict:
    return repo["pulls"][str(bigpr.NUMBER)]


def _cli(srv: GitHubServer, tmp: Path, *args: str, env: dict | None = None):
    proc = run_cli(
        str(bigpr.NUMBER),
        "--github",
        bigpr.REPO,
        "--github-api-url",
        srv.url,
        "--out",
        str(tmp / "out"),
        "-q",
        "--format",
        "md,json",
        "--save-bundle",
        str(tmp / "b.json"),
        *args,
        cwd=tmp,
        env={"GITHUB_TOKEN": TOKEN, "PRREPORT_GITHUB_CACHE_DIR": str(tmp / "cache"), **(env or {})},
    )
    assert proc.returncode == 0, proc.stderr
    return load_json(tmp / "out" / f"{REPORT}.json"), load_json(tmp / "b.json")


def _fetch(srv: GitHubServer, tmp: Path, monkeypatch, **kw):
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    src = GitHubSource(
        str(bigpr.NUMBER),
        GitHubConfig(repo=bigpr.REPO, api_url=srv.url, cache_dir=str(tmp / "cache"), **kw),
    )
    try:
        return src.fetch()
    finally:
        src.close()


def _paths(srv: GitHubServer, part: str) -> list[str]:
    return [r.path for r in srv.requests if part in r.path]


def test_the_files_past_githubs_3000_come_from_the_trees_and_the_change_is_found(server, tmp_path):
    repo = _serve(server)
    report, bundle = _cli(server, tmp_path)
    # GitHub listed 3000; the three it left out were read from the git trees.
    assert len(_paths(server, f"/pulls/{bigpr.NUMBER}/files")) == 30
    assert len(bundle["files"]) == 3003 and bundle["unseen_files"] == 0
    by_path = {f["path"]: f for f in bundle["files"]}
    auth = by_path["pkg/auth.py"]
    assert (auth["before"], auth["after"]) == (bigpr.AUTH_BEFORE, bigpr.AUTH_AFTER)
    assert "-    return user.is_admin\n+    return True\n" in auth["patch"]
    assert (auth["status"], auth["additions"], auth["deletions"]) == ("modified", 1, 1)
    assert by_path["zz/new_name.txt"]["status"] == "renamed"
    assert by_path["zz/new_name.txt"]["old_path"] == "zz/old_name.txt"
    assert by_path["assets/added.txt"]["status"] == "added" and "zz/old_name.txt" not in by_path
    # ... so the report sees the changed authorisation: not pure, not "skim".
    summary = report["summary"]
    assert summary["verdict"] in CHANGED and summary["action"]["level"] != "skim", summary
    assert not summary["recommended_action"].startswith("Safe to skim")
    assert any(
        f["path"] == "pkg/auth.py" and f["kind"] == "behavior.changed" for f in report["findings"]
    )
    assert "unseen-files" not in {r["id"] for r in report["risks"]}
    md = (tmp_path / "out" / f"{REPORT}.md").read_text(encoding="utf-8")
    assert "can_edit" in md and "3003 files" in md
    # The cost: one compare (the merge base), one more tree, the texts in the GraphQL batches.
    assert len(_paths(server, "/compare/")) == 1, server.paths()
    trees = _paths(server, "/git/trees/")
    assert len(trees) == 2 and _pr(repo)["base_sha"] in trees[1], server.paths()
    assert not _paths(server, "/git/blobs/") and len(_paths(server, "/graphql")) <= 2
    assert server.count <= 45, server.paths()


def test_a_pr_github_lists_whole_costs_no_extra_request(server, tmp_path, monkeypatch):
    bundle = _fetch_seed(server, tmp_path, monkeypatch)
    assert bundle.unseen_files == 0 and len(bundle.files) == 2
    assert not _paths(server, "/compare/") and len(_paths(server, "/git/trees/")) == 1


def _fetch_seed(srv, tmp, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    src = GitHubSource(
        "35980",
        GitHubConfig(repo="sgl-project/sglang", api_url=srv.url, cache_dir=str(tmp / "cache")),
    )
    try:
        return src.fetch()
    finally:
        src.close()


@pytest.mark.parametrize("which", ["head", "merge base"])
def test_a_truncated_tree_makes_the_unseen_files_a_high_risk_naming_them(server, tmp_path, which):
    repo = _serve(server)
    pr = _pr(repo)
    repo["truncated_trees"] = [pr["head_sha"] if which == "head" else pr["base_sha"]]
    report, bundle = _cli(server, tmp_path, "--lang", "en,zh")
    assert len(bundle["files"]) == 3000 and bundle["unseen_files"] == 3
    assert any("3 of 3003 changed files were not seen" in n for n in bundle["source_notes"])
    assert len(_paths(server, "/compare/")) == (0 if which == "head" else 1)
    summary = report["summary"]
    assert summary["verdict"] == "unknown" and summary["action"]["level"] == "block", summary
    assert summary["headline"]["unknown_reason"] == "unseen-files"
    top = report["risks"][0]
    assert (top["id"], top["severity"]) == ("unseen-files", "high")
    assert (top["evidence"][0]["count"], top["evidence"][0]["total"]) == (3, 3003)
    md = (tmp_path / "out" / f"{REPORT}.md").read_text(encoding="utf-8")
    assert "3 of 3003 changed files were not seen" in md and "Safe to skim" not in md
    assert "Block until resolved: Changed files not seen" in md
    zh = (tmp_path / "out" / f"{REPORT}.zh.md").read_text(encoding="utf-8")
    assert "3003 个改动文件中有 3 个未读取到" in zh


def test_the_unseen_count_travels_in_the_bundle_and_is_what_keeps_the_verdict_from_pure(
    server, tmp_path, monkeypatch
):
    repo = _serve(server)
    repo["truncated_trees"] = [_pr(repo)["head_sha"]]
    fetched = _fetch(server, tmp_path, monkeypatch)
    (tmp_path / "b.json").write_text(bundle_to_json(fetched), encoding="utf-8")
    saved = load_bundle(tmp_path / "b.json")
    assert saved.unseen_files == 3 and saved == fetched

    def offline(bundle, name: str) -> dict:
        path = tmp_path / f"{name}.json"
        path.write_text(bundle_to_json(bundle), encoding="utf-8")
        out = tmp_path / name
        args = ("--bundle", str(path), "--format", "json", "--out", str(out), "-q")
        proc = run_cli(*args)
        assert proc.returncode == 0, proc.stderr
        return load_json(out / f"{REPORT}.json")["summary"]

    again = offline(saved, "again")
    assert again["verdict"] == "unknown" and again["action"]["blockers"] == ["unseen-files"]
    # The 3000 files GitHub listed are, alone, a proven pure refactor that is safe to skim:
    # without the unseen count this report would say exactly the wrong thing.
    seen_only = offline(dataclasses.replace(saved, unseen_files=0), "seen-only")
    assert seen_only["verdict"] == "pure-refactor" and seen_only["action"]["level"] == "skim"


def test_the_diff_is_from_the_merge_base_not_from_the_moved_base_branch(
    server, tmp_path, monkeypatch
):
    repo = _serve(server, drift=True)
    bundle = _fetch(server, tmp_path, monkeypatch)
    paths = {f.path for f in bundle.files}
    assert len(bundle.files) == 3003 and bundle.unseen_files == 0
    assert "pkg/drift.py" not in paths and {"pkg/auth.py", *bigpr.UNLISTED} <= paths
    merge_base = repo["merge_bases"][f"{_pr(repo)['base_sha']}...{_pr(repo)['head_sha']}"]
    assert any(merge_base in p for p in _paths(server, "/git/trees/"))


def test_past_the_read_cap_code_is_read_first_and_the_rest_are_unseen(
    server, tmp_path, monkeypatch
):
    _serve(server)
    monkeypatch.setattr(github_source, "CAP_GRAPHQL", 1)
    bundle = _fetch(server, tmp_path, monkeypatch)
    assert len(bundle.files) == 3001 and bundle.unseen_files == 2
    # Library code first: pkg/auth.py, not assets/added.txt, which sorts before it.
    assert bundle.file("pkg/auth.py") is not None and bundle.file("assets/added.txt") is None
    assert any("2 of 3003 were not seen" in n for n in bundle.source_notes), bundle.source_notes


def test_a_failed_compare_leaves_the_files_unseen_not_the_run_failed(server, tmp_path, monkeypatch):
    _serve(server)
    server.inject("500", match="/compare/")
    bundle = _fetch(server, tmp_path, monkeypatch, retries=0)
    assert len(bundle.files) == 3000 and bundle.unseen_files == 3
    assert any("could not be read" in n for n in bundle.source_notes), bundle.source_notes


def _item(sha: str, type: str = "blob", mode: str = "100644") -> TreeItem:
    return TreeItem(type, mode, sha, 4)


def test_tree_changes_pair_exact_renames_and_see_modes_and_submodules():
    base = {
        "a.py": _item("1"),
        "old.txt": _item("2"),
        "gone.txt": _item("3"),
        "run.sh": _item("4"),
        "vendor/lib": _item("5", "commit", "160000"),
        "listed.py": _item("6"),
        "same.py": _item("7"),
    }
    head = {
        "a.py": _item("1a"),
        "new.txt": _item("2"),
        "run.sh": _item("4", mode="100755"),
        "vendor/lib": _item("5a", "commit", "160000"),
        "listed.py": _item("6a"),
        "same.py": _item("7"),
        "fresh.txt": _item("8"),
    }
    got = {(c.path, c.status, c.old_path) for c in tree_changes(base, head, ["listed.py"])}
    assert got == {
        ("a.py", "modified", None),
        ("new.txt", "renamed", "old.txt"),
        ("gone.txt", "deleted", None),
        ("run.sh", "modified", None),
        ("vendor/lib", "modified", None),
        ("fresh.txt", "added", None),
    }


def test_a_written_patch_is_gits_form_and_gives_the_base_back():
    assert unified_patch("a\nb\nc\n", "a\nB\nc\n") == ("@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", 1, 1)
    assert unified_patch("", "x\n") == ("@@ -0,0 +1 @@\n+x\n", 1, 0)
    assert unified_patch("x", "x\n")[0] == "@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+x\n"
    assert unified_patch("same\n", "same\n") == ("", 0, 0)
    rnd = random.Random(7)
    for _ in range(300):
        before = "".join(rnd.choice("ab\n") for _ in range(rnd.randint(0, 30)))
        after = "".join(rnd.choice("ab\n") for _ in range(rnd.randint(0, 30)))
        patch, adds, dels = unified_patch(before, after)
        assert reverse_apply(after, patch, adds, dels) == before, (before, after, patch)
