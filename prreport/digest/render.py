"""The digest's files: where they go, rendered per language and format, and read back (``--from-json``)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from prreport.digest.build import DIGEST_SCHEMA, Digest
from prreport.errors import ConfigError
from prreport.render import render_digest_html, render_digest_markdown
from prreport.series import parse_time


def digest_paths(out_dir: Path, repo: str, label: str, lang: str) -> dict[str, Path]:
    """``<out>/digests/<repo>/<week>.{md,html,json}`` (``.zh.md``/``.zh.html`` for Chinese)."""
    safe_repo = re.sub(r"[^A-Za-z0-9._-]+", "-", repo).strip("-") or "repo"
    base = out_dir / "digests" / safe_repo
    suffix = "" if lang == "en" else f".{lang}"
    return {
        "md": base / f"{label}{suffix}.md",
        "html": base / f"{label}{suffix}.html",
        "json": base / f"{label}.json",
    }


def render_digest(
    digest: Digest, langs: Sequence[str], formats: Sequence[str], out_dir: Path
) -> dict[Path, str]:
    """Every requested language and format as path -> text (nothing written yet)."""
    return render_digest_data(digest.to_json(), langs, formats, out_dir)


def render_digest_data(
    data: dict[str, Any], langs: Sequence[str], formats: Sequence[str], out_dir: Path
) -> dict[Path, str]:
    """The same from a digest's JSON value (e.g. one saved by an earlier run)."""
    outputs: dict[Path, str] = {}
    for lang in langs:
        paths = digest_paths(out_dir, data["repo"], data["window"]["label"], lang)
        markdown = render_digest_markdown(data, lang)
        if "md" in formats:
            outputs[paths["md"]] = markdown
        if "html" in formats:
            outputs[paths["html"]] = render_digest_html(data, lang, markdown)
        if "json" in formats:
            outputs[paths["json"]] = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    return outputs


def load_digest_json(path: str | Path) -> dict[str, Any]:
    """A digest JSON file written by ``prreport digest`` (checked for its schema)."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"--from-json: {p} does not exist") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"--from-json: {p} is not a readable digest JSON file ({exc})") from None
    if not isinstance(data, dict) or data.get("schema") != DIGEST_SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else None
        raise ConfigError(
            f"--from-json: {p} has schema {found!r}, not {DIGEST_SCHEMA!r} (give the <week>.json of a digest)"
        )
    if parse_time(str(data.get("window", {}).get("since", ""))) is None or not data.get("repo"):
        raise ConfigError(
            f"--from-json: {p} has no repo or window: write it again with prreport digest"
        )
    return data
