"""Command-line options shared by ``report``, ``comment`` and ``digest`` (one definition each)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from prreport.config import LANGS

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
