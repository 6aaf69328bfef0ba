"""The action another repository adopts (issue #19): example workflows, the lock, the action's own steps."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml  # PyYAML comes with libcst

from tests.ghserver import GitHubServer, GitHubState
from tests.ghserver_comments import comments_on
from tests.ghserver_issues import add_digest_routes, issues_of

ROOT = Path(__file__).resolve().parent.parent
ACTION = ROOT / "action.yml"
# The workflows that use the action (the organisation digest's reusable workflow lives in
# .github/workflows/org-digest.yml, where GitHub resolves reusable workflows, and installs the
# pinned prreport itself: tested below and in test_digest_org.py).
EXAMPLES = sorted((ROOT / "examples" / "workflows").glob("*.yml"))
ORG_WORKFLOW = ROOT / ".github" / "workflows" / "org-digest.yml"
LOCK = ROOT / "action" / "requirements.txt"
FULL = "sgl-project/sglang"
TOKEN = "tok-bot"


def _tool(name: str) -> str:
    exe = Path(sys.executable).parent / name
    found = str(exe) if exe.exists() else shutil.which(name)
    if not found:
        pytest.fail(f"{name} is not installed; install the test extras: pip install -e '.[test]'")
    return found


@pytest.mark.slow
def test_example_workflows_and_the_action_match_githubs_schemas():
    assert {p.name for p in EXAMPLES} == {
        "prreport.yml",
        "prreport-comment.yml",
        "prreport-digest.yml",
        "prreport-sarif.yml",
    }
    check = _tool("check-jsonschema")
    for schema, files in (
        ("vendor.github-workflows", EXAMPLES),
        ("vendor.github-actions", [ACTION]),
    ):
        res = subprocess.run(
            [check, "--builtin-schema", schema, *map(str, files)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert res.returncode == 0, res.stdout + res.stderr


@pytest.mark.slow
def test_zizmor_finds_nothing_at_medium_or_above_in_the_examples():
    res = subprocess.run(
        [_tool("zizmor"), "--offline", "--format", "json", str(ACTION), *map(str, EXAMPLES)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    findings = json.loads(res.stdout)
    serious = [
        f"{f['ident']} at {f['locations'][0]['symbolic']['key']}"
        for f in findings
        if f["determinations"]["severity"] in ("Medium", "High") and not f.get("ignored")
    ]
    assert serious == [], serious


def _checkouts(path: Path) -> list[dict[str, Any]]:
    wf = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [
        s
        for job in wf["jobs"].values()
        for s in job["steps"]
        if str(s.get("uses", "")).startswith("actions/checkout@")
    ]


def test_examples_pin_the_action_and_never_install_the_adopters_repository():
    for path in EXAMPLES:
        text = path.read_text(encoding="utf-8")
        assert "pip install" not in text, path
        uses = re.findall(r"uses:\s*(\S+)", text)
        assert any(u.startswith("OWNER/prreport@") for u in uses), path
        assert all(re.search(r"@[0-9a-f]{40}$", u) for u in uses), uses
        wf = yaml.safe_load(text)
        assert wf["permissions"] == {} and all("permissions" in j for j in wf["jobs"].values())


def test_fork_safe_settings_come_from_the_base_commit_never_the_head():
    """The render job reads ``.prreport.toml`` from the PR's base commit, sparse, one commit
    deep; no other example checks out anything (no PR code is checked out anywhere)."""
    render = ROOT / "examples" / "workflows" / "prreport.yml"
    (checkout,) = _checkouts(render)
    w = checkout["with"]
    assert w["ref"] == "${{ github.event.pull_request.base.sha }}"
    assert w["sparse-checkout"] == ".prreport.toml" and w["fetch-depth"] == 1
    assert w["persist-credentials"] is False
    wf = yaml.safe_load(render.read_text(encoding="utf-8"))
    run = next(s for s in wf["jobs"]["report"]["steps"] if "OWNER/prreport@" in str(s.get("uses")))
    assert run["with"]["config"] == f"{w['path']}/.prreport.toml"
    assert "head" not in json.dumps(checkout)
    for path in EXAMPLES:
        for other in _checkouts(path):
            assert other["with"] == w, path  # the same settings-only checkout, or none
    note = "fires only for workflow files on the default branch"
    assert note in (ROOT / "examples" / "workflows" / "prreport-comment.yml").read_text("utf-8")
    assert "only once the workflow files are on the default branch" in (
        ROOT / "README.md"
    ).read_text(encoding="utf-8")


def test_readme_workflow_snippets_set_permissions():
    """Every workflow in the README's YAML blocks says what its token may do."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", readme, re.S)
    workflows = [b for b in blocks if re.search(r"(?m)^(on|jobs):", b)]
    assert workflows, "the README shows how to call the action"
    for block in workflows:
        wf = yaml.safe_load(block)
        jobs = wf["jobs"]
        assert "permissions" in wf or all("permissions" in j for j in jobs.values()), block
    assert not [b for b in blocks if "uses: OWNER/prreport" in b and b not in workflows]


