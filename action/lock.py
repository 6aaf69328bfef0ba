"""Regenerate ``action/requirements.txt``: what the composite action installs, pinned with hashes.

prreport's runtime dependencies and its build backend (hatchling, so prreport itself installs
with ``--no-build-isolation`` and nothing unpinned is fetched), as wheels for the action's
runner: Linux x86_64, CPython ``--python-version`` (default 3.12, the action's default).

    python action/lock.py            # rewrite action/requirements.txt
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "action" / "requirements.txt"
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64")


def main() -> int:
    """Download the wheels and write one ``name==version --hash=sha256:…`` line per wheel."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python-version", default="3.12")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--dest", tmp]
        cmd += ["--only-binary=:all:", "--implementation", "cp"]
        cmd += ["--python-version", args.python_version]
        for p in PLATFORMS:
            cmd += ["--platform", p]
        subprocess.run([*cmd, str(ROOT), "hatchling"], check=True)
        lines = []
        for wheel in sorted(Path(tmp).glob("*.whl")):
            name, version = wheel.name.split("-")[:2]
            digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
            lines.append(
                f"{name.lower().replace('_', '-')}=={version} \\\n    --hash=sha256:{digest}"
            )
    header = (
        "# What the prreport action installs (pip --require-hashes), for Linux x86_64 CPython "
        f"{args.python_version}.\n# Regenerate with: python action/lock.py\n"
    )
    LOCK.write_text(header + "\n".join(sorted(lines)) + "\n", encoding="utf-8")
    print(f"wrote {LOCK} ({len(lines)} packages)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
