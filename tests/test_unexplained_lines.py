"""Changed code no finding explains is what a reviewer must read: the report points at it (risk
``unexplained-change``, the recommended action, the one-line summary), and a line replaced by
the same code with only another comment or spacing is not such a line.

The modules are pip's own (``src/pip/_internal/utils/urls.py`` and the install command's
``_EAGER_IMPORTS`` tuple, from the pip commit saved in tests/corpus/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from prreport.bundle import load_bundle
from prreport.pipeline import Analysis
from tests.gitrepo import analyse_commit
from tests.test_corpus import CORPUS

URLS = "src/pip/_internal/utils/urls.py"


@pytest.fixture(scope="module")
def urls_py() -> str:
    bundle = load_bundle(CORPUS / "bundles" / "pip-4b803478.json.gz")
    f = bundle.file(URLS)
    assert f is not None and f.before
    return f.before


def _run(tmp_path: Path, before: str, after: str) -> Analysis:
    return analyse_commit(
        tmp_path,
        {"src/pip/__init__.py": "", "src/pip/_internal/__init__.py": "", URLS: before},
        {URLS: after},
        "chore(utils): tidy urls (#9)",
    )


def _risk(a: Analysis, rid: str) -> dict | None:
    return next((r for r in a.model.risks if r["id"] == rid), None)


def test_a_comment_added_to_a_code_line_changes_nothing(tmp_path: Path, urls_py: str):
    assert "import urllib.request\n" in urls_py
    after = urls_py.replace("import urllib.request\n", "import urllib.request  # noqa: F401\n")
    a = _run(tmp_path, urls_py, after)
    assert _risk(a, "unexplained-change") is None
    assert a.model.summary.verdict != "behavior-change"


def test_a_changed_value_is_pointed_at(tmp_path: Path, urls_py: str):
    old = '    if not netloc or netloc == "localhost":\n'
    assert old in urls_py
    after = urls_py.replace(old, '    if not netloc or netloc in ("localhost", "127.0.0.1"):\n')
    a = _run(tmp_path, urls_py, after)
    risk = _risk(a, "unexplained-change")
    assert risk is not None and risk["severity"] == "medium"
    [ev] = risk["evidence"]
    assert ev["path"] == URLS and ev["side"] == "+" and ev["count"] == 1
    assert ev["text"] == 'if not netloc or netloc in ("localhost", "127.0.0.1"):'
    assert after.splitlines()[ev["line"] - 1].strip() == ev["text"]
    action = a.model.summary.action
    assert action["level"] == "review"
    assert {"risk": "unexplained-change", "path": URLS, "line": ev["line"]} in action["spots"]
    assert a.model.summary.headline["unexplained_files"] == [URLS]


def test_a_comment_inside_a_multiline_string_is_text(tmp_path: Path, urls_py: str):
    usage = '\n\n_USAGE = """\nurl_to_path FILE_URL  # returns the local path\n"""\n'
    before = urls_py + usage
    after = urls_py + usage.replace("# returns the local path", "# returns the path")
    a = _run(tmp_path, before, after)
    risk = _risk(a, "unexplained-change")
    assert risk is not None, "a changed string literal was taken for a comment change"
    assert a.model.summary.verdict == "behavior-change"


def test_a_dedented_line_is_a_change(tmp_path: Path, urls_py: str):
    helper = (
        "\n\ndef _strip_root(path: str) -> str:\n"
        '    if path[:1] == "/":\n'
        "        path = path[1:]\n"
        '        path = path.replace("\\\\", "/")\n'
        "    return path\n"
    )
    # the same tokens one level out: the statement leaves its block
    moved = helper.replace("        path = path.replace", "    path = path.replace")
    assert moved != helper
    a = _run(tmp_path, urls_py + helper, urls_py + moved)
    assert _risk(a, "unexplained-change") is not None
