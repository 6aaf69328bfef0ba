"""The digest's analysis cache: per-PR facts on disk, keyed by content and by the code that computed them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from prreport import __version__
from prreport.bundle import PullRequestBundle, to_jsonable
from prreport.config import Config
from prreport.errors import OutputError
from prreport.output import write_atomic

# What the per-PR facts are computed by (the bundle itself is hashed separately).
_FACT_CODE = (
    "analyzers",
    "report",
    "pipeline.py",
    "findings.py",
    "classify.py",
    "diffparse.py",
    "digest",
)


def code_fingerprint() -> str:
    """Hash of the code that computes the facts, so a changed analyzer never reuses stale ones."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256(__version__.encode())
    paths = sorted(
        p
        for name in _FACT_CODE
        for p in ([root / name] if name.endswith(".py") else (root / name).rglob("*.py"))
    )
    for p in paths:
        h.update(str(p.relative_to(root)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def cache_key(bundle: PullRequestBundle, config: Config, fingerprint: str) -> str:
    """Content hash of a bundle plus everything else the facts depend on."""
    data = to_jsonable(bundle)
    # Related-PR candidates change whenever later PRs merge; the facts do not use them, and
    # keeping them out lets overlapping windows reuse older results.
    data.pop("related", None)
    return _key(data, config, fingerprint)


def content_key(content: str, config: Config, fingerprint: str) -> str:
    """The cache key of a PR whose content is known before fetching (see ``MergedPR.content``)."""
    return _key({"content": content}, config, fingerprint)


def _key(data: Any, config: Config, fingerprint: str) -> str:
    payload = {
        "bundle": data,
        "version": __version__,
        "code": fingerprint,
        "analysis": to_jsonable(config.analysis),
        "modules": to_jsonable(config.modules),
    }
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class AnalysisCache:
    """Per-PR digest facts on disk, one JSON file per content hash."""

    def __init__(self, directory: str | Path | None) -> None:
        self.directory = Path(directory) if directory else None

    def _path(self, key: str) -> Path:
        assert self.directory is not None
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached facts, or None (also for an unreadable entry, which is then recomputed)."""
        if self.directory is None:
            return None
        try:
            value = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return value if valid_facts(value) and value.get("key") == key else None

    def put(self, key: str, facts: dict[str, Any]) -> None:
        """Store facts atomically; a cache that cannot be written only costs speed."""
        if self.directory is None:
            return
        try:
            write_atomic(
                self._path(key),
                json.dumps({**facts, "key": key}, ensure_ascii=False, sort_keys=True),
            )
        except OutputError:
            pass


_NONE = type(None)
# The type of every field of the facts (``digest.facts.facts_of``) the digest reads back.
_FIELDS: dict[str, tuple[type, ...]] = {
    "repo": (str,),
    "number": (int, _NONE),
    "title": (str,),
    "author": (str,),
    "url": (str,),
    "merged_at": (str, _NONE),
    "summary": (str,),
    "verdict": (str,),
    "series": (str,),
    "kinds": (list,),
    "kind_counts": (dict,),
    "live_kind_counts": (dict,),
    "action": (str,),
    "spots": (list,),
    "spot_count": (int,),
    "reports": (dict,),
    "changed_lines": (int,),
    "explained_lines": (int,),
    "left_lines": (int,),
    "files": (int,),
    "risks": (list,),
    "risk_tags": (list,),
    "problems": (list,),
}


def valid_facts(value: Any) -> bool:
    """True when ``value`` has the shape ``facts_of`` gives (a damaged cache entry has not)."""
    if not isinstance(value, dict):
        return False
    for name, types in _FIELDS.items():
        if name not in value or not isinstance(value[name], types):
            return False
        if isinstance(value[name], bool) and bool not in types:
            return False
    return (
        all(
            isinstance(k, str) and type(v) is int
            for counts in (value["kind_counts"], value["live_kind_counts"])
            for k, v in counts.items()
        )
        and all(isinstance(k, str) and isinstance(v, str) for k, v in value["reports"].items())
        and all(
            isinstance(sp, dict)
            and isinstance(sp.get("risk"), str)
            and isinstance(sp.get("path"), str)
            and (sp.get("line") is None or type(sp.get("line")) is int)
            for sp in value["spots"]
        )
        and all(isinstance(p, str) for p in value["problems"])
        and all(isinstance(k, str) for k in (*value["kinds"], *value["risk_tags"]))
        and all(
            isinstance(r, dict)
            and isinstance(r.get("id"), str)
            and isinstance(r.get("severity"), str)
            and type(r.get("evidence")) is int
            for r in value["risks"]
        )
    )
