"""A digest JSON written earlier, read back (schema checked) and summed up again by this version."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from prreport.digest.summary import DIGEST_SCHEMA, summarise
from prreport.digest.window import Window
from prreport.errors import ConfigError
from prreport.series import parse_time


def load_digest_json(path: str | Path, flag: str = "--from-json") -> dict[str, Any]:
    """A digest JSON file written by ``prreport digest`` (checked for its schema)."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{flag}: {p} does not exist") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"{flag}: {p} is not a readable digest JSON file ({exc})") from None
    if not isinstance(data, dict) or data.get("schema") != DIGEST_SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else None
        raise ConfigError(
            f"{flag}: {p} has schema {found!r}, not {DIGEST_SCHEMA!r} (give the <week>.json of a digest)"
        )
    if parse_time(str(data.get("window", {}).get("since", ""))) is None or not data.get("repo"):
        raise ConfigError(f"{flag}: {p} has no repo or window: write it again with prreport digest")
    try:
        return _resummed(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ConfigError(
            f"{flag}: {p} is not a digest this version can read ({type(exc).__name__}: {exc}): write it again with prreport digest"
        ) from None


def _resummed(data: dict[str, Any]) -> dict[str, Any]:
    """A digest JSON summed up again by this version: one written before the reading order
    (no action, spots or live counts per PR) gets them from its risks, as the report does."""
    window = data["window"]
    since, until = parse_time(str(window["since"])), parse_time(str(window["until"]))
    if since is None or until is None:
        raise ValueError("window without since/until")
    prs = []
    for p in data.get("prs") or ():
        risks = p.get("risks") or []
        severities = {r.get("severity") for r in risks}
        level = "block" if "high" in severities else "review" if "medium" in severities else "skim"
        prs.append(
            {
                "live_kind_counts": dict(p.get("kind_counts") or {}),
                "action": level,
                "spots": [],
                "spot_count": 0,
                **p,
                "repo": p.get("repo") or data["repo"],
            }
        )
    failed = [
        {**f, "repo": f.get("repo") or data["repo"]}
        for f in data.get("not_analysed") or ()
        if not f.get("partial")
    ]
    for f in failed:
        f.pop("partial", None)
    digest = summarise(
        data["repo"],
        str(data.get("source") or ""),
        Window(str(window.get("label") or ""), since, until),
        prs,
        failed,
        dict(data.get("stats") or {}),
    )
    return digest.to_json()