def test_the_lock_pins_every_runtime_dependency_with_a_hash():
    import tomllib  # noqa: PLC0415 - Python 3.11+, as the test environment

    deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "dependencies"
    ]
    wanted = {
        re.split(r"[\[<>=; ]", d, maxsplit=1)[0].lower().replace("_", "-")
        for d in deps
        if "python_version < '3.11'" not in d
    } | {"hatchling"}
    text = LOCK.read_text(encoding="utf-8")
    # ``name==version [; marker] \`` then one ``--hash`` line per wheel (a universal lock).
    entries = re.findall(
        r"^([a-z0-9.-]+)==(\S+)(?: ; ([^\\\n]+))? \\\n((?:\s+--hash=sha256:[0-9a-f]{64}(?: \\)?\n)+)",
        text,
        re.M,
    )
    locked = {e[0] for e in entries}
    assert wanted <= locked, wanted - locked
    lines = [ln for ln in text.splitlines() if "==" in ln]
    assert len(lines) == len(entries)  # every pin carries its hashes
    # Universal: the compiled packages carry the wheels of every platform and Python.
    hashes = {e[0]: e[3].count("--hash=") for e in entries if "3.11" not in (e[2] or "")}
    for compiled in ("cffi", "cryptography", "libcst", "markupsafe", "nh3", "charset-normalizer"):
        assert hashes[compiled] >= 8, (compiled, hashes[compiled])
    # Versions that need a newer Python are pinned per Python range, by marker.
    assert any(e[0] == "tomli" and "3.11" in (e[2] or "") for e in entries)
    assert "universal resolution" in text.splitlines()[1]


def test_the_action_keeps_the_callers_python_and_installs_from_the_lock():
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert set(action["inputs"]["mode"]["description"].split(":")[0].split()) <= {"comment"}
    steps = action["runs"]["steps"]
    setup = next(s for s in steps if str(s.get("uses", "")).startswith("actions/setup-python@"))
    assert setup["with"]["update-environment"] is False
    cache = next(s for s in steps if str(s.get("uses", "")).startswith("actions/cache@"))
    assert "steps.lock.outputs.sha256" in cache["with"]["key"]
    install = next(s for s in steps if s.get("name", "").startswith("Install prreport"))
    assert "--require-hashes" in install["run"] and "action/requirements.txt" in install["run"]
    assert "$ACTION_PATH" in install["run"] and "pip install ." not in install["run"]


# -- the action's shell steps, run as a script against the local GitHub server ---------------

_EXPR = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")


def _step_script(name: str, inputs: dict[str, str], context: dict[str, str]) -> tuple[str, dict]:
    """The ``run`` and ``env`` of the step called ``name``, with its expressions evaluated."""
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    values = dict(context)
    for k, v in action["inputs"].items():  # a default may be an expression (the token's)
        values[f"inputs.{k}"] = _EXPR.sub(lambda m: context[m.group(1)], str(v.get("default", "")))
    values.update({f"inputs.{k}": v for k, v in inputs.items()})
    step = next(s for s in action["runs"]["steps"] if s.get("name") == name)

    def evaluate(m: re.Match[str]) -> str:
        assert m.group(1) in values, f"unknown expression {m.group(1)} in step {name!r}"
        return values[m.group(1)]

    env = {k: _EXPR.sub(evaluate, str(v)) for k, v in (step.get("env") or {}).items()}
    assert not _EXPR.search(step["run"]), "expressions in a run script are an injection risk"
    return step["run"], env


