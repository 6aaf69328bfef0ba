"""``prreport TARGET``: write the report for a PR, a revision or a range (Markdown, HTML, JSON)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from prreport.bundle import bundle_file_bytes
from prreport.cli.options import (
    HELP_SETTINGS,
    annotations_option,
    clone_or_github,
    config_option,
    debug_option,
    fail_on_option,
    format_option,
    github_api_url_option,
    lang_option,
    langs_of,
    make_source,
    no_http_cache_option,
    out_option,
    parse_gate,
    quiet_option,
    report_config,
    resolve_target,
    run,
    to_stdout,
    version_option,
)
from prreport.gate import gate_failure, verdict_kind
from prreport.output import write_all, write_atomic
from prreport.render.escape import terminal_line

REPORT_HELP = """Write the review report for a refactor pull request.

\b
TARGET is a PR number (35980 or #35980), a PR URL, a revision (HEAD, a
SHA, a tag) or a range A..B. With the local git source (the default) a PR
number is found as the commit whose subject ends in "(#N)" (squash merge)
or that starts with "Merge pull request #N". A PR URL, or --github, reads
the PR from the GitHub API instead.

\b
Examples:
  prreport HEAD --repo .                  report on the last commit
  prreport 35980 --repo ~/src/sglang      report on a squash-merged PR
  prreport https://github.com/sgl-project/sglang/pull/35980  (GITHUB_TOKEN)
  prreport --bundle saved.json --format md,html,json
  prreport HEAD --format json --out - | jq .summary

\b
Without TARGET in a pre-commit pre-push hook, the commits being pushed
(PRE_COMMIT_FROM_REF..PRE_COMMIT_TO_REF); see .pre-commit-hooks.yaml.

\b
Exit status: 0, or 1 when --fail-on finds what it lists (after writing
the report), or 2 for an error you can fix; 130 on Ctrl-C, 143 on
SIGTERM (nothing half written).
"""


def pushed_range(env: Mapping[str, str]) -> str | None:
    """The commits a pre-commit ``pre-push`` hook is pushing (``FROM..TO``), or None outside one.

    pre-commit sets ``PRE_COMMIT_FROM_REF``/``PRE_COMMIT_TO_REF``; a new branch's from-ref is
    the parent of its first commit not on the remote, and without one the to-ref alone is used.
    """
    to_ref = env.get("PRE_COMMIT_TO_REF", "").strip()
    if not to_ref:
        return None
    from_ref = env.get("PRE_COMMIT_FROM_REF", "").strip()
    return f"{from_ref}..{to_ref}" if from_ref and from_ref.strip("0") else to_ref


def _show_written(
    model: Any, lang: str, outputs: dict[Path, str], mode: str, risks: list[tuple[str, str]]
) -> None:
    """The report (or its summary, risks coloured) on stdout, then what was written."""
    from prreport.cli.terminal import show

    md = next((t for p, t in outputs.items() if p.suffix == ".md"), None)
    if md is None:
        from prreport.render import render_markdown

        md = render_markdown(model, lang)
    show(md, list(outputs), mode, risks)
    for p in outputs:
        click.echo(f"wrote {p}", err=True)


def _target_and_source(
    target: str | None,
    bundle_path: str | None,
    repo: str | None,
    github_repo: str | None,
    github_api_url: str | None,
) -> tuple[str | None, str | None, str | None]:
    """(revision or PR number, GitHub OWNER/NAME or None for the clone, API URL): TARGET (else
    the pushed range in a pre-push hook), a PR URL taken apart, its clone used when it is one."""
    given = target if target is not None or bundle_path else pushed_range(os.environ)
    rev, gh_repo, api_url = resolve_target(given, github_repo, github_api_url)
    from_url = any(v and "://" in v for v in (given, github_repo))
    return rev, clone_or_github(repo, gh_repo, from_url), api_url


@click.command("report", help=REPORT_HELP, context_settings=HELP_SETTINGS)
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
    help="Read the PR from the GitHub API instead of a local clone (OWNER/NAME or a PR URL).",
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
@format_option("report.formats, md,json", "md, html, json, sarif")
@out_option("files are named <owner>-<name>-pr-<N> or -rev-<short sha>")
@click.option(
    "--name",
    "name",
    metavar="NAME",
    help="Use NAME instead of <owner>-<name> (from the origin remote) in the file names.",
)
@click.option(
    "--print",
    "print_mode",
    type=click.Choice(["auto", "summary", "md"]),
    default="auto",
    show_default=True,
    help="What to print on stdout: the coloured summary (a terminal's default), or the whole Markdown (a pipe's default).",
)
@lang_option
@config_option
@quiet_option("report")
@fail_on_option
@annotations_option
@debug_option
@version_option
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
    name: str | None,
    print_mode: str,
    langs: str | None,
    config_path: str | None,
    quiet: bool | None,
    fail_on: str | None,
    annotations: bool | None,
    debug: bool,
) -> None:
    """Write the report for TARGET."""
    # Long: click passes all 17 arguments and options as parameters; the work is in body().

    def body() -> int:
        from prreport.pipeline import analyse, gather, render_outputs

        gate = parse_gate(fail_on)
        lang_list = langs_of(langs)
        rev, gh_repo, api_url = _target_and_source(
            target, bundle_path, repo, github_repo, github_api_url
        )
        config = report_config(
            config_path,
            formats=formats,
            out_dir=out_dir,
            langs=lang_list,
            repo=repo,
            github_repo=gh_repo,
            github_api_url=api_url,
            no_cache=no_cache,
            quiet=quiet,
        )
        source = make_source(rev, bundle_path, config)
        from prreport.cli.spinner import spinning, wanted

        with spinning("analysing…", wanted(config.report.quiet) and not debug):
            try:
                gathered = gather(source, config)
            finally:
                source.close()
            analysis = analyse(gathered, config, debug=debug)
        for warning in analysis.warnings():
            click.echo(terminal_line(warning), err=True)
        outputs: dict[Path, str] = {}
        for lang in lang_list or (config.report.lang,):
            lang_config = dataclasses.replace(
                config, report=dataclasses.replace(config.report, lang=lang)
            )
            outputs.update(
                render_outputs(analysis, lang_config, Path(config.report.out_dir), name=name)
            )
        if save_bundle:
            write_atomic(Path(save_bundle), bundle_file_bytes(analysis.bundle, save_bundle))
        from prreport.cli.terminal import emit_annotations

        emit_annotations(analysis.model, annotations, err=out_dir == "-")
        risks = [(str(r["id"]), str(r["severity"])) for r in analysis.model.risks]
        if not to_stdout(out_dir, outputs):
            write_all(outputs)
            if not config.report.quiet:  # -q: only warnings and errors
                _show_written(analysis.model, config.report.lang, outputs, print_mode, risks)
        verdict = verdict_kind(analysis.model.summary.verdict)
        failure = gate_failure(gate, [*analysis.live_kinds(), verdict], risks)
        if failure:
            click.echo(failure, err=True)
            return 1
        return 0

    run(debug, body)
