"""Command line: ``prreport TARGET`` (report), plus subcommands. The only module that prints or exits."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from prreport import __version__
from prreport.bundle import bundle_file_bytes
from prreport.cli.options import (
    config_option,
    debug_option,
    fail_on_option,
    lang_option,
    quiet_option,
    report_out_option,
)
from prreport.config import FORMATS, Config, load_config
from prreport.errors import ConfigError, PrreportError
from prreport.output import write_all, write_atomic
from prreport.sources import Source

_HELP = """Write the review report for a refactor pull request.

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


class _DefaultGroup(click.Group):
    """A group whose first argument, when not a subcommand, goes to the ``report`` command."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] == "--version":
            return super().parse_args(ctx, args)
        if not args or args[0] not in self.commands:
            args = ["report", *args]
        return super().parse_args(ctx, args)


def split_list(value: str | None, allowed: tuple[str, ...], flag: str) -> tuple[str, ...] | None:
    """Parse a comma-separated flag value against its allowed items (None when not given)."""
    if value is None:
        return None
    items = tuple(v.strip() for v in value.split(",") if v.strip())
    bad = [v for v in items if v not in allowed]
    if bad or not items:
        raise ConfigError(
            f"{flag}: expected a comma-separated list of {', '.join(allowed)}, got {value!r}"
        )
    return tuple(dict.fromkeys(items))


def _run(debug: bool, body: Callable[[], int]) -> None:
    """Run a command body, turning user errors into one line on stderr and exit status 2."""
    try:
        code = body()
    except PrreportError as exc:
        if debug:
            traceback.print_exc()
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("error: interrupted", err=True)
        sys.exit(130)
    except Exception as exc:  # last resort: no traceback unless --debug
        if debug:
            traceback.print_exc()
        click.echo(
            f"error: internal error: {type(exc).__name__}: {exc} (rerun with --debug for details)",
            err=True,
        )
        sys.exit(1)
    sys.exit(code)


def make_source(target: str | None, bundle_path: str | None, config: Config) -> Source:
    """Pick the source: a saved bundle, GitHub (when a repository is configured) or local git."""
    if bundle_path:
        from prreport.sources.bundlefile import BundleSource

        return BundleSource(bundle_path)
    if not target:
        raise ConfigError(
            "no TARGET given: pass a PR number, a revision or A..B (or --bundle FILE)"
        )
    if config.github.repo:
        from prreport.sources.github.source import GitHubSource

        return GitHubSource(target, config.github)
    from prreport.sources.git import GitSource

    return GitSource(target, config.git)


def common_config(config_path: str | None, overrides: dict[str, dict[str, Any]]) -> Config:
    """Load the configuration with CLI overrides applied last."""
    return load_config(config_path, overrides=overrides)


@click.group(
    cls=_DefaultGroup, help=_HELP, context_settings={"help_option_names": ["-h", "--help"]}
)
@click.version_option(__version__, prog_name="prreport")
def main() -> None:
    """prreport command group."""


_EPILOG = "Other commands: " + ", ".join(
    f"'prreport {c} --help'" for c in ("report", "comment", "digest")
)


@main.command("report", help=_HELP, epilog=_EPILOG)
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
@click.option(
    "--github-api-url",
    metavar="URL",
    help="GitHub API base URL (default: $GITHUB_API_URL or api.github.com).",
)
@click.option(
    "--no-cache",
    is_flag=True,
    default=None,
    help="Do not use the on-disk HTTP cache (GitHub source).",
)
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

    def body() -> int:
        from prreport.gate import gate_failure, parse_fail_on
        from prreport.pipeline import analyse, gather, render_outputs

        fail_kinds = parse_fail_on(fail_on)

        config = common_config(
            config_path,
            {
                "report": {
                    "formats": split_list(formats, FORMATS, "--format"),
                    "out_dir": out_dir,
                    "lang": lang,
                    "quiet": quiet,
                },
                "git": {"repo": repo},
                "github": {
                    "repo": github_repo,
                    "api_url": github_api_url,
                    "cache": False if no_cache else None,
                },
            },
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
        outputs = render_outputs(analysis, config, Path(config.report.out_dir))
        if save_bundle:
            write_atomic(Path(save_bundle), bundle_file_bytes(bundle, save_bundle))
        write_all(outputs)
        if not config.report.quiet:
            md = next((t for p, t in outputs.items() if p.suffix == ".md"), None)
            if md is None:
                from prreport.render import render_markdown

                md = render_markdown(analysis.model, config.report.lang)
            click.echo(md, nl=False)
        for p in outputs:
            click.echo(f"wrote {p}", err=True)
        failure = gate_failure(fail_kinds, [f.kind for f in analysis.findings])
        if failure:
            click.echo(failure, err=True)
            return 1
        return 0

    _run(debug, body)


from prreport.cli.comment import comment_cmd  # noqa: E402  (registered last: it imports from this module)

main.add_command(comment_cmd)
from prreport.cli.digest import digest_cmd  # noqa: E402

main.add_command(digest_cmd)
