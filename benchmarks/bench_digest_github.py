"""Benchmark: digests of about 200 merged PRs read from the GitHub source (the local stand-in server).

Run: ``.venv/bin/python benchmarks/bench_digest_github.py [--repos 4] [--prs-each 7] [--workers 2]``.
Builds the 4 repositories of ``bench_digest_org.py`` (201 PRs in 2026-W34), serves them from
``tests/ghserver.py`` (a real local HTTP server standing in for the GitHub API), and times
``prreport digest --github OWNER/NAME`` per repository in fresh processes, files written:
cold (empty HTTP and analysis caches) and warm (the caches the cold run left; the server marks
answers stale at once, so every request of the warm run is a conditional one). Prints both
times, the requests per PR cold and the requests of the warm run that were not answered 304.
Target: warm < 60 s for the 200 PRs on a 2-core machine. Not a test: timings depend on the
machine.
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

from tests.fixtures.digest_repo import WEEK, DigestRepo, build_digest_repo  # noqa: E402
from tests.fixtures.github.make import _repo_fixture  # noqa: E402
from tests.ghserver import GitHubServer, GitHubState  # noqa: E402
from tests.ghserver_issues import add_digest_routes  # noqa: E402

WARM_TARGET_S = 60.0
TOKEN = "ghp_bench0123456789abcdefSECRET"


def _state(repos: list[tuple[str, DigestRepo]]) -> GitHubState:
    """The server's state: every generated repository with its PRs (base: first parent)."""
    state = GitHubState()
    for name, built in repos:
        prs = {
            p.number: {"base": built.repo.git("rev-parse", f"{p.sha}^1").strip(), "head": p.sha}
            for p in built.prs
        }
        state.repos[name] = _repo_fixture(built.repo, name, prs)
    return state


def _prs(work: Path, out: str, names: list[str]) -> tuple[int, int]:
    """PRs in the digests written to ``out``, and how many of them came from the cache."""
    n = cached = 0
    for name in names:
        path = work / out / "digests" / name.replace("/", "-") / f"{WEEK}.json"
        data = json.loads(path.read_text(encoding="utf-8"))
        n += data["totals"]["prs"]
        cached += data["stats"]["cached"]
    return n, cached


def _digests(
    server: GitHubServer, names: list[str], work: Path, out: str, workers: int
) -> tuple[float, list[float]]:
    """One ``prreport digest --github`` per repository, one after the other."""
    env = dict(os.environ, CI="true", GITHUB_TOKEN=TOKEN)  # CI: no progress bar
    env["PRREPORT_GITHUB_CACHE_DIR"] = str(work / "http-cache")
    times = []
    for name in names:
        start = time.perf_counter()
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "prreport",
                "digest",
                "--github",
                name,
                "--github-api-url",
                server.url,
                "--week",
                WEEK,
                "--out",
                str(work / out),
                "--cache-dir",
                str(work / "cache"),
                "--workers",
                str(workers),
                "--quiet",
            ],  # fmt: skip
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
        )
        times.append(time.perf_counter() - start)
        if proc.returncode != 0:
            raise SystemExit(f"prreport digest --github {name} failed:\n{proc.stderr}")
    return sum(times), times


def main() -> None:
    """Build and serve the repositories, time the cold and warm digests, print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repos", type=int, default=4)
    ap.add_argument("--prs-each", type=int, default=7, help="size knob per repository (7: 49 PRs)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes per digest")
    args = ap.parse_args()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="prreport-bench-gh-") as tmp:
        work = Path(tmp)
        repos = []
        for k in range(args.repos):
            n_each = args.prs_each + (1 if k == args.repos - 1 else 0)
            repos.append(
                (f"acme/widgets-{k}", build_digest_repo(work / f"widgets-{k}", n_each=n_each))
            )
        state = _state(repos)
        names = [name for name, _ in repos]
        server = GitHubServer(state, token=TOKEN)
        add_digest_routes(server, {TOKEN: "digest-bot"})
        with server:
            server.max_age = 0  # every cached answer stale at once: the warm run revalidates
            cold_s, cold = _digests(server, names, work, "out-cold", args.workers)
            cold_requests = server.count
            server.reset_counts()
            warm_s, warm = _digests(server, names, work, "out", args.workers)
            non_304 = server.count - server.not_modified
            warm_requests = server.count
        n, _ = _prs(work, "out-cold", names)
        n_warm, cached = _prs(work, "out", names)
        assert n_warm == n == cached, (n, n_warm, cached)
    print(
        f"GitHub source: {args.repos} repositories, {n} PRs merged in {WEEK}, workers={args.workers}"
    )
    for name, c, w in zip(names, cold, warm, strict=True):
        print(f"  {name}: cold {c:.1f} s, warm {w:.1f} s")
    print(
        f"cold (empty caches, repositories one after the other): {cold_s:.1f} s, "
        f"{cold_requests} requests ({cold_requests / max(n, 1):.1f} per PR)"
    )
    print(
        f"warm (caches kept, every answer revalidated): {warm_s:.1f} s, {warm_requests} requests, "
        f"{non_304} not answered 304  (target < {WARM_TARGET_S:.0f} s: "
        f"{'met' if warm_s < WARM_TARGET_S else 'MISSED'})"
    )
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
