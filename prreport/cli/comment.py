"""``prreport comment``: render the report and keep one up-to-date comment on the PR (and the job summary)."""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from prreport.cli.actions import event_head, event_pr_number, load_event, run_url, set_outputs
from prreport.cli.options import (
    HELP_SETTINGS,
    annotations_option,
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
    version_option,
)
from prreport.config import Config
from prreport.errors import ConfigError
from prreport.gate import FailOn, gate_failure, verdict_kind

_HELP = """Render the report for PR N and keep exactly one prreport comment on it.

\b
The comment carries a hidden marker with the report's hash: the first run
creates it, later runs edit it in place, and an unchanged report writes
nothing. Only a comment written by the token's own user is ever edited.
Inside GitHub Actions the report is also appended to the job summary, and
the repository, API URL and PR number come from GITHUB_REPOSITORY,
GITHUB_API_URL and the event (GITHUB_EVENT_PATH), so no argument is needed.
The token is read from GITHUB_TOKEN (or GH_TOKEN), and checked before
anything is rendered. N may be a PR URL.

\b
Examples:
  prreport comment 35980 --github sgl-project/sglang --dry-run
  prreport comment https://github.com/sgl-project/sglang/pull/35980
  prreport comment 35980 --github sgl-project/sglang --repo ~/src/sglang
  prreport comment --fail-on cycle.risk,guard.dropped       (in Actions)
  prreport comment 12 --from-file report.md --head-sha SHA  (post a rendered report)

\b
Exit status: 0, or 1 when --fail-on finds what it lists (after
posting), or 2 for an error you can fix; 130 on Ctrl-C, 143 on SIGTERM.
"""

_SHA_RE = re.compile(r"^[0-9a-f]{7,40}$")


def _parse_number(value: str | None) -> int | None:
    if value is None:
        return None
    m = re.fullmatch(r"#?([0-9]{1,10})", value.strip())
    if not m or int(m.group(1)) < 1:
        raise ConfigError(f"PR number: expected N or #N, got {value!r}")
    return int(m.group(1))


@click.command("comment", help=_HELP, context_settings=HELP_SETTINGS)
@click.argument("number", required=False, metavar="[N]")
@click.option(
    "--github",
    "github_repo",
    metavar="OWNER/NAME",
    help="Repository of the PR, OWNER/NAME or a PR URL (default: $GITHUB_REPOSITORY).",
)
@github_api_url_option
@click.option(
    "--repo",
    "repo",
    metavar="PATH",
    help="Render from this local clone instead of the GitHub API (posting still goes to --github).",
)
@click.option(
    "--target",
    "target",
    metavar="REV",
    help="With --repo: the revision or A..B to report on (default: the PR number).",
)
@click.option(
    "--bundle", "bundle_path", metavar="FILE", help="Render from a bundle saved with --save-bundle."
)
@click.option(
    "--from-file",
    "from_file",
    metavar="FILE",
    help="Post this already-rendered Markdown report (e.g. a downloaded artifact) instead of rendering.",
)
@click.option(
    "--head-sha",
    metavar="SHA",
    help="Post only if the PR's head is this commit (default in a workflow_run: the run's head_sha).",
)
@format_option("report.formats, md,json", "md, html, json, sarif")
@out_option("files are named <owner>-<name>-pr-<N>")
@lang_option
@click.option(
    "--artifact",
    metavar="NAME",
    help="Name of the uploaded artifact, for the truncation note (default: $PRREPORT_ARTIFACT).",
)
@click.option(
    "--report-url",
    metavar="URL",
    help="Where the full report is, for the truncation note (default: this workflow run).",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Print the comment that would be posted; post and write nothing.",
)
@click.option(
    "--no-post",
    is_flag=True,
    help="Render, write files and the job summary, apply --fail-on, but do not comment.",
)
@no_http_cache_option
@config_option
@quiet_option("comment")
@fail_on_option
@annotations_option
@debug_option
@version_option
def comment_cmd(**options: Any) -> None:
    """Render the report and create, update or leave alone the PR's prreport comment."""
    # click passes the arguments and options by name: one typed value holds them.
    args = _CommentArgs(**options)
    run(args.debug, lambda: _comment(args))


@dataclass(frozen=True)
class _CommentArgs:
    """The arguments and options of ``prreport comment``, as click parsed them."""

    number: str | None
    github_repo: str | None
    github_api_url: str | None
    repo: str | None
    target: str | None
    bundle_path: str | None
    from_file: str | None
    head_sha: str | None
    formats: str | None
    out_dir: str | None
    langs: str | None
    artifact: str | None
    report_url: str | None
    dry_run: bool
    no_post: bool
    no_cache: bool | None
    config_path: str | None
    quiet: bool | None
    fail_on: str | None
    annotations: bool | None
    debug: bool


