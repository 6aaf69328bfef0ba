"""Real module texts and commits of the labelled corpus (tests/corpus/bundles), for tests that
replay a real commit or apply a refactoring shape to a real module."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from prreport.bundle import PullRequestBundle, load_bundle
from prreport.config import Config
from prreport.pipeline import Analysis, analyse

BUNDLES = Path(__file__).resolve().parent / "corpus" / "bundles"


@cache
def corpus_bundle(case: str) -> PullRequestBundle:
    """The saved bundle of a corpus case (``requests-21f60fe8``)."""
    return load_bundle(BUNDLES / f"{case}.json.gz")


@cache
def corpus_analysis(case: str) -> Analysis:
    """prreport's analysis of a corpus case with the default configuration."""
    return analyse(corpus_bundle(case), Config())


def corpus_text(case: str, path: str, side: str = "after") -> str:
    """The before or after text of a file a corpus commit changed."""
    f = next(f for f in corpus_bundle(case).files if f.path == path)
    text = f.after if side == "after" else f.before
    assert text is not None
    return text


def live_changes(a: Analysis) -> list[str]:
    """Functions reported changed that no proven refactor accounts for."""
    return [
        f.symbol
        for f in a.model.findings
        if f.kind == "behavior.changed" and not f.details.get("accounted_by")
    ]
