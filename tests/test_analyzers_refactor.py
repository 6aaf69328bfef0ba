"""Refactor analyzers II on real git repositories: dead code, extraction, collapsed branches,
removed overrides, moved and renamed symbols — each with a look-alike that must not be claimed."""

from __future__ import annotations

from pathlib import Path

from prreport.config import Config, GitConfig
from prreport.pipeline import Analysis, analyse, gather
from prreport.sources.git import GitSource
from tests.gitrepo import Repo

_OURS = ("code.", "symbol.")


def _analyse(
    tmp_path: Path, base: dict[str, str | None], pr: dict[str, str | None], number: int = 5
) -> Analysis:
    repo = Repo(tmp_path / "repo")
    repo.commit("init", {"pkg/__init__.py": "", **base})
    repo.commit(f"refactor(pkg): tidy up (#{number})", pr)
    cfg = Config()
    src = GitSource(str(number), GitConfig(repo=str(repo.path)))
    try:
        return analyse(gather(src, cfg), cfg)
    finally:
        src.close()


def _ours(a: Analysis, kind: str | None = None):
    return [f for f in a.findings if f.kind.startswith(_OURS) and (kind is None or f.kind == kind)]


def _all_changed_explained(a: Analysis) -> None:
    s = a.model.summary
    assert s.changed_lines > 0
    assert s.explained_lines == s.changed_lines, (s.changed_lines, s.explained_lines)


def _no_crash(a: Analysis) -> None:
    assert not [d for d in a.diagnostics if "analyzer failed" in d.message], a.diagnostics


# -- code.dead-removed ---------------------------------------------------------------------

_DEAD_BASE = {
    "pkg/a.py": "import os\n\n\ndef used():\n    return 1\n\n\ndef unused():\n    return 2\n\n\nLIMIT = 3\n",
    "pkg/b.py": "from pkg.a import used\n\nprint(used())\n",
}


def test_dead_code_removed_is_found_with_repository_search(tmp_path: Path):
    a = _analyse(tmp_path, _DEAD_BASE, {"pkg/a.py": "def used():\n    return 1\n"})
    _no_crash(a)
    dead = {f.symbol: f for f in _ours(a)}
    # The unused ``import os`` went too: import.removed says so, it is no dead definition.
    assert set(dead) == {"unused", "LIMIT"}
    assert {f.kind for f in dead.values()} == {"code.dead-removed"}
    assert dead["unused"].details["kind"] == "function" and dead["unused"].line == 8
    assert dead["LIMIT"].details["kind"] == "constant"
    assert [f.symbol for f in a.findings if f.kind == "import.removed"] == ["os"]
    assert all(
        f.details["reference_scope"] == "repository" and f.details["references"] == []
        for f in dead.values()
    )
    _all_changed_explained(a)
    assert a.model.summary.verdict == "pure-refactor"


def test_dead_code_still_referenced_elsewhere_is_not_claimed(tmp_path: Path):
    base = dict(_DEAD_BASE)
    base["pkg/c.py"] = "from pkg import a\n\n\ndef go():\n    return a.unused()\n"
    a = _analyse(
        tmp_path, base, {"pkg/a.py": "import os\n\n\ndef used():\n    return 1\n\n\nLIMIT = 3\n"}
    )
    _no_crash(a)
    assert [f.symbol for f in _ours(a, "code.dead-removed")] == []


def test_dead_code_ignores_comments_and_other_definitions_of_the_name(tmp_path: Path):
    base = {
        "pkg/a.py": "def helper():\n    return 2\n\n\ndef keep():\n    return 1\n",
        "pkg/z.py": "# helper used to live in a.py\n\n\nclass Other:\n    def helper(self):\n        return 0\n",
    }
    a = _analyse(tmp_path, base, {"pkg/a.py": "def keep():\n    return 1\n"})
    [f] = _ours(a, "code.dead-removed")
    assert f.symbol == "helper"


# -- code.extracted ------------------------------------------------------------------------

