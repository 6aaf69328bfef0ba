"""Release-ready (issue 36): the release workflow publishes with trusted publishing and attests
its build, every workflow of this repository matches GitHub's schema, the sdist leaves the
corpus bundles out, and the README says how to install prreport once it is published."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import yaml  # PyYAML comes with libcst

ROOT = Path(__file__).resolve().parent.parent
RELEASE = ROOT / ".github" / "workflows" / "release.yml"


def _tool(name: str) -> str:
    exe = Path(sys.executable).parent / name
    found = str(exe) if exe.exists() else shutil.which(name)
    if not found:
        pytest.fail(f"{name} is not installed; install the test extras: pip install -e '.[test]'")
    return found


def test_release_publishes_with_trusted_publishing_and_attests_the_build():
    text = RELEASE.read_text(encoding="utf-8")
    wf = yaml.safe_load(text)
    on = wf.get("on", wf.get(True))
    assert on == {"push": {"tags": ["v*"]}} and wf["permissions"] == {}
    build, publish = wf["jobs"]["build"], wf["jobs"]["publish"]
    assert build["permissions"] == {
        "contents": "read",
        "id-token": "write",
        "attestations": "write",
    }
    attest = next(s for s in build["steps"] if "attest-build-provenance@" in str(s.get("uses")))
    assert attest["with"]["subject-path"] == "dist/*"
    make = next(s for s in build["steps"] if s.get("name", "").startswith("Build"))
    assert "--require-hashes" in make["run"] and "action/requirements.txt" in make["run"]
    assert '"v$version" != "$TAG"' in make["run"]  # the tag must be the version
    # Trusted publishing: only the OIDC token, no stored password or API token.
    assert publish["permissions"] == {"id-token": "write"} and publish["needs"] == "build"
    assert publish["environment"]["name"] == "pypi"
    step = next(s for s in publish["steps"] if "gh-action-pypi-publish@" in str(s.get("uses")))
    assert "with" not in step and "${{ secrets." not in text  # no stored token or password
    for s in [*build["steps"], *publish["steps"]]:
        if "uses" in s:
            assert s["uses"].split("@")[1][:40].isalnum() and len(s["uses"].split("@")[1]) == 40


@pytest.mark.slow
def test_this_repositorys_workflows_match_githubs_schema():
    files = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
    assert RELEASE in files and ROOT / ".github" / "workflows" / "org-digest.yml" in files
    res = subprocess.run(
        [
            _tool("check-jsonschema"),
            "--builtin-schema",
            "vendor.github-workflows",
            *map(str, files),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    res = subprocess.run(
        [_tool("zizmor"), "--offline", "--min-severity", "medium", str(RELEASE)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stdout + res.stderr


@pytest.mark.slow
def test_the_sdist_leaves_the_corpus_bundles_out(tmp_path):
    res = subprocess.run(
        [_tool("hatchling"), "build", "-t", "sdist", "-d", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 0, res.stderr
    (sdist,) = tmp_path.glob("prreport-*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = tar.getnames()
    top = names[0].split("/")[0]
    assert not [n for n in names if "/tests/corpus/bundles/" in n]
    for wanted in ("README.md", "CHANGELOG.md", "LICENSE", "schemas/settings.schema.json"):
        assert f"{top}/{wanted}" in names, wanted
    assert sdist.stat().st_size < 5 * 1024 * 1024


def test_the_readme_says_how_to_install_once_published():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "pipx install prreport" in readme and "uvx prreport" in readme
    assert "when published" in readme
