"""Old-Mac (CR-only) line ends are Python (Hardening II, G13).

``compile()`` reads a file whose lines end in a lone ``\\r``; git sees one line where Python
sees many, and such a file was reported as unparseable (``unknown``). It is analysed now, its
lines numbered as Python numbers them.
"""

from __future__ import annotations

import ast
from pathlib import Path

from prreport.bundle import python_line_ends
from prreport.config import Config, GitConfig
from prreport.diffparse import changed_lines
from prreport.pipeline import Analysis, analyse, gather
from prreport.render.markdown import render_markdown
from prreport.sources.git import GitSource
from tests.gitrepo import Repo

BEFORE = "import os\r\r\rdef f():\r    import json\r    return json.dumps(os.sep)\r\r\rdef g():\r    return 1\r"
HOIST = "import os\rimport json\r\r\rdef f():\r    return json.dumps(os.sep)\r\r\rdef g():\r    return 1\r"


def _run(tmp_path: Path, before: str, after: str) -> Analysis:
    repo = Repo(tmp_path / "repo")
    repo.commit("init", {"pkg/__init__.py": "", "pkg/m.py": before.encode()})
    repo.commit("refactor(pkg): hoist the json import (#5)", {"pkg/m.py": after.encode()})
    cfg = Config()
    src = GitSource("5", GitConfig(repo=str(repo.path)))
    try:
        return analyse(gather(src, cfg), cfg)
    finally:
        src.close()


def test_a_hoist_in_a_cr_only_file_is_analysed_and_proven(tmp_path: Path):
    compile(HOIST, "m.py", "exec")  # valid Python
    a = _run(tmp_path, BEFORE, HOIST)
    assert not [d for d in a.diagnostics if d.origin == "parser"], a.diagnostics
    hoisted = [f for f in a.findings if f.kind == "import.hoisted"]
    assert [(f.symbol, f.line) for f in hoisted] == [("json", 2)]
    assert a.model.summary.verdict == "pure-refactor"
    assert "could not be analysed" not in render_markdown(a.model, "en")


def test_lines_are_numbered_as_python_numbers_them(tmp_path: Path):
    after = BEFORE.replace("return 1", "return 2")
    a = _run(tmp_path, BEFORE, after)
    line = next(
        n.lineno for n in ast.walk(ast.parse(after)) if isinstance(n, ast.Constant) and n.value == 2
    )
    changed = [f for f in a.findings if f.kind == "behavior.changed"]
    assert [(f.symbol, f.line) for f in changed] == [("g", 9)]
    md = render_markdown(a.model, "en")
    assert f"pkg/m.py:{line}" in md and "+1/-1" in md


def test_the_patch_is_made_from_the_texts_with_python_line_ends():
    from prreport.bundle import FileChange, PullRequestBundle, PullRequestMeta

    git_patch = "@@ -1 +1 @@\n-" + BEFORE + "\n\\ No newline at end of file\n+" + HOIST
    f = FileChange("pkg/m.py", "modified", 1, 1, patch=git_patch, before=BEFORE, after=HOIST)
    meta = PullRequestMeta("o/r", 1, "t", "", "a", "0" * 40, "1" * 40)
    b = python_line_ends(
        PullRequestBundle("bundle", meta, (f,), context_files={"pkg/c.py": "x = 1\ry = 2\r"})
    )
    (g,) = b.files
    assert "\r" not in (g.before or "") + (g.after or "")
    cl = changed_lines(g.patch)
    assert (cl.removed, cl.added) == ((5,), (2,)) and (g.additions, g.deletions) == (1, 1)
    assert b.context_files["pkg/c.py"] == "x = 1\ny = 2\n"
    plain = PullRequestBundle(
        "bundle", meta, (FileChange("a.py", "modified", 0, 0, before="x\n", after="y\n"),)
    )
    assert python_line_ends(plain) is plain
