"""``--fail-on``: a CI gate that can never silently do nothing.

Every item must name something a report can contain (a finding kind, a family, a risk tag or
``risk:LEVEL``); a typo is an error with the name meant, and the gate fires on each of them, in
``prreport`` and in ``prreport digest``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from prreport.cli import main
from prreport.cli.options import fail_on_vocabulary
from prreport.errors import ConfigError
from prreport.gate import FINDING_KINDS, gate_failure, parse_fail_on
from tests.gitrepo import Repo

ROOT = Path(__file__).resolve().parent.parent


def _loop_repo(path: Path) -> Repo:
    """A PR that hoists one of two imports out of a loop: one import stays in it."""
    repo = Repo(path)
    repo.commit(
        "init",
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "def f():\n    for i in range(3):\n        import json\n        import os\n"
            "        print(json.dumps(i), os.sep)\n",
        },
    )
    repo.commit(
        "refactor(pkg): hoist json (#7)",
        {
            "pkg/a.py": "import json\n\n\ndef f():\n    for i in range(3):\n        import os\n"
            "        print(json.dumps(i), os.sep)\n",
        },
    )
    return repo


@pytest.fixture(scope="module")
def loop_repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    return _loop_repo(tmp_path_factory.mktemp("gate") / "r")


def _report(repo: Repo, out: Path, *args: str):
    return CliRunner().invoke(
        main, ["7", "--repo", str(repo.path), "--format", "json", "--out", str(out), "-q", *args]
    )


def _one_error(res, *needles: str) -> str:
    assert res.exit_code == 2, (res.exit_code, res.output)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize(
    "typo, meant",
    [
        ("loop.import-remaining", "loop.imports-remaining"),
        ("import-in-lop", "import-in-loop"),
        ("cycles.*", "cycle.*"),
        ("risk:hgh", "risk:high"),
        ("guard.droped", "guard.dropped"),
    ],
)
def test_a_typo_is_an_error_naming_what_was_meant(loop_repo: Repo, tmp_path: Path, typo, meant):
    # Before: the typo was accepted and the gate never fired (exit 0).
    res = _report(loop_repo, tmp_path, "--fail-on", f"cycle.risk,{typo}")
    _one_error(res, "--fail-on", repr(typo), f"did you mean `{meant}`")
    assert not list(tmp_path.iterdir())  # rejected before any work


def test_unknown_level_lists_the_levels(loop_repo: Repo, tmp_path: Path):
    res = _report(loop_repo, tmp_path, "--fail-on", "risk:critical")
    _one_error(res, "risk:high, risk:medium, risk:low")


def test_the_gate_fires_on_a_risk_tag_the_report_shows(loop_repo: Repo, tmp_path: Path):
    res = _report(loop_repo, tmp_path, "--fail-on", "import-in-loop")
    assert res.exit_code == 1, res.output
    assert "fail-on: the report has risk import-in-loop (medium)" in res.stderr
    assert (tmp_path / "r-pr-7.json").is_file()  # written before the gate fails the run


def test_risk_level_fires_on_that_level_or_higher(loop_repo: Repo, tmp_path: Path):
    assert _report(loop_repo, tmp_path, "--fail-on", "risk:high").exit_code == 0
    medium = _report(loop_repo, tmp_path, "--fail-on", "risk:medium")
    assert medium.exit_code == 1 and "import-in-loop (medium)" in medium.stderr
    assert _report(loop_repo, tmp_path, "--fail-on", "risk:low").exit_code == 1


def test_kinds_and_families_fire(loop_repo: Repo, tmp_path: Path):
    res = _report(loop_repo, tmp_path, "--fail-on", "loop.imports-remaining")
    assert res.exit_code == 1 and "loop.imports-remaining ×1" in res.stderr
    assert _report(loop_repo, tmp_path, "--fail-on", "import.*").exit_code == 1
    assert _report(loop_repo, tmp_path, "--fail-on", "cycle.risk,guard.dropped").exit_code == 0


def test_digest_takes_fail_on_too(loop_repo: Repo, tmp_path: Path):
    args = ["digest", "--repo", str(loop_repo.path), "--since", "2000-01-01"]
    args += ["--until", "2100-01-01", "--out", str(tmp_path), "-q", "--no-cache"]
    typo = CliRunner().invoke(main, [*args, "--fail-on", "loop.import-remaining"])
    _one_error(typo, "did you mean `loop.imports-remaining`")
    hit = CliRunner().invoke(main, [*args, "--fail-on", "import-in-loop"])
    assert hit.exit_code == 1, hit.output
    assert "fail-on: #7 has risk import-in-loop (medium)" in hit.stderr
    assert list(tmp_path.glob("digests/*/*.json"))  # written before the gate fails the run
    assert CliRunner().invoke(main, [*args, "--fail-on", "cycle.risk"]).exit_code == 0


def test_help_fail_on_lists_the_vocabulary():
    res = CliRunner().invoke(main, ["help", "fail-on"])
    assert res.exit_code == 0
    text = " ".join(res.output.split())
    vocab = fail_on_vocabulary()
    for word in (*vocab.kinds, *vocab.families(), *vocab.risk_tags, "risk:high"):
        assert word in text


def test_gate_unit():
    vocab = fail_on_vocabulary()
    gate = parse_fail_on("loop.*,no-review,risk:high", vocab)
    assert gate.hits(["loop.imports-added", "cycle.safe"], [("no-tests", "low")]) == [
        "loop.imports-added"
    ]
    assert gate.hits([], [("import-cycle", "high"), ("no-review", "medium")]) == [
        "risk import-cycle (high)",
        "risk no-review (medium)",
    ]
    assert gate_failure(parse_fail_on(None, vocab), ["cycle.risk"], [("x", "high")]) is None
    with pytest.raises(ConfigError):
        parse_fail_on("loop.", vocab)


def _kind_literals() -> set[str]:
    """Every string in the analyzers shaped like a finding kind of a known family."""
    families = {k.split(".")[0] for k in FINDING_KINDS}
    shape = re.compile(r"^([a-z-]+)\.[a-z-]+$")
    found = set()
    for path in (ROOT / "prreport" / "analyzers").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                m = shape.match(node.value)
                if m and m.group(1) in families:
                    found.add(node.value)
    return found


def test_every_kind_an_analyzer_emits_is_in_the_vocabulary():
    # A new kind must be added to prreport.gate.FINDING_KINDS (and the README, and the schema).
    missing = _kind_literals() - set(FINDING_KINDS)
    assert not missing, f"add to prreport/gate.py FINDING_KINDS: {sorted(missing)}"


def test_readme_lists_exactly_the_vocabulary():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("Findings have stable kinds", 1)[1].split("The verdict follows", 1)[0]
    listed = set(re.findall(r"`([a-z-]+\.[a-z-]+)`", section))
    assert listed == set(FINDING_KINDS)


def test_fail_on_a_verdict(loop_repo: Repo, tmp_path: Path):
    # The loop PR keeps an import in the loop: not a behaviour change, so a gate on the
    # change verdicts passes and one on "not pure" or on its own verdict fails.
    verdict = __import__("json").loads(
        next((tmp_path / "a").glob("*.json")).read_text()
        if _report(loop_repo, tmp_path / "a").exit_code == 0
        else "{}"
    )["summary"]["verdict"]
    ok = _report(loop_repo, tmp_path / "b", "--fail-on", "verdict:behavior-change")
    assert ok.exit_code == (1 if verdict == "behavior-change" else 0), ok.stderr
    own = _report(loop_repo, tmp_path / "c", "--fail-on", f"verdict:{verdict}")
    assert own.exit_code == 1 and f"verdict:{verdict}" in own.stderr
    not_pure = _report(loop_repo, tmp_path / "d", "--fail-on", "verdict:not-pure")
    assert not_pure.exit_code == (0 if verdict == "pure-refactor" else 1)


def test_an_unknown_verdict_is_one_error_listing_the_verdicts(loop_repo: Repo, tmp_path: Path):
    res = _report(loop_repo, tmp_path, "--fail-on", "verdict:pure")
    _one_error(res, "verdict:pure-refactor", "verdict:not-pure")


def test_gate_on_verdicts_unit():
    gate = parse_fail_on("verdict:not-pure", fail_on_vocabulary())
    assert gate.hits(["verdict:pure-refactor"], []) == []
    assert gate.hits(["verdict:refactor-unproven", "cycle.safe"], []) == [
        "verdict:refactor-unproven"
    ]
    failure = gate_failure(gate, ["verdict:unknown"], [])
    assert failure is not None and "verdict:unknown" in failure and "×" not in failure
