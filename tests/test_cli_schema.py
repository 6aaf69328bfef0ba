"""The published JSON Schemas (``schemas/``, shipped as ``prreport/schemas``): valid draft 2020-12,
in step with the vocabulary, and met by the golden report, real bundles and real outputs."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from prreport.cli import main
from prreport.cli.options import fail_on_vocabulary
from prreport.jsonschemas import NAMES, schema
from tests.schemacheck import check, errors

ROOT = Path(__file__).resolve().parent.parent
BUNDLES = sorted((ROOT / "tests" / "corpus" / "bundles").glob("*.json.gz"))


@pytest.mark.parametrize("name", NAMES)
def test_schemas_are_valid_draft_2020_12(name: str):
    Draft202012Validator.check_schema(schema(name))
    assert schema(name)["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_schema_enums_are_the_vocabulary():
    defs = schema("report")["$defs"]
    vocab = fail_on_vocabulary()
    assert defs["kind"]["enum"] == list(vocab.kinds)
    assert defs["risk_id"]["enum"] == list(vocab.risk_tags)
    assert defs["severity"]["enum"] == list(vocab.levels)
    # details are described for every kind.
    assert set(defs["details"]) == set(vocab.kinds)


def test_golden_report_matches():
    check(json.loads((ROOT / "tests" / "golden" / "pr-35980.json").read_text()), "golden")


def test_real_bundles_match():
    for path in BUNDLES:
        check(json.loads(gzip.decompress(path.read_bytes())), path.name)


def test_a_broken_report_is_caught():
    data = json.loads((ROOT / "tests" / "golden" / "pr-35980.json").read_text())
    data["summary"]["verdict"] = "probably-fine"
    data["findings"][0]["kind"] = "import.hoist"
    data["findings"][1]["details"] = {"module": 3} if data["findings"][1]["details"] else []
    found = errors(data)
    assert any("verdict" in e for e in found) and any("kind" in e for e in found)


def test_a_written_report_is_stamped_and_matches(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1787000000")
    bundle = ROOT / "tests" / "corpus" / "bundles" / "fastapi-30b270be.json.gz"
    res = CliRunner().invoke(main, ["--bundle", str(bundle), "--format", "json", "--out", "-"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    from prreport import __version__

    assert data["prreport_version"] == __version__
    assert data["generated_at"] == "2026-08-17T20:53:20Z"
    check(data, "report")