def _comment(a: _CommentArgs) -> int:
    """The command's steps in order: flags and config, report, comment, summary, post, gate."""
    from prreport.publish.body import full_report_pointer
    from prreport.publish.comment import comment_body

    env = os.environ
    event = load_event(env)
    gate = parse_gate(a.fail_on)
    config, post_repo, pr_number = _setup(a, env, event, bool(gate.items))
    lang_ = config.report.lang
    written: dict[str, str] = {}
    found_kinds: list[str] = []
    found_risks: list[tuple[str, str]] = []
    if a.from_file:
        report = shown = _read_report(a.from_file)
    else:
        report, shown, written, found_kinds, found_risks, rendered_number = _render(
            config,
            post_repo,
            pr_number,
            a.repo,
            a.target,
            a.bundle_path,
            a.dry_run,
            a.debug,
            gate,
            a.annotations,
        )
        pr_number = pr_number or rendered_number

    where = full_report_pointer(
        lang_,
        run_url=a.report_url or run_url(env, event),
        artifact=a.artifact or env.get("PRREPORT_ARTIFACT", ""),
        path=written.get("md", ""),
    )
    # The comment is the top-down summary (the job summary keeps the full report); a
    # rendered file from an artifact may come from a fork: its links are made inert too.
    comment = comment_body(shown, where, lang_, untrusted=bool(a.from_file))
    outputs = {f"{k}-path": v for k, v in written.items()}
    if a.dry_run:
        _show_dry_run(comment, post_repo, pr_number, config.report.quiet)
    else:
        _deliver(a, config, report, where, comment, post_repo, pr_number, event, outputs)
    failure = gate_failure(gate, found_kinds, found_risks)
    if failure:
        click.echo(failure, err=True)
        return 1
    return 0


def _setup(
    a: _CommentArgs, env: Mapping[str, str], event: Mapping[str, Any], gates: bool
) -> tuple[Config, str, int | None]:
    """The flags checked, the configuration, the repository to post to and the PR number."""
    _check_flags(a.from_file, bool(a.repo or a.bundle_path or a.target), gates, a.head_sha)
    if a.out_dir == "-":
        raise ConfigError("--out -: comment posts the report; use 'prreport --out -' to print it")
    lang_list = langs_of(a.langs)
    number_, github_, api_url = resolve_target(a.number, a.github_repo, a.github_api_url)
    config = report_config(
        a.config_path,
        formats=a.formats,
        out_dir=a.out_dir,
        langs=lang_list,
        repo=a.repo,
        github_repo=github_,
        github_api_url=api_url,
        no_cache=a.no_cache,
        quiet=a.quiet,
    )
    post_repo = config.github.repo or env.get("GITHUB_REPOSITORY", "")
    if post_repo and post_repo.count("/") != 1:
        raise ConfigError(f"--github: expected OWNER/NAME, got {post_repo!r}")
    pr_number = _parse_number(number_) or event_pr_number(event)
    if not a.dry_run and not a.no_post:
        # Before the (slow) rendering: a run that cannot post should fail at once.
        _check_can_post(post_repo, pr_number, env)
    return config, post_repo, pr_number


def _show_dry_run(comment: str, post_repo: str, pr_number: int | None, quiet: bool) -> None:
    """Print the comment that would be posted (unless quiet), and say where it would go."""
    from prreport.publish.body import utf16_len

    dest = f"{post_repo or '<OWNER/NAME>'}#{pr_number or '<N>'}"
    if quiet:  # -q: only warnings and errors
        return
    from prreport.render.escape import terminal_text

    click.echo(terminal_text(comment), nl=False)
    click.echo(
        f"dry run: would post this comment ({utf16_len(comment):,} characters) to {dest}; nothing posted",
        err=True,
    )


def _deliver(
    a: _CommentArgs,
    config: Config,
    report: str,
    where: str,
    comment: str,
    post_repo: str,
    pr_number: int | None,
    event: Mapping[str, Any],
    outputs: dict[str, str],
) -> None:
    """Append the report to the job summary, post the comment (unless --no-post), set outputs."""
    from prreport.publish.comment import append_job_summary

    env = os.environ
    summary = append_job_summary(report, where, config.report.lang)
    if summary is not None and not config.report.quiet:
        click.echo(f"appended the report to the job summary {summary}", err=True)
    if not a.no_post:
        expect = a.head_sha or event_head(event)
        outputs.update(_post(config, post_repo, pr_number, comment, expect, env))
    set_outputs(env, outputs)


def _check_flags(from_file: str | None, renders: bool, fail_on: bool, head_sha: str | None) -> None:
    """Reject flags that do not go together, and a --head-sha that is no SHA."""
    if from_file and renders:
        raise ConfigError(
            "--from-file posts a rendered report: do not combine it with --repo, --bundle or --target"
        )
    if from_file and fail_on:
        raise ConfigError(
            "--fail-on needs the findings: use it where the report is rendered, not with --from-file"
        )
    if head_sha and not _SHA_RE.match(head_sha):
        raise ConfigError(f"--head-sha: expected a hexadecimal commit SHA, got {head_sha!r}")


