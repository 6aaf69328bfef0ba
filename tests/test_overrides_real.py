"""Dropped overrides on real code: the corpus commits of issue #15 (pip's PipReporter lifecycle
placeholders, mypy's visitor declarations, pip's VCS backends, rich's NullFile) and look-alikes
made from the same real files, which must not be claimed."""

from __future__ import annotations

from pathlib import Path

import pytest

from prreport.bundle import PullRequestBundle, load_bundle
from prreport.config import Config
from prreport.findings import Finding
from prreport.pipeline import Analysis, analyse
from tests.gitrepo import analyse_commit

CORPUS = Path(__file__).parent / "corpus" / "bundles"
REPORTER = "src/pip/_internal/resolution/resolvelib/reporter.py"
BASE = "src/pip/_vendor/resolvelib/reporters.py"
LIFECYCLE = [
    "adding_requirement",
    "ending",
    "ending_round",
    "pinning",
    "starting",
    "starting_round",
]


def _bundle(case: str) -> PullRequestBundle:
    return load_bundle(CORPUS / f"{case}.json.gz")


def _corpus(case: str) -> Analysis:
    a = analyse(_bundle(case), Config())
    assert not [d for d in a.diagnostics if "analyzer failed" in d.message], a.diagnostics
    return a


def _overrides(a: Analysis) -> list[Finding]:
    return sorted(
        (f for f in a.model.findings if f.kind == "code.override-removed"), key=lambda f: f.symbol
    )


def test_pip_reporter_docstring_placeholders_fall_back_to_the_vendored_base():
    a = _corpus("pip-48e81de3")
    found = _overrides(a)
    assert [f.symbol for f in found] == [f"PipReporter.{m}" for m in LIFECYCLE]
    for f in found:
        d = f.details
        assert d["body_kind"] == "docstring" and d["base_body_kind"] == "docstring"
        # BaseReporter[Requirement, Candidate, str] is the class BaseReporter.
        assert (d["base"], d["base_path"]) == (f"BaseReporter.{d['method']}", BASE)
        assert d["base_provides"] is True and d["behavior_change"] is False
        assert f.explains
    assert a.model.summary.verdict == "pure-refactor"


def test_an_abstract_declaration_that_overrode_nothing_is_not_an_override():
    """mypy 58debfad: StatementVisitor(Generic[T]).visit_var is dropped; no base defines it."""
    a = _corpus("mypy-58debfad")
    assert _overrides(a) == []
    # Not an override: every subclass defines it, so no lookup reached it (shadowed.py).
    shadowed = [f.symbol for f in a.model.findings if "shadowed_by" in f.details]
    assert shadowed == ["StatementVisitor.visit_var"]


def test_full_implementations_pulled_into_a_rewritten_base_are_not_overrides():
    """pip c6906f1a: Git/Mercurial.get_subdirectory bodies removed, the base's one rewritten."""
    a = _corpus("pip-c6906f1a")
    assert _overrides(a) == []
    assert a.model.summary.verdict in ("behavior-change", "refactor-with-behavior-change")


def test_constant_overrides_of_an_unreadable_base_are_not_called_unchanged():
    """rich 873cb797: NullFile(IO[str]) loses mode/name/closed; typing.IO is not in the repo."""
    a = _corpus("rich-873cb797")
    found = _overrides(a)
    assert [f.symbol for f in found] == ["NullFile.closed", "NullFile.mode", "NullFile.name"]
    for f in found:
        assert f.details["body_kind"] == "constant"
        assert f.details["base_provides"] is None and f.details["unresolved_bases"] == ["IO"]
        assert f.details["behavior_change"] is None and f.explains == ()
    assert a.model.summary.verdict != "pure-refactor"


# -- look-alikes built from the same real files ---------------------------------------------


def _reporter_repo(base_text: str, before: str, after: str) -> dict[str, dict[str, str | None]]:
    inits = {
        p: ""
        for p in (
            "src/pip/__init__.py",
            "src/pip/_internal/__init__.py",
            "src/pip/_internal/resolution/__init__.py",
            "src/pip/_internal/resolution/resolvelib/__init__.py",
            "src/pip/_vendor/__init__.py",
            "src/pip/_vendor/resolvelib/__init__.py",
        )
    }
    return {"base": {**inits, BASE: base_text, REPORTER: before}, "change": {REPORTER: after}}


def _real_reporter_files() -> tuple[str, str, str]:
    b = _bundle("pip-48e81de3")
    f = b.file(REPORTER)
    assert f is not None and f.before and f.after
    base = b.context_files[BASE]
    assert base is not None
    return base, f.before, f.after


@pytest.mark.parametrize(
    ("variant", "changed"),
    [
        # The base's pinning raises: the dropped no-op answered every call with None.
        ("base-raises", {"pinning"}),
        # The dropped starting() accepted an argument the base's does not.
        ("wider-signature", {"starting"}),
    ],
)
def test_a_placeholder_unlike_the_inherited_method_is_a_behaviour_change(
    tmp_path: Path, variant: str, changed: set[str]
):
    base, before, after = _real_reporter_files()
    if variant == "base-raises":
        old = '        """Called when adding a candidate to the potential solution."""\n'
        assert old in base
        base = base.replace(old, old + "        raise NotImplementedError\n")
    else:
        old = "    def starting(self) -> None:\n"
        assert old in before
        before = before.replace(old, "    def starting(self, verbose: bool = False) -> None:\n")
    files = _reporter_repo(base, before, after)
    a = analyse_commit(tmp_path, files["base"], files["change"], message="Tidy (#1)")
    found = {f.details["method"]: f for f in _overrides(a)}
    assert set(found) == set(LIFECYCLE)
    assert {m for m, f in found.items() if f.details["behavior_change"]} == changed
    for m in changed:
        assert found[m].explains == ()
    assert a.model.summary.verdict == "refactor-with-behavior-change"


def test_a_dropped_method_that_overrode_nothing_in_the_real_reporter_is_not_claimed(
    tmp_path: Path,
):
    """A placeholder the base does not define: removing it is no dropped override."""
    base, before, after = _real_reporter_files()
    extra = (
        '    def on_backtrack(self, n: int) -> None:\n        """Not a BaseReporter hook."""\n\n'
    )
    anchor = "    def starting(self) -> None:\n"
    files = _reporter_repo(base, before.replace(anchor, extra + anchor), after)
    a = analyse_commit(tmp_path, files["base"], files["change"], message="Tidy (#1)")
    assert [f.details["method"] for f in _overrides(a)] == LIFECYCLE
    assert a.model.summary.verdict != "pure-refactor"
