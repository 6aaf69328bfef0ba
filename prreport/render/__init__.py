"""Renderers: Markdown (Jinja templates per language), HTML (markdown-it-py page), JSON (the model).

Names are imported on first use (PEP 562): a JSON-only report never imports the HTML
renderer's libraries (pygments, nh3).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from prreport.render.html import (
        markdown_to_html_fragment,
        render_digest_html,
        render_digest_report_html,
        render_html,
    )
    from prreport.render.json import render_json
    from prreport.render.markdown import render_comment, render_digest_markdown, render_markdown
    from prreport.render.motivation import extract_motivation
    from prreport.render.sarif import render_sarif
    from prreport.render.templates import environment, templates_dir
    from prreport.render.view import report_view, summary_texts

_HOME = {
    "environment": "templates",
    "extract_motivation": "motivation",
    "markdown_to_html_fragment": "html",
    "render_comment": "markdown",
    "render_digest_html": "html",
    "render_digest_report_html": "html",
    "render_digest_markdown": "markdown",
    "render_html": "html",
    "render_json": "json",
    "render_markdown": "markdown",
    "render_sarif": "sarif",
    "report_view": "view",
    "summary_texts": "view",
    "templates_dir": "templates",
}
__all__ = [
    "environment",
    "extract_motivation",
    "markdown_to_html_fragment",
    "render_comment",
    "render_digest_html",
    "render_digest_markdown",
    "render_digest_report_html",
    "render_html",
    "render_json",
    "render_markdown",
    "render_sarif",
    "report_view",
    "summary_texts",
    "templates_dir",
]


def __getattr__(name: str) -> Any:
    """Import the renderer module that defines ``name`` on first use."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