def _read_report(from_file: str) -> str:
    """The already-rendered Markdown report of ``--from-file``."""
    try:
        return Path(from_file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"--from-file {from_file}: cannot read it as UTF-8 text ({exc})"
        ) from None


def _post(
    config: Config,
    post_repo: str,
    pr_number: int | None,
    comment: str,
    expect: str | None,
    env: Mapping[str, str],
) -> dict[str, str]:
    """Create, update or leave alone the PR's comment; returns the action's outputs."""
    from prreport.publish.comment import CommentPublisher

    assert pr_number is not None  # checked by _check_can_post
    token = env.get("GITHUB_TOKEN") or env.get("GH_TOKEN") or ""
    publisher = CommentPublisher(post_repo, token, config.github)
    try:
        result = publisher.publish(pr_number, comment, expect_head=expect)
    finally:
        publisher.close()
    verb = {"created": "created", "updated": "updated", "unchanged": "left unchanged"}[
        result.action
    ]
    if not config.report.quiet:
        click.echo(
            f"{verb} comment {result.comment_id} on {post_repo}#{pr_number} as {result.login} {result.url}".rstrip(),
            err=True,
        )
    return {
        "comment-id": str(result.comment_id),
        "comment-url": result.url,
        "comment-action": result.action,
    }


def _check_can_post(post_repo: str, pr_number: int | None, env: Mapping[str, str]) -> None:
    """A repository, a PR number and a token: what posting needs, checked before rendering."""
    if not post_repo:
        raise ConfigError(
            "no repository to comment on: pass --github OWNER/NAME (or set GITHUB_REPOSITORY)"
        )
    if pr_number is None:
        raise ConfigError("no PR number: pass N, or run on a pull_request / workflow_run event")
    if not (env.get("GITHUB_TOKEN") or env.get("GH_TOKEN")):
        raise ConfigError(
            "no GitHub token to post the comment: set GITHUB_TOKEN (or GH_TOKEN), or use --dry-run or --no-post"
        )


def _render(
    config: Any,
    post_repo: str,
    number: int | None,
    repo: str | None,
    target: str | None,
    bundle_path: str | None,
    dry_run: bool,
    debug: bool,
    gate: FailOn | None = None,
    annotations: bool | None = None,
) -> tuple[str, str, dict[str, str], list[str], list[tuple[str, str]], int | None]:
    """Run the pipeline; returns (report, comment, written paths, finding kinds, risks, PR number).

    The comment Markdown is written next to the report as ``*.comment.md`` (what a fork-safe
    posting job sends with ``--from-file``).
    """
    from prreport.cli.terminal import emit_annotations
    from prreport.output import write_all
    from prreport.pipeline import analyse, gather, render_outputs
    from prreport.publish.comment import marker_hash
    from prreport.render import render_comment, render_markdown

    if repo or bundle_path:
        # Render locally; the GitHub repository is only where the comment goes.
        src_config = dataclasses.replace(
            config, report=dataclasses.replace(config.report, source="git")
        )
    else:
        src_config = dataclasses.replace(
            config,
            report=dataclasses.replace(config.report, source="github"),
            github=dataclasses.replace(config.github, repo=post_repo),
        )
    rev = target or (str(number) if number is not None else None)
    source = make_source(rev, bundle_path, src_config)
    try:
        gathered = gather(source, src_config)
    finally:
        source.close()
    # Our own earlier comment is not review: counting it would change the report it shows.
    theirs = tuple(c for c in gathered.bundle.issue_comments if marker_hash(c.body) is None)
    bundle = dataclasses.replace(gathered.bundle, issue_comments=theirs)
    analysis = analyse(dataclasses.replace(gathered, bundle=bundle), src_config, debug=debug)
    for warning in analysis.warnings():
        from prreport.render.escape import terminal_line

        click.echo(terminal_line(warning), err=True)
    emit_annotations(analysis.model, annotations)
    outputs = render_outputs(analysis, src_config, Path(src_config.report.out_dir))
    md_path = next((p for p in outputs if p.suffix == ".md"), None)
    md = outputs[md_path] if md_path else render_markdown(analysis.model, src_config.report.lang)
    risks = [(str(r["id"]), str(r["severity"])) for r in analysis.model.risks]
    gate_view = None
    found = [*analysis.live_kinds(), verdict_kind(analysis.model.summary.verdict)]
    if gate is not None and gate.items:
        gate_view = {"kinds": list(gate.items), "hits": gate.hits(found, risks)}
    shown = render_comment(analysis.model, src_config.report.lang, gate_view)
    if md_path is not None:
        outputs[md_path.with_name(md_path.name[: -len(".md")] + ".comment.md")] = shown
    written: dict[str, str] = {}
    if not dry_run:
        write_all(outputs)
        for p in outputs:
            written["comment" if p.name.endswith(".comment.md") else p.suffix.lstrip(".")] = str(p)
            if not config.report.quiet:  # -q: only warnings and errors
                click.echo(f"wrote {p}", err=True)
    return md, shown, written, found, risks, analysis.model.pr.get("number")
