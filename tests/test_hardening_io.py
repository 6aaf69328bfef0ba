"""Inputs and outputs under abuse (issue #13, items 11-13): hostile bundles and windows give one
``error:`` line, a damaged digest cache entry is a miss, and output files are safe to write."""

from __future__ import annotations

import gzip
import json
import os
import stat
from pathlib import Path

import pytest

from prreport.bundle import load_bundle
from prreport.config import Config, DigestConfig, GitConfig
from prreport.digest.build import make_digest
from prreport.digest.window import resolve_window
from prreport.errors import BundleError, OutputError
from prreport.output import write_all, write_atomic
from tests.conftest import run_cli
from tests.fixtures.digest_repo import build_digest_repo

CORPUS = Path(__file__).parent / "corpus" / "bundles"
REAL = CORPUS / "starlette-6d04e284.json.gz"  # a real commit, saved by --save-bundle


def _real_bundle_json() -> dict:
    return json.loads(gzip.decompress(REAL.read_bytes()).decode("utf-8"))


def _one_error_line(res) -> str:  # noqa: ANN001
    assert res.returncode == 2, (res.returncode, res.stderr)
    assert res.stderr.startswith("error: ") and "Traceback" not in res.stderr, res.stderr
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr
    return res.stderr


# -- 11. bundle input errors -----------------------------------------------------------------


def _bad_bundles(tmp: Path) -> dict[str, Path]:
    good = json.dumps(_real_bundle_json())
    cases = {
        "deep": '{"schema": "prreport.bundle/1", "pr": ' + "[" * 200_000 + "]" * 200_000 + "}",
        "digits-5000": good.replace('"number": 271', '"number": ' + "9" * 5000, 1),
        "digits-4000": good.replace('"number": 271', '"number": ' + "9" * 4000, 1),
        "surrogate": good.replace('"title": "', '"title": "\\ud800', 1),
    }
    paths = {}
    for name, text in cases.items():
        assert text != good or name == "deep"
        p = tmp / f"{name}.json"
        p.write_text(text, encoding="utf-8")
        paths[name] = p
    return paths


def test_hostile_bundles_are_one_error_line_and_write_nothing(tmp_path: Path):
    assert _real_bundle_json()["pr"]["number"] is not None
    for name, path in _bad_bundles(tmp_path).items():
        out = tmp_path / f"out-{name}"
        res = run_cli("--bundle", str(path), "--format", "md,html,json", "--out", str(out), "-q")
        err = _one_error_line(res)
        assert str(path) in err, err
        assert not out.exists() or not list(out.iterdir()), name


def test_bundle_loader_names_the_field():
    data = _real_bundle_json()
    data["pr"]["title"] = "fix \ud800"
    p = Path(os.environ.get("TMPDIR", "/tmp")) / f"prreport-surrogate-{os.getpid()}.json"
    try:
        p.write_text(json.dumps(data), encoding="utf-8")  # ensure_ascii: a \ud800 escape
        with pytest.raises(BundleError, match=r"\.pr\.title: lone surrogate"):
            load_bundle(p)
    finally:
        p.unlink()
    assert load_bundle(REAL).pr.number is not None  # the real bundle still loads


def test_all_formats_are_encoded_before_any_is_written(tmp_path: Path):
    outputs = {
        tmp_path / "r.md": "fine\n",
        tmp_path / "r.html": "<p>fine</p>\n",
        tmp_path / "r.json": '{"title": "\ud800"}\n',
    }
    with pytest.raises(OutputError, match="r.json"):
        write_all(outputs)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "args",
    [
        ["--week", "9999-W52"],
        ["--since", "0001-01-01", "--until", "2026-01-01"],
        ["--since", "2026-01-01", "--until", "9999-12-31"],
    ],
)
def test_windows_beyond_representable_dates_are_one_error_line(tmp_path: Path, args: list[str]):
    from tests.gitrepo import Repo

    repo = Repo(tmp_path / "r")
    repo.commit("init", {"a.py": "x = 1\n"})
    res = run_cli("digest", "--repo", str(repo.path), "--out", str(tmp_path / "o"), "-q", *args)
    err = _one_error_line(res)
    assert any(value in err for value in args[1::2]), err


