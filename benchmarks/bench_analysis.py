"""Benchmark: prreport against ``ast.parse`` of the same texts, on real code.

Run: ``.venv/bin/python benchmarks/bench_analysis.py [--runs 5] [--kb 100] [--repeat 7]``.
Prints, in one run:

(a) whole process: ``prreport --bundle PR --format json`` over a 2 MB PR of 12 large
    standard-library modules with imports hoisted out of loops (``stdlib_pr.py``) against a
    process that only ``ast.parse``s the same texts, median of ``--runs`` paired runs (target
    <= 3x); both with bytecode caches, as an installed prreport has them (written into a
    temporary ``PYTHONPYCACHEPREFIX`` even where ``PYTHONDONTWRITEBYTECODE`` is set);
(b) the same in-process: analysis, report model and JSON against ``ast.parse`` (target <= 2x);
(c) every commit of the labelled corpus (tests/corpus/): total analysis time against total
    parse time (measured, no target: real refactors reach the deep comparisons, expansions and
    rewrites, that the stdlib PR of (a) and (b) does not, so this ratio is higher by design);
(d) the peak RSS of the whole ``prreport`` process (target <= 300 MB);
(e) the every-function-changed PR: the same modules, a function-local import inserted in a
    loop of every top-level function before (``stdlib_pr.every_function_bundle``), whole
    process against whole-process parse as in (a) (target <= 3x), its peak RSS, and the cost of
    each changed function's comparison against parsing that function (before and after), as
    median and p95 (target <= 3x);

then the generated ~100 KB module pair (per-analyzer times, tracemalloc peak) and the size
scaling line. Not a test: timings depend on the machine; both sides of each ratio are measured
in the same run, interleaved, so load affects both.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import difflib
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # benchmarks/, prreport/

from stdlib_pr import every_function_bundle, stdlib_bundle  # noqa: E402  (benchmarks/ is the script directory)

from prreport.analyzers import collect_requests, run_analyzers, selected  # noqa: E402
from prreport.bundle import FileChange, PullRequestBundle, PullRequestMeta  # noqa: E402
from prreport.config import AnalysisConfig  # noqa: E402
from prreport.python.sources import SourceFiles

MODULE = "bench/service.py"
HELPERS = "bench/helpers.py"

_HEADER = '''"""Generated service module for the prreport analysis benchmark."""

import logging
import threading

from bench.helpers import (
    BASE_DELAY,
    Envelope,{extra}
)

logger = logging.getLogger(__name__)
'''

_CLASS = '''

class Worker{i}:
    """Worker number {i}: pulls messages and dispatches them."""

    limit = {i}

    def __init__(self, socket, enable_extra=False):
        self.socket = socket
        self.enable_extra = enable_extra
        self.state = {{}}
        self.count = 0

    def handle(self, msg):
        if msg is None:
            return None
        key, _, value = msg.partition(":")
        self.state[key] = value
        self.count += 1
        return Envelope(key, value, self.count * BASE_DELAY)

    def summary(self):
        items = sorted(self.state.items())
        return {{"worker": {i}, "items": [k for k, _ in items], "count": self.count}}

    def start(self):
        def loop():
            while True:
                msg = self.socket.recv()
                if msg == "STOP":
                    break
                if msg.startswith("DECODE"):
{decode_import}                    self.handle(decode_payload(msg))
                    continue
                if self.enable_extra and msg.startswith("EXTRA"):
{extra_import}                    self.handle(parse_extra(msg))
                    continue
                try:
                    self.handle(msg)
                except ValueError as err:
                    logger.warning("worker %d: %s", {i}, err)

        threading.Thread(target=loop, daemon=True).start()
'''

_FUNC = '''

def helper_{i}(values, scale={i}):
    """Scale and filter values ({i})."""
    total = 0
    for v in values:
        if v % 3 == 0:
            continue
        total += v * scale
    return [x for x in values if x > total // (len(values) or 1)], total
'''


def _module(n: int, before: bool) -> str:
    ind = " " * 20
    parts = [_HEADER.format(extra="" if before else "\n    decode_payload,\n    parse_extra,")]
    for i in range(n):
        hoisted = before and i % 4 == 0  # every fourth worker imported in its loop before
        parts.append(
            _CLASS.format(
                i=i,
                decode_import=f"{ind}from bench.helpers import decode_payload\n\n"
                if hoisted
                else "",
                extra_import=f"{ind}from bench.helpers import parse_extra\n\n" if hoisted else "",
            )
        )
        parts.append(_FUNC.format(i=i))
    return "".join(parts)


def make_bundle(kb: int) -> PullRequestBundle:
    """A one-file PR whose module is about ``kb`` KB, with imports hoisted out of loops."""
    n = 1
    while len(_module(n, True)) < kb * 1024:
        n += 1
    before, after = _module(n, True), _module(n, False)
    helpers = (
        "import json\n\nBASE_DELAY = 0.5\n\n\nclass Envelope(tuple):\n    pass\n\n\n"
        "def decode_payload(msg):\n    return json.loads(msg[6:])\n\n\ndef parse_extra(msg):\n    return msg[5:]\n"
    )
    return _one_file_pr(before, after, helpers, "refactor: hoist imports out of loops")


def _one_file_pr(before: str, after: str, helpers: str, title: str) -> PullRequestBundle:
    """A PR changing ``MODULE`` from ``before`` to ``after`` (with its patch), helpers at head."""
    patch = "".join(
        difflib.unified_diff(
            before.splitlines(True), after.splitlines(True), f"a/{MODULE}", f"b/{MODULE}", n=3
        )
    )
    rows = patch.split("\n")
    removed = sum(1 for ln in rows if ln.startswith("-") and not ln.startswith("---"))
    added = sum(1 for ln in rows if ln.startswith("+") and not ln.startswith("+++"))
    meta = PullRequestMeta(
        repo="bench/bench",
        number=1,
        title=title,
        body="",
        author="bench",
        base_sha="0" * 40,
        head_sha="1" * 40,
    )
    change = FileChange(MODULE, "modified", added, removed, patch=patch, before=before, after=after)
    return PullRequestBundle(
        source="bundle",
        pr=meta,
        files=(change,),
        head_paths=("bench/__init__.py", HELPERS, MODULE),
        context_files={"bench/__init__.py": "", HELPERS: helpers},
    )


def analyse_once(bundle: PullRequestBundle):  # type: ignore[no-untyped-def]
    """Plan context and run every registered analyzer, as ``pipeline.analyse`` does (fresh caches)."""
    from prreport.pipeline import few_collections

    with few_collections():  # as pipeline.analyse runs them
        analyzers = selected(AnalysisConfig())
        sources = SourceFiles(bundle)
        collect_requests(analyzers, bundle, sources)
        return run_analyzers(analyzers, bundle, sources=sources)


def per_analyzer(bundle: PullRequestBundle, repeat: int) -> dict[str, float]:
    """Best time of each analyzer's ``requests`` + ``analyze`` with the files already parsed."""
    best: dict[str, float] = {}
    for _ in range(repeat):
        sources = SourceFiles(bundle)
        for f in bundle.files:
            sources.tree(f.path, "after")
            sources.tree(f.before_path, "before")
        for a in selected(AnalysisConfig()):
            t0 = time.perf_counter()
            a.requests(bundle, sources)
            list(a.analyze(bundle, sources))
            best[a.name] = min(best.get(a.name, float("inf")), time.perf_counter() - t0)
    return best


