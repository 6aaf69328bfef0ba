"""What the commands share: their click options (one definition each), list flags, the source choice and the runner."""

from __future__ import annotations

import dataclasses
import errno
import os
import re
import signal
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from prreport import __version__
from prreport.config import LANGS, REPORT_FORMATS, Config, load_config
from prreport.errors import ConfigError, PrreportError
from prreport.gate import FINDING_KINDS, FailOn, Vocabulary, parse_fail_on
from prreport.sources import Source

_F = TypeVar("_F", bound=Callable[..., Any])

HELP_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"]}

# Where an option's help starts the same way in every command, it means the same thing.
config_option = click.option(
    "--config",
    "config_path",
    metavar="FILE",
    help="Settings file (default: $PRREPORT_CONFIG, else .prreport.toml or [tool.prreport] of pyproject.toml in --repo or the current directory, or a parent up to the repository root).",
)
debug_option = click.option("--debug", is_flag=True, help="Show tracebacks for errors.")
version_option = click.version_option(__version__, "-V", "--version", prog_name="prreport")
lang_option = click.option(
    "--lang",
    "langs",
    metavar="LIST",
    help="Languages, comma-separated: en, zh (default: report.lang, en).",
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
    help="Read and write no cache (GitHub responses, digest analyses).",
)
fail_on_option = click.option(
    "--fail-on",
    "fail_on",
    metavar="LIST",
    help="Exit 1 when the report has one of these: a finding kind (cycle.risk), a family "
    "(cycle.*), a risk tag (import-in-loop), risk:LEVEL (risk:high) or a verdict "
    "(verdict:behavior-change, verdict:not-pure); see 'prreport help fail-on'.",
)


def out_option(default: str) -> Callable[[_F], _F]:
    """``--out DIR``: the folder reports go to (``-``: stdout, with one format)."""
    return click.option(
        "--out",
        "out_dir",
        metavar="DIR",
        help=f"Folder for the files (default: report.out_dir, output/; {default}); '-' prints the one --format to stdout.",
    )


def format_option(default: str, choices: str = "md, html, json") -> Callable[[_F], _F]:
    """``--format LIST``: which files to write."""
    return click.option(
        "--format",
        "formats",
        metavar="LIST",
        help=f"Formats, comma-separated: {choices} (default: {default}).",
    )


annotations_option = click.option(
    "--annotations/--no-annotations",
    "annotations",
    default=None,
    help="Print the risks' spots as GitHub Actions annotations (default: when GITHUB_ACTIONS=true).",
)


def quiet_option(what: str) -> Callable[[_F], _F]:
    """``--quiet/-q``: print only warnings and errors (not the Markdown ``what``, not what was written)."""
    return click.option(
        "--quiet",
        "-q",
        is_flag=True,
        default=None,
        help=f"Print only warnings and errors (not the Markdown {what}, nor what was written).",
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


def fail_on_vocabulary() -> Vocabulary:
    """What ``--fail-on`` accepts: the finding kinds, the risk tags and their levels."""
    from prreport.report.risks import RULES, SEVERITY_ORDER

    return Vocabulary(FINDING_KINDS, tuple(rid for rid, _, _ in RULES), SEVERITY_ORDER)


def parse_gate(value: str | None) -> FailOn:
    """``--fail-on`` checked against everything a report can contain."""
    return parse_fail_on(value, fail_on_vocabulary())


class Terminated(KeyboardInterrupt):
    """SIGTERM (what CI cancellation sends), handled as SIGINT is: temporary files removed,
    nothing half written, one ``error:`` line."""


def _on_sigterm(_signum: int, _frame: object) -> None:
    raise Terminated()


def _show_requests() -> None:
    """``--debug``: one stderr line per GitHub request (what it was for, how it was answered)."""
    import logging  # only for --debug

    log = logging.getLogger("prreport.github.requests")  # sources/github/http.py's REQUEST_LOG
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("debug: request for %(message)s"))
        log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    log.propagate = False