def _run_steps(tmp: Path, server: GitHubServer, inputs: dict[str, str], event: dict[str, Any]):
    runner = tmp / "runner"
    venv = runner / "prreport-venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "prreport").symlink_to(
        Path(sys.executable).parent / "prreport"
    )  # the install step's result
    out_file = tmp / "github_output"
    out_file.touch()
    event_path = tmp / "event.json"
    event_path.write_text(json.dumps(event), encoding="utf-8")
    base_env = {
        k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_", "PRREPORT_"))
    }
    base_env.update(
        RUNNER_TEMP=str(runner),
        GITHUB_OUTPUT=str(out_file),
        GITHUB_REPOSITORY=FULL,
        GITHUB_API_URL=server.url,
        GITHUB_EVENT_PATH=str(event_path),
        GITHUB_STEP_SUMMARY=str(tmp / "summary.md"),
        PRREPORT_GITHUB_CACHE_DIR=str(tmp / "cache"),
        PRREPORT_DIGEST_CACHE_DIR=str(tmp / "digest-cache"),
    )
    context = {
        "github.token": TOKEN,
        "github.action_path": str(ROOT),
        "runner.temp": str(runner),
    }
    results = []
    for name in ("Hash the lock file", "Run prreport"):
        script, env = _step_script(name, inputs, context)
        res = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", script],
            capture_output=True,
            text=True,
            env={**base_env, **env, "ACTION_PATH": str(ROOT)},
            cwd=tmp,
            timeout=300,
        )
        results.append(res)
        assert res.returncode == 0, (name, res.stdout, res.stderr)
    outputs = dict(
        ln.split("=", 1) for ln in out_file.read_text(encoding="utf-8").splitlines() if "=" in ln
    )
    return results, outputs


@pytest.fixture
def server():
    srv = GitHubServer(GitHubState.load())
    add_digest_routes(srv, {TOKEN: "prreport-bot"})
    with srv:
        yield srv


def test_action_comment_mode_posts_the_comment(server, tmp_path):
    event = {"pull_request": {"number": 35980, "head": {"sha": "x"}}}
    _results, outputs = _run_steps(tmp_path, server, {"fail-on": "cycle.risk"}, event)
    assert re.fullmatch(r"[0-9a-f]{64}", outputs["sha256"])
    assert outputs["comment-action"] == "created", outputs
    (posted,) = [c for c in comments_on(server, FULL, 35980) if c["author"] == "prreport-bot"]
    assert posted["body"].split("\n")[1].startswith("## ✅ Pure refactor")
    assert Path(outputs["md-path"]).is_file() and outputs["out-dir"] in outputs["md-path"]
    assert "Gate" in posted["body"]


def test_action_digest_mode_writes_and_publishes_the_week(server, tmp_path):
    _results, outputs = _run_steps(
        tmp_path, server, {"mode": "digest", "week": "2026-W34"}, {"schedule": "23 6 * * 1"}
    )
    digests = list(Path(outputs["out-dir"]).rglob("*.md"))
    assert digests, outputs
    (issue,) = issues_of(server, FULL)
    assert "2026-W34" in issue["title"]


