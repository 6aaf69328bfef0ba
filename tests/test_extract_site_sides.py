"""An extraction's per-site difference is told from old to new (issue 32 §2: "only the old code
ran ..., only the new one runs ..." had old and new swapped in every such finding)."""

from __future__ import annotations

from pathlib import Path

from prreport.render import render_markdown
from tests.gitrepo import analyse_commit


def test_what_only_the_old_code_ran_is_the_old_code(tmp_path: Path) -> None:
    before = "def f(x):\n    print(x)\n    return x + 1\n"
    after = "def _h(x):\n    print(x, 1)\n\n\ndef f(x):\n    _h(x)\n    return x + 1\n"
    a = analyse_commit(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": before}, {"pkg/m.py": after})
    (fd,) = [f for f in a.findings if f.kind == "code.extracted"]
    (site,) = fd.details["sites"]
    assert site["residual"] == ["-    print(x)", "+    print(x, 1)"]
    text = " ".join(render_markdown(a.model, "en").split())
    assert "only the old code ran `print(x)`, only the new one runs `print(x, 1)`" in text
