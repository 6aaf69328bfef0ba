"""A side of a file that was not read is unknown, never a removal or an addition (Hardening II, G1).

Real git repositories: a PR turns ``allowed`` into ``return True`` in a file whose after (or
before) side cannot be read — a Latin-1 byte without a coding declaration, or more bytes than
``git.max_file_bytes``. Before G1 such a side reached the analyzers as a missing file: every
definition "removed as dead code" and the PR a pure refactor. A file that declares its
encoding (PEP 263) is valid Python and is analysed as usual.
"""

from __future__ import annotations

import base64
from pathlib import Path

from prreport.bundle import FileChange, PullRequestBundle, PullRequestMeta
from prreport.config import Config, GitConfig
from prreport.pipeline import Analysis, analyse, gather
from prreport.sources._text import decode_text
from prreport.sources.git import GitSource
from tests.conftest import load_json, run_cli
from tests.gitrepo import Repo

BEFORE = (
    "import os\n\n\n"
    "def allowed(user):\n    return user.is_admin\n\n\n"
    "def home():\n    return os.getcwd()\n"
)
AFTER = BEFORE.replace("return user.is_admin", "return True")
LATIN1 = b"# caf\xe9\n"  # a comment in Latin-1: not UTF-8, and no coding declaration
COOKIE = "# -*- coding: latin-1 -*-\n"
# Findings that read one side of a file as a whole file added or removed.
_ONE_SIDED = {
    "code.dead-removed",
    "import.removed",
    "import.added",
    "symbol.moved",
    "symbol.renamed",
    "code.extracted",
    "code.inlined",
}


def _analyse(root: Path, base: dict, change: dict, max_file_bytes: int | None = None) -> Analysis:
    repo = Repo(root / "repo")
    repo.commit("init", {"pkg/__init__.py": "", **base})
    repo.commit("refactor(pkg): tidy auth (#7)", change)
    limit = {} if max_file_bytes is None else {"max_file_bytes": max_file_bytes}
    cfg = Config()
    src = GitSource("7", GitConfig(repo=str(repo.path), **limit))
    try:
        return analyse(gather(src, cfg), cfg)
    finally:
        src.close()


def _assert_unknown_for(a: Analysis, path: str, side: str) -> None:
    assert a.model.summary.verdict == "unknown"
    assert a.model.summary.headline["unknown_reason"] == "unread"
    assert a.model.summary.headline["unparsed_files"] == [path]
    (diag,) = [d for d in a.diagnostics if d.path == path]
    assert f"{side} version not read" in diag.message
    assert not [f for f in a.findings if f.path == path and f.kind in _ONE_SIDED], a.findings
    assert not [f for f in a.findings if f.path == path and f.kind.startswith("behavior.")]


def test_a_latin1_byte_in_the_after_side_is_unknown_not_dead_code(tmp_path: Path):
    a = _analyse(
        tmp_path, {"pkg/auth.py": BEFORE}, {"pkg/auth.py": LATIN1 + AFTER.encode("latin-1")}
    )
    (f,) = [f for f in a.bundle.files if f.path == "pkg/auth.py"]
    assert f.after is None and f.before == BEFORE and f.note == "not UTF-8 text"
    _assert_unknown_for(a, "pkg/auth.py", "after")
    (diag,) = [d for d in a.diagnostics if d.path == "pkg/auth.py"]
    assert diag.message.startswith("not UTF-8 text")


