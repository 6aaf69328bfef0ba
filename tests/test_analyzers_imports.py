"""Import moves, zero-import loops, guard chains and retained lazy imports on real git repos."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest

from prreport.config import Config, GitConfig
from prreport.diffparse import changed_lines
from prreport.findings import Finding
from prreport.pipeline import Analysis, analyse, gather
from prreport.python.sources import SourceFiles
from prreport.sources.git import GitSource
from tests.fixtures.seed_pr import PKG, PR_NUMBER
from tests.gitrepo import Repo

MOONCAKE = f"{PKG}/mooncake/conn.py"
NIXL = f"{PKG}/nixl/conn.py"
BOOTSTRAP_MOONCAKE = "MooncakeKVManager.start_prefill_thread.<locals>.bootstrap_thread"
BOOTSTRAP_NIXL = "NixlKVManager._start_bootstrap_thread.<locals>.bootstrap_thread"


def _run(repo_path: Path, target: str) -> Analysis:
    config = Config()
    bundle = gather(GitSource(target, GitConfig(repo=str(repo_path))), config)
    return analyse(bundle, config)


def _of(analysis: Analysis, kind: str, path: str | None = None) -> list[Finding]:
    return [f for f in analysis.findings if f.kind == kind and (path is None or f.path == path)]


@pytest.fixture(scope="module")
def seed(seed_repo) -> Analysis:
    repo, _base, _sha = seed_repo
    return _run(repo.path, str(PR_NUMBER))


def _pr_repo(
    tmp_path: Path, before: dict[str, str], after: dict[str, str | None], body: str = ""
) -> Analysis:
    repo = Repo(tmp_path / "repo")
    repo.commit("init", {"pkg/__init__.py": "", **before})
    repo.commit(f"refactor(pkg): imports (#7)\n\n{body}", after)
    return _run(repo.path, "7")


# --- the seed PR --------------------------------------------------------------------------


def test_seed_hoists_both_names_in_both_files_into_the_existing_block(seed: Analysis):
    hoisted = {(f.path, f.symbol): f for f in _of(seed, "import.hoisted")}
    assert set(hoisted) == {
        (p, n) for p in (MOONCAKE, NIXL) for n in ("handle_watermark_msg", "handle_staging_rsp")
    }
    for (path, name), f in hoisted.items():
        d = f.details
        assert d["module"] == "sglang.srt.disaggregation.common.staging_handler"
        assert d["name"] == name and d["alias"] is None
        assert d["merged_into_existing"] is True
        assert d["to_scope"] == "<module>"
        assert d["from_scope"] == (BOOTSTRAP_MOONCAKE if path == MOONCAKE else BOOTSTRAP_NIXL)
        assert d["from_context"][0] == {
            "kind": "loop",
            "text": "while True",
            "line": d["from_context"][0]["line"],
        }
        after = seed.bundle.file(path).after.splitlines()
        assert after[f.line - 1].strip() == f"{name},"
        assert after[d["block_line"] - 1].startswith(
            "from sglang.srt.disaggregation.common.staging_handler import ("
        )
        before = seed.bundle.file(path).before.splitlines()
        assert before[d["from_line"] - 1].strip() == f"{name},"
    mooncake_wm = hoisted[(MOONCAKE, "handle_watermark_msg")].details["from_context"]
    assert [g["text"] for g in mooncake_wm] == ["while True", 'room == "WATERMARK"']
    nixl_rsp = hoisted[(NIXL, "handle_staging_rsp")].details["from_context"]
    assert [g["text"] for g in nixl_rsp] == [
        "while True",
        'waiting_req_bytes[0] == b"STAGING_RSP"',
        "self.enable_staging",
    ]
    assert (
        not _of(seed, "import.added")
        and not _of(seed, "import.removed")
        and not _of(seed, "import.sunk")
    )


def test_seed_import_findings_explain_every_changed_line(seed: Analysis):
    explained = {e for f in seed.findings if f.kind.startswith("import.") for e in f.explains}
    for path in (MOONCAKE, NIXL):
        ch = changed_lines(seed.bundle.file(path).patch)
        want = {(path, "-", n) for n in ch.removed} | {(path, "+", n) for n in ch.added}
        mine = {e for e in explained if e[0] == path}
        assert mine == want


def test_seed_loops_have_zero_imports_after(seed: Analysis):
    loops = {f.path: f for f in _of(seed, "loop.imports-removed")}
    assert set(loops) == {MOONCAKE, NIXL}
    for path, f in loops.items():
        d = f.details
        assert (d["loop"], d["before"], d["after"]) == ("while True", 2, 0)
        assert (d["file_before"], d["file_after"]) == (2, 0)
        assert f.symbol == (BOOTSTRAP_MOONCAKE if path == MOONCAKE else BOOTSTRAP_NIXL)
        assert seed.bundle.file(path).after.splitlines()[f.line - 1].strip() == "while True:"
    assert not _of(seed, "loop.imports-remaining") and not _of(seed, "loop.imports-added")


def test_seed_guards_preserved_with_the_real_chain(seed: Analysis):
    guards = {(f.path, f.symbol): f for f in seed.findings if f.kind.startswith("guard.")}
    assert {f.kind for f in guards.values()} == {"guard.preserved"}
    assert len(guards) == 4
    m = guards[(MOONCAKE, "handle_watermark_msg")].details
    assert [(g["kind"], g["text"]) for g in m["after"]] == [
        ("loop", "while True"),
        ("if", 'room == "WATERMARK"'),
    ]
    assert "enable_staging" not in str(m)  # mooncake has no staging guard: none invented
    assert m["call"] == "handle_watermark_msg(self._staging_ctx, waiting_req_bytes)"
    n = guards[(NIXL, "handle_staging_rsp")]
    assert [(g["kind"], g["text"]) for g in n.details["after"]] == [
        ("loop", "while True"),
        ("if", 'waiting_req_bytes[0] == b"STAGING_RSP"'),
        ("if", "self.enable_staging"),
    ]
    assert [g["text"] for g in n.details["before"]] == [g["text"] for g in n.details["after"]]
    line = seed.bundle.file(NIXL).after.splitlines()[n.line - 1]
    assert line.strip().startswith("handle_staging_rsp(")


def test_seed_lazy_imports_named_in_the_description(seed: Analysis):
    lazy = {
        (f.path.rsplit("/", 1)[-1], f.symbol): f.details for f in _of(seed, "lazy-import.retained")
    }
    npu = lazy[("decode.py", "dsv4_state_payloads")]
    assert npu["reason"] == "platform-guard"
    assert npu["guard"] == "_is_npu and isinstance(pool, DeepSeekV4TokenToKVPool)"
    assert npu["named_in_description"] is True and npu["followup_diff"] == ""
    abort = lazy[("decode_schedule_batch_mixin.py", "FINISH_ABORT")]
    assert abort["reason"] == "cycle-avoidance" and abort["guard"] == "except ValueError"
    assert abort["named_in_description"] is True
    assert abort["target_imports_importer"] is True  # schedule_batch.py imports the mixin back
    js = lazy[("decode.py", "json")]
    assert js["reason"] == "hoistable" and js["named_in_description"] is False
    assert "+import json\n" in js["followup_diff"] and "-    import json\n" in js["followup_diff"]
    # the bare names in the PR body were fetched as context files
    assert f"{PKG}/decode.py" in seed.bundle.context_files
    assert f"{PKG}/decode_schedule_batch_mixin.py" in seed.bundle.context_files


# --- negative and edge cases on small repositories ----------------------------------------

LOOP_BEFORE = """def serve(sock):
    while True:
        msg = sock.recv()
        if msg == b"A":
            import json

            json.dumps(msg)
        if msg == b"B":
            import pickle

            pickle.dumps(msg)
