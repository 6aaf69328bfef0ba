"""Issue 30's mutation check: a behaviour-changing edit of a commit proven pure is never pure.

The mutants themselves (``tests/corpus_mutants.py``) are checked on a small text first: each
operator makes the edit it says, on the lines it says, and skips what cannot change behaviour.
Then a fixed sample of real corpus commits proven ``pure-refactor`` (fast ones, together using
every operator) has each of its sampled mutants analysed: any survivor that is not a known one
(``KNOWN_SURVIVORS``, each with its reason) is a soundness bug, and a known one that is killed
now leaves the list. ``benchmarks/accuracy.py`` runs the check over every pure commit.
"""

from __future__ import annotations

import ast

import pytest

from prreport.bundle import FileChange, load_bundle
from prreport.diffparse import changed_lines
from tests import corpus_mutants as cm
from tests.mutations import git_patch

BEFORE = '''\
"""A module."""
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from os import PathLike


def old():
    return 1
'''

AFTER = '''\
"""A module."""
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from os import PathLike


def new(a: "PathLike", b: int = 3) -> "str":
    """Docstring."""
    if a is None:
        log("none", a)
    if b < 2 and a in (1, 5):
        b = cast("int", a)
    emit(a)
    emit(b)
    f(a, a)
    if TYPE_CHECKING:
        g(1, "x")
    return b == 1
'''


def _mutants() -> list[cm.Mutant]:
    change = FileChange(
        "pkg/mod.py", "modified", 0, 0, patch=git_patch(BEFORE, AFTER), before=BEFORE, after=AFTER
    )
    return cm.file_mutants("t", change)


def test_every_operator_makes_its_edit_on_the_added_lines() -> None:
    got = {(m.operator, m.line, m.summary): m for m in _mutants()}
    ops = {op for op, _, _ in got}
    assert ops == set(cm.OPERATORS)
    assert all(m.where == "added" for m in got.values())
    text = {k: m.apply(AFTER) for k, m in got.items()}
    assert "    if a is not None:\n" in text[("flip-comparison", 10, "`is` -> `is not`")]
    assert "a not in (1, 5)" in text[("flip-comparison", 12, "`in` -> `not in`")]
    assert "b >= 2" in text[("flip-comparison", 12, "`<` -> `>=`")]
    assert "return b != 1" in text[("flip-comparison", 19, "`==` -> `!=`")]
    assert "b < 3" in text[("change-constant", 12, "`2` -> `3`")]
    assert 'log("µnone", a)' in text[("change-constant", 11, "a string +1 char")]
    assert "    pass\n    emit(b)" in text[("drop-call", 14, "dropped `emit(a)`")]
    assert "    emit(b)\n    emit(a)" in text[("reorder-calls", 14, "swapped `emit(a)`, `emit(b)`")]
    assert 'log(a, "none")' in text[("swap-arguments", 11, 'swapped `"none"`, `a` in `log(...)`')]
    unguarded = text[("remove-guard", 10, "removed guard `if a is None:`")]
    assert '    """Docstring."""\n    log("none", a)\n    if b < 2' in unguarded
    assert "if not (a is None):" in text[("negate-if", 10, "`if a is None` -> `if not (...)`")]
    # the rest of the file is untouched
    for t in text.values():
        assert t.startswith(AFTER.split("def new")[0])


def test_what_cannot_change_behaviour_is_not_mutated() -> None:
    summaries = [(m.operator, m.line, m.summary) for m in _mutants()]
    lines = {line for _, line, _ in summaries}
    # annotations and default values of the signature... only the default is code that runs
    assert ("change-constant", 8, "`3` -> `4`") in summaries
    assert not [s for s in summaries if s[1] == 8 and s[2] == "a string +1 char"]
    assert 9 not in lines  # the docstring
    assert 18 not in lines  # under TYPE_CHECKING: never runs (the guard itself may go)
    assert ("remove-guard", 17, "removed guard `if TYPE_CHECKING:`") in summaries
    assert not [s for s in summaries if s[1] == 13 and s[0] == "change-constant"]  # cast's type
    assert not [s for s in summaries if s[1] == 16 and s[0] == "swap-arguments"]  # f(a, a)
    for m in _mutants():
        assert ast.dump(ast.parse(m.apply(AFTER))) != ast.dump(ast.parse(AFTER))


def test_the_mutated_bundle_is_consistent() -> None:
    bundle = load_bundle(cm.BUNDLES / "requests-21f60fe8.json.gz")
    m = next(x for x in cm.mutants("requests-21f60fe8", bundle) if x.operator == "remove-guard")
    mutated = cm.mutated_bundle(bundle, m)
    change, original = mutated.file(m.path), bundle.file(m.path)
    assert change is not None and original is not None and original.after is not None
    assert change.after == m.apply(original.after)
    assert change.patch == git_patch(change.before or "", change.after)
    assert (change.additions, change.deletions) != (0, 0)
    assert m.line in changed_lines(change.patch).added
    others = [f for f in mutated.files if f.path != m.path]
    assert others == [f for f in bundle.files if f.path != m.path]


def test_the_sample_is_deterministic_and_spread_over_operators() -> None:
    bundle = load_bundle(cm.BUNDLES / "poetry-0caf55f9.json.gz")
    every = cm.mutants("poetry-0caf55f9", bundle)
    a, b = cm.sample(every, 12), cm.sample(every, 12)
    assert a == b and len(a) == 12
    assert {m.operator for m in a} == set(cm.OPERATORS)


# Pure corpus commits whose mutants the suite analyses: fast ones that together use every
# operator (about 20 s in all); benchmarks/accuracy.py runs the check on every pure commit.
SAMPLE = (
    "requests-21f60fe8",
    "requests-aa1461b6",
    "pre-commit-8b0247e1",
    "fastapi-17e49bc9",
    "fastapi-30b270be",
    "mitmproxy-c3dade09",
    "pip-a287a0bf",
    "attrs-3aa497d0",
    "poetry-0caf55f9",
)


def test_the_sample_uses_every_operator() -> None:
    ops = set()
    for case in SAMPLE:
        bundle = load_bundle(cm.BUNDLES / f"{case}.json.gz")
        ops |= {m.operator for m in cm.sample(cm.mutants(case, bundle), cm.CAP)}
    assert ops == set(cm.OPERATORS)


@pytest.mark.slow
@pytest.mark.parametrize("case", SAMPLE)
def test_no_mutant_of_a_pure_commit_stays_pure(case: str) -> None:
    assert cm.verdict(case) == cm.PURE, f"{case} is no longer proven pure: pick another sample"
    outcomes = cm.check_case(case)
    assert outcomes
    survivors = [o for o in outcomes if not o.killed]
    new = [f"{o.mutant.key} (proved by {'; '.join(o.proved_by)})" for o in survivors]
    new = [k for k, o in zip(new, survivors, strict=True) if o.mutant.key not in cm.KNOWN_SURVIVORS]
    assert not new, "soundness bugs: mutants still proven pure"
    killed_now = [o.mutant.key for o in outcomes if o.killed and o.mutant.key in cm.KNOWN_SURVIVORS]
    assert not killed_now, "killed now: take them out of KNOWN_SURVIVORS"
