"""``--format sarif`` (issue 36): SARIF 2.1.0 for code scanning, valid against the SARIF schema.

The schema is the one Microsoft ships in the npm package ``@microsoft/jest-sarif``
(``tests/schemas/README.md``), vendored unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml  # PyYAML comes with libcst

from tests.conftest import run_cli
from tests.hostile import EVIL_NAME, EVIL_PATH, hostile_bundle_with_risk

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads(
    (ROOT / "tests" / "schemas" / "sarif-2.1.0-rtm.5.json").read_text(encoding="utf-8")
)
CORPUS = ROOT / "tests" / "corpus" / "bundles"


def _validate(log: dict) -> None:
    validator = jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]


def _sarif(bundle: Path, tmp: Path) -> tuple[dict, dict]:
    res = run_cli("--bundle", str(bundle), "--format", "sarif,json", "--out", str(tmp), "-q")
    assert res.returncode == 0, res.stderr
    (sarif,) = tmp.glob("*.sarif")
    (report,) = tmp.glob("*.json")
    return json.loads(sarif.read_text("utf-8")), json.loads(report.read_text("utf-8"))


@pytest.mark.parametrize("name", ["aiohttp-0b6c9170", "attrs-1499c77e", "black-"])
def test_sarif_of_real_commits_is_valid_with_one_rule_per_kind(name, tmp_path):
    bundle = sorted(CORPUS.glob(f"{name}*.json.gz"))[0]
    log, report = _sarif(bundle, tmp_path)
    _validate(log)
    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert len(ids) == len(set(ids))
    kinds = {f["kind"] for f in report["findings"]}
    assert {i for i in ids if not i.startswith("risk/")} == kinds
    assert {i for i in ids if i.startswith("risk/")} == {f"risk/{r['id']}" for r in report["risks"]}
    located = [
        (r["id"], e["path"], e.get("line"))
        for r in report["risks"]
        for e in r["evidence"]
        if e.get("path")
    ]
    assert len(run["results"]) == len(located)
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        loc = result["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"] and not loc["artifactLocation"]["uri"].startswith("/")
    assert run["properties"]["verdict"] == report["summary"]["verdict"]


def test_a_review_spot_becomes_a_warning_on_its_line(tmp_path):
    log, report = _sarif(CORPUS / "aiohttp-0b6c9170.json.gz", tmp_path)
    spot = report["summary"]["action"]["spots"][0]
    (run,) = log["runs"]
    hits = [
        r
        for r in run["results"]
        if r["ruleId"] == f"risk/{spot['risk']}"
        and r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == spot["path"]
        and r["locations"][0]["physicalLocation"]["region"]["startLine"] == spot["line"]
    ]
    assert hits and hits[0]["level"] == "warning"


def test_hostile_paths_are_uri_encoded_and_the_log_stays_valid(seed_repo, tmp_path):
    from urllib.parse import unquote

    repo, _base, _sha = seed_repo
    saved = tmp_path / "seed.json"
    res = run_cli(
        "35980", "--repo", str(repo.path), "--save-bundle", str(saved), "--out", str(tmp_path), "-q"
    )
    assert res.returncode == 0, res.stderr
    evil = hostile_bundle_with_risk(saved, tmp_path / "evil.json")
    log, _report = _sarif(evil, tmp_path / "out")
    _validate(log)
    uris = [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in log["runs"][0]["results"]
    ]
    evil_uris = [u for u in uris if "pwned" in u]
    assert {unquote(u) for u in evil_uris} <= {EVIL_PATH, EVIL_NAME}
    assert EVIL_PATH in {unquote(u) for u in evil_uris}
    assert not any(c in u for u in evil_uris for c in "\n\r\x1b\u202e ,:")


def test_sarif_on_stdout_and_in_the_settings_file(tmp_path):
    bundle = CORPUS / "aiohttp-0b6c9170.json.gz"
    res = run_cli("--bundle", str(bundle), "--format", "sarif", "--out", "-")
    assert res.returncode == 0, res.stderr
    _validate(json.loads(res.stdout))
    (tmp_path / ".prreport.toml").write_text('[report]\nformats = ["sarif"]\n', encoding="utf-8")
    res = run_cli("--bundle", str(bundle), "--out", str(tmp_path / "o"), "-q", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert [p.suffix for p in (tmp_path / "o").iterdir()] == [".sarif"]
    bad = run_cli("--bundle", str(bundle), "--format", "sarf", "--out", str(tmp_path))
    assert bad.returncode == 2 and "sarif" in bad.stderr and "Traceback" not in bad.stderr


def test_the_example_workflow_uploads_the_sarif_with_a_pinned_action():
    wf = yaml.safe_load((ROOT / "examples" / "workflows" / "prreport-sarif.yml").read_text("utf-8"))
    job = next(iter(wf["jobs"].values()))
    assert job["permissions"]["security-events"] == "write"
    upload = next(s for s in job["steps"] if "upload-sarif" in str(s.get("uses")))
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
