"""Related PRs that say why: the PR that wrote the lines this one edits, the PR that made what
this one imports, the follow-up that changed it, series members on one line, same-file PRs capped."""

from __future__ import annotations

from pathlib import Path

from prreport.config import Config, GitConfig
from prreport.pipeline import analyse, gather
from prreport.render import render_markdown
from prreport.sources.git import GitSource
from tests.fixtures import seed_pr
from tests.gitrepo import Repo

LOOP = '''"""Workers."""

import logging

logger = logging.getLogger(__name__)


def run(queue):
    while True:
        item = queue.get()
        if item is None:
            return
        from pkg.codec import decode

        logger.info("got %s", decode(item))
'''


def report(repo: Path, number: int) -> dict:
    cfg = Config(git=GitConfig(repo=str(repo)))
    model = analyse(gather(GitSource(str(number), cfg.git), cfg), cfg).model
    return {"related": list(model.related), "md": render_markdown(model, "en")}


def test_seed_names_what_this_pr_uses_and_the_follow_up_that_changed_it(seed_repo):
    repo, _base, _sha = seed_repo
    got = report(repo.path, seed_pr.PR_NUMBER)
    by = {c["number"]: c for c in got["related"]}
    handler = "python/sglang/srt/disaggregation/common/staging_handler.py"
    assert by[35948]["reasons"][0] == "provides-imports"
    assert by[35948]["provides"][0]["path"] == handler
    assert by[35948]["provides"][0]["names"] == ["handle_staging_rsp", "handle_watermark_msg"]
    assert by[36030]["reasons"][0] == "changes-imports"
    assert by[35838]["brief"] is True
    md = got["md"]
    assert "It changed `common/staging_handler.py`, the module this PR now imports" in md
    assert "(direct base)" in md  # #35948 made the module this PR now imports from
    assert (
        "- Also in the series `refactor(disagg)`: #35838 refactor(disagg): remove unreferenced dead code."
        in md
    )
    # The docs commit of the same week is not related.
    assert 35960 not in by


def test_the_pr_that_wrote_the_edited_lines_is_the_predecessor_even_outside_the_window(
    tmp_path: Path,
):
    repo = Repo(tmp_path / "repo")
    repo.commit(
        "init",
        {"pkg/__init__.py": "", "pkg/codec.py": "def decode(x):\n    return x\n"},
        date="2024-01-01T10:00:00+00:00",
    )
    repo.commit(
        "feat(worker): add the worker loop (#10)",
        {"pkg/worker.py": LOOP},
        date="2024-02-01T10:00:00+00:00",
    )
    for n in range(11, 16):
        repo.commit(
            f"fix(worker): tweak {n} (#{n})",
            {"pkg/worker.py": LOOP.replace('"""Workers."""', f'"""Workers {n}."""')},
            date=f"2025-03-{n:02d}T10:00:00+00:00",
        )
    hoisted = (
        LOOP.replace('"""Workers."""', '"""Workers 15."""')
        .replace("import logging\n", "import logging\n\nfrom pkg.codec import decode\n")
        .replace("        from pkg.codec import decode\n\n", "")
    )
    repo.commit(
        "refactor(worker): hoist the codec import (#20)",
        {"pkg/worker.py": hoisted},
        date="2025-03-20T10:00:00+00:00",
    )
    related = report(repo.path, 20)["related"]
    first = related[0]
    # #10 wrote the in-loop import (a year before; the window is 30 days), and comes first.
    assert first["number"] == 10 and first["relation"] == "predecessor"
    assert first["reasons"][0] == "same-lines" and first["shared_lines"] == ["pkg/worker.py"]
    # Five later PRs share only the file: three are shown.
    same_files_only = [c for c in related if c["reasons"] == ["same-files"]]
    assert len(same_files_only) == 3
