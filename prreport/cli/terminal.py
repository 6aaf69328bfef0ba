"""The short summary printed on a terminal: the report's head, coloured by rich.

The words are the report's own (its title, executive summary and risk tags, rendered by the
templates); this module only picks those sections and lets rich colour the Markdown.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prreport.report.model import ReportModel


def summary_markdown(markdown: str, written: list[Path]) -> str:
    """The title, the executive summary and the risk tags of a Markdown report, and where it is."""
    sections = re.split(r"(?m)^(?=# )", markdown)
    head = [s for s in sections if s.strip()][:2]
    text = "".join(head).replace("\n---\n", "\n").rstrip()
    tags = re.search(r"(?m)^- (Risk tags|风险标记)[:：].*$", markdown)
    if tags:
        text += "\n" + tags.group(0)
    if written:
        text += "\n\n" + "\n".join(f"- `{p}`" for p in written)
    return text + "\n"


# Severity colours of the summary's risk line (rich drops them off a terminal and under NO_COLOR).
SEVERITY_STYLES = {"high": "bold red", "medium": "yellow", "low": "cyan"}


def show(
    markdown: str,
    written: list[Path],
    mode: str,
    risks: list[tuple[str, str]] | None = None,
) -> None:
    """Print the report on stdout: ``md`` the whole Markdown, ``summary`` its head coloured,
    ``auto`` the summary on a terminal and the Markdown otherwise (pipes keep the old output).
    ``risks`` (id, severity) are listed under the summary in their severity's colour."""
    import click

    from prreport.render.escape import terminal_text

    # PR-supplied text may carry control sequences: spelt out, never sent to the terminal.
    markdown = terminal_text(markdown)
    if mode == "auto":
        mode = "summary" if sys.stdout.isatty() else "md"
    if mode == "md":
        click.echo(markdown, nl=False)
        return
    from rich.console import Console
    from rich.markdown import Markdown
    from rich.text import Text

    console = Console(highlight=False)
    console.print(Markdown(summary_markdown(markdown, written)))
    if risks:
        line = Text("Risks: ")
        for i, (rid, severity) in enumerate(risks):
            if i:
                line.append(" · ")
            line.append(f"{rid} ({severity})", style=SEVERITY_STYLES.get(severity, ""))
        console.print(line)


def emit_annotations(model: ReportModel, enabled: bool | None, *, err: bool = False) -> None:
    """Print the risks' spots as workflow commands when asked (``--annotations``) or, by
    default, inside GitHub Actions; on stderr when stdout carries a document (``--out -``)."""
    if enabled is None:
        enabled = os.environ.get("GITHUB_ACTIONS") == "true"
    if not enabled:
        return
    import click

    from prreport.render.annotations import MAX_PER_LEVEL, annotation_lines

    lines, left_out = annotation_lines(model)
    for line in lines:
        click.echo(line, err=err)
    if left_out:
        click.echo(
            f"prreport: {left_out} more spots not annotated "
            f"(GitHub shows {MAX_PER_LEVEL} per level); see the report",
            err=err,
        )
