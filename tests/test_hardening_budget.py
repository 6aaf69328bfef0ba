"""One changed file has a time and memory budget (Hardening II, G6).

A 20 MB module with the size limit raised ran for over 300 s at 4.8 GB: its two syntax trees
alone take about 140 bytes per character of source (5.6 GiB here), and with many changed
functions some passes are quadratic. Over its budget a file is not analysed: ``unknown``, with
a diagnostic naming the budget, and the other files are still analysed.
"""

from __future__ import annotations

import json
import resource
import time
from pathlib import Path

from prreport.config import AnalysisConfig, Config, GitConfig
from prreport.pipeline import analyse, gather, within_budget
from prreport.sources.git import GitSource
from tests.conftest import run_cli
from tests.gitrepo import Repo


def _module(n: int, changed_every: int, value: int) -> str:
    body = "".join(
        f"def func_{i}(x, y):\n    if x > {i}:\n"
        f"        return x + y * {value if i % changed_every == 0 else 1}\n    return x\n\n\n"
        for i in range(n)
    )
    return "import os\n\n\n" + body


def _repo(tmp_path: Path, big_before: str, big_after: str) -> Repo:
    repo = Repo(tmp_path / "repo")
    small = "def allowed(user):\n    return user.is_admin\n"
    repo.commit("init", {"pkg/__init__.py": "", "pkg/big.py": big_before, "pkg/auth.py": small})
    repo.commit(
        "refactor(pkg): regenerate (#5)",
        {"pkg/big.py": big_after, "pkg/auth.py": small.replace("user.is_admin", "True")},
    )
    return repo


def test_a_20_mb_module_is_unknown_at_once_and_the_rest_is_analysed(tmp_path: Path):
    before = _module(250_000, 10_000, 1)
    after = _module(250_000, 10_000, 2)
    assert len(after) > 20_000_000
    repo = _repo(tmp_path, before, after)
    (tmp_path / "cfg.toml").write_text("[git]\nmax_file_bytes = 100000000\n")
    out = tmp_path / "out"
    start = time.monotonic()
    res = run_cli(
        "5", "--repo", str(repo.path), "--config", str(tmp_path / "cfg.toml"),
        "--format", "json", "--out", str(out), "-q",
    )  # fmt: skip
    took = time.monotonic() - start
    assert res.returncode == 0, res.stderr
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    assert took < 120 and peak_mb < 1500, (took, peak_mb)
    data = json.loads(next(out.glob("*.json")).read_text())
    assert data["summary"]["verdict"] == "unknown"
    (diag,) = [d for d in data["diagnostics"] if d["path"] == "pkg/big.py"]
    assert "over the analysis budget" in diag["message"]
    assert "max_file_memory = 1024 MiB" in diag["message"]
    assert [f["kind"] for f in data["findings"] if f["path"] == "pkg/big.py"] == ["file.unreadable"]
    # the small file is still analysed: its change is there
    assert [f for f in data["findings"] if f["path"] == "pkg/auth.py"]


def test_the_memory_budget_is_an_estimate_made_before_parsing(tmp_path: Path):
    repo = _repo(tmp_path, _module(3000, 1000, 1), _module(3000, 1000, 2))
    cfg = Config(git=GitConfig(repo=str(repo.path)), analysis=AnalysisConfig(max_file_memory=10))
    src = GitSource("5", cfg.git)
    try:
        g = gather(src, cfg)
        a = analyse(g, cfg)
    finally:
        src.close()
    assert a.model.summary.verdict == "unknown"
    assert any("max_file_memory = 10 MiB" in d.message for d in a.diagnostics)
    assert ("pkg/big.py", "after") not in g.sources._ast  # never parsed
    # the saved bundle keeps the texts: a larger budget can analyse it later
    assert a.bundle.file("pkg/big.py").after is not None
    assert within_budget(a.bundle, AnalysisConfig()) is a.bundle


def test_a_file_whose_analysis_runs_past_the_time_budget_is_left_out(tmp_path: Path):
    # Every function changed: seconds of comparisons, over a budget of one second.
    repo = _repo(tmp_path, _module(4000, 1, 1), _module(4000, 1, 2))
    cfg = Config(git=GitConfig(repo=str(repo.path)), analysis=AnalysisConfig(max_file_seconds=1))
    src = GitSource("5", cfg.git)
    start = time.monotonic()
    try:
        a = analyse(gather(src, cfg), cfg)
    finally:
        src.close()
    assert time.monotonic() - start < 60
    assert a.model.summary.verdict == "unknown"
    (diag,) = [d for d in a.diagnostics if d.path == "pkg/big.py"]
    assert "ran past [analysis] max_file_seconds = 1 s" in diag.message
    assert [f.kind for f in a.findings if f.path == "pkg/big.py"] == ["file.unreadable"]
    assert [f for f in a.findings if f.path == "pkg/auth.py"]
