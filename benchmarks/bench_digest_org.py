"""Benchmark: an organisation digest of a generated week of about 200 merged PRs across 4 repositories.

Run: ``.venv/bin/python benchmarks/bench_digest_org.py [--repos 4] [--prs-each 7] [--workers 2]``.
Builds 4 repositories like tests/fixtures/digest_repo.py (``--prs-each 7`` gives 49 PRs each
in 2026-W34, the last one 54: 201 PRs), each with its own ``origin`` name. Then, as the
organisation workflow runs it, in fresh processes with files written: one ``prreport digest``
per repository (the matrix jobs, here one after the other) with an empty analysis cache
(cold) and again with the cache they left (warm), and ``prreport digest merge`` of the four
shards (en and zh; md, html, json). Prints the times; target: warm < 60 s for the 200 PRs on
a 2-core machine. Not a test: timings depend on the machine.
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

WARM_TARGET_S = 60.0


def _prreport(*args: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    env = dict(os.environ, CI="true")  # no progress bar in the timing
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "prreport", *args], capture_output=True, text=True, env=env, cwd=ROOT
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"prreport {' '.join(args)} failed:\n{proc.stderr}")
    return elapsed, proc


def _digests(
    repos: list[tuple[str, Path]], out: Path, cache: Path, workers: int
) -> tuple[float, list[dict]]:
    """One digest per repository, one after the other (what the matrix jobs do in parallel)."""
    total = 0.0
    stats = []
    for name, path in repos:
        seconds, _ = _prreport(
            "digest", "--repo", str(path), "--week", WEEK, "--out", str(out),
            "--cache-dir", str(cache), "--workers", str(workers), "--lang", "en,zh", "--quiet",
        )  # fmt: skip
        total += seconds
        data = json.loads(
            (out / "digests" / name.replace("/", "-") / f"{WEEK}.json").read_text(encoding="utf-8")
        )
        stats.append(
            {"repo": name, "seconds": seconds, **data["stats"], "prs": data["totals"]["prs"]}
        )
    return total, stats


def main() -> None:
    """Build the repositories, time cold and warm per-repository digests and the merge, print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repos", type=int, default=4)
    ap.add_argument("--prs-each", type=int, default=7, help="size knob per repository (7: 49 PRs)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes per digest")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="prreport-bench-org-") as tmp:
        work = Path(tmp)
        t0 = time.perf_counter()
        repos: list[tuple[str, Path]] = []
        for k in range(args.repos):
            name = f"acme/widgets-{k}"
            # The last repository a size larger, so the default week holds about 200 PRs.
            n_each = args.prs_each + (1 if k == args.repos - 1 else 0)
            built = build_digest_repo(work / f"widgets-{k}", n_each=n_each)
            built.repo.git("remote", "set-url", "origin", f"https://github.com/{name}.git")
            repos.append((name, built.path))
        build_s = time.perf_counter() - t0
        cache = work / "cache"
        cold_s, cold = _digests(repos, work / "out-cold", cache, args.workers)
        warm_s, warm = _digests(repos, work / "out", cache, args.workers)
        n = sum(s["prs"] for s in warm)
        assert sum(s["analysed"] for s in cold) == n, cold
        assert sum(s["cached"] for s in warm) == n, warm
        merge_s, proc = _prreport(
            "digest", "merge", str(work / "out" / "digests"), "--name", "acme", "--out",
            str(work / "out"), "--lang", "en,zh", "--quiet",
        )  # fmt: skip
        merged = json.loads((work / "out" / "digests" / "acme" / f"{WEEK}.json").read_text())
        assert merged["totals"]["prs"] == n and merged["totals"]["repos"] == args.repos
        print(
            f"organisation: {args.repos} repositories, {n} PRs merged in {WEEK} (built in {build_s:.1f} s), "
            f"workers={args.workers}, cores={os.cpu_count()}"
        )
        for c, w in zip(cold, warm, strict=True):
            print(
                f"  {c['repo']}: {c['prs']} PRs, cold {c['seconds']:.1f} s, warm {w['seconds']:.1f} s"
            )
        print(f"cold (empty cache, {n} analysed, repositories one after the other): {cold_s:.1f} s")
        print(
            f"warm (all {n} from cache): {warm_s:.1f} s  (target < {WARM_TARGET_S:.0f} s: "
            f"{'met' if warm_s < WARM_TARGET_S else 'MISSED'})"
        )
        print(
            f"merge of {args.repos} shards into the organisation digest (en, zh; md, html, json): {merge_s:.2f} s"
        )
        print(f"cold/warm ratio: {cold_s / warm_s:.1f}x")


if __name__ == "__main__":
    main()
