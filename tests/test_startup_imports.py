"""Heavy libraries are imported only on the paths that use them (``python -X importtime``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_cli

# Imported by the GitHub source and publisher only; the HTML page only; codemods only.
_GITHUB = ("github",)
_HTML = ("pygments", "nh3")
_CODEMOD = ("libcst",)


def _importtime(*args: str, **extra_env: str) -> subprocess.CompletedProcess[str]:
    """``python -X importtime -m prreport ARGS`` without a GitHub token in the environment."""
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_TOKEN", "GH_TOKEN")}
    env.update(extra_env)
    return subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "prreport", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def _imported(stderr: str) -> set[str]:
    """Top-level packages named in ``-X importtime`` lines."""
    out = set()
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            out.add(name.split(".")[0])
    return out


@pytest.fixture(scope="module")
def saved_bundle(seed_repo, tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo, _base, _pr = seed_repo
    out = tmp_path_factory.mktemp("startup")
    bundle = out / "seed.json.gz"
    res = run_cli(
        "35980", "--repo", str(repo.path), "--save-bundle", str(bundle), "--out", str(out), "-q"
    )
    assert res.returncode == 0, res.stderr
    return bundle


def test_bundle_json_report_imports_no_github_html_or_codemod_library(
    saved_bundle: Path, tmp_path: Path
):
    # no follow-up codemod asked for: libcst stays unimported too
    res = _importtime(
        "--bundle", str(saved_bundle), "--format", "json", "--out", str(tmp_path), "-q",
        PRREPORT_ANALYSIS_MAX_FOLLOWUPS="0",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    mods = _imported(res.stderr)
    assert "prreport" in mods and "jinja2" in mods  # the check sees imports at all
    assert mods & {*_GITHUB, *_HTML, *_CODEMOD} == set()


def test_libcst_is_imported_when_a_codemod_is_made(saved_bundle: Path, tmp_path: Path):
    res = _importtime("--bundle", str(saved_bundle), "--format", "json", "--out", str(tmp_path))
    assert res.returncode == 0, res.stderr
    (report,) = tmp_path.glob("*.json")
    assert '"followup_diff": "--- a/' in report.read_text(encoding="utf-8")
    assert _imported(res.stderr) & {*_GITHUB, *_HTML, *_CODEMOD} == set(_CODEMOD)


def test_git_report_imports_no_github(seed_repo, tmp_path: Path):
    repo, _base, _pr = seed_repo
    res = _importtime(
        "35980", "--repo", str(repo.path), "--format", "md,html,json", "--out", str(tmp_path), "-q"
    )
    assert res.returncode == 0, res.stderr
    mods = _imported(res.stderr)
    assert "pygments" in mods  # html asked for: its renderer is imported
    assert mods & set(_GITHUB) == set()
