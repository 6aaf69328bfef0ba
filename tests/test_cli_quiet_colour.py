"""``-q`` is quiet (nothing on success but warnings and errors) and the terminal summary colours
risks by severity only on a terminal, never under NO_COLOR (issue 36)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_cli
from tests.gitrepo import Repo

ROOT = Path(__file__).resolve().parent.parent
BUNDLE = ROOT / "tests" / "corpus" / "bundles" / "aiohttp-0b6c9170.json.gz"  # a medium risk
YELLOW = "\x1b[33m"


def test_quiet_report_prints_nothing_on_success(tmp_path):
    res = run_cli("--bundle", str(BUNDLE), "--out", str(tmp_path), "-q")
    assert res.returncode == 0 and res.stdout == "" and res.stderr == "", res.stderr
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".json", ".md"]
    loud = run_cli("--bundle", str(BUNDLE), "--out", str(tmp_path))
    assert "wrote " in loud.stderr
    # Errors still speak.
    bad = run_cli("--bundle", str(tmp_path / "missing.json"), "-q")
    assert bad.returncode == 2 and bad.stderr.startswith("error: ")
    # The --fail-on verdict is a result, not chatter: still said under -q.
    gated = run_cli(
        "--bundle", str(BUNDLE), "--out", str(tmp_path), "-q", "--fail-on", "risk:medium"
    )
    assert gated.returncode == 1 and "fail-on:" in gated.stderr


def test_quiet_digest_and_dry_run_print_nothing(tmp_path):
    repo = Repo(tmp_path / "r")
    repo.commit("init", {"pkg/__init__.py": "", "pkg/a.py": "def f():\n    return 1\n"})
    repo.commit("refactor: tidy (#3)", {"pkg/a.py": "def f():\n    return 2\n"})
    res = run_cli(
        "digest", "--repo", str(repo.path), "--since", "1970-01-01", "--until", "2100-01-01",
        "--out", str(tmp_path / "o"), "--cache-dir", str(tmp_path / "c"), "-q",
        env={"CI": "true"},
    )  # fmt: skip
    assert res.returncode == 0 and res.stdout == "" and res.stderr == "", res.stderr
    assert list((tmp_path / "o").rglob("*.md"))
    res = run_cli(
        "comment", "3", "--repo", str(repo.path), "--github", "o/r", "--dry-run", "-q",
        "--out", str(tmp_path / "c2"),
    )  # fmt: skip
    assert res.returncode == 0 and res.stdout == "" and res.stderr == "", res.stderr


def test_severity_colours_only_on_a_terminal_and_never_under_no_color(tmp_path):
    args = ("--bundle", str(BUNDLE), "--out", str(tmp_path), "--print", "summary")
    piped = run_cli(*args)
    assert piped.returncode == 0 and "\x1b" not in piped.stdout
    assert "Risks: unexplained-change (medium)" in piped.stdout
    tty = run_cli(*args, env={"FORCE_COLOR": "1", "TERM": "xterm-256color"})
    assert f"{YELLOW}unexplained-change (medium)" in tty.stdout, tty.stdout[-300:]
    plain = run_cli(*args, env={"FORCE_COLOR": "1", "NO_COLOR": "1", "TERM": "xterm-256color"})
    assert YELLOW not in plain.stdout and "Risks: unexplained-change (medium)" in plain.stdout
