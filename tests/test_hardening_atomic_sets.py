"""A report set is written as one (Hardening II, G7).

SIGTERM (what CI cancellation sends) killed a run between its files, leaving ``.tmp`` files and
the md of one run beside the json/html of another; two concurrent runs writing the same names
could interleave the same way.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import prreport.output as output
from prreport.output import write_all

ROOT = Path(__file__).resolve().parent.parent
BUNDLE = ROOT / "tests" / "corpus" / "bundles" / "starlette-6d04e284.json.gz"
NAMES = ("r.md", "r.html", "r.json")
STEMS = ("starlette-pr-271.md", "starlette-pr-271.html", "starlette-pr-271.json")


def _set(out: Path, run: str) -> dict[Path, str]:
    return {out / n: f"{run}\n" for n in NAMES}


def _contents(out: Path) -> set[str]:
    return {(out / n).read_text() for n in NAMES}


def test_two_concurrent_runs_never_leave_a_mixed_set(tmp_path: Path, monkeypatch):
    # Run A stops after putting its first file in place; run B writes its whole set meanwhile
    # (or waits, when the set is locked); then A goes on. Before: md from B, html/json from A.
    out = tmp_path / "out"
    write_all(_set(out, "old"))
    real = os.replace
    paused = threading.Event()
    b_done = threading.Event()

    def replace(src, dst):  # noqa: ANN001
        real(src, dst)
        if threading.current_thread().name == "A" and not paused.is_set():
            paused.set()
            b_done.wait(timeout=1.0)

    monkeypatch.setattr(output.os, "replace", replace)
    a = threading.Thread(target=write_all, args=(_set(out, "A"),), name="A")
    a.start()
    assert paused.wait(timeout=10)
    b = threading.Thread(target=lambda: (write_all(_set(out, "B")), b_done.set()), name="B")
    b.start()
    a.join(timeout=20)
    b.join(timeout=20)
    assert len(_contents(out)) == 1, _contents(out)
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


_KILL_DURING = """
import os, signal, sys
import prreport.output as output
phase, count = sys.argv[1], [0]
real = getattr(output.os, phase)
def hook(*args):
    result = real(*args)
    count[0] += 1
    if count[0] == 2:
        os.kill(os.getpid(), signal.SIGTERM)
    return result
setattr(output.os, phase, hook)
sys.argv = ["prreport", *sys.argv[2:]]
from prreport.cli.main import main
main()
"""


def _cancelled_run(tmp_path: Path, phase: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    out = tmp_path / f"out-{phase}"
    out.mkdir()
    for n in STEMS:
        (out / n).write_text("old run\n")
    args = ["--bundle", str(BUNDLE), "--format", "md,html,json", "--out", str(out)]
    args += ["--name", "starlette", "-q"]
    res = subprocess.run(
        [sys.executable, "-c", _KILL_DURING, phase, *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    return res, out


def test_sigterm_while_writing_leaves_the_old_set_and_no_temporary_file(tmp_path: Path):
    # SIGTERM after the second temporary file is flushed (before any is in place).
    res, out = _cancelled_run(tmp_path, "fsync")
    assert res.returncode == 143, (res.returncode, res.stderr)
    assert res.stderr.strip() == "error: terminated", res.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(STEMS)  # no .tmp file
    assert {(out / n).read_text() for n in STEMS} == {"old run\n"}


def test_sigterm_while_renaming_waits_for_the_whole_set(tmp_path: Path):
    # SIGTERM after the second file is put in place: the third follows, then the run stops.
    res, out = _cancelled_run(tmp_path, "replace")
    assert res.returncode == 143, (res.returncode, res.stderr)
    assert res.stderr.strip() == "error: terminated", res.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(STEMS)  # no .tmp file
    assert [n for n in STEMS if (out / n).read_text() == "old run\n"] == []