def python_texts(bundle: PullRequestBundle) -> list[str]:
    """Before and after text of every changed Python file (what one parse per side costs)."""
    return [
        t
        for f in bundle.files
        if f.path.endswith(".py")
        for t in (f.before, f.after)
        if t is not None
    ]


def measure(bundle: PullRequestBundle, repeat: int, gc_paused: bool) -> tuple[float, float]:
    """Best analysis time and best ``ast.parse`` time (before+after), interleaved round by round.

    Interleaving gives both the same machine load; ``gc_paused`` pauses the cyclic collector
    during each timed call (large syntax trees make its full passes costly).
    """
    texts = python_texts(bundle)

    def parse_all() -> None:
        for t in texts:
            try:
                ast.parse(t)
            except SyntaxError:
                pass

    def timed(fn) -> float:  # type: ignore[no-untyped-def]
        gc.collect()
        if gc_paused:
            gc.disable()
        try:
            t0 = time.perf_counter()
            fn()
            return time.perf_counter() - t0
        finally:
            gc.enable()

    best_analysis = best_parse = float("inf")
    for _ in range(repeat):
        best_analysis = min(best_analysis, timed(lambda: analyse_once(bundle)))
        best_parse = min(best_parse, timed(parse_all))
    return best_analysis, best_parse


CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus" / "bundles"


def corpus(repeat: int, largest: int) -> tuple[float, float]:
    """(c): every commit of the labelled corpus, total analysis vs total parse time (best of
    ``repeat`` per commit); the ``largest`` biggest commits are listed one by one."""
    from prreport.bundle import load_bundle

    bundles = sorted(
        ((p.name.removesuffix(".json.gz"), load_bundle(p)) for p in CORPUS.glob("*.json.gz")),
        key=lambda nb: -sum(len(t) for t in python_texts(nb[1])),
    )
    if not bundles:
        return 0.0, 0.0
    print(f"(c) corpus: {len(bundles)} real commits of tests/corpus, best of {repeat} each:")
    total_a = total_p = 0.0
    for i, (name, bundle) in enumerate(bundles):
        analyse_once(bundle)  # warm-up
        a, p = measure(bundle, repeat, gc_paused=False)
        total_a += a
        total_p += p
        if i < largest:
            kb = sum(len(t) for t in python_texts(bundle)) / 1024
            print(
                f"  {name:22s} {kb:7.0f} KB  analysis {a * 1000:7.1f} ms  parse {p * 1000:6.1f} ms  ratio {a / p:5.2f}x"
            )
    print(
        f"  all {len(bundles)}: analysis {total_a * 1000:.0f} ms, parse {total_p * 1000:.0f} ms, "
        f"ratio {total_a / total_p:.2f}x (measured, no target)"
    )
    return total_a, total_p


_PARSE_ONLY = (
    "import ast, sys\n"
    "for p in sys.argv[1:]:\n"
    "    with open(p, encoding='utf-8') as fh:\n"
    "        ast.parse(fh.read())\n"
)


_LAUNCHER = (
    "import json, os, subprocess, sys, time\n"
    "for line in sys.stdin:\n"
    "    cmd, env = json.loads(line)\n"
    "    t0 = time.perf_counter()\n"
    "    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)\n"
    "    err = p.stderr.read().decode()\n"
    "    _pid, status, usage = os.wait4(p.pid, 0)\n"
    "    secs = time.perf_counter() - t0\n"
    "    code = os.waitstatus_to_exitcode(status)\n"
    "    print(json.dumps([secs, code, usage.ru_maxrss * 1024, err]), flush=True)\n"
)


