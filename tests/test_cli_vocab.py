"""One vocabulary across ``prreport``, ``prreport comment`` and ``prreport digest``: what a user
types at the shell, with the settings files of someone else's repository around it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from prreport.cli import main
from prreport.cli.options import parse_pr_url
from tests.conftest import run_cli
from tests.gitrepo import Repo

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = ("report", "comment", "digest")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    r = Repo(tmp_path_factory.mktemp("vocab") / "r")
    r.commit(
        "init", {"pkg/__init__.py": "", "pkg/a.py": "def f():\n    import json\n    return json\n"}
    )
    r.commit(
        "refactor(pkg): hoist json (#7)",
        {"pkg/a.py": "import json\n\n\ndef f():\n    return json\n"},
    )
    return r


def _invoke(*args: str, **kw):
    return CliRunner().invoke(main, list(args), terminal_width=80, **kw)


def _one_error(res, *needles: str) -> str:
    assert res.exit_code == 2, (res.exit_code, res.output)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert "Traceback" not in res.output
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


# --- Finding one's way ------------------------------------------------------------------------


def test_help_lists_the_commands():
    res = _invoke("--help")
    assert res.exit_code == 0
    commands = res.output.split("Commands:", 1)[1]
    for name in (*COMMANDS, "help"):
        assert re.search(rf"^  {name}\s", commands, re.M), name
    assert "--repo" in res.output and "--fail-on" in res.output  # `prreport TARGET`'s options


def test_bare_prreport_prints_usage():
    res = run_cli()  # as a user at the shell: no traceback, no "not a git repository"
    assert res.returncode == 2
    assert res.stdout.startswith("Usage: prreport")
    assert "Commands:" in res.stdout and res.stderr == ""


def test_a_mistyped_command_says_what_was_meant(tmp_path: Path):
    res = run_cli("diggest", "--week", "2026-W01", cwd=tmp_path)
    assert res.returncode == 2
    assert res.stderr.strip() == (
        "error: unknown command 'diggest': did you mean `digest`? "
        "(for a revision named so: prreport report diggest)"
    )
    _one_error(_invoke("coment", "5"), "did you mean `comment`")


def test_revisions_that_look_like_nothing_else_still_reach_report(repo: Repo, tmp_path: Path):
    # A SHA, a range and HEAD~1 are never taken for command typos.
    head = repo.git("rev-parse", "HEAD").strip()
    for target in (head[:10], "HEAD~1..HEAD", "HEAD"):
        res = _invoke(target, "--repo", str(repo.path), "--out", str(tmp_path), "-q")
        assert res.exit_code == 0, (target, res.output)


def test_help_command():
    assert _invoke("help").output == _invoke("--help").output
    digest = _invoke("help", "digest")
    assert digest.exit_code == 0 and digest.output == _invoke("digest", "--help").output.replace(
        "Usage: main digest", "Usage: prreport digest"
    )
    _one_error(_invoke("help", "digst"), "did you mean `digest`")


@pytest.mark.parametrize("command", COMMANDS)
def test_shared_options_mean_the_same_everywhere(command: str):
    res = _invoke(command, "--help")
    assert res.exit_code == 0
    options = {
        line.split()[0].rstrip(","): line
        for line in res.output.split("Options:", 1)[1].splitlines()
        if line.startswith("  -")
    }
    shared = ("-q", "--out", "--format", "--lang", "--config", "--debug", "--fail-on", "-V")
    for flag in shared:
        assert flag in options or any(flag in line for line in options.values()), (command, flag)
    # --lang takes a list everywhere, --no-cache is the same cache, --out the same folder.
    assert "--lang LIST" in res.output
    if command != "comment":
        assert "Read and write no cache" in " ".join(res.output.split())
    assert "Folder for the files" in res.output


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_version_everywhere(command: str):
    from prreport import __version__

    for flag in ("-V", "--version"):
        res = _invoke(*([command] if command else []), flag)
        assert res.exit_code == 0 and res.output == f"prreport, version {__version__}\n"


def test_readme_usage_is_the_help_text():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("`prreport --help` prints:\n\n```\n", 1)[1].split("```", 1)[0]
    assert block == _invoke("--help").output


# --- Targets and outputs ----------------------------------------------------------------------


def test_pr_urls_are_taken_apart():
    url = parse_pr_url("https://github.com/sgl-project/sglang/pull/35980")
    assert url and (url.repo, url.number, url.api_url) == ("sgl-project/sglang", 35980, None)
    ghe = parse_pr_url("https://git.corp.example/team/tool/pull/12/files")
    assert ghe is None or ghe.api_url == "https://git.corp.example/api/v3"
    ghe = parse_pr_url("https://git.corp.example/team/tool/pull/12#discussion")
    assert ghe and ghe.api_url == "https://git.corp.example/api/v3"
    assert parse_pr_url("HEAD") is None and parse_pr_url("12") is None


def test_out_dash_prints_one_format_to_stdout(repo: Repo, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = _invoke("HEAD", "--repo", str(repo.path), "--format", "json", "--out", "-")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["pr"]["number"] == 7
    assert "wrote" not in res.stderr and not list(tmp_path.rglob("*.json"))
    two = _invoke("HEAD", "--repo", str(repo.path), "--format", "json,md", "--out", "-")
    _one_error(two, "--out -", "one --format")


def test_lang_list_writes_both_languages(repo: Repo, tmp_path: Path):
    res = _invoke(
        "7",
        "--repo",
        str(repo.path),
        "--lang",
        "en,zh",
        "--format",
        "md",
        "--out",
        str(tmp_path),
        "-q",
    )
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r-pr-7.md", "r-pr-7.zh.md"]


def test_comment_checks_the_token_before_rendering(repo: Repo, tmp_path: Path):
    out = tmp_path / "o"
    res = run_cli("comment", "7", "--github", "o/n", "--repo", str(repo.path), "--out", str(out))
    assert res.returncode == 2
    assert res.stderr.strip().startswith(
        "error: no GitHub token to post the comment: set GITHUB_TOKEN"
    )
    assert not out.exists()  # nothing rendered


# --- Settings files that belong to someone else -----------------------------------------------


def test_a_foreign_config_toml_does_not_break_prreport(repo: Repo, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.toml").write_text("[server]\nport = 8080\n")
    res = _invoke("HEAD", "--repo", str(repo.path), "--out", "o", "-q")
    assert res.exit_code == 0, res.output


def test_the_documented_config_toml_works_when_named(repo: Repo, tmp_path: Path):
    res = _invoke(
        "HEAD",
        "--repo",
        str(repo.path),
        "--config",
        str(ROOT / "config.toml"),
        "--out",
        str(tmp_path),
        "-q",
    )
    assert res.exit_code == 0, res.output


def test_github_repo_in_settings_does_not_switch_the_source(
    repo: Repo, tmp_path: Path, monkeypatch
):
    # With [github] repo set, `prreport HEAD` still reads the local clone (no network, no token).
    monkeypatch.chdir(repo.path)
    (repo.path / ".prreport.toml").write_text(
        f"[github]\nrepo = 'o/n'\n[report]\nout_dir = '{tmp_path}'\n"
    )
    res = _invoke("HEAD", "-q", "--format", "json")
    assert res.exit_code == 0, res.output
    assert json.loads(next(tmp_path.glob("*.json")).read_text())["pr"]["head_sha"]


@pytest.mark.parametrize(
    "text, needle",
    [
        (b"[git]\nmax_file_bytes = 0\n", "'git.max_file_bytes' must be from 1"),
        (b"[github]\ntimeout = 0\n", "'github.timeout' must be from 1"),
        (b'[github]\napi_url = "http://[::1"\n', "'github.api_url' must be an http(s) URL"),
        (b"[report]\nlang = '\xff\xfe'\n", "not UTF-8"),
        (b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n", "nested too deeply"),
        (b"[server]\nport = 1\n", "unknown section 'server'"),
    ],
)
def test_bad_settings_are_one_error_line(repo: Repo, tmp_path: Path, text: bytes, needle: str):
    cfg = tmp_path / "c.toml"
    cfg.write_bytes(text)
    for command in (["HEAD", "--repo", str(repo.path)], ["digest", "--repo", str(repo.path)]):
        res = _invoke(*command, "--config", str(cfg), "-q")
        _one_error(res, str(cfg), needle) if "must be" not in needle else _one_error(res, needle)
