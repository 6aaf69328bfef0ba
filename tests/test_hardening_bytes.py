"""Unusual bytes never cost a report or a true verdict (issue #13, items 1-4).

Real modules of the standard library, committed in real git repositories, with the bytes
the campaign found: non-UTF-8 and oversized files, form feeds and other characters
``str.splitlines`` breaks at, a byte-order mark, NUL bytes, merge-conflict
markers and expression chains too deep for a recursive walk.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from prreport.analyzers import run_analyzers, selected
from prreport.bundle import FileChange, PullRequestBundle, PullRequestMeta
from prreport.config import AnalysisConfig
from prreport.diffparse import changed_lines
from prreport.pipeline import Analysis
from prreport.python.sources import SourceFiles
from prreport.report.ledger import is_failure
from tests.conftest import load_json, run_cli
from tests.gitrepo import Repo, analyse_commit
from tests.mutations import STDLIB, git_patch, split_lines


def _real(name: str) -> str:
    return (STDLIB / name).read_text(encoding="utf-8")


def _hoist(text: str, stmt: str) -> str:
    """``text`` with the function-local ``stmt`` moved above the module's first import."""
    lines = text.split("\n")
    at = next(i for i, ln in enumerate(lines) if ln.strip() == stmt and ln.startswith(" "))
    del lines[at]
    first = next(i for i, ln in enumerate(lines) if ln.startswith(("import ", "from ")))
    lines.insert(first, stmt)
    return "\n".join(lines)


def _risk_ids(a: Analysis) -> set[str]:
    return {r["id"] for r in a.model.risks}


# -- 1. unreadable files -------------------------------------------------------------------


def _unreadable_repo(path: Path) -> Repo:
    repo = Repo(path)
    textwrap = _real("textwrap.py")
    repo.commit("init", {"pkg/__init__.py": "", "pkg/tw.py": textwrap, "pkg/legacy.py": "X = 1\n"})
    repo.commit(
        "refactor(pkg): hoist re (#5)",
        {
            "pkg/tw.py": textwrap.replace("import re\n", "import re  # regexes\n", 1),
            # Latin-1, as an old module might be: not UTF-8.
            "pkg/legacy.py": "# caf\xe9\nX = 2\n".encode("latin-1"),
            "pkg/big.py": "DATA = 1\n" + "# padding\n" * 4000,
        },
    )
    return repo


def test_unreadable_files_are_a_risk_not_a_failed_report(tmp_path: Path):
    repo = _unreadable_repo(tmp_path / "r")
    out = tmp_path / "out"
    res = run_cli(
        "5",
        "--repo",
        str(repo.path),
        "--format",
        "md,html,json",
        "--out",
        str(out),
        "-q",
        env={"PRREPORT_GIT_MAX_FILE_BYTES": "30000"},
    )
    assert res.returncode == 0, res.stderr
    md = (out / "r-pr-5.md").read_text(encoding="utf-8")
    assert "`pkg/legacy.py`: not UTF-8 text" in md
    assert re.search(r"`pkg/big\.py`: too large \(\d+ bytes \\?> 30000\)", md)
    assert (out / "r-pr-5.html").is_file()
    data = load_json(out / "r-pr-5.json")
    assert data["summary"]["verdict"] == "unknown"
    (risk,) = [r for r in data["risks"] if r["id"] == "unparseable"]
    assert {e["path"] for e in risk["evidence"]} >= {"pkg/legacy.py", "pkg/big.py"}


@pytest.mark.parametrize("value", ["0", "-5"])
def test_max_file_bytes_must_be_positive(tmp_path: Path, value: str):
    repo = _unreadable_repo(tmp_path / "r")
    res = run_cli(
        "5", "--repo", str(repo.path), "--out", str(tmp_path / "o"), "-q",
        env={"PRREPORT_GIT_MAX_FILE_BYTES": value},
    )  # fmt: skip
    assert res.returncode == 2
    assert res.stderr.startswith("error: ") and "git.max_file_bytes" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr


