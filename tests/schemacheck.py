"""Check prreport's JSON outputs against the published JSON Schemas (``schemas/``)."""

from __future__ import annotations

import gzip
import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from prreport.jsonschemas import NAMES, schema

# The ``schema`` field of each output -> the schema that describes it.
BY_TAG = {
    "prreport.report/1": "report",
    "prreport.digest/1": "digest",
    "prreport.bundle/1": "bundle",
}


@cache
def _validator(name: str) -> Draft202012Validator:
    registry: Registry = Registry().with_resources(
        (schema(n)["$id"], Resource.from_contents(schema(n))) for n in NAMES
    )
    return Draft202012Validator(schema(name), registry=registry)


def errors(data: Any) -> list[str]:
    """Where ``data`` breaks its schema (empty: valid, or not a prreport output)."""
    if not isinstance(data, dict) or data.get("schema") not in BY_TAG:
        return []
    v = _validator(BY_TAG[data["schema"]])
    return [f"{e.json_path}: {e.message[:200]}" for e in v.iter_errors(data)]


def check(data: Any, where: str = "") -> None:
    """Fail with every schema error of ``data``."""
    found = errors(data)
    assert not found, f"{where} breaks its JSON Schema:\n" + "\n".join(found[:20])


def check_tree(root: Path) -> int:
    """Check every prreport JSON file below ``root`` (``.json`` and ``.json.gz``); returns how many."""
    count = 0
    for path in sorted([*root.rglob("*.json"), *root.rglob("*.json.gz")]):
        try:
            raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
            data = json.loads(raw)
        except (OSError, ValueError, EOFError, RecursionError):
            continue  # not JSON, or a test's deliberately broken or hostile file
        if isinstance(data, dict) and data.get("schema") in BY_TAG:
            check(data, str(path))
            count += 1
    return count
