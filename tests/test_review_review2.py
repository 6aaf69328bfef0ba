"""Adversarial review (review2): shapes where a rule claimed "same behaviour" but Python
behaves differently. Each case must not be reported as a pure refactor."""

from __future__ import annotations

from pathlib import Path

from prreport.pipeline import Analysis
from tests.gitrepo import analyse_commit

MOD = "pkg/mod.py"


def _run(tmp_path: Path, before: str, after: str) -> Analysis:
    return analyse_commit(
        tmp_path,
        {"pkg/__init__.py": "", MOD: before},
        {MOD: after},
        "refactor(pkg): make _items a generator (#7)",
    )


def _kind(a: Analysis, symbol: str) -> str:
    [f] = [f for f in a.findings if f.kind.startswith("behavior.") and f.symbol == symbol]
    return f.kind


# --- list-to-generator: a caller's try sees the generator bound -----------------------------

_GEN_BEFORE = """def _items(n):
    out = []
    for i in range(n):
        out.append(10 // i)
    return out


def total(n):
    xs = None
    try:
        xs = _items(n)
        xs = list(xs)
    except ZeroDivisionError:
        pass
    return xs
"""

_GEN_AFTER = """def _items(n):
    for i in range(n):
        yield 10 // i


def total(n):
    xs = None
    try:
        xs = _items(n)
        xs = list(xs)
    except ZeroDivisionError:
        pass
    return xs
"""


def test_list_to_generator_caller_in_try_sees_the_generator(tmp_path: Path):
    # total(1): before, _items raised before xs was rebound, so total returned None; after,
    # xs holds the generator when list(xs) raises, and total returns that generator.
    a = _run(tmp_path, _GEN_BEFORE, _GEN_AFTER)
    assert _kind(a, "_items") == "behavior.changed"
    assert a.model.summary.verdict != "pure-refactor"


def test_list_to_generator_caller_in_with_sees_the_generator(tmp_path: Path):
    before = _GEN_BEFORE.replace("    try:\n", "    with suppress(ZeroDivisionError):\n")
    before = before.replace("    except ZeroDivisionError:\n        pass\n", "")
    before = "from contextlib import suppress\n\n\n" + before
    after = _GEN_AFTER.replace("    try:\n", "    with suppress(ZeroDivisionError):\n")
    after = after.replace("    except ZeroDivisionError:\n        pass\n", "")
    after = "from contextlib import suppress\n\n\n" + after
    a = _run(tmp_path, before, after)
    assert _kind(a, "_items") == "behavior.changed"
    assert a.model.summary.verdict != "pure-refactor"
