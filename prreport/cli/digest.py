"""``prreport digest``: the weekly digest of merged PRs, written as files and optionally as an issue."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from prreport.cli.options import (
    _run,
    config_option,
    debug_option,
    github_api_url_option,
    quiet_option,
    split_list,
)
from prreport.config import FORMATS, LANGS, Config, load_config
from prreport.errors import ConfigError

if TYPE_CHECKING:
    from prreport.digest.build import Digest
    from prreport.digest.jobs import Outcome
    from prreport.digest.window import Window

_HELP = """Write the digest of the PRs merged in one week (or any window).

\b
The window is an ISO week (--week 2026-W34), or --since DATE --until DATE
(both days included), by default the last full ISO week in UTC. PRs are the
"(#N)" squash commits and "Merge pull request #N" commits on HEAD's first-
parent line (--repo), or the closed PRs merged in the window (--github).
Each PR is analysed like 'prreport N'; results are cached by content, so a
re-run or an overlapping window only analyses what is new.

\b
Files: <out>/digests/<owner-name>/<week>.md, .html, .json (.zh.md, .zh.html).
With --publish issue, one issue per week is created or updated in place
(found by a hidden marker); the token comes from GITHUB_TOKEN (or GH_TOKEN).

\b
Examples:
  prreport digest --repo ~/src/sglang --week 2026-W34
  prreport digest --github sgl-project/sglang --lang en,zh
  prreport digest --github OWNER/NAME --publish issue     (in Actions)
  prreport digest --from-json out/digests/o-n/2026-W34.json --github o/n --publish issue
"""


def _show_progress() -> bool:
    """A progress bar only for a person at a terminal (never in CI logs)."""
    ci = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
    return sys.stderr.isatty() and not ci


@click.command("digest", help=_HELP)
@click.option(
    "--week", metavar="YYYY-Www", help="ISO week, e.g. 2026-W34 (default: the last full week, UTC)."
)
@click.option("--since", metavar="DATE", help="First day of the window (with --until).")
@click.option("--until", metavar="DATE", help="Last day of the window, included (with --since).")
@click.option(
    "--repo", "repo", metavar="PATH", help="Local git repository (default: current directory)."
)
@click.option(
    "--github", "github_repo", metavar="OWNER/NAME", help="Read the merged PRs from GitHub."
)
@github_api_url_option
@click.option(
    "--lang",
    "langs",
    metavar="LIST",
    help="Languages, comma-separated: en, zh (default: the configured one).",
)
@click.option(
    "--format",
    "formats",
    metavar="LIST",
    help="Comma-separated formats: md, html, json (default: all three).",
)
@click.option(
    "--out",
    "out_dir",
    metavar="DIR",
    help="Directory under which digests/ is written (default: output/).",
)
@click.option(
    "--workers", type=int, metavar="N", help="PRs analysed at once (default: digest.workers)."
)
@click.option("--cache-dir", metavar="DIR", help="Analysis cache (default: digest.cache_dir).")
@click.option("--no-cache", is_flag=True, help="Analyse every PR again; read and write no cache.")
@click.option(
    "--publish",
    type=click.Choice(["issue"]),
    help="Also create or update this week's digest issue.",
)
@click.option(
    "--from-json",
    "from_json",
    metavar="FILE",
    help="Render (and --publish) a digest JSON written earlier; no analysis.",
)
@config_option
@quiet_option("digest")
@debug_option
def digest_cmd(
    week: str | None,
    since: str | None,
    until: str | None,
    repo: str | None,
    github_repo: str | None,
    github_api_url: str | None,
    langs: str | None,
    formats: str | None,
    out_dir: str | None,
    workers: int | None,
    cache_dir: str | None,
    no_cache: bool,
    publish: str | None,
    from_json: str | None,
    config_path: str | None,
    quiet: bool | None,
    debug: bool,
) -> None:
    """Write the weekly digest."""
    # Long: click passes all 17 arguments and options as parameters; the work is in body() and helpers.

    def body() -> int:
        from prreport.digest.build import with_workers
        from prreport.digest.render import load_digest_json, render_digest_data
        from prreport.digest.window import resolve_window
        from prreport.output import write_all

        if github_repo and repo:
            raise ConfigError(
                "--repo and --github are exclusive: pick the local clone or the GitHub repository"
            )
        lang_list = split_list(langs, LANGS, "--lang")
        format_list = split_list(formats, FORMATS, "--format") or FORMATS
        config = load_config(
            config_path,
            overrides={
                "report": {
                    "out_dir": out_dir,
                    "quiet": quiet,
                    "lang": lang_list[0] if lang_list else None,
                },
                "git": {"repo": repo},
                "github": {"repo": github_repo, "api_url": github_api_url},
            },
        )
        if repo:
            # An explicit local repository wins over a [github] repo set in config.toml.
            config = dataclasses.replace(config, github=dataclasses.replace(config.github, repo=""))
        config = with_workers(config, workers, cache_dir)
        source = "github" if config.github.repo else "git"
        if publish and source != "github":
            raise ConfigError(
                "--publish issue needs the GitHub repository: add --github OWNER/NAME"
            )
        langs_used = lang_list or (config.report.lang,)
        out = Path(config.report.out_dir)
        if from_json:
            if week or since or until:
                raise ConfigError(
                    "--from-json takes the window from the file: drop --week/--since/--until"
                )
            data = load_digest_json(from_json)
            outputs = render_digest_data(data, langs_used, format_list, out)
        else:
            window = resolve_window(week, since, until)
            data, outputs = _analyse(config, window, source, not no_cache, langs_used, format_list)
        write_all(outputs)
        if publish:
            _publish(config, data, langs_used[0], outputs)
        if not config.report.quiet:
            md = next((t for p, t in outputs.items() if p.suffix == ".md"), None)
            if md is not None:
                from prreport.render.escape import terminal_text

                click.echo(terminal_text(md), nl=False)
        for p in outputs:
            click.echo(f"wrote {p}", err=True)
        return 0

    _run(debug, body)


def _analyse(
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
    click.echo(
        f"digest {digest.window.label}: {t['prs']} PRs ({s['analysed']} analysed, {s['cached']} from cache, "
        f"{t['not_analysed']} not analysed)",
        err=True,
    )
    return digest.to_json(), outputs


def _with_progress(config: Config, window: Window, source: str, cache: bool) -> Digest:
    """Run the digest, with a rich progress bar when a person is watching."""
    from prreport.digest.build import make_digest

    if not _show_progress():
        return make_digest(config, window, source=source, cache=cache)
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


def _publish(config: Config, data: dict[str, Any], lang: str, outputs: dict[Path, str]) -> None:
    """Create or update the window's digest issue from the rendered Markdown."""
    from prreport.digest.render import digest_paths
    from prreport.publish.digest_issue import publish_digest_issue
    from prreport.render import render_digest_markdown
    from prreport.series import parse_time

    label = data["window"]["label"]
    wanted = digest_paths(Path(config.report.out_dir), data["repo"], label, lang)["md"]
    markdown = outputs.get(wanted) or render_digest_markdown(data, lang)
    since = parse_time(data["window"]["since"])
    assert since is not None  # checked when the digest was built or loaded
    token = os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN") or ""
    repo = config.github.repo or data["repo"]
    result = publish_digest_issue(config.github, token, repo, label, since, markdown, lang)
    click.echo(f"{result.action} issue #{result.number} {result.url}".rstrip(), err=True)