def test_action_config_input_reads_the_settings_file_or_notes_its_absence(server, tmp_path):
    settings = tmp_path / "base-settings" / ".prreport.toml"
    settings.parent.mkdir()
    settings.write_text('[report]\nlang = "en"\n', encoding="utf-8")
    event = {"pull_request": {"number": 35980, "head": {"sha": "x"}}}
    _results, outputs = _run_steps(
        tmp_path, server, {"config": str(settings), "formats": "md,json"}, event
    )
    assert outputs["comment-action"] == "created"
    (tmp_path / "bad.toml").write_text("[report]\nbogus = 1\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="bogus"):
        _run_steps(tmp_path / "x", server, {"config": str(tmp_path / "bad.toml")}, event)


def test_action_config_input_without_a_file_runs_with_the_defaults(server, tmp_path):
    event = {"pull_request": {"number": 35980, "head": {"sha": "x"}}}
    results, outputs = _run_steps(tmp_path, server, {"config": str(tmp_path / "none.toml")}, event)
    assert "::notice title=prreport::no settings file" in results[-1].stdout
    assert outputs["comment-action"] == "created"


def test_action_writes_the_sarif_log_the_upload_step_reads(server, tmp_path):
    event = {"pull_request": {"number": 35980, "head": {"sha": "x"}}}
    inputs = {"formats": "json,sarif", "comment": "false", "upload": "false"}
    _results, outputs = _run_steps(tmp_path, server, inputs, event)
    sarif = json.loads(Path(outputs["sarif-path"]).read_text(encoding="utf-8"))
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["tool"]["driver"]["name"] == "prreport"
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert action["outputs"]["sarif"]["value"] == "${{ steps.run.outputs.sarif-path }}"
    wf = yaml.safe_load((ROOT / "examples" / "workflows" / "prreport-sarif.yml").read_text("utf-8"))
    upload = next(s for s in wf["jobs"]["sarif"]["steps"] if "upload-sarif" in str(s.get("uses")))
    assert upload["with"]["sarif_file"] == "${{ steps.prreport.outputs.sarif }}"


def test_action_rejects_an_unknown_mode(server, tmp_path):
    with pytest.raises(AssertionError, match="mode must be comment or digest"):
        _run_steps(tmp_path, server, {"mode": "everything"}, {})


def test_the_org_digest_workflow_installs_the_pinned_commit_with_the_actions_lock():
    """No ``pip install prreport`` from an index (a squattable name in a job holding an org
    token): each job checks out prreport at ``inputs.prreport-sha`` and installs as action.yml."""
    assert not (ROOT / "examples" / "workflows" / "org-digest.yml").exists()
    wf = yaml.safe_load(ORG_WORKFLOW.read_text(encoding="utf-8"))
    on = wf.get("on", wf.get(True))
    sha_input = on["workflow_call"]["inputs"]["prreport-sha"]
    assert sha_input["required"] is True and "prreport" not in on["workflow_call"]["inputs"]
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    action_install = next(
        s["run"] for s in action["runs"]["steps"] if s.get("name", "").startswith("Install")
    )
    action_pips = [
        ln.split("-m pip install", 1)[1].replace("$ACTION_PATH", "$src")
        for ln in action_install.splitlines()
        if "-m pip install" in ln
    ]
    for name, job in wf["jobs"].items():
        steps = job["steps"]
        checkout = next(s for s in steps if s.get("with", {}).get("path") == ".prreport-src")
        assert checkout["with"]["ref"] == "${{ inputs.prreport-sha }}", name
        assert checkout["with"]["persist-credentials"] is False, name
        install = next(s for s in steps if s.get("name", "").startswith("Install prreport"))
        pips = [
            ln.split("-m pip install", 1)[1]
            for ln in install["run"].splitlines()
            if "-m pip install" in ln
        ]
        assert pips == action_pips, (name, pips, action_pips)
        assert "^[0-9a-f]{40}$" in install["run"], name
    text = ORG_WORKFLOW.read_text(encoding="utf-8")
    assert "pip install ." not in text and "pip install -e" not in text
    assert "OWNER/prreport/.github/workflows/org-digest.yml@" in text
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "examples/workflows/org-digest.yml" not in readme
    assert ".github/workflows/org-digest.yml" in readme


def _example_step(workflow: str, name: str) -> dict[str, Any]:
    wf = yaml.safe_load((ROOT / "examples" / "workflows" / workflow).read_text("utf-8"))
    steps = [s for job in wf["jobs"].values() for s in job["steps"]]
    return next(s for s in steps if s.get("name") == name)


def test_the_readme_walk_through_fork_safe_render_then_post(server, tmp_path):
    """The adopter's two files as the README says to use them, against the local GitHub
    stand-in: step 1 renders without posting, with the settings of the base commit; step 2
    finds the comment and PR number in that artifact and posts it while the head is unchanged."""
    head = server.state.repo(FULL)["pulls"]["35980"]["head_sha"]
    render = _example_step(
        "prreport.yml", "Render, summarise and upload (no comment from this job)"
    )
    base_settings = tmp_path / "render" / render["with"]["config"]
    base_settings.parent.mkdir(parents=True)
    base_settings.write_text('[report]\nlang = "en"\n', encoding="utf-8")
    inputs = {k: str(v) for k, v in render["with"].items() if k != "config"}
    inputs["config"] = str(base_settings)
    event = {"pull_request": {"number": 35980, "head": {"sha": head}}}
    _results, rendered = _run_steps(tmp_path / "render", server, inputs, event)
    assert "comment-action" not in rendered  # step 1 posts nothing
    assert not [c for c in comments_on(server, FULL, 35980) if c["author"] == "prreport-bot"]
    # Step 2: the artifact as downloaded, the locate step's own script, then the action.
    locate = _example_step("prreport-comment.yml", "Locate the comment and its PR number")
    out_file = tmp_path / "locate_output"
    res = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", locate["run"]],
        env={**os.environ, "DIR": rendered["out-dir"], "GITHUB_OUTPUT": str(out_file)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 0, res.stderr
    found = dict(ln.split("=", 1) for ln in out_file.read_text("utf-8").splitlines())
    assert found["pr"] == "35980" and found["md"].endswith(".comment.md")
    post = _example_step("prreport-comment.yml", "Create or update the PR comment")
    assert post["with"]["from-file"] == "${{ steps.artifact.outputs.md }}"
    post_inputs = {"pr": found["pr"], "from-file": found["md"], "head-sha": head, "upload": "false"}
    _results, posted = _run_steps(tmp_path / "post", server, post_inputs, {"workflow_run": {}})
    assert posted["comment-action"] == "created", posted
    (mine,) = [c for c in comments_on(server, FULL, 35980) if c["author"] == "prreport-bot"]
    assert mine["body"].split("\n")[1].startswith("## ✅ Pure refactor")