class _Launcher:
    """A small process that starts the measured ones: a child's peak RSS (``ru_maxrss``) counts
    the memory of the process it was forked from, and this benchmark's own process grows to
    hundreds of MB; forked from this one instead, a child's figure is its own."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _LAUNCHER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def run(self, cmd: list[str], env: dict[str, str]) -> tuple[float, int]:
        """Wall time and peak RSS (bytes) of one child process."""
        import json

        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps([cmd, env]) + "\n")
        self.proc.stdin.flush()
        secs, code, rss, err = json.loads(self.proc.stdout.readline())
        if code:
            raise SystemExit(f"{cmd[:4]} failed ({code}): {err}")
        return secs, rss

    def close(self) -> None:
        """End the launcher."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def _child_env(root: Path) -> dict[str, str]:
    """The measured processes' environment: bytecode caches written (into ``root``), as an
    installed prreport has them, even where ``PYTHONDONTWRITEBYTECODE`` is set (then every run
    would compile prreport's modules from source, a tenth of a second)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
    return env


def whole_process(bundle: PullRequestBundle, runs: int) -> tuple[float, float, int]:
    """(a) and (d): median wall time of ``prreport --bundle`` and of a parse-only process over
    the same texts (paired, alternating which goes first), and prreport's peak RSS."""
    from prreport.bundle import bundle_file_bytes

    with tempfile.TemporaryDirectory(prefix="prreport-bench-") as tmp:
        root = Path(tmp)
        saved = root / "pr.json.gz"
        saved.write_bytes(bundle_file_bytes(bundle, saved))
        texts = []
        for i, t in enumerate(python_texts(bundle)):
            (root / f"{i}.py").write_text(t, encoding="utf-8")
            texts.append(str(root / f"{i}.py"))
        report = [sys.executable, "-m", "prreport", "--bundle", str(saved)]
        report += ["--format", "json", "--out", str(root / "out"), "-q"]
        parse = [sys.executable, "-c", _PARSE_ONLY, *texts]
        env = _child_env(root)
        launcher = _Launcher()
        run = launcher.run
        run(report, env)  # warm-up: bytecode caches, page cache
        run(parse, env)
        ours: list[float] = []
        theirs: list[float] = []
        rss = 0
        for i in range(runs):
            pair = [(report, ours), (parse, theirs)]
            for cmd, into in pair if i % 2 == 0 else reversed(pair):
                secs, peak = run(cmd, env)
                into.append(secs)
                if cmd is report:
                    rss = max(rss, peak)
        launcher.close()
    return statistics.median(ours), statistics.median(theirs), rss


def in_process(bundle: PullRequestBundle, runs: int) -> tuple[float, float]:
    """(b): median time of analysis + report model + JSON against ``ast.parse``, paired."""
    from prreport.config import Config
    from prreport.pipeline import analyse, render_outputs

    config = Config()
    config = dataclasses.replace(
        config, report=dataclasses.replace(config.report, formats=("json",))
    )
    texts = python_texts(bundle)

    def report() -> None:
        render_outputs(analyse(bundle, config), config, Path("unused"))

    def parse() -> None:
        for t in texts:
            ast.parse(t)

    report()  # warm-up: plug-in and template imports
    ours: list[float] = []
    theirs: list[float] = []
    for i in range(runs):
        pair = [(report, ours), (parse, theirs)]
        for fn, into in pair if i % 2 == 0 else reversed(pair):
            gc.collect()
            t0 = time.perf_counter()
            fn()
            into.append(time.perf_counter() - t0)
    return statistics.median(ours), statistics.median(theirs)


def _hoist_module(n: int, before: bool) -> str:
    """``n`` functions, each with a function-local import of its own helper before (hoisted
    into one ``from ... import (...)`` block after): the shape whose cost grew quadratically."""
    block = "".join(f"    helper_{i},\n" for i in range(n))
    head = (
        '"""Generated."""\n\n'
        + ("" if before else f"import os\nfrom bench.helpers import (\n{block})\n")
        + "\n"
    )
    body = []
    for i in range(n):
        local = "    import os\n" if before else ""
        loop_import = f"        from bench.helpers import helper_{i}\n" if before else ""
        body.append(
            f"\ndef func_{i}(values, scale={i}):\n{local}    total = 0\n    for v in values:\n"
            f"{loop_import}        if v % 3 == 0:\n            continue\n"
            f"        total += helper_{i}(v) and v * scale and os.sep\n    return total\n"
        )
    return head + "".join(body)


