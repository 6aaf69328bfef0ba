"""The JSON Schemas (draft 2020-12) of prreport's JSON outputs (the report, the digest, the bundle) and of its settings file."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

NAMES = ("report", "digest", "bundle", "settings")


def schema_dir() -> Path:
    """Schemas shipped in the wheel (``prreport/schemas``) or, in a checkout, ``schemas/``."""
    here = Path(__file__).resolve().parent
    packaged = here / "schemas"
    return packaged if packaged.is_dir() else here.parent / "schemas"


@cache
def schema(name: str) -> dict[str, Any]:
    """The schema ``report``, ``digest``, ``bundle`` or ``settings`` as a JSON value."""
    if name not in NAMES:
        raise ValueError(f"no schema {name!r} (known: {', '.join(NAMES)})")
    data: dict[str, Any] = json.loads(
        (schema_dir() / f"{name}.schema.json").read_text(encoding="utf-8")
    )
    return data