def run(debug: bool, body: Callable[[], int]) -> None:
    """Run a command body, turning user errors into one line on stderr and exit status 2
    (SIGINT: 130, SIGTERM: 143)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)
    if debug:
        _show_requests()
    try:
        code = body()
    except PrreportError as exc:
        from prreport.render.escape import terminal_line  # messages may quote PR-supplied names

        if debug:
            traceback.print_exc()
        click.echo(f"error: {terminal_line(exc)}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt as exc:
        terminated = isinstance(exc, Terminated)
        click.echo(f"error: {'terminated' if terminated else 'interrupted'}", err=True)
        sys.exit(143 if terminated else 130)
    except OSError as exc:
        if exc.errno not in _OUTPUT_ERRNOS:
            _internal_error(debug, exc)
        if debug:
            traceback.print_exc()
        _silence_stdout()  # the interpreter flushes stdout at exit: the same error again
        where = f"{exc.filename}: " if exc.filename else "the report: "
        click.echo(f"error: cannot write {where}{exc.strerror or exc}", err=True)
        sys.exit(2)
    except Exception as exc:  # last resort: no traceback unless --debug
        _internal_error(debug, exc)
    sys.exit(code)


# Write failures a user fixes (a full disk or device, a read-only target, a closed pipe).
_OUTPUT_ERRNOS = frozenset(
    {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG, errno.EPIPE, errno.EIO}
)


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _internal_error(debug: bool, exc: BaseException) -> NoReturn:
    from prreport.render.escape import terminal_line

    if debug:
        traceback.print_exc()
    click.echo(
        f"error: internal error: {type(exc).__name__}: {terminal_line(exc)} (rerun with --debug for details)",
        err=True,
    )
    sys.exit(1)


_PR_URL = re.compile(
    r"^https?://(?P<host>[^/\s]+)/(?P<repo>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/pull/(?P<number>[0-9]{1,10})/?(?:[#?].*)?$"
)


@dataclasses.dataclass(frozen=True)
class PullUrl:
    """A PR link ``https://github.com/OWNER/NAME/pull/N`` taken apart."""

    repo: str
    number: int
    api_url: str | None  # the Enterprise API of a host other than github.com


def parse_pr_url(value: str | None) -> PullUrl | None:
    """The PR a ``…/OWNER/NAME/pull/N`` URL names, else None."""
    m = _PR_URL.match((value or "").strip())
    if not m:
        return None
    host = m.group("host").lower()
    api = None if host in ("github.com", "www.github.com") else f"https://{host}/api/v3"
    return PullUrl(m.group("repo"), int(m.group("number")), api)


# GitHub numbers issues and PRs with 32-bit integers: ten digits at most.
_MAX_PR_DIGITS = 10


def check_pr_number(value: str, what: str = "TARGET") -> None:
    """A PR number longer than any PR's is one clear error (not an int conversion failure)."""
    digits = value.strip().lstrip("#")
    if digits.isascii() and digits.isdigit() and len(digits) > _MAX_PR_DIGITS:
        shown = digits if len(digits) <= 20 else f"{digits[:12]}… ({len(digits)} digits)"
        raise ConfigError(
            f"{what}: PR number {shown} is too large (a PR number has at most {_MAX_PR_DIGITS} digits)"
        )


def resolve_target(
    target: str | None, github_repo: str | None, api_url: str | None
) -> tuple[str | None, str | None, str | None]:
    """A PR URL as TARGET or as ``--github``: (target, OWNER/NAME, API URL) with the URL taken apart."""
    if target:
        check_pr_number(target)
    for value in (target, github_repo):
        url = parse_pr_url(value)
        if url is None:
            continue
        if github_repo and value is target and github_repo != url.repo:
            raise ConfigError(f"--github {github_repo} does not match the PR URL {target}")
        if target and value is github_repo and target != str(url.number):
            raise ConfigError(f"TARGET {target} does not match the PR URL {github_repo}")
        return str(url.number), url.repo, api_url or url.api_url
    if github_repo and "://" in github_repo:
        raise ConfigError(
            f"--github: expected OWNER/NAME or a PR URL like https://github.com/OWNER/NAME/pull/N, got {github_repo!r}"
        )
    return target, github_repo, api_url


