"""Fuzz test: mutated real modules through the whole pipeline, bounded in time, no analyzer crash.

tests/mutations.py makes the cases (unusual bytes, broken syntax, real refactors of small
standard-library modules); ``python -m tests.mutations --cases 200`` runs a longer campaign.
"""

from __future__ import annotations

from tests.mutations import MUTATIONS, SMALL_MODULES, campaign

BUDGET_SECONDS = 20.0


def test_mutated_stdlib_modules_never_crash_an_analyzer():
    tried, failed = campaign(
        BUDGET_SECONDS, max_cases=len(MUTATIONS), seed=13, modules=SMALL_MODULES
    )
    assert len(tried) >= 4, "the machine is too slow to fuzz within the budget"
    assert not failed, "\n".join(f"{c}: {problems}" for c, problems in failed.items())