_SAVE_BEFORE = """import json


def save_a(path, data):
    text = json.dumps(data, indent=2)
    with open(path, "w") as fh:
        fh.write(text)
    return path


def save_b(target, payload):
    text = json.dumps(payload, indent={indent})
    with open(target, "w") as fh:
        fh.write(text)
    print("saved")
"""

_SAVE_AFTER = """import json


def _write_json(path, data):
    text = json.dumps(data, indent=2)
    with open(path, "w") as fh:
        fh.write(text)


def save_a(path, data):
    _write_json(path, data)
    return path


def save_b(target, payload):
    _write_json(target, payload)
    print("saved")
"""


def test_helper_extracted_from_two_functions(tmp_path: Path):
    a = _analyse(tmp_path, {"pkg/io.py": _SAVE_BEFORE.format(indent=2)}, {"pkg/io.py": _SAVE_AFTER})
    _no_crash(a)
    [f] = _ours(a)
    assert f.kind == "code.extracted" and f.symbol == "_write_json"
    d = f.details
    assert d["new_home"] == "_write_json" and d["home_kind"] == "function"
    assert [(s["scope"], s["equality"], s["call_lines"]) for s in d["sites"]] == [
        ("save_a", "byte-identical", [11]),
        ("save_b", "modulo-renames", [16]),
    ]
    assert d["equality"] == "modulo-renames" and d["behavior_change"] is False
    _all_changed_explained(a)


def test_extracted_bodies_differing_in_one_constant_are_not_called_equal(tmp_path: Path):
    a = _analyse(tmp_path, {"pkg/io.py": _SAVE_BEFORE.format(indent=4)}, {"pkg/io.py": _SAVE_AFTER})
    _no_crash(a)
    [f] = _ours(a)
    d = f.details
    assert d["equality"] == "different" and d["behavior_change"] is True
    site_b = [s for s in d["sites"] if s["scope"] == "save_b"][0]
    assert site_b["equality"] == "different"
    assert any("indent=4" in ln for ln in site_b["residual"])
    assert f.explains == ()


def test_helper_called_with_swapped_arguments_is_not_equal(tmp_path: Path):
    after = _SAVE_AFTER.replace("_write_json(target, payload)", "_write_json(payload, target)")
    a = _analyse(tmp_path, {"pkg/io.py": _SAVE_BEFORE.format(indent=2)}, {"pkg/io.py": after})
    [f] = _ours(a, "code.extracted")
    site_b = [s for s in f.details["sites"] if s["scope"] == "save_b"][0]
    assert site_b["equality"] == "different" and f.details["behavior_change"] is True
    assert any("'path'" in r and "'payload'" in r for r in site_b["residual"])


_CONN_BEFORE = """class Base:
    pass


class Prefill(Base):
    def ping(self, sock):
        sock.send(b"ping")
        return sock.recv()

    def other(self):
        return 1


class Decode(Base):
    def ping(self, sock):
        sock.send(b"ping")
        return sock.recv()
"""

_CONN_AFTER = """class Base:
    pass


class PingMixin:
    def ping(self, sock):
        sock.send(b"ping")
        return sock.recv()


class Prefill(Base, PingMixin):
    def other(self):
        return 1


class Decode(Base{decode_bases}):
    pass
"""


def test_method_duplicated_in_two_classes_moved_into_mixin(tmp_path: Path):
    a = _analyse(
        tmp_path,
        {"pkg/conn.py": _CONN_BEFORE},
        {"pkg/conn.py": _CONN_AFTER.format(decode_bases=", PingMixin")},
    )
    _no_crash(a)
    [f] = _ours(a)
    assert f.kind == "code.extracted" and f.symbol == "PingMixin.ping"
    d = f.details
    assert d["home_kind"] == "mixin" and d["equality"] == "byte-identical"
    assert [(s["class"], s["inherits_new_home"]) for s in d["sites"]] == [
        ("Prefill", True),
        ("Decode", True),
    ]
    _all_changed_explained(a)
    assert a.model.summary.verdict == "pure-refactor"


