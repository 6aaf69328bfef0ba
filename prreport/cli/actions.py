"""The GitHub Actions context of a ``prreport comment`` run: the event it runs for (the PR, the
head commit a workflow_run rendered), the run's URL, and the action's outputs."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from prreport.errors import ConfigError, OutputError


def load_event(env: Mapping[str, str]) -> dict[str, Any]:
    """The Actions event payload (``GITHUB_EVENT_PATH``), or ``{}`` outside Actions."""
    path = env.get("GITHUB_EVENT_PATH", "")
    if not path:
        return {}
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"GITHUB_EVENT_PATH {path}: not a readable JSON event ({exc})") from None
    return data if isinstance(data, dict) else {}


def event_pr_number(event: Mapping[str, Any]) -> int | None:
    """The PR an event is about: pull_request, issue_comment on a PR, or a workflow_run of one."""
    pr = event.get("pull_request")
    if isinstance(pr, dict) and isinstance(pr.get("number"), int):
        return int(pr["number"])
    issue = event.get("issue")
    if (
        isinstance(issue, dict)
        and issue.get("pull_request")
        and isinstance(issue.get("number"), int)
    ):
        return int(issue["number"])
    run = event.get("workflow_run")
    if isinstance(run, dict):
        prs = run.get("pull_requests") or []
        if prs and isinstance(prs[0], dict) and isinstance(prs[0].get("number"), int):
            return int(prs[0]["number"])
    return None


def run_url(env: Mapping[str, str], event: Mapping[str, Any]) -> str:
    """The URL of the workflow run that holds the report (its job summary), or "" outside Actions."""
    run = event.get("workflow_run")
    if isinstance(run, dict) and isinstance(run.get("html_url"), str):
        return str(run["html_url"])  # the run that rendered the report holds its job summary
    if env.get("GITHUB_RUN_ID") and env.get("GITHUB_REPOSITORY"):
        server = env.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
        return f"{server}/{env['GITHUB_REPOSITORY']}/actions/runs/{env['GITHUB_RUN_ID']}"
    return ""


def set_outputs(env: Mapping[str, str], values: dict[str, str]) -> None:
    """Append ``name=value`` lines to ``$GITHUB_OUTPUT`` (the action's outputs)."""
    path = env.get("GITHUB_OUTPUT", "")
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as fh:
            for k, v in values.items():
                fh.write(f"{k}={v.replace(chr(10), ' ')}\n")
    except OSError as exc:
        raise OutputError(f"cannot append to GITHUB_OUTPUT {path}: {exc.strerror}") from None


def event_head(event: Mapping[str, Any]) -> str | None:
    """In a workflow_run, the commit the rendering run saw: post only while it is still the PR head."""
    run = event.get("workflow_run")
    if isinstance(run, dict) and isinstance(run.get("head_sha"), str):
        return str(run["head_sha"])
    return None