def make_source(target: str | None, bundle_path: str | None, config: Config) -> Source:
    """Pick the source: a saved bundle, GitHub (``report.source``) or the local clone."""
    if bundle_path:
        from prreport.sources.bundlefile import BundleSource

        return BundleSource(bundle_path)
    if not target:
        raise ConfigError(
            "no TARGET given: pass a PR number, a PR URL, a revision or A..B (or --bundle FILE)"
        )
    if config.report.source == "github":
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
    langs: tuple[str, ...] | None,
    repo: str | None,
    github_repo: str | None,
    github_api_url: str | None,
    no_cache: bool | None,
    quiet: bool | None = None,
) -> Config:
    """The configuration of a command that renders one report (``report``, ``comment``).

    ``--github`` selects the GitHub source, else ``--repo`` the local clone; without either the
    source is ``report.source`` (git unless configured), never switched by ``github.repo`` alone.
    """
    source = "github" if github_repo else "git" if repo else None
    return common_config(
        config_path,
        {
            "report": {
                "formats": split_list(formats, REPORT_FORMATS, "--format"),
                "out_dir": None if out_dir == "-" else out_dir,
                "lang": langs[0] if langs else None,
                "quiet": quiet,
                "source": source,
            },
            "git": {"repo": repo},
            "github": {
                "repo": github_repo,
                "api_url": github_api_url,
                "cache": False if no_cache else None,
            },
        },
    )


def clone_or_github(repo: str | None, github_repo: str | None, from_url: bool) -> str | None:
    """The GitHub repository to read, or None for the local clone: a PR URL with ``--repo``
    reads the clone when its origin is the URL's repository (no network), else is an error."""
    if not (repo and github_repo and from_url):
        exclusive_sources(repo, github_repo)
        return github_repo
    from prreport.sources.gitrepo import GitRepo, repo_name

    git = GitRepo(repo)
    try:
        origin = repo_name(git)
    finally:
        git.close()
    if origin.lower() != github_repo.lower():
        raise ConfigError(
            f"--repo {repo}: its origin is {origin}, not {github_repo} of the PR URL; "
            "drop --repo to read the PR from GitHub, or pass the PR number"
        )
    return None


def exclusive_sources(repo: str | None, github_repo: str | None) -> None:
    """``--repo`` and ``--github`` name two different sources."""
    if github_repo and repo:
        raise ConfigError(
            "--repo and --github are exclusive: pick the local clone or the GitHub repository"
        )


def langs_of(value: str | None) -> tuple[str, ...] | None:
    """``--lang en,zh`` as a tuple (None when not given)."""
    return split_list(value, LANGS, "--lang")


def to_stdout(out_dir: str | None, outputs: dict[Path, str]) -> bool:
    """With ``--out -``, print the one rendered file to stdout and return True."""
    if out_dir != "-":
        return False
    if len(outputs) != 1:
        kinds = ", ".join(sorted({p.name for p in outputs}))
        raise ConfigError(
            f"--out - prints one file to stdout, but this run renders {len(outputs)} ({kinds}): "
            "pass one --format and one --lang"
        )
    from prreport.render.escape import terminal_json, terminal_text

    path, text = next(iter(outputs.items()))
    # The terminal (or a CI log) reads it: no control sequence, no workflow-command line.
    is_json = path.suffix in (".json", ".sarif")  # SARIF is JSON: escaped as JSON, same value
    click.echo(terminal_json(text) if is_json else terminal_text(text), nl=False)
    return True