def test_unreadable_file_from_the_github_source_and_the_comment(tmp_path: Path):
    from tests.ghserver import GitHubServer

    token = "ghp_test0123456789abcdefSECRET"
    with GitHubServer(token=token) as srv:
        repo = srv.state.repos["o/r"]
        (mod,) = [f for f in repo["pull_files"]["102"] if f["filename"] == "pkg/mod.py"]
        import base64

        repo["blobs"][mod["sha"]] = base64.b64encode("VALUE = '\xe9'\n".encode("latin-1")).decode()
        env = {"GITHUB_TOKEN": token, "PRREPORT_GITHUB_CACHE_DIR": str(tmp_path / "cache")}
        common = ["--github", "o/r", "--github-api-url", srv.url]
        res = run_cli("102", *common, "--out", str(tmp_path / "out"), "-q", cwd=tmp_path, env=env)
        assert res.returncode == 0, res.stderr
        md = next((tmp_path / "out").glob("*.md")).read_text(encoding="utf-8")
        assert "`pkg/mod.py`: not UTF-8 text" in md
        res = run_cli("comment", "102", *common, "--dry-run", cwd=tmp_path, env=env)
        assert res.returncode == 0, res.stderr
        assert "not UTF-8 text" in res.stdout + res.stderr


# -- 2. one line-splitting rule -----------------------------------------------------------


def test_split_lines_breaks_only_where_python_does():
    from prreport.textlines import split_lines

    text = "a\x0cb\nc\x0bd\x1c\x1d\x1e\x85e\u2028f\u2029g\r\nh\ri\n"
    assert split_lines(text) == ["a\x0cb", "c\x0bd\x1c\x1d\x1e\x85e\u2028f\u2029g", "h", "i"]
    assert "".join(split_lines(text, keepends=True)) == text
    assert split_lines("x\ny") == ["x", "y"] and split_lines("") == []


def test_changed_lines_count_form_feeds_as_part_of_a_line():
    patch = "@@ -1,4 +1,4 @@\n \x0c\n x = '\u2028'\n-old\n+new\n \x0c\n"
    assert changed_lines(patch).removed == (3,) and changed_lines(patch).added == (3,)


def test_changed_lines_below_a_real_page_break(tmp_path: Path):
    # email/charset.py (Debian's copy) has a page break (form feed line) right above the
    # constants a PR edits; git's patch keeps it as one context line.
    real = _real("email/charset.py")
    rows = split_lines(real)
    ff = next(i for i, r in enumerate(rows, 1) if r == "\x0c")
    target = next(i for i in range(ff + 1, ff + 4) if rows[i - 1].strip())
    after = "\n".join([*rows[: target - 1], rows[target - 1] + "  # edited", *rows[target:]]) + "\n"
    cl = changed_lines(git_patch(real, after))
    assert cl.removed == (target,) and cl.added == (target,)


def test_form_feeds_above_a_pure_hoist_keep_it_pure(tmp_path: Path):
    # email/feedparser.py has page breaks above its function-local import; the PR hoists it.
    real = _real("email/feedparser.py")
    assert "\x0c" in real[: real.index("from email.message import Message")]
    after = _hoist(real, "from email.message import Message")
    a = analyse_commit(tmp_path, {"pkg/__init__.py": "", "pkg/fp.py": real}, {"pkg/fp.py": after})
    assert "import.hoisted" in {f.kind for f in a.findings}
    assert a.model.summary.verdict == "pure-refactor"


def test_a_call_below_form_feeds_keeps_a_definition_alive(tmp_path: Path):
    # A real module with page breaks calls the helper the PR removes: not dead code (git grep
    # gives the call's real line number; rows split at form feeds would land on a comment).
    real = _real("email/base64mime.py")
    user = real.replace("\n# Helpers\n", "\n# Helpers\npkg.util.legacy_helper()\n", 1)
    user = user.replace(
        "from base64 import b64encode\n", "import pkg.util\nfrom base64 import b64encode\n", 1
    )
    assert "\x0c" in user[: user.index("legacy_helper()")]
    util = "def legacy_helper():\n    return 1\n\n\ndef other():\n    return 2\n"
    a = analyse_commit(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/util.py": util, "pkg/user.py": user},
        {"pkg/util.py": "def other():\n    return 2\n"},
    )
    assert not [f for f in a.findings if f.kind == "code.dead-removed"]
    assert a.model.summary.verdict != "pure-refactor"


# -- 3. byte-order mark; unparseable after-file ----------------------------------------------


