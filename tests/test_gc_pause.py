"""The cyclic garbage collector is paused while a PR is analysed (its syntax trees live until the
analysis ends, then reference counting frees them): the pause ends with the analysis, nested and
concurrent analyses share it, and nothing of a tree outlives its analysis."""

from __future__ import annotations

import ast
import gc
import threading
from pathlib import Path

from prreport.bundle import load_bundle
from prreport.config import Config
from prreport.pipeline import analyse, few_collections

CORPUS = Path(__file__).resolve().parent / "corpus" / "bundles"


def _live_functions() -> int:
    return sum(1 for o in gc.get_objects() if isinstance(o, ast.FunctionDef))


def test_the_pause_ends_with_the_outermost_analysis_and_keeps_a_callers_choice():
    assert gc.isenabled()
    with few_collections():
        assert not gc.isenabled()
        with few_collections():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer analysis still runs
    assert gc.isenabled()
    gc.disable()  # a caller that runs without the collector keeps it off
    try:
        with few_collections():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_concurrent_analyses_share_one_pause():
    inside = threading.Barrier(2)
    leave = threading.Event()
    seen: list[bool] = []

    def job() -> None:
        with few_collections():
            inside.wait(timeout=30)
            leave.wait(timeout=30)
        seen.append(gc.isenabled())

    other = threading.Thread(target=job)
    other.start()
    with few_collections():
        inside.wait(timeout=30)
    still_paused = not gc.isenabled()  # the other job's analysis has not ended
    leave.set()
    other.join(timeout=30)
    assert still_paused and seen == [True] and gc.isenabled()


def test_no_syntax_tree_outlives_its_analysis():
    # a real commit (mypy, ~1 MB of before/after text), analysed with the collector off
    # throughout: whatever a reference cycle kept would stay counted here
    bundle = load_bundle(CORPUS / "mypy-cd422e09.json.gz")
    gc.collect()
    gc.disable()
    try:
        baseline = _live_functions()
        analysis = analyse(bundle, Config())
        assert analysis.findings
        assert _live_functions() - baseline < 50
    finally:
        gc.enable()
