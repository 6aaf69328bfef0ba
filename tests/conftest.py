"""Shared fixtures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.seed_pr import build_seed_repo


@pytest.fixture(scope="session")
def seed_repo(tmp_path_factory: pytest.TempPathFactory):
    """The seed-modelled repository: (Repo, base sha, PR sha)."""
    return build_seed_repo(tmp_path_factory.mktemp("seed") / "sglang")


def run_cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m prreport`` as a user would, capturing output."""
    full_env = dict(os.environ)
    full_env.pop("GITHUB_TOKEN", None)
    full_env.pop("GH_TOKEN", None)
    full_env.pop("GITHUB_ACTIONS", None)  # annotations only where a test asks for them
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "prreport", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=full_env,
        timeout=300,
    )


def load_json(path: Path) -> dict:
    """Read a JSON file (a prreport output is checked against its JSON Schema)."""
    from tests.schemacheck import check

    data = json.loads(path.read_text(encoding="utf-8"))
    check(data, str(path))
    return data


@pytest.fixture(scope="session", autouse=True)
def _outputs_match_the_schemas(tmp_path_factory: pytest.TempPathFactory):
    """After the session: every report, digest and bundle JSON a test wrote matches schemas/."""
    yield
    from tests.schemacheck import check_tree

    check_tree(tmp_path_factory.getbasetemp())


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--update-golden`` rewrites tests/golden/* from the current output."""
    parser.addoption(
        "--update-golden", action="store_true", default=False, help="rewrite golden report files"
    )
