"""The implicit contract's advice is checked before it is printed (issue 32 §1): the ``ast`` test
passes on the head tree and fails on the violation it guards; an import-linter contract is
offered only when it holds on the head tree, and the one printed is kept and broken by the
import-linter the tests install."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from prreport.codemods.leaftest import leaf_test
from tests.fixtures import seed_pr
from tests.fixtures.seed_pr import PKG
from tests.gitrepo import analyse_commit

STAGING = "sglang.srt.disaggregation.common.staging_handler"
HANDLER = f"{PKG}/common/staging_handler.py"
CONN = [f"{PKG}/mooncake/conn.py", f"{PKG}/nixl/conn.py"]
BACK_IMPORT = "\nfrom sglang.srt.disaggregation.nixl import conn  # the cycle the hoists rely on not existing\n"


def _contract(a):
    (contract,) = [f for f in a.findings if f.kind == "contract.implicit"]
    return contract


def _leaf_base() -> dict[str, str | None]:
    """The seed tree with a staging handler that imports nothing of sglang in any scope."""
    files: dict[str, str | None] = dict(seed_pr.base_files())
    text = str(files[HANDLER])
    text = text.replace(
        "\nif TYPE_CHECKING:\n    from sglang.srt.disaggregation.base import KVPoll\n", ""
    )
    text = text.replace(
        "    from sglang.srt.disaggregation.base import KVPoll  # as the real module: function-local\n\n",
        "",
    ).replace("        return KVPoll.Failed\n", "        return None\n")
    assert "sglang" not in text.replace('"""Staging', "")
    files[HANDLER] = text
    return files


def _run_pytest(repo: Path, test_path: str, text: str) -> subprocess.CompletedProcess[str]:
    (repo / test_path).parent.mkdir(parents=True, exist_ok=True)
    (repo / test_path).write_text(text, encoding="utf-8")
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test_path]
    return subprocess.run(args, cwd=repo, capture_output=True, text=True, timeout=120)


def _lint_imports(repo: Path, contract: str) -> subprocess.CompletedProcess[str]:
    (repo / ".importlinter").write_text(
        "[importlinter]\nroot_package = sglang\n\n" + contract, encoding="utf-8"
    )
    exe = Path(sys.executable).with_name("lint-imports")
    env = dict(os.environ, PYTHONPATH=str(repo / "python"))
    args = [str(exe), "--config", ".importlinter", "--no-cache"]
    return subprocess.run(args, cwd=repo, env=env, capture_output=True, text=True, timeout=120)


def test_seed_offers_the_ast_test_and_no_contract_that_would_fail(seed_repo, tmp_path):
    repo, _base, _sha = seed_repo
    from prreport.config import Config, GitConfig
    from prreport.pipeline import analyse, gather
    from prreport.sources.git import GitSource

    cfg = Config(git=GitConfig(repo=str(repo.path)))
    a = analyse(gather(GitSource("35980", cfg.git), cfg), cfg)
    d = _contract(a).details
    # staging_handler imports sglang under TYPE_CHECKING and inside a function, as the real
    # module does: import-linter counts both, so no `forbidden` contract holds on head.
    assert d["contract_holds"] is False and d["contract"] is None
    assert d["test_verified"] is True and d["test_path"] == "tests/test_staging_handler_imports.py"
    assert sum(1 for ln in d["test"].splitlines() if ln.strip()) <= 20
    # The printed test, run for real: passes on head, fails once the module imports sglang.
    work = tmp_path / "tree"
    subprocess.run(["git", "clone", "-q", str(repo.path), str(work)], check=True)
    passed = _run_pytest(work, d["test_path"], d["test"])
    assert passed.returncode == 0, passed.stdout + passed.stderr
    handler = work / HANDLER
    handler.write_text(handler.read_text() + BACK_IMPORT)
    failed = _run_pytest(work, d["test_path"], d["test"])
    assert (
        failed.returncode == 1
        and "the hoists in mooncake/conn.py and nixl/conn.py rely on none" in failed.stdout
    )
    # What was not offered would indeed fail on head: the wildcard contract breaks there.
    handler.write_text(handler.read_text().replace(BACK_IMPORT, ""))
    contract = (
        "[importlinter:contract:leaf]\nname = leaf\ntype = forbidden\n"
        f"source_modules =\n    {STAGING}\nforbidden_modules =\n    sglang.**\n"
    )
    assert "0 kept, 1 broken" in _lint_imports(work, contract).stdout


def test_seed_report_prints_the_test_in_details_and_no_contract(seed_repo):
    from tests.conftest import run_cli

    repo, _base, _sha = seed_repo
    for lang, word in (
        ("en", "No import-linter contract is offered"),
        ("zh", "不提供 import-linter 契约"),
    ):
        res = run_cli(
            "35980", "--repo", str(repo.path), "--lang", lang, "--out", "-", "--format", "md"
        )
        assert res.returncode == 0, res.stderr
        md = res.stdout
        assert word in md and "<details>" in md and "module_level_imports" in md
        assert "forbidden_modules" not in md and "importlinter:contract" not in md


def test_a_contract_is_offered_when_it_holds_and_import_linter_keeps_and_breaks_it(tmp_path):
    a = analyse_commit(tmp_path, _leaf_base(), seed_pr.pr_files(), "refactor: hoist (#35980)")
    d = _contract(a).details
    assert d["contract_holds"] is True and d["test_verified"] is True
    # the package itself is named (as its wildcard), not its children
    assert d["forbidden_checked"] == ["sglang.**"] and '"sglang.**"' in d["contract"]
    repo = tmp_path / "repo"
    kept = _lint_imports(repo, d["contract_ini"])
    assert "1 kept, 0 broken" in kept.stdout, kept.stdout + kept.stderr
    (repo / HANDLER).write_text((repo / HANDLER).read_text() + BACK_IMPORT)
    assert "0 kept, 1 broken" in _lint_imports(repo, d["contract_ini"]).stdout
    # Named bare, import-linter keeps the contract whatever the module imports: why the wildcard.
    bare = d["contract_ini"].replace("    sglang.**\n", "    sglang\n")
    assert "1 kept, 0 broken" in _lint_imports(repo, bare).stdout


def test_the_test_is_not_verified_when_head_already_violates_it():
    head = seed_pr.STAGING_HANDLER + "\nfrom ..base import KVPoll\n"
    assert not leaf_test(STAGING, HANDLER, ["sglang"], CONN, head).verified
    # a module-level import in a class body or a try counts; under TYPE_CHECKING it does not
    for extra in (
        "\nclass A:\n    import sglang\n",
        "\ntry:\n    import sglang.srt\nexcept ImportError:\n    pass\n",
    ):
        assert not leaf_test(
            STAGING, HANDLER, ["sglang"], CONN, seed_pr.STAGING_HANDLER + extra
        ).verified
    assert leaf_test(STAGING, HANDLER, ["sglang"], CONN, seed_pr.STAGING_HANDLER).verified


def test_a_top_level_module_and_importer_get_a_checked_test():
    # alembic-9533b119: an importer at the repository root (no folder in its path)
    test = leaf_test("pkgmod", "pkgmod.py", ["pkgmod"], ["script.py"], "import os\n")
    assert test.verified and "the hoists in script.py rely on none" in test.text