def test_mixin_not_inherited_by_one_class_is_a_behaviour_change(tmp_path: Path):
    a = _analyse(
        tmp_path,
        {"pkg/conn.py": _CONN_BEFORE},
        {"pkg/conn.py": _CONN_AFTER.format(decode_bases="")},
    )
    [f] = _ours(a, "code.extracted")
    assert [(s["class"], s["inherits_new_home"]) for s in f.details["sites"]] == [
        ("Prefill", True),
        ("Decode", False),
    ]
    assert f.details["behavior_change"] is True and f.explains == ()
    assert a.model.summary.verdict != "pure-refactor"


# -- code.branches-collapsed ---------------------------------------------------------------

_ROUTE = """def route(mode, x):
    if mode == "prefill":
        return x + 1
    elif mode == "decode":
        return x + {k}
    else:
        return x
"""
_ROUTE_AFTER = """def route(mode, x):
    if mode in ("prefill", "decode"):
        return x + 1
    else:
        return x
"""


def test_equal_branches_merged_is_proven_by_enumeration(tmp_path: Path):
    a = _analyse(tmp_path, {"pkg/r.py": _ROUTE.format(k=1)}, {"pkg/r.py": _ROUTE_AFTER})
    _no_crash(a)
    [f] = _ours(a)
    assert f.kind == "code.branches-collapsed" and f.symbol == "route"
    d = f.details
    assert (
        d["pattern"] == "merged-branches" and d["proven"] is True and d["method"] == "enumeration"
    )
    assert d["subject"] == "mode" and d["values"] == ["'prefill'", "'decode'"]
    assert (d["before_branches"], d["after_branches"]) == (3, 2)
    _all_changed_explained(a)


def test_merged_condition_that_changes_meaning_is_not_claimed(tmp_path: Path):
    a = _analyse(tmp_path, {"pkg/r.py": _ROUTE.format(k=2)}, {"pkg/r.py": _ROUTE_AFTER})
    _no_crash(a)
    assert _ours(a, "code.branches-collapsed") == []
    assert a.model.summary.verdict != "pure-refactor"


def test_statement_shared_by_every_branch_hoisted_before_the_chain(tmp_path: Path):
    before = (
        "def build(kind, cfg):\n    if kind == 'a':\n        out = {'n': cfg.name}\n        out['a'] = 1\n"
        "    elif kind == 'b':\n        out = {'n': cfg.name}\n        out['b'] = 2\n    else:\n"
        "        out = {'n': cfg.name}\n    return out\n"
    )
    after = (
        "def build(kind, cfg):\n    out = {'n': cfg.name}\n    if kind == 'a':\n        out['a'] = 1\n"
        "    elif kind == 'b':\n        out['b'] = 2\n    return out\n"
    )
    a = _analyse(tmp_path, {"pkg/b.py": before}, {"pkg/b.py": after})
    [f] = _ours(a)
    assert f.details["pattern"] == "hoisted-first" and f.details["proven"] is True
    assert f.details["statement"] == "out = {'n': cfg.name}"
    _all_changed_explained(a)


def test_hoisting_out_of_a_chain_without_else_is_not_claimed(tmp_path: Path):
    before = "def f(k, log):\n    if k == 1:\n        log('x')\n        return 1\n    elif k == 2:\n        log('x')\n        return 2\n    return 0\n"
    after = "def f(k, log):\n    log('x')\n    if k == 1:\n        return 1\n    elif k == 2:\n        return 2\n    return 0\n"
    a = _analyse(tmp_path, {"pkg/f.py": before}, {"pkg/f.py": after})
    assert _ours(a, "code.branches-collapsed") == []


