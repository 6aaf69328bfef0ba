"""``prreport digest``: the weekly digest of merged PRs, written as files and optionally as an issue."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from prreport.cli.digest_run import analyse_window, finish
from prreport.cli.options import (
    HELP_SETTINGS,
    config_option,
    debug_option,
    exclusive_sources,
    fail_on_option,
    format_option,
    github_api_url_option,
    lang_option,
    langs_of,
    no_http_cache_option,
    out_option,
    parse_gate,
    quiet_option,
    resolve_target,
    run,
    split_list,
    version_option,
)
from prreport.config import FORMATS, load_config
from prreport.digest.discover import SKIPPABLE
from prreport.errors import ConfigError

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
With --fail-on, the exit status is 1 when any PR of the digest has what it
lists (after writing the digest), as for 'prreport'.

\b
Examples:
  prreport digest --repo ~/src/sglang --week 2026-W34
  prreport digest --github sgl-project/sglang --lang en,zh
  prreport digest --repo . --fail-on risk:high              (a CI gate)
  prreport digest --github OWNER/NAME --publish issue     (in Actions)
  prreport digest --from-json out/digests/o-n/2026-W34.json --github o/n --publish issue
"""


def _window_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--week`` or ``--since``/``--until``: the window, as ``digest`` and ``digest plan`` take it."""
    for option in reversed(
        (
            click.option(
                "--week",
                metavar="YYYY-Www",
                help="ISO week, e.g. 2026-W34 (default: the last full week, UTC).",
            ),
            click.option("--since", metavar="DATE", help="First day of the window (with --until)."),
            click.option(
                "--until", metavar="DATE", help="Last day of the window, included (with --since)."
            ),
        )
    ):
        command = option(command)
    return command


@click.group(
    "digest",
    help=_HELP,
    context_settings=HELP_SETTINGS,
    invoke_without_command=True,
    subcommand_metavar="[plan|merge] [ARGS]...",
)
@_window_options
@click.option(
    "--repo", "repo", metavar="PATH", help="Local git repository (default: current directory)."
)
@click.option(
    "--github", "github_repo", metavar="OWNER/NAME", help="Read the merged PRs from GitHub."
)
@github_api_url_option
@lang_option
@format_option("md,html,json")
@out_option("digests are written to <out>/digests/")
@click.option(
    "--workers", type=int, metavar="N", help="PRs analysed at once (default: digest.workers)."
)
@click.option("--cache-dir", metavar="DIR", help="Analysis cache (default: digest.cache_dir).")
@click.option(
    "--include",
    "include",
    metavar="LIST",
    help="Also digest what is left out by default: draft, bot (PRs by bots) (default: digest.include).",
)
@no_http_cache_option
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
@fail_on_option
@debug_option
@version_option
@click.pass_context
def digest_cmd(
    ctx: click.Context,
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
    include: str | None,
    no_cache: bool | None,
    publish: str | None,
    from_json: str | None,
    config_path: str | None,
    quiet: bool | None,
    fail_on: str | None,
    debug: bool,
) -> None:
    """Write the weekly digest."""
    # Long: click passes all 18 arguments and options as parameters; the work is in body() and helpers.
    if ctx.invoked_subcommand is not None:
        return  # `digest plan` / `digest merge` take their own options

    def body() -> int:
        from prreport.digest.build import with_workers
        from prreport.digest.render import load_digest_json, render_digest_data
        from prreport.digest.window import resolve_window

        gate = parse_gate(fail_on)
        _, gh_repo, api_url = resolve_target(None, github_repo, github_api_url)
        exclusive_sources(repo, gh_repo)
        lang_list = langs_of(langs)
        format_list = split_list(formats, FORMATS, "--format") or FORMATS
        config = load_config(
            config_path,
            overrides={
                "report": {
                    "out_dir": None if out_dir == "-" else out_dir,
                    "quiet": quiet,
                    "lang": lang_list[0] if lang_list else None,
                    "source": "github" if gh_repo else "git" if repo else None,
                },
                "git": {"repo": repo},
                "github": {
                    "repo": gh_repo,
                    "api_url": api_url,
                    "cache": False if no_cache else None,
                },
                "digest": {"include": split_list(include, SKIPPABLE, "--include")},
            },
        )
        config = with_workers(config, workers, cache_dir)
        source = config.report.source
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
            data, outputs = analyse_window(
                config, window, source, not no_cache, langs_used, format_list
            )
        publish_to = (config.github.repo or data["repo"]) if publish else None
        return finish(config, data, outputs, out_dir, publish_to, langs_used[0], gate)

    run(debug, body)


_PLAN_HELP = """Write the matrix of an organisation digest: one entry per repository.

\b
--org OWNER lists the owner's repositories (an organisation's, else a
user's) from the GitHub API, leaving out archived repositories, forks
and repositories not pushed since the window started (they cannot have
merged PRs in it); --list FILE reads OWNER/NAME lines instead. The plan
is JSON: {"window": {...}, "include": [{"repo": ..., "week": ...}, ...]},
printed, and inside GitHub Actions also written to $GITHUB_OUTPUT as
`matrix` and `week` for `strategy.matrix: ${{ fromJSON(...) }}`. The
window is an ISO week or --since/--until, as for 'prreport digest'; each
entry's "week" is the window's label and, for --since/--until, the entry
also carries "since" and "until" for the matrix job to pass on.