def test_a_byte_order_mark_is_valid_python(tmp_path: Path):
    before = _real("email/feedparser.py")
    after = _hoist(before, "from email.message import Message")
    bom = b"\xef\xbb\xbf"
    a = analyse_commit(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/fp.py": bom + before.encode()},  # type: ignore[dict-item]
        {"pkg/fp.py": bom + after.encode()},  # type: ignore[dict-item]
    )
    assert not [d for d in a.diagnostics if d.path], a.diagnostics
    assert "import.hoisted" in {f.kind for f in a.findings}
    (f,) = a.bundle.files
    assert f.after is not None and not f.after.startswith("\ufeff")


def test_an_unparseable_after_file_has_no_dead_code(tmp_path: Path):
    before = _real("shlex.py")
    after = before.replace("    def read_token(self):", "    def read_token(self)", 1)
    a = analyse_commit(
        tmp_path, {"pkg/__init__.py": "", "pkg/shlex.py": before}, {"pkg/shlex.py": after}
    )
    assert not [f for f in a.findings if f.kind.startswith(("code.", "symbol."))]
    assert a.model.summary.verdict == "unknown"
    assert "unparseable" in _risk_ids(a)


# -- 4. files no analyzer can walk ------------------------------------------------------------


def _stdlib_pair(mutate: str) -> tuple[str, str]:
    before = _real("textwrap.py")
    if mutate == "long-chain":
        return before, before + "\nLONG = " + " + ".join(["1"] * 1000) + "\n"
    if mutate == "longer-chain":
        return before, before + "\nLONG = " + " + ".join(["1"] * 5000) + "\n"
    if mutate == "null-byte":
        return before, before[:12000] + "\0" + before[12000:]
    assert mutate == "conflict"
    lines = before.split("\n")
    at = lines.index("import re")
    return before, "\n".join(
        [*lines[:at], "<<<<<<< HEAD", lines[at], "=======", "import re as regex", ">>>>>>> topic"]
        + lines[at + 1 :]
    )


def _bundle(before: str, after: str) -> PullRequestBundle:
    patch = git_patch(before, after)
    rows = patch.split("\n")
    change = FileChange(
        "pkg/textwrap.py",
        "modified",
        sum(r.startswith("+") for r in rows),
        sum(r.startswith("-") for r in rows),
        patch=patch,
        before=before,
        after=after,
    )
    meta = PullRequestMeta("o/r", 1, "refactor: tidy", "", "a", "0" * 40, "1" * 40)
    return PullRequestBundle("bundle", meta, (change,), head_paths=("pkg/textwrap.py",))


@pytest.mark.parametrize("mutate", ["long-chain", "longer-chain", "null-byte", "conflict"])
def test_unwalkable_files_are_a_parser_diagnostic_not_an_analyzer_crash(mutate: str):
    from prreport.config import Config
    from prreport.pipeline import analyse

    a = analyse(_bundle(*_stdlib_pair(mutate)), Config())
    assert not [d for d in a.diagnostics if is_failure(d)], a.diagnostics
    parser = [d for d in a.diagnostics if d.origin == "parser"]
    assert parser and parser[0].path == "pkg/textwrap.py"
    assert "after version not analysed" in parser[0].message
    assert a.model.summary.verdict == "unknown"
    assert "unparseable" in _risk_ids(a)
    if mutate == "conflict":
        assert "merge-conflict markers" in parser[0].message
        assert parser[0].line == _stdlib_pair("conflict")[1].split("\n").index("<<<<<<< HEAD") + 1


def test_run_analyzers_alone_reports_the_deep_file_once():
    bundle = _bundle(*_stdlib_pair("long-chain"))
    findings, diags = run_analyzers(selected(AnalysisConfig()), bundle, sources=SourceFiles(bundle))
    assert [d.origin for d in diags] == ["parser"]
    assert "deeper than" in diags[0].message


def test_branch_chains_with_ordering_comparisons_do_not_crash(tmp_path: Path):
    before = "def f(x):\n    if x < 1:\n        return 'a'\n    elif x == 2:\n        return 'b'\n    return 'c'\n"
    after = "def f(x):\n    if x < 1:\n        return 'a'\n    if x == 2:\n        return 'b'\n    return 'c'\n"
    a = analyse_commit(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": before}, {"pkg/m.py": after})
    assert not [d for d in a.diagnostics if is_failure(d)], a.diagnostics