def test_merge_of_non_simple_conditions_is_not_proven(tmp_path: Path):
    before = "def f(a, b):\n    if a.ready():\n        go()\n    elif b.ready():\n        stop()\n    elif a.late():\n        go()\n"
    after = "def f(a, b):\n    if a.ready() or a.late():\n        go()\n    elif b.ready():\n        stop()\n"
    a = _analyse(tmp_path, {"pkg/f.py": before}, {"pkg/f.py": after})
    [f] = _ours(a, "code.branches-collapsed")
    assert f.details["proven"] is False and f.explains == ()


# -- code.override-removed -----------------------------------------------------------------

_CONN_BASE = "class Conn:\n    def close(self):\n        self.sock.close()\n\n    def poll(self, timeout=None):\n        return self.sock.poll(timeout)\n"


def test_placeholder_overrides_removed_fall_back_to_base_in_another_module(tmp_path: Path):
    before = (
        "from pkg.base import Conn\n\n\nclass ZConn(Conn):\n    def poll(self, timeout=None):\n"
        "        return super().poll(timeout)\n\n    def send(self, x):\n        return x\n"
    )
    after = "from pkg.base import Conn\n\n\nclass ZConn(Conn):\n    def send(self, x):\n        return x\n"
    a = _analyse(tmp_path, {"pkg/base.py": _CONN_BASE, "pkg/z.py": before}, {"pkg/z.py": after})
    _no_crash(a)
    [f] = _ours(a)
    assert f.kind == "code.override-removed" and f.symbol == "ZConn.poll"
    d = f.details
    assert d["body_kind"] == "super-call" and d["base_provides"] is True
    assert (d["base"], d["base_path"], d["behavior_change"]) == ("Conn.poll", "pkg/base.py", False)
    _all_changed_explained(a)
    assert a.model.summary.verdict == "pure-refactor"


def test_removed_override_that_was_the_only_implementation_is_a_behaviour_change(tmp_path: Path):
    before = (
        "from abc import ABC, abstractmethod\n\n\nclass Base(ABC):\n    @abstractmethod\n    def run(self):\n"
        "        ...\n\n\nclass Impl(Base):\n    def run(self):\n        pass\n\n\nclass Solo(object):\n"
        "    def stop(self):\n        pass\n\n    def go(self):\n        return 1\n"
    )
    after = (
        "from abc import ABC, abstractmethod\n\n\nclass Base(ABC):\n    @abstractmethod\n    def run(self):\n"
        "        ...\n\n\nclass Impl(Base):\n    pass\n\n\nclass Solo(object):\n    def go(self):\n        return 1\n"
    )
    a = _analyse(tmp_path, {"pkg/z.py": before}, {"pkg/z.py": after})
    found = {f.symbol: f for f in _ours(a, "code.override-removed")}
    # Solo.stop overrode nothing (no base defines it): a method removed, not an override.
    assert set(found) == {"Impl.run"}
    run = found["Impl.run"].details
    assert (
        run["base_provides"] is False
        and run["base_abstract"] is True
        and run["behavior_change"] is True
    )
    assert all(f.explains == () for f in found.values())
    assert a.model.summary.verdict != "pure-refactor"


def test_no_op_override_of_a_real_implementation_changes_behaviour(tmp_path: Path):
    before = 'from pkg.base import Conn\n\n\nclass Quiet(Conn):\n    def close(self):\n        """Keep the socket."""\n'
    after = "from pkg.base import Conn\n\n\nclass Quiet(Conn):\n    pass\n"
    a = _analyse(tmp_path, {"pkg/base.py": _CONN_BASE, "pkg/q.py": before}, {"pkg/q.py": after})
    [f] = _ours(a, "code.override-removed")
    assert f.details["body_kind"] == "docstring" and f.details["base_provides"] is True
    assert f.details["base_body_kind"] == "implementation" and f.details["behavior_change"] is True
    assert a.model.summary.verdict != "pure-refactor"


# -- symbol.moved / symbol.renamed ---------------------------------------------------------


