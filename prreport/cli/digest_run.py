"""What the digest commands do once their options are read: build the window's digest (with a
progress display for a person, a line per PR in CI logs), write or print its files, publish the
digest issue, and apply ``--fail-on`` to its PRs."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from prreport.cli.options import to_stdout
from prreport.config import Config
from prreport.gate import FailOn, verdict_kind

if TYPE_CHECKING:
    from prreport.digest.jobs import Outcome
    from prreport.digest.summary import Digest
    from prreport.digest.window import Window


def _show_progress() -> bool:
    """A progress bar only for a person at a terminal (never in CI logs)."""
    ci = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
    return sys.stderr.isatty() and not ci


def finish(
    config: Config,
    data: dict[str, Any],
    outputs: dict[Path, str],
    out_dir: str | None,
    publish_to: str | None,
    lang: str,
    gate: FailOn,
) -> int:
    """Write the files (or print them: ``--out -``), publish the issue, say what was written, gate."""
    from prreport.output import write_all

    if not to_stdout(out_dir, outputs):
        write_all(outputs)
    if publish_to:
        _publish(config, data, lang, publish_to)
    if not config.report.quiet and out_dir != "-":
        md = next((t for p, t in outputs.items() if p.suffix == ".md"), None)
        if md is not None:
            from prreport.render.escape import terminal_text

            click.echo(terminal_text(md), nl=False)
    if out_dir != "-" and not config.report.quiet:  # -q: only warnings and errors
        for p in outputs:
            click.echo(f"wrote {p}", err=True)
    return _gate(gate, data)


def _gate(gate: FailOn, data: dict[str, Any]) -> int:
    """``--fail-on`` over every PR of the digest: one ``fail-on:`` line per PR that trips it."""
    failed = 0
    # An organisation digest names the repository too: numbers repeat across repositories.
    several = len({pr.get("repo") for pr in data.get("prs") or ()}) > 1
    for pr in data.get("prs") or ():
        # The live kinds, as the report's own --fail-on sees them: a behaviour change that a
        # proven refactor accounts for is not one (digests written before had only kind_counts).
        counts = pr.get("live_kind_counts", pr.get("kind_counts")) or {}
        kinds = [k for k, n in counts.items() for _ in range(int(n))]
        if pr.get("verdict"):
            kinds.append(verdict_kind(str(pr["verdict"])))
        risks = [(str(r.get("id")), str(r.get("severity"))) for r in pr.get("risks") or ()]
        hits = gate.hits(kinds, risks)
        if hits:
            failed += 1
            name = f"{pr['repo']}#{pr.get('number')}" if several else f"#{pr.get('number')}"
            click.echo(f"fail-on: {name} has {', '.join(hits)}", err=True)
    if failed:
        click.echo(
            f"fail-on: {failed} PR(s) have what --fail-on {','.join(gate.items)} lists", err=True
        )
        return 1
    return 0


def analyse_window(
    config: Config,
    window: Window,
    source: str,
    cache: bool,
    langs: Sequence[str],
    formats: Sequence[str],
) -> tuple[dict[str, Any], dict[Path, str]]:
    """Build the window's digest, say what it took, and render it: (JSON value, path -> text)."""
    from prreport.digest.render import render_digest

    digest = _with_progress(config, window, source, cache)
    outputs = render_digest(digest, langs, formats, Path(config.report.out_dir))
    t, s = digest.totals, digest.stats
    if not config.report.quiet:
        click.echo(
            f"digest {digest.window.label}: {t['prs']} PRs ({s['analysed']} analysed, "
            f"{s['cached']} from cache, {t['not_analysed']} not analysed)",
            err=True,
        )
    return digest.to_json(), outputs


def _with_progress(config: Config, window: Window, source: str, cache: bool) -> Digest:
    """Run the digest, with a rich progress bar when a person is watching."""
    from prreport.digest.build import make_digest

    if config.report.quiet:  # -q: no progress, only warnings and errors
        return make_digest(config, window, source=source, cache=cache)
    if not _show_progress():
        # CI logs: one line per PR, so a slow or stuck run shows where it is.
        def log_line(done: int, total: int, outcome: Outcome) -> None:
            how = "cached" if outcome.cached else "not analysed" if outcome.error else "analysed"
            click.echo(
                f"digest {window.label}: [{done}/{total}] #{outcome.pr.number} {how}", err=True
            )

        return make_digest(config, window, source=source, cache=cache, on_progress=log_line)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("[bold]digest {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        transient=True,
        console=None,
    ) as progress:
        task = progress.add_task(window.label, total=None)

        def on_start(total: int) -> None:
            progress.update(task, total=total)

        def on_progress(done: int, total: int, outcome: Outcome) -> None:
            progress.update(
                task, completed=done, description=f"{window.label} #{outcome.pr.number}"
            )

        return make_digest(
            config, window, source=source, cache=cache, on_start=on_start, on_progress=on_progress
        )


def _publish(config: Config, data: dict[str, Any], lang: str, repo: str) -> None:
    """Create or update the window's digest issue in ``repo`` (no links to files: an issue has none)."""
    from prreport.digest.render import with_links
    from prreport.publish.digest_issue import publish_digest_issue
    from prreport.render import render_digest_markdown
    from prreport.series import parse_time

    label = data["window"]["label"]
    markdown = render_digest_markdown(with_links(data, lang, None), lang)
    since = parse_time(data["window"]["since"])
    assert since is not None  # checked when the digest was built or loaded
    token = os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN") or ""
    result = publish_digest_issue(
        config.github, token, repo, label, since, markdown, lang, digest_repo=data["repo"]
    )
    if not config.report.quiet:
        click.echo(f"{result.action} issue #{result.number} {result.url}".rstrip(), err=True)
