"""What the commands share: their click options (one definition each), list flags, the source choice and the runner."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from typing import Any, TypeVar

import click

from prreport.config import FORMATS, LANGS, Config, load_config
from prreport.errors import ConfigError, PrreportError
from prreport.sources import Source

config_option = click.option(
    "--config",
    "config_path",
    metavar="FILE",
    help="Configuration file (default: ./config.toml if present).",
)
debug_option = click.option("--debug", is_flag=True, help="Show tracebacks for errors.")
lang_option = click.option(
    "--lang", type=click.Choice(LANGS), help="Report language (default: en)."
)
report_out_option = click.option(
    "--out", "out_dir", metavar="DIR", help="Directory for report files (default: output/)."
)
github_api_url_option = click.option(
    "--github-api-url",
    metavar="URL",
    help="GitHub API base URL (default: $GITHUB_API_URL or api.github.com).",
)
no_http_cache_option = click.option(
    "--no-cache",
    is_flag=True,
    default=None,
    help="Do not use the on-disk HTTP cache (GitHub source).",
)
fail_on_option = click.option(
    "--fail-on",
    "fail_on",
    metavar="KINDS",
    help="Exit 1 when a finding of these kinds is present, e.g. cycle.risk,guard.dropped or cycle.*.",
)


_F = TypeVar("_F", bound=Callable[..., Any])


def quiet_option(what: str) -> Callable[[_F], _F]:
    """``--quiet/-q``: do not print the Markdown ``what`` on the terminal."""
    return click.option(
        "--quiet",
        "-q",
        is_flag=True,
        default=None,
        help=f"Do not print the Markdown {what} on the terminal.",
    )


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
        from prreport.render.escape import terminal_line  # messages may quote PR-supplied names

        if debug:
            traceback.print_exc()
        click.echo(f"error: {terminal_line(exc)}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("error: interrupted", err=True)
        sys.exit(130)
    except Exception as exc:  # last resort: no traceback unless --debug
        from prreport.render.escape import terminal_line

        if debug:
            traceback.print_exc()
        click.echo(
            f"error: internal error: {type(exc).__name__}: {terminal_line(exc)} (rerun with --debug for details)",
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


def report_config(
    config_path: str | None,
    *,
    formats: str | None,
    out_dir: str | None,
    lang: str | None,
    repo: str | None,
    github_repo: str | None,
    github_api_url: str | None,
    no_cache: bool | None,
    quiet: bool | None = None,
) -> Config:
    """The configuration of a command that renders one report (``report``, ``comment``)."""
    return common_config(
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
