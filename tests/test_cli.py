"""End to end through the CLI: files written, JSON contract, bundle round trip, one-line errors."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import load_json, run_cli
from tests.gitrepo import Repo


def _small_repo(path: Path) -> tuple[Repo, str, str]:
    repo = Repo(path)
    base = repo.commit(
        "init",
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "def f():\n    for i in range(3):\n        import json\n        print(json.dumps(i))\n",
        },
    )
    head = repo.commit(
        "refactor(pkg): hoist json (#7)",
        {
            "pkg/a.py": "import json\n\n\ndef f():\n    for i in range(3):\n        print(json.dumps(i))\n",
            "notes.txt": "n\n",
        },
    )
    return repo, base, head


def test_report_json_and_md_for_pr_number(tmp_path: Path):
    repo, base, head = _small_repo(tmp_path / "r")
    out = tmp_path / "out"
    res = run_cli(
        "7", "--repo", str(repo.path), "--format", "json,md", "--out", str(out), "--quiet"
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout == ""  # --quiet
    md = out / "r-pr-7.md"
    js = out / "r-pr-7.json"
    assert md.is_file() and js.is_file()
    data = load_json(js)
    assert data["schema"] == "prreport.report/1"
    assert data["pr"]["number"] == 7
    assert data["pr"]["title"] == "refactor(pkg): hoist json"
    assert data["pr"]["base_sha"] == base and data["pr"]["head_sha"] == head
    numstat = repo.numstat(base, head)
    assert {f["path"]: (f["additions"], f["deletions"]) for f in data["files"]} == numstat
    for key in (
        "summary",
        "motivation",
        "findings",
        "key_symbols",
        "snippets",
        "review",
        "risks",
        "impact",
        "related",
        "diagnostics",
    ):
        assert key in data
    assert "refactor(pkg): hoist json" in md.read_text(encoding="utf-8")
    assert list(out.glob(".*.tmp")) == []


def test_markdown_goes_to_terminal_unless_quiet(tmp_path: Path):
    repo, _, _ = _small_repo(tmp_path / "r")
    res = run_cli(
        "HEAD", "--repo", str(repo.path), "--format", "json", "--out", str(tmp_path / "o")
    )
    assert res.returncode == 0, res.stderr
    assert "refactor(pkg): hoist json" in res.stdout
    assert (tmp_path / "o" / "r-pr-7.json").is_file()


def test_saved_bundle_gives_same_json_without_repository(tmp_path: Path):
    repo, _, _ = _small_repo(tmp_path / "r")
    out1, out2 = tmp_path / "o1", tmp_path / "o2"
    bundle = tmp_path / "b.json"
    res = run_cli(
        "7",
        "--repo",
        str(repo.path),
        "--format",
        "json,md",
        "--out",
        str(out1),
        "--save-bundle",
        str(bundle),
        "-q",
    )
    assert res.returncode == 0, res.stderr
    shutil.rmtree(repo.path)
    res = run_cli("--bundle", str(bundle), "--format", "json,md", "--out", str(out2), "-q")
    assert res.returncode == 0, res.stderr
    j1 = load_json(out1 / "r-pr-7.json")
    j2 = load_json(out2 / "r-pr-7.json")
    for j in (j1, j2):
        for key in ("source", "generated_at"):
            j.pop(key, None)
    assert j1 == j2
    assert (out1 / "r-pr-7.md").read_text() == (out2 / "r-pr-7.md").read_text()


def _assert_one_line_error(res, *needles: str) -> None:
    assert res.returncode == 2, (res.returncode, res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in res.stderr
    for n in needles:
        assert n in lines[0], lines[0]


def test_user_errors_are_one_line(tmp_path: Path):
    repo, _, _ = _small_repo(tmp_path / "r")
    (tmp_path / "plain").mkdir()
    _assert_one_line_error(
        run_cli("HEAD", "--repo", str(tmp_path / "plain"), "-q"), "not a git repository"
    )
    _assert_one_line_error(
        run_cli("nope", "--repo", str(repo.path), "-q"), "unknown revision 'nope'"
    )
    _assert_one_line_error(
        run_cli("#99", "--repo", str(repo.path), "-q"), "(#99)", str(repo.path.resolve()), "--repo"
    )
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    _assert_one_line_error(run_cli("--bundle", str(bad), "-q"), "not a prreport bundle")
    _assert_one_line_error(
        run_cli("--bundle", str(tmp_path / "missing.json"), "-q"), "does not exist"
    )
    _assert_one_line_error(
        run_cli("HEAD", "--repo", str(repo.path), "--format", "pdf", "-q"), "--format"
    )
    cfg = tmp_path / "c.toml"
    cfg.write_text("[report]\nlnag = 'en'\n")
    _assert_one_line_error(
        run_cli("HEAD", "--repo", str(repo.path), "--config", str(cfg), "-q"), "report.lnag"
    )
    cfg.write_text("[report]\nmax_snippets = 'many'\n")
    _assert_one_line_error(
        run_cli("HEAD", "--repo", str(repo.path), "--config", str(cfg), "-q"),
        "report.max_snippets",
        "integer",
    )
    cfg.write_text("[report\n")
    _assert_one_line_error(
        run_cli("HEAD", "--repo", str(repo.path), "--config", str(cfg), "-q"), "not valid TOML"
    )


def test_debug_shows_traceback(tmp_path: Path):
    res = run_cli("HEAD", "--repo", str(tmp_path), "--debug", "-q")
    assert res.returncode == 2 and "Traceback" in res.stderr


def test_unwritable_output_is_an_error_and_leaves_nothing(tmp_path: Path):
    repo, _, _ = _small_repo(tmp_path / "r")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    _assert_one_line_error(
        run_cli("HEAD", "--repo", str(repo.path), "--out", str(blocker / "sub"), "-q"),
        "cannot write",
    )


def test_help_lists_flags():
    res = run_cli("--help")
    assert res.returncode == 0
    for flag in ("--repo", "--format", "--out", "--lang", "--bundle", "--save-bundle", "--github"):
        assert flag in res.stdout


def test_fail_on_gates_the_exit_status(tmp_path: Path):
    repo, _, _ = _small_repo(tmp_path / "r")
    args = ("7", "--repo", str(repo.path), "--format", "json", "--out", str(tmp_path / "o"), "-q")
    hit = run_cli(*args, "--fail-on", "cycle.risk,loop.*")
    assert hit.returncode == 1, hit.stderr
    assert "fail-on: the report has loop.imports-removed ×1" in hit.stderr
    assert (tmp_path / "o" / "r-pr-7.json").is_file()  # the report is still written
    miss = run_cli(*args, "--fail-on", "cycle.risk,guard.dropped")
    assert miss.returncode == 0, miss.stderr
    _assert_one_line_error(run_cli(*args, "--fail-on", "Not A Kind"), "--fail-on")