"""

LOOP_AFTER = """import json


def serve(sock):
    while True:
        msg = sock.recv()
        if msg == b"A":
            json.dumps(msg)
        if msg == b"B":
            import pickle

            pickle.dumps(msg)
"""


def test_import_left_in_a_loop_is_remaining(tmp_path: Path):
    a = _pr_repo(tmp_path, {"pkg/srv.py": LOOP_BEFORE}, {"pkg/srv.py": LOOP_AFTER})
    (loop,) = _of(a, "loop.imports-remaining")
    assert (loop.details["before"], loop.details["after"], loop.symbol) == (2, 1, "serve")
    assert loop.details["import_lines_after"] == [10]
    (h,) = _of(a, "import.hoisted")
    assert (h.symbol, h.details["from_scope"], h.details["merged_into_existing"]) == (
        "json",
        "serve",
        False,
    )
    assert not _of(a, "loop.imports-removed")
    # the import still in the loop is a retained lazy import with no reason: a follow-up
    (lazy,) = _of(a, "lazy-import.retained")
    assert lazy.symbol == "pickle" and lazy.details["reason"] == "hoistable"


def test_new_import_inside_a_loop(tmp_path: Path):
    before = "def f(xs):\n    for x in xs:\n        print(x)\n"
    after = "def f(xs):\n    for x in xs:\n        import math\n\n        print(math.sqrt(x))\n"
    a = _pr_repo(tmp_path, {"pkg/m.py": before}, {"pkg/m.py": after})
    (loop,) = _of(a, "loop.imports-added")
    assert (loop.details["loop"], loop.details["before"], loop.details["after"]) == (
        "for x in xs",
        0,
        1,
    )
    (added,) = _of(a, "import.added")
    assert added.symbol == "math" and added.details["to_scope"] == "f"
    assert {e[2] for e in added.explains} == {3, 4}


def test_dropped_guard(tmp_path: Path):
    before = (
        "def run(cfg):\n"
        "    if cfg.staging:\n"
        "        from pkg.helpers import stage\n"
        "\n"
        "        stage(cfg)\n"
        "    return cfg\n"
    )
    after = "from pkg.helpers import stage\n\n\ndef run(cfg):\n    stage(cfg)\n    return cfg\n"
    helpers = {"pkg/helpers.py": "def stage(cfg):\n    return cfg\n"}
    a = _pr_repo(tmp_path, {"pkg/run.py": before, **helpers}, {"pkg/run.py": after})
    (g,) = _of(a, "guard.dropped")
    assert g.symbol == "stage" and g.line == 5
    assert g.details["before"] == [{"kind": "if", "text": "cfg.staging", "line": 2}]
    assert g.details["after"] == [] and g.details["dropped"] == [
        {"kind": "if", "text": "cfg.staging", "line": 2}
    ]
    assert not _of(a, "guard.preserved")


def test_changed_guard_when_a_guard_is_added(tmp_path: Path):
    before = "def run(x):\n    from os import path\n\n    return path.join(x)\n"
    after = "from os import path\n\n\ndef run(x):\n    with open(x):\n        return path.join(x)\n"
    a = _pr_repo(tmp_path, {"pkg/run.py": before}, {"pkg/run.py": after})
    (g,) = _of(a, "guard.changed")
    assert g.details["added"] == [{"kind": "with", "text": "with open(x)", "line": 5}]


def test_sunk_import(tmp_path: Path):
    before = "import json\n\n\ndef dump(x):\n    return json.dumps(x)\n"
    after = "def dump(x):\n    import json\n\n    return json.dumps(x)\n"
    a = _pr_repo(tmp_path, {"pkg/d.py": before}, {"pkg/d.py": after})
    (s,) = _of(a, "import.sunk")
    assert (s.symbol, s.details["from_scope"], s.details["to_scope"]) == (
        "json",
        "<module>",
        "dump",
    )
    assert (s.details["from_line"], s.details["to_line"], s.line) == (1, 2, 2)
    assert (
        not _of(a, "import.hoisted") and not _of(a, "import.added") and not _of(a, "import.removed")
    )
    ch = changed_lines(a.bundle.file("pkg/d.py").patch)
    assert {(e[1], e[2]) for e in s.explains} == {("-", n) for n in ch.removed} | {
        ("+", n) for n in ch.added
    }


def test_added_and_removed_imports(tmp_path: Path):
    before = "import re\nimport sys\n\n\ndef f(s):\n    return re.sub('a', 'b', s), sys.argv\n"
    after = "import sys\nfrom os import path as p\n\n\ndef f(s):\n    return p.join(s), sys.argv\n"
    a = _pr_repo(tmp_path, {"pkg/f.py": before}, {"pkg/f.py": after})
    (r,) = _of(a, "import.removed")
    assert (r.symbol, r.line, r.details["from_scope"], r.details["to_scope"]) == (
        "re",
        1,
        "<module>",
        None,
    )
    assert r.explains == (("pkg/f.py", "-", 1),)
    (ad,) = _of(a, "import.added")
    assert (ad.symbol, ad.line, ad.details["module"], ad.details["name"], ad.details["alias"]) == (
        "p",
        2,
        "os",
        "path",
        "p",
    )
    assert ad.explains == (("pkg/f.py", "+", 2),)


def test_future_import_is_not_a_dependency(tmp_path: Path):
    before = "import sys\n\n\ndef f() -> list:\n    return sys.argv\n"
    after = "from __future__ import annotations\n\nimport sys\n\n\ndef f() -> list:\n    return sys.argv\n"
    a = _pr_repo(
        tmp_path,
        {"pkg/f.py": before},
        {"pkg/f.py": after, "pkg/new.py": "from __future__ import annotations\n\nimport json\n"},
    )
    added = {(fd.path, fd.symbol) for fd in _of(a, "import.added")}
    assert added == {("pkg/new.py", "json")}


def test_import_moved_between_functions(tmp_path: Path):
    before = "def a():\n    import json\n    return json\n\n\ndef b():\n    return 1\n"
    after = "def a():\n    return 1\n\n\ndef b():\n    import json\n    return json\n"
    a = _pr_repo(tmp_path, {"pkg/m.py": before}, {"pkg/m.py": after})
    (m,) = _of(a, "import.moved")
    assert (m.details["from_scope"], m.details["to_scope"]) == ("a", "b")


MERGE_BEFORE = '''"""Service."""

import logging

from pkg.helpers import (
    ALPHA,
    Helper,  # the main helper
    assist,
)

logger = logging.getLogger(__name__)


def handle(msg):
    from pkg.helpers import boost

    return boost(assist(msg))


def other():
    return ALPHA, Helper
'''


def _apply(repo_path: Path, diff: str) -> None:
    subprocess.run(["git", "-C", str(repo_path), "apply", "-"], input=diff.encode(), check=True)


def test_hoistable_lazy_import_gets_a_followup_diff_that_applies(tmp_path: Path):
    helpers = "ALPHA = 1\n\n\nclass Helper:\n    pass\n\n\ndef assist(m):\n    return m\n\n\ndef boost(m):\n    return m\n"
    after = MERGE_BEFORE.replace("return ALPHA, Helper", "return (ALPHA, Helper)")
    a = _pr_repo(
        tmp_path, {"pkg/helpers.py": helpers, "pkg/svc.py": MERGE_BEFORE}, {"pkg/svc.py": after}
    )
    (lazy,) = _of(a, "lazy-import.retained")
    assert (lazy.symbol, lazy.details["reason"], lazy.details["scope"]) == (
        "boost",
        "hoistable",
        "handle",
    )
    diff = lazy.details["followup_diff"]
    assert diff.startswith("--- a/pkg/svc.py\n+++ b/pkg/svc.py\n")
    _apply(tmp_path / "repo", diff)
    patched = (tmp_path / "repo" / "pkg/svc.py").read_text()
    tree = ast.parse(patched)
    top = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "pkg.helpers"]
    assert len(top) == 1 and [x.name for x in top[0].names] == [
        "ALPHA",
        "Helper",
        "assist",
        "boost",
    ]
    assert "    Helper,  # the main helper\n" in patched  # comments kept
    handle = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "handle")
    assert not any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.walk(handle))
    assert "def handle(msg):\n    return boost(assist(msg))\n" in patched


def test_hoistable_new_statement_goes_into_its_import_group(tmp_path: Path):
    src = '"""Doc."""\n\nimport os\nimport sys\n\nimport yaml\n\n\ndef f():\n    import json\n\n    return json, os, sys, yaml\n'
    a = _pr_repo(tmp_path, {"pkg/g.py": src}, {"pkg/g.py": src + "\n\nX = 1\n"})
    (lazy,) = _of(a, "lazy-import.retained")
    _apply(tmp_path / "repo", lazy.details["followup_diff"])
    patched = (tmp_path / "repo" / "pkg/g.py").read_text()
    assert patched.startswith('"""Doc."""\n\nimport json\nimport os\nimport sys\n\nimport yaml\n')
    ast.parse(patched)


def test_lazy_import_reasons(tmp_path: Path):
    src = """from typing import TYPE_CHECKING

