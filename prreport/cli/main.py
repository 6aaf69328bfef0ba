"""The ``prreport`` click group: ``prreport TARGET`` runs the report command, the rest are subcommands."""

from __future__ import annotations

import difflib
import re
import sys
import textwrap

import click

from prreport.cli.comment import comment_cmd
from prreport.cli.digest import digest_cmd
from prreport.cli.options import HELP_SETTINGS, fail_on_vocabulary, version_option
from prreport.cli.report import REPORT_HELP, report_cmd
from prreport.gate import VERDICTS

# What a report TARGET looks like, so that a near-miss of a command name that is also a
# plausible revision (a SHA, a range, a path-like branch) is never taken for a typo.
_TARGET_LIKE = re.compile(r"^#?\d+$|^[0-9a-f]{7,40}$|\.\.|[/~^@:]")


class _DefaultGroup(click.Group):
    """A group whose first argument, when not a subcommand, goes to the ``report`` command."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args:
            click.echo(self.get_help(ctx))
            ctx.exit(2)
        if args[0] in ("-V", "--version", "-h", "--help"):
            return super().parse_args(ctx, args)
        if args[0] not in self.commands:
            _reject_command_typo(args[0], sorted(self.commands))
            args = ["report", *args]
        return super().parse_args(ctx, args)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage("prreport", "[TARGET] [OPTIONS]  |  prreport COMMAND [ARGS]...")

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # The report command's options are the group's: `prreport TARGET --format …`.
        with click.Context(report_cmd, info_name="prreport", **HELP_SETTINGS) as sub:
            report_cmd.format_options(sub, formatter)
        self.format_commands(ctx, formatter)


def _reject_command_typo(word: str, commands: list[str]) -> None:
    """``prreport diggest``: one error line with the command meant, not "unknown revision"."""
    if word.startswith("-") or _TARGET_LIKE.search(word):
        return
    close = difflib.get_close_matches(word.lower(), commands, n=1, cutoff=0.75)
    if close:
        click.echo(
            f"error: unknown command {word!r}: did you mean `{close[0]}`? "
            f"(for a revision named so: prreport report {word})",
            err=True,
        )
        sys.exit(2)


@click.group(cls=_DefaultGroup, help=REPORT_HELP, context_settings=HELP_SETTINGS)
@version_option
def main() -> None:
    """prreport command group."""


@click.command("help", context_settings=HELP_SETTINGS)
@click.argument("topic", required=False, metavar="[COMMAND|fail-on]")
@click.pass_context
def help_cmd(ctx: click.Context, topic: str | None) -> None:
    """Show the help of prreport, of a command, or what --fail-on accepts."""
    group = ctx.parent.command if ctx.parent else main
    assert isinstance(group, click.Group)
    parent = ctx.parent or ctx
    if topic is None:
        click.echo(group.get_help(parent))
        return
    if topic == "fail-on":
        click.echo(_fail_on_help())
        return
    command = group.get_command(parent, topic)
    if command is None:
        close = difflib.get_close_matches(topic, [*group.list_commands(parent), "fail-on"], n=1)
        hint = f"did you mean `{close[0]}`? " if close else ""
        click.echo(
            f"error: no help topic {topic!r}: {hint}(topics: report, comment, digest, help, fail-on)",
            err=True,
        )
        sys.exit(2)
    with click.Context(command, info_name=f"prreport {topic}", **HELP_SETTINGS) as sub:
        click.echo(command.get_help(sub))


def _fail_on_help() -> str:
    """Every item ``--fail-on`` accepts, one group a paragraph."""
    vocab = fail_on_vocabulary()
    levels = ", ".join(f"risk:{lv}" for lv in vocab.levels)
    groups = [
        ("finding kinds:", ", ".join(vocab.kinds)),
        ("families:", ", ".join(vocab.families())),
        ("risk tags:", ", ".join(vocab.risk_tags)),
        ("risk levels:", f"{levels} (a level or any higher one)"),
        (
            "verdicts:",
            ", ".join(f"verdict:{v}" for v in VERDICTS)
            + ", verdict:not-pure (any verdict but pure-refactor)",
        ),
    ]
    lines = ["--fail-on LIST exits 1 (after writing the report) when the report has any of:", ""]
    for title, items in groups:
        lines += textwrap.wrap(
            items,
            78,
            initial_indent=f"{title:<16}",
            subsequent_indent=" " * 16,
            break_on_hyphens=False,
        )
    lines += ["", "Example: prreport 35980 --fail-on cycle.risk,guard.dropped,risk:high"]
    lines += [
        "         prreport 35980 --fail-on verdict:behavior-change,verdict:refactor-with-behavior-change"
    ]
    return "\n".join(lines)


main.add_command(report_cmd)
main.add_command(comment_cmd)
main.add_command(digest_cmd)
main.add_command(help_cmd)
