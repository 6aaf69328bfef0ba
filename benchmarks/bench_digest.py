"""Benchmark: a weekly digest of a generated repository with >= 50 merged PRs, cold then warm.

Run: ``.venv/bin/python benchmarks/bench_digest.py [--prs-each 8] [--workers 2]``. Builds the
repository of tests/fixtures/digest_repo.py in a temp dir (``--prs-each 8`` gives 54 PRs in
2026-W34), then times ``prreport digest`` end to end as a user runs it (a fresh process,
files written) with an empty analysis cache (cold) and again with the cache it left (warm),
and prints both times and the cold/warm ratio. Target: warm < 15 s on a 2-core machine.
Not a test: timings depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fixtures.digest_repo import WEEK, build_digest_repo  # noqa: E402

WARM_TARGET_S = 15.0


def _run_digest(repo: Path, out: Path, cache: Path, workers: int) -> tuple[float, dict]:
    """One ``prreport digest`` in a fresh process; returns (seconds, the digest's JSON stats)."""
    env = dict(os.environ, CI="true")  # no progress bar in the timing
    start = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "prreport",
            "digest",
            "--repo",
            str(repo),
            "--week",
            WEEK,
            "--out",
            str(out),
            "--cache-dir",
            str(cache),
            "--workers",
            str(workers),
            "--lang",
            "en,zh",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"prreport digest failed:\n{proc.stderr}")
    data = json.loads(
        (out / "digests" / "acme-widgets" / f"{WEEK}.json").read_text(encoding="utf-8")
    )
    return elapsed, data


def main() -> None:
    """Build the repository, time a cold and a warm digest, print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prs-each", type=int, default=8, help="size knob: 8 gives 54 PRs in the week")
    ap.add_argument(
        "--workers", type=int, default=2, help="worker processes (default: 2, the machine's cores)"
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="prreport-bench-digest-") as tmp:
        work = Path(tmp)
        t0 = time.perf_counter()
        built = build_digest_repo(work / "widgets", n_each=args.prs_each)
        build_s = time.perf_counter() - t0
        n = len(built.in_window())
        cache = work / "cache"
        cold_s, cold = _run_digest(built.path, work / "out-cold", cache, args.workers)
        warm_s, warm = _run_digest(built.path, work / "out-warm", cache, args.workers)
        assert cold["stats"]["analysed"] == n, cold["stats"]
        assert warm["stats"]["cached"] == n and warm["stats"]["analysed"] == 0, warm["stats"]
        print(
            f"repository: {n} PRs merged in {WEEK} (built in {build_s:.1f} s), workers={args.workers}, cores={os.cpu_count()}"
        )
        print(f"cold digest (empty cache, {cold['stats']['analysed']} analysed): {cold_s:.2f} s")
        print(
            f"warm digest (all {warm['stats']['cached']} from cache):    {warm_s:.2f} s  (target < {WARM_TARGET_S:.0f} s: "
            f"{'met' if warm_s < WARM_TARGET_S else 'MISSED'})"
        )
        print(f"cold/warm ratio: {cold_s / warm_s:.2f}x")


if __name__ == "__main__":
    main()