import sys


def opt():
    try:
        import ujson as json
    except ImportError:
        import json
    return json


def typed():
    if TYPE_CHECKING:
        from pkg.other import Thing
    return None


def gpu(x):
    if sys.platform == "linux":
        import fcntl

        return fcntl
    return x


def heavy():
    import torch

    return torch
"""
    a = _pr_repo(tmp_path, {"pkg/r.py": src}, {"pkg/r.py": src + "\nY = 2\n"})
    reasons = sorted(
        (f.line, f.symbol, f.details["reason"]) for f in _of(a, "lazy-import.retained")
    )
    assert reasons == [
        (8, "json", "optional-dependency"),  # ``import ujson as json`` in the try body
        (10, "json", "optional-dependency"),  # the fallback in ``except ImportError``
        (16, "Thing", "type-checking"),
        (22, "fcntl", "platform-guard"),
        (29, "torch", "heavy-dependency"),
    ]


def test_cycle_found_through_target_importing_back(tmp_path: Path):
    a_mod = "def f():\n    from pkg.b import g\n\n    return g()\n"
    b_mod = "from pkg.a import f\n\n\ndef g():\n    return f\n"
    a = _pr_repo(
        tmp_path, {"pkg/a.py": a_mod, "pkg/b.py": b_mod}, {"pkg/a.py": a_mod + "\nZ = 3\n"}
    )
    (lazy,) = _of(a, "lazy-import.retained")
    assert (
        lazy.details["reason"] == "cycle-avoidance"
        and lazy.details["target_imports_importer"] is True
    )
    assert lazy.details["followup_diff"] == ""


def test_unparseable_file_is_a_diagnostic_and_others_are_still_analysed(tmp_path: Path):
    before = "def f():\n    import json\n    return json\n"
    after = "import json\n\n\ndef f():\n    return json\n"
    a = _pr_repo(
        tmp_path,
        {"pkg/ok.py": before, "pkg/bad.py": "x = 1\n"},
        {"pkg/ok.py": after, "pkg/bad.py": "def broken(:\n"},
    )
    assert [f.symbol for f in _of(a, "import.hoisted")] == ["json"]
    assert any(d.path == "pkg/bad.py" for d in a.diagnostics)
    assert not [
        f for f in a.findings if f.path == "pkg/bad.py" and f.kind.startswith(("import.", "loop."))
    ]


def test_scope_index_is_cached_per_file_side(seed: Analysis):
    from prreport.python.scopeindex import scope_index

    sources = SourceFiles(seed.bundle)
    first = scope_index(sources, MOONCAKE, "after")
    assert first is scope_index(sources, MOONCAKE, "after")
    assert {b.bound for b in first.imports if b.at_module_level} >= {"handle_staging_rsp", "zmq"}


def test_relative_and_absolute_spellings_are_the_same_binding(tmp_path: Path):
    before = "def run(cfg):\n    from .helpers import stage\n\n    return stage(cfg)\n"
    after = "from pkg.helpers import stage\n\n\ndef run(cfg):\n    return stage(cfg)\n"
    helpers = {"pkg/helpers.py": "def stage(cfg):\n    return cfg\n"}
    a = _pr_repo(tmp_path, {"pkg/run.py": before, **helpers}, {"pkg/run.py": after})
    (h,) = _of(a, "import.hoisted")
    assert (h.symbol, h.details["from_scope"], h.details["module"]) == (
        "stage",
        "run",
        "pkg.helpers",
    )
    assert not _of(a, "import.added") and not _of(a, "import.removed")
    (g,) = _of(a, "guard.preserved")
    assert g.details["after"] == []


def test_follow_up_diffs_are_bounded_by_max_followups(tmp_path: Path):
    funcs = "".join(f"def f{i}():\n    import mod{i}\n\n    return mod{i}\n\n\n" for i in range(13))
    base = {"pkg/many.py": "X = 1\n\n\n" + funcs}
    a = _pr_repo(tmp_path, base, {"pkg/many.py": "X = 2\n\n\n" + funcs})
    hoistable = [f for f in _of(a, "lazy-import.retained") if f.details["reason"] == "hoistable"]
    assert len(hoistable) == 13
    with_diff = [f for f in hoistable if f.details["followup_diff"]]
    skipped = [f for f in hoistable if f.details.get("followup_skipped")]
    assert (len(with_diff), len(skipped)) == (10, 3)
    assert all("+import mod" in f.details["followup_diff"] for f in with_diff)


def test_a_module_the_importer_already_imports_at_module_level_is_hoistable(tmp_path: Path):
    # sglang #35980: `from sglang.common import staging_handler` inside functions of a file
    # that imports staging_handler at module level costs nothing to hoist: not "heavy".
    src = (
        "import torch\n"
        "from pkg import handler\n\n\n"
        "def again():\n    from pkg.handler import run\n\n    return run()\n\n\n"
        "def heavy():\n    import numpy\n\n    return numpy\n"
    )
    a = _pr_repo(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/handler.py": "import torch\n\n\ndef run():\n    return torch\n",
            "pkg/r.py": src,
        },
        {"pkg/r.py": src + "\nY = 2\n"},
    )
    got = {f.symbol: f.details for f in _of(a, "lazy-import.retained")}
    assert got["run"]["reason"] == "hoistable" and got["run"]["already_imported_line"] == 2
    assert got["numpy"]["reason"] == "heavy-dependency"
