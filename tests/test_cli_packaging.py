"""The package as it would be published: a wheel with everything a user needs, installed on its
own (not the editable checkout), whose ``prreport`` command runs."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``pip wheel .`` (no build isolation: the suite runs offline)."""
    out = tmp_path_factory.mktemp("wheel")
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    return next(out.glob("prreport-*.whl"))


@pytest.mark.slow
def test_wheel_has_what_publishing_needs(wheel: Path):
    names = zipfile.ZipFile(wheel).namelist()
    for required in (
        "prreport/py.typed",
        "prreport/schemas/report.schema.json",
        "prreport/schemas/digest.schema.json",
        "prreport/schemas/bundle.schema.json",
        "prreport/templates/en/report.md.j2",
        "prreport/data/stdlib_versions.json",  # which stdlib imports cannot fail, per Python
    ):
        assert required in names, required
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    meta_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
    meta = Parser().parsestr(zipfile.ZipFile(wheel).read(meta_name).decode())
    assert meta["License-Expression"] == "MIT"
    assert "Typing :: Typed" in meta.get_all("Classifier")
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert {"Homepage", "Changelog", "Issues"} <= set(urls)
    extras = meta.get_all("Provides-Extra")
    assert "test" in extras and "dev" in extras
    assert (ROOT / "CHANGELOG.md").read_text(encoding="utf-8").startswith("# Changelog")


@pytest.mark.slow
def test_isolated_install_runs(wheel: Path, tmp_path: Path):
    # A fresh venv holding only the wheel; the dependencies come from this interpreter's
    # site-packages on PYTHONPATH (an editable install is a .pth file there, never read from
    # PYTHONPATH), and the command runs outside the checkout, so nothing of ROOT is imported.
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / ("Scripts" if os.name == "nt" else "bin") / "python"
    site = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site)
    env = {**os.environ, "PYTHONPATH": sysconfig.get_paths()["purelib"]}
    run = tmp_path / "elsewhere"
    run.mkdir()
    where = subprocess.run(
        [str(py), "-c", "import prreport, sys; print(prreport.__file__)"],
        capture_output=True,
        text=True,
        cwd=run,
        env=env,
    )
    assert where.returncode == 0, where.stderr
    assert where.stdout.startswith(site), where.stdout
    res = subprocess.run(
        [str(py), "-m", "prreport", "help", "fail-on"],
        capture_output=True,
        text=True,
        cwd=run,
        env=env,
    )
    assert res.returncode == 0, res.stderr
    assert "risk:high" in res.stdout
    schema = subprocess.run(
        [
            str(py),
            "-c",
            "from prreport.jsonschemas import schema; print(schema('report')['title'])",
        ],
        capture_output=True,
        text=True,
        cwd=run,
        env=env,
    )
    assert schema.returncode == 0 and "prreport report" in schema.stdout, schema.stderr
    since = subprocess.run(
        [
            str(py),
            "-c",
            "from prreport.python.stdlib import available_since as a;"
            " print(a('tomllib'), a('collections.abc', 'Mapping'))",
        ],
        capture_output=True,
        text=True,
        cwd=run,
        env=env,
    )
    assert since.stdout.split() == ["(3,", "11)", "(3,", "5)"], since.stderr
