"""Regenerate ``action/requirements.txt``: what the composite action installs, pinned with hashes.

prreport's runtime dependencies and its build backend (hatchling, so prreport itself installs
with ``--no-build-isolation`` and nothing unpinned is fetched), resolved once for every runner
the action supports by uv's universal resolution: one version per package (or one per Python
range, with a marker), each with the hashes of all its wheels, so ``pip --require-hashes
--only-binary=:all:`` installs the same versions everywhere. The lock is then checked with a
dry-run install for each runner of ``RUNNERS`` and CPython 3.10-3.13: GitHub's Linux x86_64 and
arm64, macOS arm64 (``macos-latest``) and Windows x86_64 runners. Intel macOS and Windows arm64
are not covered: cryptography (PyGithub's JWT dependency) ships no wheels for them.

    pip install uv && python action/lock.py      # rewrite and check action/requirements.txt
    python action/lock.py --check                # only check it
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "action" / "requirements.txt"
LOWEST_PYTHON = "3.10"  # requires-python; the resolution holds for every later version too
PYTHONS = ("3.10", "3.11", "3.12", "3.13")
RUNNERS = (
    "x86_64-unknown-linux-gnu",
    "aarch64-unknown-linux-gnu",
    "aarch64-apple-darwin",
    "x86_64-pc-windows-msvc",
)
HEADER = (
    "# What the prreport action installs (pip --require-hashes --only-binary=:all:): one\n"
    "# universal resolution for Linux (x86_64, arm64), macOS (arm64) and Windows (x86_64)\n"
    "# runners, CPython 3.10-3.13, with the hashes of every wheel.\n"
    "# Regenerate and check with: pip install uv && python action/lock.py\n"
)


def _uv() -> list[str]:
    found = shutil.which("uv")
    return [found] if found else [sys.executable, "-m", "uv"]


def check() -> int:
    """A dry-run install of the lock for every runner and Python; the number that failed."""
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for runner in RUNNERS:
            for python in PYTHONS:
                cmd = [*_uv(), "pip", "install", "--dry-run", "--target", tmp, "--quiet"]
                cmd += ["--python-platform", runner, "--python-version", python]
                cmd += ["--require-hashes", "--only-binary", ":all:", "-r", str(LOCK)]
                ok = subprocess.run(cmd, capture_output=True, text=True).returncode == 0
                failed += not ok
                print(f"{'ok  ' if ok else 'FAIL'} {runner} CPython {python}")
    return failed


def main() -> int:
    """Resolve with ``uv pip compile --universal --generate-hashes``, write the lock, check it."""
    if sys.argv[1:] == ["--check"]:
        return 1 if check() else 0
    with tempfile.TemporaryDirectory() as tmp:
        build = Path(tmp) / "build.in"
        build.write_text("hatchling>=1.27\n", encoding="utf-8")
        out = Path(tmp) / "requirements.txt"
        cmd = [*_uv(), "pip", "compile", str(ROOT / "pyproject.toml"), str(build)]
        cmd += ["--universal", "--generate-hashes", "--only-binary", ":all:"]
        cmd += ["--python-version", LOWEST_PYTHON, "--no-header", "--no-annotate"]
        cmd += ["--output-file", str(out)]
        subprocess.run(cmd, check=True, cwd=ROOT)
        body = out.read_text(encoding="utf-8")
    LOCK.write_text(HEADER + body, encoding="utf-8")
    print(f"wrote {LOCK} ({body.count('==')} pins)")
    return 1 if check() else 0


if __name__ == "__main__":
    sys.exit(main())
