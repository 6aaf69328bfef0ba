"""A caller that imports a renamed definition under its old name (``from m import new as old``)
is not a caller "left on the old name" (issue 32: the report said so of such aliases)."""

from __future__ import annotations

from pathlib import Path

from tests.gitrepo import analyse_commit

_A = "def old_fn(x):\n    return x + 1\n"
_B = "from pkg.a import old_fn\n\n\ndef g(y):\n    return old_fn(y) * 2\n"


def test_an_alias_to_the_old_name_is_no_stale_caller(tmp_path: Path) -> None:
    a = analyse_commit(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/a.py": _A, "pkg/b.py": _B},
        {
            "pkg/a.py": _A.replace("old_fn", "new_fn"),
            "pkg/b.py": _B.replace("import old_fn", "import new_fn as old_fn"),
        },
    )
    (fd,) = [f for f in a.findings if f.kind == "symbol.renamed"]
    assert fd.details["stale_references"] == [], fd.details


def test_a_caller_still_importing_the_old_name_is_stale(tmp_path: Path) -> None:
    a = analyse_commit(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/a.py": _A, "pkg/b.py": _B},
        {"pkg/a.py": _A.replace("old_fn", "new_fn"), "pkg/b.py": _B + "\n# touched\n"},
    )
    (fd,) = [f for f in a.findings if f.kind == "symbol.renamed"]
    assert fd.details["stale_references"], fd.details
