"""The labelled corpus of real commits: prreport's scores may only go up (tests/corpus/floors.json)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# Over ten seconds each: `pytest -m "not slow"` skips them for a quick loop.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"


@pytest.fixture(scope="module")
def scores() -> dict:
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "accuracy.py"), "--json"],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout
    return json.loads(out)


def floors() -> dict:
    return json.loads((CORPUS / "floors.json").read_text(encoding="utf-8"))


def test_corpus_is_real_and_complete() -> None:
    labels = [json.loads(x) for x in (CORPUS / "labels.jsonl").read_text().splitlines() if x]
    assert len(labels) >= 60
    assert len({lb["repo"] for lb in labels}) >= 8
    assert sum(lb["claims_refactor"] for lb in labels) >= 30
    assert sum(lb["kind"] in ("fix", "feature") for lb in labels) >= 15
    for lb in labels:
        assert (CORPUS / "bundles" / f"{lb['id']}.json.gz").is_file(), lb["id"]
        assert lb["reason"], lb["id"]
    size = sum(p.stat().st_size for p in (CORPUS / "bundles").iterdir())
    assert size < 30 * 2**20


def test_verdicts_hold_their_floor(scores: dict) -> None:
    f = floors()
    assert scores["false_pure"] <= f["max_false_pure"], scores["misses"][: scores["false_pure"]]
    assert scores["verdict_accuracy"] >= f["verdict_accuracy"], scores["misses"]


def test_no_more_analyzer_crashes_than_the_floor(scores: dict) -> None:
    assert scores["crashes"] <= floors()["max_crashes"], scores["crash_cases"]


def test_precision_per_kind_holds_its_floor(scores: dict) -> None:
    for kind, floor in floors()["precision"].items():
        got = scores["kinds"][kind]["precision"]
        assert got is not None and got >= floor, (kind, scores["kinds"][kind])


def test_recall_per_kind_holds_its_floor(scores: dict) -> None:
    for kind, floor in floors()["recall"].items():
        got = scores["kinds"][kind]["recall"]
        assert got is not None and got >= floor, (kind, scores["kinds"][kind])
