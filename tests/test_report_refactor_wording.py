"""How the report tells refactorings a reviewer reads: in words, once per thing that happened.
Real commits of the corpus: pip 48e81de3 (six docstring-only overrides of one class dropped)
and black 95fd5cb6 (else-after-return made early returns)."""

from __future__ import annotations

import re

import pytest

from prreport.bundle import load_bundle
from prreport.config import Config
from prreport.pipeline import analyse
from prreport.render.markdown import render_markdown
from tests.test_corpus import CORPUS


def _breakdown(case: str, lang: str) -> str:
    model = analyse(load_bundle(CORPUS / "bundles" / f"{case}.json.gz"), Config()).model
    md = render_markdown(model, lang)
    start = md.index("# Implementation breakdown" if lang == "en" else "# 实现拆解")
    return md[start : md.index("\n## ", start)]


def test_overrides_of_one_class_dropped_alike_are_told_once():
    text = _breakdown("pip-48e81de3", "en")
    assert "Drops 6 placeholder overrides of `PipReporter`" in text
    for name in (
        "starting",
        "starting_round",
        "ending_round",
        "ending",
        "adding_requirement",
        "pinning",
    ):
        assert f"`{name}`" in text
    assert text.count("now answers the calls") == 1


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("case", ["black-95fd5cb6", "pip-48e81de3", "pip-a287a0bf"])
def test_no_finding_kind_is_shown_as_a_raw_name(case: str, lang: str):
    text = _breakdown(case, lang)
    assert not re.search(r"`(code|symbol|behavior|guard)\.[a-z-]+`", text), text