def hoist_bundle(kb: int) -> PullRequestBundle:
    """A one-file PR of about ``kb`` KB whose every function has its imports hoisted."""
    n = max(1, kb * 1024 // len(_hoist_module(1, True)))
    before, after = _hoist_module(n, True), _hoist_module(n, False)
    helpers = "".join(f"def helper_{i}(v):\n    return v\n" for i in range(n))
    return _one_file_pr(before, after, helpers, "refactor: hoist imports")


def size_scaling(sizes: tuple[int, ...] = (110, 440, 1024)) -> None:
    """Analysis + report model time of hoist-everywhere modules of growing size: linear means
    the time ratio follows the size ratio."""
    from prreport.config import Config
    from prreport.pipeline import analyse

    times = []
    for kb in sizes:
        bundle = hoist_bundle(kb)
        gc.collect()
        t0 = time.perf_counter()
        analyse(bundle, Config())
        times.append(time.perf_counter() - t0)
    parts = ", ".join(f"{kb} KB {t:.2f} s" for kb, t in zip(sizes, times, strict=True))
    ratios = " : ".join(f"{t / times[0]:.1f}" for t in times)
    sratio = " : ".join(f"{kb / sizes[0]:.1f}" for kb in sizes)
    print(
        f"size scaling (hoists everywhere, analysis + report model): {parts}; time ratio {ratios} vs size ratio {sratio}"
    )


def _parse_seconds(text: str, repeat: int = 5) -> float:
    """Best time of ``ast.parse`` of ``text`` (a function's source, dedented), looped to 2 ms."""
    import textwrap

    src = textwrap.dedent(text)
    loops = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(loops):
            ast.parse(src)
        if time.perf_counter() - t0 > 0.002:
            break
        loops *= 4
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(loops):
            ast.parse(src)
        best = min(best, (time.perf_counter() - t0) / loops)
    return best


def per_function(bundle: PullRequestBundle, repeat: int = 3) -> list[float]:
    """(e): for every changed function the behaviour analyzer compares, the time of its
    comparison (``compare_functions``, as the analysis calls it, shared per-module indexes
    charged to the first function that builds them; best of ``repeat`` analyses, so that a
    moment of machine load is not taken for a slow comparison) over the time of parsing that
    function's before and after source."""
    import prreport.analyzers.behavior as behavior
    from prreport.config import Config
    from prreport.pipeline import analyse

    real = behavior.compare_functions
    best: dict[tuple[str, str], float] = {}
    nodes: dict[tuple[str, str], tuple[ast.AST, ast.AST, str, str]] = {}
    texts = {f.path: (f.before or "", f.after or "") for f in bundle.files}

    def timed(sources, f, key, a, b, trees):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        try:
            return real(sources, f, key, a, b, trees)
        finally:
            secs = time.perf_counter() - t0
            best[(f.path, key)] = min(best.get((f.path, key), secs), secs)
            nodes[(f.path, key)] = (a, b, *texts[f.path])

    analyse(bundle, Config())  # warm-up: imports, first-call caches
    behavior.compare_functions = timed  # type: ignore[assignment]
    try:
        for _ in range(repeat):
            gc.collect()
            analyse(bundle, Config())
    finally:
        behavior.compare_functions = real
    ratios = []
    for k, secs in best.items():
        a, b, before, after = nodes[k]
        seg_a = ast.get_source_segment(before, a) or ""
        seg_b = ast.get_source_segment(after, b) or ""
        ratios.append(secs / (_parse_seconds(seg_a) + _parse_seconds(seg_b)))
    return ratios


def _every_function(runs: int) -> tuple[str, str, str]:
    """(e): the whole-process line, its RSS line and the per-function distribution line."""
    pr = every_function_bundle()
    size = sum(len(t) for t in python_texts(pr))
    print(f"(e) {pr.pr.title}: {size / 1024 / 1024:.2f} MiB before+after")
    ours, parse, rss = whole_process(pr, runs)
    line_e = (
        f"(e) every function changed, whole process, median of {runs} paired runs: prreport "
        f"{ours:.2f} s, parse-only {parse:.2f} s, ratio {ours / parse:.2f}x (target <= 3x)"
    )
    print(line_e)
    line_rss = (
        f"(e) peak RSS of the prreport process: {rss / 1024 / 1024:.0f} MB (target <= 300 MB)"
    )
    print(line_rss)
    ratios = sorted(per_function(pr))
    p95 = ratios[min(len(ratios) - 1, int(0.95 * len(ratios)))] if ratios else 0.0
    line_f = (
        f"(e) per changed function, comparison / parse of that function (before+after), "
        f"{len(ratios)} functions: median {statistics.median(ratios or [0.0]):.2f}x, "
        f"p95 {p95:.2f}x, max {max(ratios or [0.0]):.2f}x (target <= 3x)"
    )
    print(line_f)
    return line_e, line_rss, line_f


def main() -> None:
    """Print (a) whole-process ratio, (b) in-process ratio, (c) corpus ratio, (d) peak RSS,
    then the generated module pair's figures and the size-scaling line."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=5, help="paired runs for (a) and (b) (median)")
    ap.add_argument("--kb", type=int, default=100, help="size of the generated module (KB)")
    ap.add_argument("--repeat", type=int, default=7, help="runs per measurement (best is kept)")
    ap.add_argument(
        "--real", type=int, default=8, help="largest corpus commits listed one by one in (c)"
    )
    ap.add_argument("--no-corpus", action="store_true", help="leave out (c)")
    ap.add_argument("--every", action="store_true", help="only (e), the every-function-changed PR")
    ap.add_argument(
        "--scaling", action="store_true", help="only the size-scaling line (110 KB, 440 KB, 1 MiB)"
    )
    args = ap.parse_args()
    if args.scaling:
        size_scaling()
        return
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.every:
        lines_e = _every_function(args.runs)
        print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        return
    pr = stdlib_bundle()
    size = sum(len(t) for t in python_texts(pr))
    print(
        f"stdlib PR: {len(pr.files)} modules, {size / 1024 / 1024:.2f} MiB before+after, "
        f"+{sum(f.additions for f in pr.files)}/-{sum(f.deletions for f in pr.files)} lines"
    )
    wp_ours, wp_parse, rss = whole_process(pr, args.runs)
    line_a = (
        f"(a) whole process, median of {args.runs} paired runs: prreport --bundle {wp_ours:.2f} s, "
        f"parse-only {wp_parse:.2f} s, ratio {wp_ours / wp_parse:.2f}x (target <= 3x)"
    )
    print(line_a)
    ip_ours, ip_parse = in_process(pr, args.runs)
    line_b = (
        f"(b) in-process, median of {args.runs} paired runs: analysis + model + JSON "
        f"{ip_ours:.2f} s, ast.parse {ip_parse:.2f} s, ratio {ip_ours / ip_parse:.2f}x (target <= 2x)"
    )
    print(line_b)
    line_d = f"(d) peak RSS of the prreport process: {rss / 1024 / 1024:.0f} MB (target <= 300 MB)"
    print(line_d)
    line_c = "(c) corpus: not measured (--no-corpus)"
    if not args.no_corpus:
        total_a, total_p = corpus(max(1, args.repeat // 3), args.real)
        if total_p:
            line_c = (
                f"(c) corpus: analysis {total_a:.2f} s, parse {total_p:.2f} s, "
                f"ratio {total_a / total_p:.2f}x (measured, no target)"
            )
    bundle = make_bundle(args.kb)
    f = bundle.files[0]
    assert f.before is not None and f.after is not None
    findings, diags = analyse_once(bundle)  # warm-up: plug-in imports, first-call caches
    analysis, parse = measure(bundle, args.repeat, gc_paused=False)
    tracemalloc.start()
    analyse_once(bundle)
    _cur, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    kinds: dict[str, int] = {}
    for fd in findings:
        kinds[fd.kind] = kinds.get(fd.kind, 0) + 1
    print(
        f"generated module pair: {len(f.before) / 1024:.1f} KB before, {len(f.after) / 1024:.1f} KB after, "
        f"+{f.additions}/-{f.deletions} lines"
    )
    print(
        f"  findings: {len(findings)} ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}); diagnostics: {len(diags)}"
    )
    print(
        "  per analyzer, files already parsed (best of each; shared caches charged to the first user):"
    )
    for name, secs in sorted(per_analyzer(bundle, args.repeat).items(), key=lambda kv: -kv[1]):
        print(f"    {name:14s} {secs * 1000:8.1f} ms")
    print(
        f"  analysis {analysis * 1000:.1f} ms, ast.parse {parse * 1000:.1f} ms (best of {args.repeat}), "
        f"ratio {analysis / parse:.2f}x; tracemalloc peak {peak / 1024 / 1024:.1f} MiB"
    )
    size_scaling()
    lines_e = _every_function(args.runs)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("summary:")
    for line in (line_a, line_b, line_c, line_d, *lines_e):
        print(f"  {line}")


if __name__ == "__main__":
    main()