def test_function_moved_to_new_module_with_shim_and_all(tmp_path: Path):
    base = {
        "pkg/a.py": "def helper(x):\n    return x + 1\n\n\ndef other():\n    return 0\n",
        "pkg/c.py": "from pkg.a import helper\n\nprint(helper(1))\n",
    }
    pr = {
        "pkg/a.py": "from pkg.b import helper\n\n__all__ = ['helper']\n\n\ndef other():\n    return 0\n",
        "pkg/b.py": "def helper(x):\n    return x + 1\n",
        "pkg/c.py": "from pkg.b import helper\n\nprint(helper(1))\n",
    }
    a = _analyse(tmp_path, base, pr)
    _no_crash(a)
    [f] = _ours(a)
    assert (f.kind, f.path, f.symbol) == ("symbol.moved", "pkg/b.py", "helper")
    d = f.details
    assert (d["old_path"], d["new_path"], d["equality"]) == (
        "pkg/a.py",
        "pkg/b.py",
        "byte-identical",
    )
    assert d["shim"] is True and d["in_all"] is True
    assert d["call_sites_updated"] is True and d["stale_references"] == []
    _all_changed_explained(a)
    assert a.model.summary.verdict == "pure-refactor"


def test_moved_function_with_a_caller_left_on_the_old_module(tmp_path: Path):
    base = {
        "pkg/a.py": "def helper(x):\n    return x + 1\n\n\ndef other():\n    return 0\n",
        "pkg/c.py": "from pkg.a import helper\n\nprint(helper(1))\n",
    }
    pr = {
        "pkg/a.py": "def other():\n    return 0\n",
        "pkg/b.py": "def helper(x):\n    return x + 1\n",
    }
    a = _analyse(tmp_path, base, pr)
    [f] = _ours(a, "symbol.moved")
    assert f.details["shim"] is False and f.details["call_sites_updated"] is False
    assert f.details["stale_references"] == ["pkg/c.py:1"]
    assert f.details["behavior_change"] is True and f.explains == ()
    assert a.model.summary.verdict != "pure-refactor"
    assert _ours(a, "code.dead-removed") == []


def test_renamed_function_and_its_callers(tmp_path: Path):
    base = {
        "pkg/a.py": "def old_name(x):\n    return x + 1\n\n\ndef caller():\n    return old_name(2)\n"
    }
    pr = {
        "pkg/a.py": "def new_name(x):\n    return x + 1\n\n\ndef caller():\n    return new_name(2)\n"
    }
    a = _analyse(tmp_path, base, pr)
    [f] = _ours(a)
    assert (f.kind, f.symbol) == ("symbol.renamed", "new_name")
    assert f.details["old_qualname"] == "old_name" and f.details["call_sites_updated"] is True
    _all_changed_explained(a)


# -- a PR mixing two kinds -----------------------------------------------------------------


def test_pr_mixing_dead_code_removal_and_collapsed_branches(tmp_path: Path):
    before = _ROUTE.format(k=1) + "\n\ndef legacy_route():\n    return None\n"
    a = _analyse(tmp_path, {"pkg/r.py": before}, {"pkg/r.py": _ROUTE_AFTER})
    _no_crash(a)
    assert sorted((f.kind, f.symbol) for f in _ours(a)) == [
        ("code.branches-collapsed", "route"),
        ("code.dead-removed", "legacy_route"),
    ]
    _all_changed_explained(a)


def test_pr_mixing_override_removal_and_rename(tmp_path: Path):
    before = (
        "from pkg.base import Conn\n\n\nclass ZConn(Conn):\n    def poll(self, timeout=None):\n"
        "        return super().poll(timeout)\n\n    def send_all(self, x):\n        return [x]\n"
    )
    after = "from pkg.base import Conn\n\n\nclass ZConn(Conn):\n    def send_many(self, x):\n        return [x]\n"
    a = _analyse(tmp_path, {"pkg/base.py": _CONN_BASE, "pkg/z.py": before}, {"pkg/z.py": after})
    assert sorted((f.kind, f.symbol) for f in _ours(a)) == [
        ("code.override-removed", "ZConn.poll"),
        ("symbol.renamed", "ZConn.send_many"),
    ]
    _all_changed_explained(a)
    assert a.model.summary.verdict == "pure-refactor"


