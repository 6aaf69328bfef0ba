"""Odd input from the command line and the settings is one ``error:`` line, exit 2 (Hardening II,
G8, G10, G12, G15): never an internal error, a traceback, a hang or a silently ignored setting."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.gitrepo import Repo


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    r = Repo(tmp_path_factory.mktemp("input") / "repo")
    r.commit("init", {"pkg/__init__.py": "", "pkg/a.py": "def f():\n    return 1\n"})
    r.commit("refactor: tidy (#4)", {"pkg/a.py": "def f():\n    return 2\n"})
    return r.path


def _error(res, *needles: str) -> str:
    assert res.returncode == 2, (res.returncode, res.stdout[-500:], res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert "internal error" not in lines[0] and "Traceback" not in res.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def _cli(repo: Path, tmp_path: Path, *args: str, env: dict[str, str] | None = None):
    return run_cli(
        "HEAD", "--repo", str(repo), "--out", str(tmp_path / "out"), *args, cwd=tmp_path, env=env
    )


def test_g10_a_5000_digit_pr_number_is_a_clear_error(repo: Path, tmp_path: Path):
    res = run_cli("9" * 5000, "--repo", str(repo), cwd=tmp_path)
    line = _error(res, "too large", "5000 digits")
    assert len(line) < 200


@pytest.mark.skipif(not Path("/dev/urandom").exists(), reason="needs /dev/urandom")
def test_g12_a_settings_file_that_is_a_device_or_too_big_is_refused(repo: Path, tmp_path: Path):
    _error(_cli(repo, tmp_path, "--config", "/dev/urandom"), "/dev/urandom", "not a regular file")
    big = tmp_path / "big.toml"
    big.write_text("# padding\n" * 200_000)
    _error(_cli(repo, tmp_path, "--config", str(big)), "big.toml", "at most")


def test_g15_settings_mistakes_are_named(repo: Path, tmp_path: Path):
    bad = tmp_path / "svn.toml"
    bad.write_text('[report]\nsource = "svn"\n')
    # --repo picks the git source, but the file's value is still wrong and named.
    _error(_cli(repo, tmp_path, "--config", str(bad)), "svn.toml", "report.source", "svn")
    _error(_cli(repo, tmp_path, "--fail-on", ""), "--fail-on", "names nothing")
    _error(
        _cli(repo, tmp_path, env={"PRREPORT_REPROT_LANG": "zh"}),
        "PRREPORT_REPROT_LANG",
        "PRREPORT_REPORT_LANG",
    )
    _error(
        _cli(repo, tmp_path, env={"PRREPORT_GIT_MAX_FILE_BYTES": "\u0661\u0660\u0660"}),
        "expected an integer",
    )
    folder = tmp_path / "here"
    (folder / ".prreport.toml").mkdir(parents=True)
    # Settings are found from --repo (else the current directory): here, the current one.
    res = run_cli("HEAD", "--out", str(tmp_path / "o2"), cwd=folder)
    _error(res, ".prreport.toml", "a directory")


def test_g15_a_settings_file_with_a_byte_order_mark_is_read(repo: Path, tmp_path: Path):
    bom = tmp_path / "bom.toml"
    bom.write_bytes(b'\xef\xbb\xbf[report]\nformats = ["json"]\n')
    res = _cli(repo, tmp_path, "--config", str(bom))
    assert res.returncode == 0, res.stderr
    assert [p.suffix for p in (tmp_path / "out").iterdir()] == [".json"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_g8_writing_to_a_full_device_is_one_error_line(repo: Path, tmp_path: Path):
    import subprocess
    import sys

    with open("/dev/full", "w") as full:
        res = subprocess.run(
            [
                sys.executable,
                "-m",
                "prreport",
                "HEAD",
                "--repo",
                str(repo),
                "--format",
                "json",
                "--out",
                "-",
            ],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            timeout=120,
        )
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert lines == ["error: cannot write the report: No space left on device"], res.stderr
