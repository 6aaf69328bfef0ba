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
        [sys.executable, str(ROOT / "benchmarks" / "accuracy.py"), "--json", "--no-mutations"],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout
    return json.loads(out)


def cohorts() -> dict[str, dict]:
    """Each cohort's floors: the commits labelled first keep theirs as the corpus grows."""
    floors = json.loads((CORPUS / "floors.json").read_text(encoding="utf-8"))
    return {k: v for k, v in floors["cohorts"].items() if isinstance(v, dict)}


COHORTS = sorted(cohorts())


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


@pytest.mark.parametrize("cohort", COHORTS)
def test_verdicts_hold_their_floor(scores: dict, cohort: str) -> None:
    f, got = cohorts()[cohort], scores["cohorts"][cohort]
    assert got["false_pure"] <= f["max_false_pure"], got["misses"][: got["false_pure"]]
    assert got["verdict_accuracy"] >= f["verdict_accuracy"], got["misses"]


# Issue 29's verdict figures: (floor key, figure, the floor is a minimum).
FIGURES = (
    ("min_pure_recall", "pure_recall", True),
    ("max_false_change_claim_rate", "false_change_claim_rate", False),
    ("min_changes_flagged_rate", "changes_flagged_rate", True),
    ("max_median_left_share", "median_left_share", False),
)


@pytest.mark.parametrize("cohort", COHORTS)
def test_verdict_figures_hold_their_floor(scores: dict, cohort: str) -> None:
    # Pure recall and changes flagged only go up, false change claims and the share of lines
    # left to review only go down; a wrong "pure" is never allowed (max_false_pure above).
    f, got = cohorts()[cohort], scores["cohorts"][cohort]
    for key, figure, minimum in FIGURES:
        if key not in f:
            continue
        value = got[figure]
        ok = value is not None and (value >= f[key] if minimum else value <= f[key])
        assert ok, (figure, value, f[key], [m for m in got["misses"] if m["type"] != "false-pure"])


@pytest.mark.parametrize("cohort", COHORTS)
def test_no_more_analyzer_crashes_than_the_floor(scores: dict, cohort: str) -> None:
    assert scores["cohorts"][cohort]["crashes"] <= cohorts()[cohort]["max_crashes"], scores[
        "crash_cases"
    ]


@pytest.mark.parametrize("cohort", COHORTS)
def test_precision_per_kind_holds_its_floor(scores: dict, cohort: str) -> None:
    got = scores["cohorts"][cohort]["kinds"]
    for kind, floor in cohorts()[cohort]["precision"].items():
        assert got[kind]["precision"] is not None and got[kind]["precision"] >= floor, (
            kind,
            got[kind],
        )


@pytest.mark.parametrize("cohort", COHORTS)
def test_recall_per_kind_holds_its_floor(scores: dict, cohort: str) -> None:
    got = scores["cohorts"][cohort]["kinds"]
    for kind, floor in cohorts()[cohort]["recall"].items():
        assert got[kind]["recall"] is not None and got[kind]["recall"] >= floor, (kind, got[kind])


def test_cohorts_are_the_first_labels_they_were_set_on() -> None:
    # Cases are only appended: an older cohort is still the same first N commits, a range
    # cohort still the same commits from..to.
    labels = [json.loads(x) for x in (CORPUS / "labels.jsonl").read_text().splitlines() if x]
    for name, c in cohorts().items():
        if c.get("first"):
            assert labels[c["first"] - 1]["id"] == c["last_id"], name
        if c.get("from"):
            assert labels[c["from"] - 1]["id"] == c["first_id"], name
            assert labels[c["to"] - 1]["id"] == c["last_id"], name


def test_every_new_cohort_records_its_first_contact() -> None:
    # A cohort of commits new to the corpus is scored once before anything changes for it.
    for name, c in cohorts().items():
        if not c.get("from"):
            continue
        fc = c["first_contact"]
        assert fc["date"] and len(fc["main_commit"]) == 40, name
        assert fc["cases"] == c["to"] - c["from"] + 1, name
        for _, figure, _ in FIGURES:
            assert figure in fc, (name, figure)


def test_every_rewrite_the_corpus_relies_on_is_worded_in_each_language(scores: dict) -> None:
    # A rewrite without a wording would print its bare id ("split-elif `x`") in the report.
    kinds = scores["rewrite_kinds"]
    assert {"moved-assignment", "multi-return", "list-to-generator", "unreached-method"} <= set(
        kinds
    )
    for lang in ("en", "zh"):
        text = (ROOT / "templates" / lang / "text.md.j2").read_text(encoding="utf-8")
        missing = [k for k in kinds if f'r.kind == "{k}"' not in text]
        assert not missing, (lang, missing)


def test_review_view_shows_every_changed_line_once_and_folds_no_witness(scores: dict) -> None:
    # Issue 31: on every corpus commit each changed line is in the review view exactly once,
    # folded or left, and no line a witness names (computed again from the findings) is folded.
    assert scores["view_errors"] == [], scores["view_errors"][:20]


@pytest.mark.parametrize("cohort", COHORTS)
def test_share_left_in_the_review_view_holds_its_floor(scores: dict, cohort: str) -> None:
    # Issue 31: the median share of changed lines the review view leaves to read on the
    # behaviour-preserving commits only goes down (first scored on 2026-12-02, when it was new).
    f, got = cohorts()[cohort], scores["cohorts"][cohort]
    if "max_median_review_left_share" in f:
        value = got["median_review_left_share"]
        assert value is not None and value <= f["max_median_review_left_share"], value


def test_every_bundle_holds_the_context_the_analyzers_ask_for(scores: dict) -> None:
    # A bundle saved by an older prreport lacks files or reference searches the analyzers
    # request today: the corpus would then score less than a run on the live repository
    # sees. Rebuild such bundles (tests/corpus/build.py ID ...) when a request grows.
    stale = scores["cohorts"]["all"]["stale_bundles"]
    assert len(stale) <= cohorts()["all"].get("max_stale_bundles", 0), stale