def test_an_after_side_over_max_file_bytes_is_unknown(tmp_path: Path):
    repo = Repo(tmp_path / "r")
    repo.commit("init", {"pkg/__init__.py": "", "pkg/auth.py": BEFORE})
    repo.commit("refactor(pkg): tidy auth (#7)", {"pkg/auth.py": AFTER + "# padding\n" * 14_000})
    config = tmp_path / "config.toml"
    config.write_text("[git]\nmax_file_bytes = 100000\n", encoding="utf-8")
    out = tmp_path / "out"
    res = run_cli(
        "7", "--repo", str(repo.path), "--config", str(config), "--format", "md,json",
        "--out", str(out), "-q",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    data = load_json(out / "r-pr-7.json")
    assert data["summary"]["verdict"] == "unknown"
    assert data["summary"]["headline"]["unknown_reason"] == "unread"
    kinds = {(f["kind"], f["path"]) for f in data["findings"]}
    assert not {k for k, p in kinds if p == "pkg/auth.py"} & _ONE_SIDED, kinds
    (diag,) = [d for d in data["diagnostics"] if d["path"] == "pkg/auth.py"]
    assert diag["message"].startswith("too large (") and "after version not read" in diag["message"]
    md = (out / "r-pr-7.md").read_text(encoding="utf-8")
    assert "pkg/auth.py could not be read" in md and "pure refactor" not in md


def test_a_declared_latin1_file_is_analysed_and_its_change_found(tmp_path: Path):
    # PEP 263: with a coding declaration the Latin-1 byte is valid Python source.
    before = (COOKIE + "# caf\xe9\n" + BEFORE).encode("latin-1")
    after = (COOKIE + "# caf\xe9\n" + AFTER).encode("latin-1")
    a = _analyse(tmp_path, {"pkg/auth.py": before}, {"pkg/auth.py": after})
    assert not a.diagnostics, a.diagnostics
    (f,) = [f for f in a.bundle.files if f.path == "pkg/auth.py"]
    assert f.after is not None and "caf\xe9" in f.after and f.note is None
    assert a.model.summary.verdict == "behavior-change"
    (changed,) = [f for f in a.findings if f.kind == "behavior.changed"]
    assert changed.symbol == "allowed"
    assert not [f for f in a.findings if f.kind == "code.dead-removed"]


def test_a_declared_latin1_file_with_a_real_refactor_is_proven_pure(tmp_path: Path):
    # The PR hoists ``import os`` out of ``home``: a pure refactor, in a Latin-1 file.
    local = BEFORE.replace("import os\n", "", 1).replace(
        "():\n    return os", "():\n    import os\n    return os"
    )
    before = COOKIE + "# caf\xe9\n" + local
    after = COOKIE + "# caf\xe9\n" + BEFORE
    assert "    import os\n    return os.getcwd()" in before and before.count("import os") == 1
    a = _analyse(
        tmp_path,
        {"pkg/auth.py": before.encode("latin-1")},
        {"pkg/auth.py": after.encode("latin-1")},
    )
    assert not a.diagnostics, a.diagnostics
    assert "import.hoisted" in {f.kind for f in a.findings}
    assert a.model.summary.verdict == "pure-refactor"


def test_an_unread_before_side_is_unknown_not_everything_added(tmp_path: Path):
    a = _analyse(
        tmp_path, {"pkg/auth.py": LATIN1 + BEFORE.encode("latin-1")}, {"pkg/auth.py": AFTER}
    )
    (f,) = [f for f in a.bundle.files if f.path == "pkg/auth.py"]
    assert f.before is None and f.after == AFTER
    _assert_unknown_for(a, "pkg/auth.py", "before")


def test_an_unread_before_side_over_the_limit_is_unknown(tmp_path: Path):
    padded = BEFORE + "# padding\n" * 14_000
    a = _analyse(
        tmp_path,
        {"pkg/auth.py": padded},
        {"pkg/auth.py": AFTER},
        max_file_bytes=100_000,
    )
    _assert_unknown_for(a, "pkg/auth.py", "before")


def test_an_unread_file_beside_a_pure_refactor_keeps_the_verdict_unknown(tmp_path: Path):
    # A proven hoist in one file does not make the PR pure while another file is unread.
    hoist_before = "def f():\n    import os\n    return os.sep\n"
    hoist_after = "import os\n\n\ndef f():\n    return os.sep\n"
    a = _analyse(
        tmp_path,
        {"pkg/auth.py": BEFORE, "pkg/sep.py": hoist_before},
        {"pkg/auth.py": LATIN1 + AFTER.encode("latin-1"), "pkg/sep.py": hoist_after},
    )
    assert "import.hoisted" in {f.kind for f in a.findings if f.path == "pkg/sep.py"}
    _assert_unknown_for(a, "pkg/auth.py", "after")


# -- decoding and the analysed view, source by source ----------------------------------------


def test_decode_text_reads_pep263_declarations_and_nothing_else():
    assert decode_text(b"# -*- coding: latin-1 -*-\nX = '\xe9'\n", 100)[0] == (
        "# -*- coding: latin-1 -*-\nX = '\xe9'\n"
    )
    assert decode_text(b"# vim: set fileencoding=cp1252 :\nX = '\x80'\n", 100)[0] == (
        "# vim: set fileencoding=cp1252 :\nX = '\u20ac'\n"
    )
    assert decode_text(b"\xef\xbb\xbfX = 1\n", 100) == ("X = 1\n", False, None)
    assert decode_text(b"# caf\xe9\n", 100) == (None, False, "not UTF-8 text")
    # A declaration on line 2 counts only below a comment or blank line (as Python reads it).
    assert decode_text(b"X = '\xe9'\n# coding: latin-1\n", 100)[2] == "not UTF-8 text"
    text, _, note = decode_text(b"# coding: cp1252\nX = '\x81'\n", 100)
    assert text is None and note is not None and note.startswith("not cp1252 text")
    # A bytes-to-bytes codec or an unknown one is no text encoding: such a file must be UTF-8.
    assert decode_text(b"# coding: rot13\nX = 1\n", 100)[0] == "# coding: rot13\nX = 1\n"
    assert decode_text(b"# coding: nonesuch\n\xe9\n", 100)[2] == "not UTF-8 text"
    assert (
        decode_text(b"# coding: latin-1\n" + b"#\n" * 60, 100)[2] == "too large (138 bytes > 100)"
    )


def _bundle(*files: FileChange) -> PullRequestBundle:
    meta = PullRequestMeta("o/r", 1, "t", "", "a", "b" * 40, "c" * 40)
    return PullRequestBundle("bundle", meta, files)


def test_a_saved_bundle_with_an_unread_side_is_analysed_as_unknown(tmp_path: Path):
    # A bundle from another machine (or an older prreport) carries the one-sided file as is.
    from prreport.bundle import analysable, bundle_file_bytes

    patch = "@@ -5 +5 @@\n-    return user.is_admin\n+    return True\n"
    f = FileChange("pkg/auth.py", "modified", 1, 1, patch=patch, before=BEFORE, after=None)
    init = FileChange("pkg/__init__.py", "modified", 1, 0, patch="@@ -0,0 +1 @@\n+#\n", before="", after="#\n")  # fmt: skip
    bundle = _bundle(f, init)
    assert f.unread_sides == ("after",) and init.unread_sides == ()
    view = analysable(bundle)
    (g,) = [x for x in view.files if x.path == "pkg/auth.py"]
    assert g.before is None and g.after is None and g.note == "after text missing"
    read = _bundle(init)
    assert analysable(read) is read  # every side read: the bundle itself
    path = tmp_path / "b.json"
    path.write_bytes(bundle_file_bytes(bundle, path))
    out = tmp_path / "out"
    res = run_cli("--bundle", str(path), "--format", "json", "--out", str(out), "-q")
    assert res.returncode == 0, res.stderr
    data = load_json(next(out.glob("*.json")))
    assert data["summary"]["verdict"] == "unknown"
    kinds = {fd["kind"] for fd in data["findings"] if fd["path"] == "pkg/auth.py"}
    assert not kinds & _ONE_SIDED, kinds


_BASE, _HEAD = (
    "7da0ce0471107a6388ebb5021232c52e2c68db15",
    "c8a79e5030508a7077025ab10af380936c0d19ed",
)


def _github_mod(srv, before: bytes, after: bytes, patch: str | None, adds: int, dels: int) -> None:
    """Give ``pkg/mod.py`` of the fixture's PR #102 these base and head bytes and this patch."""
    repo = srv.state.repos["o/r"]
    shas = {_BASE: "1" * 40, _HEAD: "2" * 40}
    for ref, data in ((_BASE, before), (_HEAD, after)):
        repo["blobs"][shas[ref]] = base64.b64encode(data).decode()
        (entry,) = [e for e in repo["trees"][ref] if e["path"] == "pkg/mod.py"]
        entry.update(sha=shas[ref], size=len(data))
    (mod,) = [f for f in repo["pull_files"]["102"] if f["filename"] == "pkg/mod.py"]
    mod.update(sha=shas[_HEAD], additions=adds, deletions=dels, changes=adds + dels)
    mod.pop("patch", None)
    if patch is not None:
        mod["patch"] = patch


def _github_run(srv, tmp_path: Path, token: str) -> tuple[dict, dict]:
    """Run the CLI on PR #102 of the fake GitHub: (report JSON, saved bundle JSON)."""
    import json

    env = {"GITHUB_TOKEN": token, "PRREPORT_GITHUB_CACHE_DIR": str(tmp_path / "cache")}
    out, saved = tmp_path / "out", tmp_path / "b.json"
    res = run_cli(
        "102", "--github", "o/r", "--github-api-url", srv.url, "--format", "json",
        "--out", str(out), "--save-bundle", str(saved), "-q", cwd=tmp_path, env=env,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    return load_json(next(out.glob("*.json"))), json.loads(saved.read_text(encoding="utf-8"))


def test_github_source_with_an_unread_base_is_unknown_not_everything_added(tmp_path: Path):
    # No patch (GitHub leaves it out of large diffs): the base is read from its blob, and
    # there it is Latin-1 without a declaration.
    from tests.ghserver import GitHubServer

    token = "ghp_test0123456789abcdefSECRET"
    with GitHubServer(token=token) as srv:
        _github_mod(srv, LATIN1 + BEFORE.encode("latin-1"), AFTER.encode(), None, 1, 1)
        data, _ = _github_run(srv, tmp_path, token)
    assert data["summary"]["verdict"] == "unknown"
    (diag,) = [d for d in data["diagnostics"] if d["path"] == "pkg/mod.py"]
    assert "not UTF-8 text" in diag["message"] and "before version not read" in diag["message"]
    kinds = {fd["kind"] for fd in data["findings"] if fd["path"] == "pkg/mod.py"}
    assert not kinds & _ONE_SIDED, kinds


def test_github_patch_of_a_declared_latin1_file_does_not_stand_for_its_base(tmp_path: Path):
    # GitHub's patch replaced the Latin-1 byte of the removed line: the base text is read
    # from the blob, as Python would read it, not rebuilt from the patch.
    from tests.ghserver import GitHubServer

    before = (COOKIE + "NAME = 'caf\xe9'\n").encode("latin-1")
    after = (COOKIE + "NAME = 'cafe'\n").encode("latin-1")
    patch = f"@@ -1,2 +1,2 @@\n {COOKIE}-NAME = 'caf\ufffd'\n+NAME = 'cafe'"
    token = "ghp_test0123456789abcdefSECRET"
    with GitHubServer(token=token) as srv:
        _github_mod(srv, before, after, patch, 1, 1)
        data, bundle = _github_run(srv, tmp_path, token)
    (f,) = [f for f in bundle["files"] if f["path"] == "pkg/mod.py"]
    assert f["before"] == COOKIE + "NAME = 'caf\xe9'\n"
    assert f["after"] == COOKIE + "NAME = 'cafe'\n"
    assert not [d for d in data["diagnostics"] if d["path"] == "pkg/mod.py"]
