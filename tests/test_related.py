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


def test_the_pr_that_wrote_the_edited_lines_comes_first_but_outside_the_window_is_no_predecessor(
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
    got = report(repo.path, 20)
    related = got["related"]
    first = related[0]
    # #10 wrote the in-loop import (a year before; the window is 60 days), and comes first,
    # but nothing older than the window is called a predecessor or the direct base (§5).
    assert first["number"] == 10 and first["relation"] == "same-lines"
    assert first["reasons"][0] == "same-lines" and first["shared_lines"] == ["pkg/worker.py"]
    assert not first.get("direct_base")
    assert not [c for c in related if c["relation"] == "predecessor"]
    line = next(ln for ln in got["md"].splitlines() if ln.startswith("- PR #10 "))
    assert "(wrote the edited lines, before the window)" in line
    assert "predecessor" not in line and "direct base" not in line
    cfg = Config(git=GitConfig(repo=str(repo.path)))
    zh = render_markdown(analyse(gather(GitSource("20", cfg.git), cfg), cfg).model, "zh")
    zh_line = next(ln for ln in zh.splitlines() if ln.startswith("- PR #10 "))
    assert "（改动行的出处，早于时间窗口）" in zh_line and "前驱" not in zh_line
    # Five later PRs share only the file: three are shown.
    same_files_only = [c for c in related if c["reasons"] == ["same-files"]]
    assert len(same_files_only) == 3


def test_the_pr_that_wrote_the_edited_lines_inside_the_window_is_the_direct_base(tmp_path: Path):
    repo = Repo(tmp_path / "repo")
    repo.commit(
        "init",
        {"pkg/__init__.py": "", "pkg/codec.py": "def decode(x):\n    return x\n"},
        date="2025-03-01T10:00:00+00:00",
    )
    repo.commit(
        "feat(worker): add the worker loop (#10)",
        {"pkg/worker.py": LOOP},
        date="2025-03-05T10:00:00+00:00",
    )
    hoisted = LOOP.replace("import logging\n", "import logging\n\nfrom pkg.codec import decode\n")
    repo.commit(
        "refactor(worker): hoist the codec import (#20)",
        {"pkg/worker.py": hoisted.replace("        from pkg.codec import decode\n\n", "")},
        date="2025-03-20T10:00:00+00:00",
    )
    got = report(repo.path, 20)
    [first] = [c for c in got["related"] if c["number"] == 10]
    assert first["relation"] == "predecessor" and first["direct_base"] is True
    assert "- PR #10 feat(worker): add the worker loop (direct base)" in got["md"]
