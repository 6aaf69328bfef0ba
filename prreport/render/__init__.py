"""Renderers: Markdown (Jinja templates per language), HTML (markdown-it-py page), JSON (the model)."""

from prreport.render.html import (
    markdown_to_html_fragment,
    render_digest_html,
    render_digest_report_html,
    render_html,
)
from prreport.render.json import render_json
from prreport.render.markdown import render_digest_markdown, render_markdown
from prreport.render.motivation import extract_motivation
from prreport.render.templates import environment, templates_dir
from prreport.render.view import report_view, summary_texts

__all__ = [
    "environment",
    "extract_motivation",
    "markdown_to_html_fragment",
    "render_digest_html",
    "render_digest_markdown",
    "render_digest_report_html",
    "render_html",
    "render_json",
    "render_markdown",
    "report_view",
    "summary_texts",
    "templates_dir",
]
