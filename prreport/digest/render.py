"""The digest's files: where they go, rendered per language and format, and read back (``--from-json``)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from prreport.digest.load import load_digest_json
from prreport.digest.summary import Digest, report_key
from prreport.render import render_digest_html, render_digest_markdown, render_digest_report_html

__all__ = [
    "digest_paths",
    "load_digest_json",
    "render_digest",
    "render_digest_data",
    "report_paths",
    "safe_name",
    "with_links",
]


def safe_name(repo: str) -> str:
    """A repository (or organisation) name as one path component."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", repo).strip("-") or "repo"


def _suffix(lang: str) -> str:
    return "" if lang == "en" else f".{lang}"


def digest_paths(out_dir: Path, repo: str, label: str, lang: str) -> dict[str, Path]:
    """``<out>/digests/<repo>/<week>.{md,html,json}`` (``.zh.md``/``.zh.html`` for Chinese)."""
    base = out_dir / "digests" / safe_name(repo)
    suffix = _suffix(lang)
    return {
        "md": base / f"{label}{suffix}.md",
        "html": base / f"{label}{suffix}.html",
        "json": base / f"{label}.json",
    }


def report_paths(out_dir: Path, repo: str, label: str, number: int, lang: str) -> dict[str, Path]:
    """One PR's report beside its repository's digest: ``<out>/digests/<repo>/<week>/pr-<N>.md|.html``."""
    base = out_dir / "digests" / safe_name(repo) / label
    suffix = _suffix(lang)
    return {"md": base / f"pr-{number}{suffix}.md", "html": base / f"pr-{number}{suffix}.html"}


def with_links(data: dict[str, Any], lang: str, fmt: str | None) -> dict[str, Any]:
    """The digest with each PR's ``report_href``: its report relative to the digest file in
    ``fmt`` (``md`` or ``html``), or none (``fmt`` None: e.g. an issue, where files are not)."""
    label = data["window"]["label"]
    prs = []
    for p in data["prs"]:
        href = ""
        if fmt and p.get("number") is not None:
            target = f"{safe_name(p.get('repo') or data['repo'])}/{label}/pr-{p['number']}"
            href = f"../{target}{_suffix(lang)}.{fmt}"
        prs.append({**p, "report_href": href})
    return {**data, "prs": prs}


def render_digest(
    digest: Digest, langs: Sequence[str], formats: Sequence[str], out_dir: Path
) -> dict[Path, str]:
    """Every requested language and format as path -> text, each PR's report included (nothing written yet)."""
    outputs = render_digest_data(digest.to_json(), langs, formats, out_dir)
    label = digest.window.label
    for p in digest.prs:
        rendered = digest.reports.get(report_key(p["repo"], p["number"])) or {}
        for lang in langs:
            markdown = rendered.get(lang)
            if markdown is None or p["number"] is None:
                continue
            paths = report_paths(out_dir, p["repo"], label, p["number"], lang)
            if "md" in formats:
                outputs[paths["md"]] = markdown
            if "html" in formats:
                title = f"{p['repo']} #{p['number']}"
                outputs[paths["html"]] = render_digest_report_html(markdown, title, lang)
    return outputs


def render_digest_data(
    data: dict[str, Any], langs: Sequence[str], formats: Sequence[str], out_dir: Path
) -> dict[Path, str]:
    """The digest files from a digest's JSON value (e.g. one saved by an earlier run, or merged)."""
    outputs: dict[Path, str] = {}
    for lang in langs:
        paths = digest_paths(out_dir, data["repo"], data["window"]["label"], lang)
        if "md" in formats:
            outputs[paths["md"]] = render_digest_markdown(with_links(data, lang, "md"), lang)
        if "html" in formats:
            outputs[paths["html"]] = render_digest_html(with_links(data, lang, "html"), lang)
        if "json" in formats:
            outputs[paths["json"]] = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    return outputs