# -- 12. a damaged digest cache entry is a miss -------------------------------------------------


def test_a_damaged_cache_entry_is_recomputed(tmp_path: Path):
    repo = build_digest_repo(tmp_path / "widgets", n_each=1)
    config = Config(
        git=GitConfig(repo=str(repo.path)),
        digest=DigestConfig(workers=1, cache_dir=str(tmp_path / "cache")),
    )
    window = resolve_window(since="2026-08-17", until="2026-08-18")
    first = make_digest(config, window)
    n = first.totals["prs"]
    assert n >= 2 and first.stats["cached"] == 0
    entries = sorted((tmp_path / "cache").rglob("*.json"))
    assert len(entries) == n
    damaged = json.loads(entries[0].read_text(encoding="utf-8"))
    del damaged["problems"]
    entries[0].write_text(json.dumps(damaged), encoding="utf-8")
    wrong_type = json.loads(entries[1].read_text(encoding="utf-8"))
    wrong_type["kind_counts"] = {"import.hoisted": "many"}
    entries[1].write_text(json.dumps(wrong_type), encoding="utf-8")
    again = make_digest(config, window)
    assert again.stats == {"analysed": 2, "cached": n - 2, "failed": 0}
    assert again.totals == first.totals
    assert "problems" in json.loads(entries[0].read_text(encoding="utf-8"))


# -- 13. temporary files, what may be replaced, permissions --------------------------------------


def test_stale_temp_files_of_killed_runs_are_removed(tmp_path: Path):
    import prreport.output as output

    out = tmp_path / "output"
    out.mkdir()
    dead = out / ".r-pr-1.md.prreport-999999999-k1ll3d.tmp"  # no such process
    alive = out / f".r-pr-1.md.prreport-{os.getpid()}-wr1t1ng.tmp"  # a run still writing
    foreign = out / ".notes.tmp"  # not ours
    for p in (dead, alive, foreign):
        p.write_bytes(b"x" * 1024)
    output._swept.discard(out)
    write_atomic(out / "r-pr-1.md", "report\n")
    assert not dead.exists() and alive.exists() and foreign.exists()
    assert (out / "r-pr-1.md").read_text() == "report\n"
    # A temp file is recognisable while it exists: killed mid-write, it is found next time.
    assert output._TMP.match(f".r-pr-1.md.prreport-{os.getpid()}-abc123.tmp")


def test_cli_run_removes_a_temp_file_left_by_kill_9(tmp_path: Path):
    bundle = tmp_path / "b.json.gz"
    bundle.write_bytes(REAL.read_bytes())
    out = tmp_path / "out"
    out.mkdir()
    stale = out / ".starlette-pr-271.json.prreport-999999999-abcdef.tmp"
    stale.write_bytes(b"{" * 4096)
    res = run_cli("--bundle", str(bundle), "--out", str(out), "-q")
    assert res.returncode == 0, res.stderr
    assert not stale.exists()
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


def test_save_bundle_refuses_a_symlink_and_a_device(tmp_path: Path):
    bundle = tmp_path / "b.json.gz"
    bundle.write_bytes(REAL.read_bytes())
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    link = tmp_path / "link.json"
    link.symlink_to(victim)
    for target in (link, Path("/dev/null"), tmp_path):
        res = run_cli(
            "--bundle", str(bundle), "--save-bundle", str(target), "--out", str(tmp_path / "o"), "-q"
        )  # fmt: skip
        err = _one_error_line(res)
        assert "not a regular file" in err and str(target) in err
    assert link.is_symlink() and victim.read_text() == "precious\n"
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    # A regular file or a new path is fine.
    res = run_cli(
        "--bundle", str(bundle), "--save-bundle", str(tmp_path / "new.json"), "--out", str(tmp_path / "o"), "-q"
    )  # fmt: skip
    assert res.returncode == 0, res.stderr


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_files_get_the_umask_permissions(tmp_path: Path, umask: int, mode: int):
    old = os.umask(umask)
    try:
        write_atomic(tmp_path / "r.md", "x\n")
        write_all({tmp_path / "r.json": "{}\n"})
    finally:
        os.umask(old)
    for name in ("r.md", "r.json"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == mode
