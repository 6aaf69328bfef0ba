"""The CLI on real commits: the gate ignores behaviour changes a proven refactor accounts for; an
analyzer failure is one warning line on stderr and an unknown verdict."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from prreport.cli import main

BUNDLE = Path(__file__).parent / "corpus" / "bundles" / "fastapi-30b270be.json.gz"


def _run(tmp_path: Path, *args: str):
    return CliRunner().invoke(
        main, ["--bundle", str(BUNDLE), "--out", str(tmp_path), "-q", "--format", "json", *args]
    )


def test_fail_on_behavior_changed_does_not_fire_on_a_proven_extraction(tmp_path: Path):
    # fastapi 30b270be: one block of three __call__ methods extracted into APIKeyBase.check_api_key.
    res = _run(tmp_path, "--fail-on", "behavior.changed")
    assert res.exit_code == 0, res.output
    [out] = tmp_path.glob("*.json")
    report = json.loads(out.read_text())
    assert report["summary"]["verdict"] == "pure-refactor"
    accounted = [f for f in report["findings"] if f["kind"] == "behavior.changed"]
    assert accounted and all(f["details"].get("accounted_by") for f in accounted)
    # The extraction itself is a finding the gate can still be asked about.
    assert _run(tmp_path, "--fail-on", "code.extracted").exit_code == 1


def test_an_analyzer_failure_is_a_warning_and_an_unknown_verdict(tmp_path: Path, monkeypatch):
    from prreport.analyzers.imports import ImportMovesAnalyzer

    def boom(self, bundle, sources):
        raise IndexError("list index out of range")

    monkeypatch.setattr(ImportMovesAnalyzer, "analyze", boom)
    res = _run(tmp_path)
    assert res.exit_code == 0
    warnings = [ln for ln in res.stderr.splitlines() if ln.startswith("warning:")]
    assert warnings == [
        "warning: analyzer imports failed (analyzer failed: IndexError: list index out of range);"
        " the verdict is unknown"
    ]
    [out] = tmp_path.glob("*.json")
    report = json.loads(out.read_text())
    assert report["summary"]["verdict"] == "unknown"
    assert "analysis is incomplete" in report["summary"]["one_line"]
    assert report["risks"][0]["id"] == "analysis-incomplete"
