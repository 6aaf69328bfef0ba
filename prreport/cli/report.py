"""``prreport TARGET``: write the report for a PR, a revision or a range (Markdown, HTML, JSON)."""

from __future__ import annotations

from pathlib import Path

import click

from prreport.bundle import bundle_file_bytes
from prreport.cli.options import (
    _run,
    config_option,
    debug_option,
    fail_on_option,
    github_api_url_option,
    lang_option,
    make_source,
    no_http_cache_option,
    quiet_option,
    report_config,
    report_out_option,
)
from prreport.errors import ConfigError
from prreport.output import write_all, write_atomic
from prreport.render.escape import terminal_line, terminal_text

REPORT_HELP = """Write the review report for a refactor pull request.

\b
TARGET is a PR number (35980 or #35980), a revision (HEAD, a SHA, a tag)
or a range A..B. With the local git source (the default) a PR number is
found as the commit whose subject ends in "(#N)" (squash merge) or that
starts with "Merge pull request #N".

\b
Examples:
  prreport HEAD --repo .                  report on the last commit
  prreport 35980 --repo ~/src/sglang      report on a squash-merged PR
  prreport 35980 --github sgl-project/sglang   (GITHUB_TOKEN from the env)
  prreport --bundle saved.json --format md,html,json
"""


_EPILOG = "Other commands: " + ", ".join(
    f"'prreport {c} --help'" for c in ("report", "comment", "digest")
)


@click.command("report", help=REPORT_HELP, epilog=_EPILOG)
@click.argument("target", required=False)
@click.option(
    "--repo",
    "repo",
    metavar="PATH",
    help="Local git repository (default: current directory; bare clones work).",
)
@click.option(
    "--github",
    "github_repo",
    metavar="OWNER/NAME",
    help="Fetch the PR from GitHub instead of a local clone.",
)
@github_api_url_option
@no_http_cache_option
@click.option(
    "--bundle",
    "bundle_path",
    metavar="FILE",
    help="Analyse a bundle saved with --save-bundle (no repository needed).",
)
@click.option(
    "--save-bundle",
    metavar="FILE",
    help="Also save the fetched bundle as JSON (gzip-compressed if FILE ends in .gz).",
)
@click.option(
    "--format",
    "formats",
    metavar="LIST",
    help="Comma-separated output formats: md, html, json (default: md,json).",
)
@report_out_option
@lang_option
@config_option
@quiet_option("report")
@fail_on_option
@debug_option
def report_cmd(
    target: str | None,
    repo: str | None,
    github_repo: str | None,
    github_api_url: str | None,
    no_cache: bool | None,
    bundle_path: str | None,
    save_bundle: str | None,
    formats: str | None,
    out_dir: str | None,
    lang: str | None,
    config_path: str | None,
    quiet: bool | None,
    fail_on: str | None,
    debug: bool,
) -> None:
    """Write the report for TARGET."""
    # Long: click passes all 14 arguments and options as parameters; the work is in body().

    def body() -> int:
        from prreport.gate import gate_failure, parse_fail_on
        from prreport.pipeline import analyse, gather, render_outputs

        fail_kinds = parse_fail_on(fail_on)

        config = report_config(
            config_path,
            formats=formats,
            out_dir=out_dir,
            lang=lang,
            repo=repo,
            github_repo=github_repo,
            github_api_url=github_api_url,
            no_cache=no_cache,
            quiet=quiet,
        )
        if github_repo and repo:
            raise ConfigError(
                "--repo and --github are exclusive: pick the local clone or the GitHub repository"
            )
        if repo:
            # An explicit local repository wins over a [github] repo set in config.toml.
            import dataclasses

            config = dataclasses.replace(config, github=dataclasses.replace(config.github, repo=""))
        source = make_source(target, bundle_path, config)
        try:
            bundle = gather(source, config)
        finally:
            source.close()
        analysis = analyse(bundle, config, debug=debug)
        for warning in analysis.warnings():
            click.echo(terminal_line(warning), err=True)
        outputs = render_outputs(analysis, config, Path(config.report.out_dir))
        if save_bundle:
            write_atomic(Path(save_bundle), bundle_file_bytes(bundle, save_bundle))
        write_all(outputs)
        if not config.report.quiet:
            md = next((t for p, t in outputs.items() if p.suffix == ".md"), None)
            if md is None:
                from prreport.render import render_markdown

                md = render_markdown(analysis.model, config.report.lang)
            click.echo(terminal_text(md), nl=False)
        for p in outputs:
            click.echo(f"wrote {p}", err=True)
        failure = gate_failure(fail_kinds, analysis.live_kinds())
        if failure:
            click.echo(failure, err=True)
            return 1
        return 0

    _run(debug, body)
