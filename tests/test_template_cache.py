"""Compiled templates are kept on disk between runs (``$XDG_CACHE_HOME/prreport/templates``):
a warm cache, a directory that cannot be written and a damaged cache file all give the same
report as a cold run."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli


@pytest.fixture(scope="module")
def saved_bundle(seed_repo, tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo, _base, _pr = seed_repo
    out = tmp_path_factory.mktemp("bundle")
    bundle = out / "seed.json.gz"
    res = run_cli(
        "35980", "--repo", str(repo.path), "--save-bundle", str(bundle), "--out", str(out), "-q"
    )
    assert res.returncode == 0, res.stderr
    return bundle


def _report(bundle: Path, out: Path, cache_home: Path) -> dict[str, str]:
    """The Markdown (en, zh) and JSON files of one ``prreport --bundle`` process."""
    res = run_cli(
        "--bundle", str(bundle), "--format", "md,json", "--lang", "en,zh", "--out", str(out), "-q",
        env={"XDG_CACHE_HOME": str(cache_home), "SOURCE_DATE_EPOCH": "1767225600"},
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(out.iterdir())}


def test_a_warm_cache_gives_the_report_a_cold_one_gives(saved_bundle: Path, tmp_path: Path):
    cache = tmp_path / "cache"
    cold = _report(saved_bundle, tmp_path / "cold", cache)
    stored = sorted((cache / "prreport" / "templates").glob("*.cache"))
    assert len(stored) >= 2  # report.md.j2 and text.md.j2 at least (templates they include too)
    assert {".md", ".json"} <= {Path(name).suffix for name in cold}
    assert _report(saved_bundle, tmp_path / "warm", cache) == cold


def test_an_unwritable_or_damaged_cache_still_renders(saved_bundle: Path, tmp_path: Path):
    cache = tmp_path / "cache"
    cold = _report(saved_bundle, tmp_path / "cold", cache)
    # a cache home below a regular file: no directory can be made there
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x", encoding="utf-8")
    assert _report(saved_bundle, tmp_path / "blocked", blocker / "cache") == cold
    # every stored template replaced by garbage: compiled again, and stored again
    stored = sorted((cache / "prreport" / "templates").glob("*.cache"))
    for path in stored:
        path.write_bytes(b"j2 not a template")
    assert _report(saved_bundle, tmp_path / "damaged", cache) == cold
    assert all(path.read_bytes() != b"j2 not a template" for path in stored)
