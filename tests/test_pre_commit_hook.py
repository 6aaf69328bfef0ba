"""The ``prreport`` pre-commit hook (issue 36): a valid manifest, and its entry and args, run as
pre-commit runs them at the pre-push stage, stop a push that changes behaviour and let a pure
refactor through."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml  # PyYAML comes with libcst

from tests.gitrepo import Repo

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / ".pre-commit-hooks.yaml"


def _hook() -> dict:
    (hook,) = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    return hook


def test_the_manifest_is_valid_for_pre_commit():
    try:
        from pre_commit.clientlib import load_manifest
    except ImportError:
        pytest.fail(
            "pre-commit is not installed; install the test extras: pip install -e '.[test]'"
        )
    (hook,) = load_manifest(str(MANIFEST))
    assert hook["id"] == "prreport" and hook["stages"] == ["pre-push"]
    assert hook["pass_filenames"] is False and hook["language"] == "python"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "id: prreport" in readme and "pre-commit install --hook-type pre-push" in readme


def _push(repo: Repo, before: str, after: str) -> subprocess.CompletedProcess[str]:
    hook = _hook()
    exe = Path(sys.executable).parent / hook["entry"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PRREPORT_"))}
    env.update(PRE_COMMIT_FROM_REF=before, PRE_COMMIT_TO_REF=after)
    return subprocess.run(
        [str(exe), *hook["args"]],
        cwd=repo.path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_hook_stops_a_behaviour_change_and_passes_a_refactor(tmp_path):
    repo = Repo(tmp_path / "r")
    base = repo.commit(
        "init",
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "def f(x):\n    import os\n    return os.sep + x\n",
        },
    )
    hoist = repo.commit(
        "refactor: hoist", {"pkg/a.py": "import os\n\n\ndef f(x):\n    return os.sep + x\n"}
    )
    ok = _push(repo, base, hoist)
    assert ok.returncode == 0, ok.stdout[-800:] + ok.stderr
    assert ok.stdout.startswith("# ") and not list(repo.path.glob("output"))
    change = repo.commit(
        "tweak", {"pkg/a.py": "import os\n\n\ndef f(x):\n    return os.sep + x + '!'\n"}
    )
    bad = _push(repo, hoist, change)
    assert bad.returncode == 1, bad.stderr
    assert "fail-on: the report has verdict:behavior-change" in bad.stderr
    # A new branch's first push: the to-ref alone when there is no from-ref.
    single = _push(repo, "0" * 40, hoist)
    assert single.returncode == 0, single.stderr