\b
Examples:
  prreport digest plan --org acme --week 2026-W34
  prreport digest plan --list repos.txt
  prreport digest plan --org acme --since 2026-08-01 --until 2026-08-31
"""


@digest_cmd.command("plan", help=_PLAN_HELP, context_settings=HELP_SETTINGS)
@click.option("--org", metavar="OWNER", help="List the repositories of this organisation or user.")
@click.option("--list", "list_file", metavar="FILE", help="Read OWNER/NAME lines from FILE.")
@_window_options
@click.option("--include-archived", is_flag=True, help="Keep archived repositories.")
@click.option("--include-forks", is_flag=True, help="Keep forks.")
@github_api_url_option
@config_option
@debug_option
def plan_cmd(
    org: str | None,
    list_file: str | None,
    week: str | None,
    since: str | None,
    until: str | None,
    include_archived: bool,
    include_forks: bool,
    github_api_url: str | None,
    config_path: str | None,
    debug: bool,
) -> None:
    """Write the matrix of an organisation digest."""

    def body() -> int:
        import json

        from prreport.digest.plan import matrix, repos_from_file, repos_of_owner
        from prreport.digest.window import resolve_window

        if bool(org) == bool(list_file):
            raise ConfigError("digest plan needs exactly one of --org OWNER or --list FILE")
        window = resolve_window(week, since, until)
        if list_file:
            repos = repos_from_file(list_file)
        else:
            assert org is not None
            config = load_config(config_path, overrides={"github": {"api_url": github_api_url}})
            repos = repos_of_owner(config.github, org, window, include_archived, include_forks)
        plan = matrix(repos, window, since, until)
        click.echo(json.dumps(plan, indent=2))
        gh_output = os.environ.get("GITHUB_OUTPUT")
        if gh_output:
            with open(gh_output, "a", encoding="utf-8") as fh:
                fh.write(f"matrix={json.dumps(plan, separators=(',', ':'))}\n")
                fh.write(f"week={window.label}\n")
                fh.write(f"count={len(repos)}\n")
        click.echo(f"plan {window.label}: {len(repos)} repositories", err=True)
        return 0

    run(debug, body)


_MERGE_HELP = """Merge per-repository digests (their <week>.json) into one organisation digest.

\b
DIR... are directories (searched recursively for digest JSON files, as
the matrix jobs' artifacts unpack) or JSON files. Every digest must cover
the same window; each repository may appear once. The merged digest is
the one a single run over the same PRs builds, whatever the order or
split of the shards. Files: <out>/digests/<owner>/<week>.md, .html, .json
(--name sets <owner>). With --publish issue --github OWNER/NAME, the
digest issue is kept up to date in that repository.

\b
Examples:
  prreport digest merge shards/ --out out --lang en,zh
  prreport digest merge shards/ --github acme/.github --publish issue
"""


@digest_cmd.command("merge", help=_MERGE_HELP, context_settings=HELP_SETTINGS)
@click.argument("dirs", nargs=-1, required=True, metavar="DIR...")
@click.option(
    "--name", metavar="NAME", help="Name of the merged digest (default: the common owner)."
)
@click.option(
    "--github", "github_repo", metavar="OWNER/NAME", help="Repository the digest issue goes to."
)
@github_api_url_option
@lang_option
@format_option("md,html,json")
@out_option("digests are written to <out>/digests/")
@click.option(
    "--publish", type=click.Choice(["issue"]), help="Also create or update the digest issue."
)
@config_option
@quiet_option("digest")
@fail_on_option
@debug_option
def merge_cmd(
    dirs: tuple[str, ...],
    name: str | None,
    github_repo: str | None,
    github_api_url: str | None,
    langs: str | None,
    formats: str | None,
    out_dir: str | None,
    publish: str | None,
    config_path: str | None,
    quiet: bool | None,
    fail_on: str | None,
    debug: bool,
) -> None:
    """Merge per-repository digests into one."""

    def body() -> int:
        from prreport.digest.merge import load_shards, merge_shards
        from prreport.digest.render import render_digest_data

        gate = parse_gate(fail_on)
        _, gh_repo, api_url = resolve_target(None, github_repo, github_api_url)
        lang_list = langs_of(langs)
        format_list = split_list(formats, FORMATS, "--format") or FORMATS
        config = load_config(
            config_path,
            overrides={
                "report": {
                    "out_dir": None if out_dir == "-" else out_dir,
                    "quiet": quiet,
                    "lang": lang_list[0] if lang_list else None,
                },
                "github": {"repo": gh_repo, "api_url": api_url},
            },
        )
        target = config.github.repo
        if publish and not target:
            raise ConfigError(
                "--publish issue needs the repository the issue goes to: add --github OWNER/NAME"
            )
        merged = merge_shards(load_shards(dirs), name)
        data = merged.to_json()
        langs_used = lang_list or (config.report.lang,)
        outputs = render_digest_data(data, langs_used, format_list, Path(config.report.out_dir))
        t = merged.totals
        if not config.report.quiet:  # -q: only warnings and errors
            click.echo(
                f"digest {merged.window.label}: {t['repos']} repositories, {t['prs']} PRs "
                f"({t['block']} block, {t['review']} review, {t['not_analysed']} not analysed)",
                err=True,
            )
        return finish(
            config, data, outputs, out_dir, target if publish else None, langs_used[0], gate
        )

    run(debug, body)