# -- the verdict of refactors whose functions changed text (behaviour accounted for) -------


def _accounted(a: Analysis) -> dict[str, list[str]]:
    return {
        f.symbol: [b["kind"] for b in f.details.get("accounted_by", [])]
        for f in a.model.findings
        if f.kind == "behavior.changed"
    }


def test_extracted_helper_is_a_pure_refactor(tmp_path: Path):
    a = _analyse(tmp_path, {"pkg/io.py": _SAVE_BEFORE.format(indent=2)}, {"pkg/io.py": _SAVE_AFTER})
    assert _accounted(a) == {"save_a": ["code.extracted"], "save_b": ["code.extracted"]}
    assert a.model.summary.verdict == "pure-refactor"
    assert a.model.impact["changed_functions"] == []


def test_extracted_helper_that_differs_or_swaps_arguments_is_not_pure(tmp_path: Path):
    a = _analyse(tmp_path, {"pkg/io.py": _SAVE_BEFORE.format(indent=4)}, {"pkg/io.py": _SAVE_AFTER})
    assert _accounted(a) == {"save_a": [], "save_b": []}
    assert a.model.summary.verdict == "refactor-with-behavior-change"
    assert [r["id"] for r in a.model.risks][:2] == [
        "refactor-not-equivalent",
        "behavior-change-in-refactor",
    ]
    swapped = _SAVE_AFTER.replace("_write_json(target, payload)", "_write_json(payload, target)")
    b = _analyse(
        tmp_path / "b", {"pkg/io.py": _SAVE_BEFORE.format(indent=2)}, {"pkg/io.py": swapped}
    )
    assert b.model.summary.verdict == "refactor-with-behavior-change"


def test_collapsed_branches_are_a_pure_refactor(tmp_path: Path):
    a = _analyse(tmp_path, {"pkg/r.py": _ROUTE.format(k=1)}, {"pkg/r.py": _ROUTE_AFTER})
    assert _accounted(a) == {"route": ["code.branches-collapsed"]}
    assert a.model.summary.verdict == "pure-refactor"
    before = (
        "def build(kind, cfg):\n    if kind == 'a':\n        out = {'n': cfg.name}\n        out['a'] = 1\n"
        "    elif kind == 'b':\n        out = {'n': cfg.name}\n        out['b'] = 2\n    else:\n"
        "        out = {'n': cfg.name}\n    return out\n"
    )
    after = (
        "def build(kind, cfg):\n    out = {'n': cfg.name}\n    if kind == 'a':\n        out['a'] = 1\n"
        "    elif kind == 'b':\n        out['b'] = 2\n    return out\n"
    )
    b = _analyse(tmp_path / "b", {"pkg/b.py": before}, {"pkg/b.py": after})
    assert b.model.summary.verdict == "pure-refactor"


def test_collapsed_branches_that_change_meaning_or_are_unproven_are_not_pure(tmp_path: Path):
    a = _analyse(tmp_path, {"pkg/r.py": _ROUTE.format(k=2)}, {"pkg/r.py": _ROUTE_AFTER})
    assert a.model.summary.verdict == "behavior-change"
    before = "def f(a, b):\n    if a.ready():\n        go()\n    elif b.ready():\n        stop()\n    elif a.late():\n        go()\n"
    after = "def f(a, b):\n    if a.ready() or a.late():\n        go()\n    elif b.ready():\n        stop()\n"
    b = _analyse(tmp_path / "b", {"pkg/f.py": before}, {"pkg/f.py": after})
    assert _accounted(b) == {"f": []}
    assert b.model.summary.verdict == "refactor-with-behavior-change"
    before = "def f(k, log):\n    if k == 1:\n        log('x')\n        return 1\n    elif k == 2:\n        log('x')\n        return 2\n    return 0\n"
    after = "def f(k, log):\n    log('x')\n    if k == 1:\n        return 1\n    elif k == 2:\n        return 2\n    return 0\n"
    c = _analyse(tmp_path / "c", {"pkg/f.py": before}, {"pkg/f.py": after})
    assert c.model.summary.verdict == "behavior-change"


