"""The ``prreport`` click group: ``prreport TARGET`` runs the report command, the rest are subcommands."""

from __future__ import annotations

import click

from prreport import __version__
from prreport.cli.comment import comment_cmd
from prreport.cli.digest import digest_cmd
from prreport.cli.report import REPORT_HELP, report_cmd


class _DefaultGroup(click.Group):
    """A group whose first argument, when not a subcommand, goes to the ``report`` command."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] == "--version":
            return super().parse_args(ctx, args)
        if not args or args[0] not in self.commands:
            args = ["report", *args]
        return super().parse_args(ctx, args)


@click.group(
    cls=_DefaultGroup, help=REPORT_HELP, context_settings={"help_option_names": ["-h", "--help"]}
)
@click.version_option(__version__, prog_name="prreport")
def main() -> None:
    """prreport command group."""


main.add_command(report_cmd)
main.add_command(comment_cmd)
main.add_command(digest_cmd)