_RENAME_BASE = {
    "pkg/a.py": "def old_name(x):\n    return x + 1\n\n\ndef caller():\n    return old_name(2)\n"
}


def test_rename_with_callers_updated_is_a_pure_refactor(tmp_path: Path):
    pr = {
        "pkg/a.py": "def new_name(x):\n    return x + 1\n\n\ndef caller():\n    return new_name(2)\n"
    }
    a = _analyse(tmp_path, _RENAME_BASE, pr)
    # The caller is proven equal by itself: both versions call a plain helper of the module
    # whose body is `x + 1` (effect summaries with the helpers inlined), so the rename has
    # nothing left to account for.
    assert _accounted(a) == {}
    (caller,) = [f for f in a.findings if f.symbol == "caller"]
    assert caller.kind == "behavior.unchanged"
    assert [r["kind"] for r in caller.details["rewrites"]] == ["same-effects"]
    assert a.model.summary.verdict == "pure-refactor"


def test_rename_whose_body_also_changed_is_not_pure(tmp_path: Path):
    pr = {
        "pkg/a.py": "def new_name(x):\n    return x + 1\n\n\ndef caller():\n    return new_name(3)\n"
    }
    a = _analyse(tmp_path, _RENAME_BASE, pr)
    assert _accounted(a) == {"caller": []}
    assert a.model.summary.verdict == "refactor-with-behavior-change"


def test_rename_across_modules_is_not_also_dead_code(tmp_path: Path):
    base = {
        "pkg/calc.py": "def compute(x):\n    y = x * 2\n    return y + 1\n",
        "pkg/use.py": "from pkg.calc import compute\n\n\ndef total(xs):\n    return sum(compute(x) for x in xs)\n",
    }
    pr = {
        "pkg/calc.py": "def calculate(x):\n    y = x * 2\n    return y + 1\n",
        "pkg/use.py": "from pkg.calc import calculate\n\n\ndef total(xs):\n    return sum(calculate(x) for x in xs)\n",
    }
    a = _analyse(tmp_path, base, pr)
    assert [(f.kind, f.symbol) for f in _ours(a)] == [("symbol.renamed", "calculate")]
    assert a.model.summary.verdict == "pure-refactor"


# -- the verdict of new code ---------------------------------------------------------------


def test_a_pr_that_only_adds_a_function_is_a_behaviour_change(tmp_path: Path):
    base = {"pkg/r.py": "def route(path):\n    return '/' + path\n"}
    pr = {
        "pkg/r.py": base["pkg/r.py"] + "\n\ndef route_v2(path):\n    return '/v2' + route(path)\n"
    }
    a = _analyse(tmp_path, base, pr)
    assert a.model.summary.verdict == "behavior-change"
    # A comment-only change keeps the syntax tree equal: behaviour is preserved.
    c = _analyse(tmp_path / "c", base, {"pkg/r.py": "# Routing.\n" + base["pkg/r.py"]})
    assert c.model.summary.verdict == "pure-refactor"
    assert [fd.symbol for fd in c.findings if fd.kind == "behavior.unchanged"] == ["<module>"]


def test_a_refactor_that_also_adds_a_function_is_a_refactor_with_behaviour_change(tmp_path: Path):
    before = _ROUTE.format(k=1) + "\n\ndef legacy_route():\n    return None\n"
    after = _ROUTE_AFTER + "\n\ndef fresh(x):\n    return x * 2\n"
    a = _analyse(tmp_path, {"pkg/r.py": before}, {"pkg/r.py": after})
    assert {f.kind for f in _ours(a)} == {"code.branches-collapsed", "code.dead-removed"}
    assert a.model.summary.verdict == "refactor-with-behavior-change"
