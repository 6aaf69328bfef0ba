"""Shapes seen in real commits (tests/corpus/): equivalence that sees through spelling, honest
dead-code claims, and the verdict rules — each on a small realistic repository."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from prreport.config import Config
from prreport.pipeline import Analysis, analyse
from tests.gitrepo import analyse_commit


def _analyse(
    tmp_path: Path,
    base: dict[str, str | None],
    pr: dict[str, str | None],
    msg: str = "refactor(pkg): tidy up (#7)",
) -> Analysis:
    return analyse_commit(tmp_path, {"pkg/__init__.py": "", **base}, pr, msg)


def _kinds(a: Analysis, kind: str) -> list[str]:
    return [f.symbol for f in a.findings if f.kind == kind]


# -- the same object, another spelling ----------------------------------------------------

_NODES = '''"""Tree nodes."""


class Node:
    """A node."""

    def children(self):
        return []
'''


def test_from_import_and_module_attribute_are_the_same_object(tmp_path: Path):
    before = (
        "from pkg import nodes\n"
        "from pkg.nodes import Node\n\n\n"
        "def build(x):\n"
        "    if isinstance(x, Node):\n"
        "        return x.children()\n"
        "    return [Node()]\n"
    )
    after = (
        "from pkg import nodes\n\n\n"
        "def build(x):\n"
        "    if isinstance(x, nodes.Node):\n"
        "        return x.children()\n"
        "    return [nodes.Node()]\n"
    )
    a = _analyse(tmp_path, {"pkg/nodes.py": _NODES, "pkg/tree.py": before}, {"pkg/tree.py": after})
    assert _kinds(a, "behavior.unchanged") == ["build"]
    assert not _kinds(a, "behavior.changed")
    assert a.model.summary.verdict == "pure-refactor"


def test_alias_and_string_annotations_and_cast_are_spelling(tmp_path: Path):
    before = (
        "import typing\n"
        "from typing import cast\n\n\n"
        "@typing.overload\n"
        "def first(x: int) -> int: ...\n"
        "@typing.overload\n"
        "def first(x: str) -> str: ...\n"
        "def first(x: 'typing.Any') -> 'typing.Any':\n"
        "    '''The first item.'''\n"
        "    y = cast('list[int]', x)\n"
        "    return y[0]\n"
    )
    after = (
        "import typing as t\n"
        "from typing import Any, cast\n\n\n"
        "@t.overload\n"
        "def first(x: int) -> int: ...\n"
        "@t.overload\n"
        "def first(x: str) -> str: ...\n"
        "def first(x: Any) -> Any:\n"
        "    '''Return the first item of x.'''\n"
        "    y = cast(list[int], x)\n"
        "    return y[0]\n"
    )
    a = _analyse(tmp_path, {"pkg/seq.py": before}, {"pkg/seq.py": after})
    assert not _kinds(a, "behavior.changed"), [
        f.details for f in a.findings if f.kind == "behavior.changed"
    ]
    assert a.model.summary.verdict == "pure-refactor"


def test_a_different_object_under_the_same_name_is_a_change(tmp_path: Path):
    before = "from json import dumps\n\n\ndef out(x):\n    return dumps(x)\n"
    after = "from pickle import dumps\n\n\ndef out(x):\n    return dumps(x)\n"
    a = _analyse(tmp_path, {"pkg/out.py": before}, {"pkg/out.py": after}, msg="fix: pickle (#7)")
    assert a.model.summary.verdict != "pure-refactor"


def test_a_changed_message_is_a_change_even_in_a_refactor(tmp_path: Path):
    before = (
        "def check(x):\n    '''Check.'''\n    if x < 0:\n        raise ValueError('negative')\n"
    )
    after = "def check(x):\n    '''Check x.'''\n    if x < 0:\n        raise ValueError('x is negative')\n"
    a = _analyse(tmp_path, {"pkg/c.py": before}, {"pkg/c.py": after})
    assert _kinds(a, "behavior.changed") == ["check"]
    assert a.model.summary.verdict == "behavior-change"


def test_class_field_annotations_are_behaviour(tmp_path: Path):
    before = "import dataclasses\n\n\n@dataclasses.dataclass\nclass P:\n    x: int = 0\n"
    after = "import dataclasses\n\n\n@dataclasses.dataclass\nclass P:\n    x: str = 0\n"
    a = _analyse(tmp_path, {"pkg/p.py": before}, {"pkg/p.py": after})
    assert a.model.summary.verdict != "pure-refactor"


# -- dead code: only what nothing used before the change either ----------------------------


def test_a_helper_removed_with_its_last_caller_is_not_dead_code(tmp_path: Path):
    base = {
        "pkg/a.py": "def helper(x):\n    return x * 2\n\n\ndef api(x):\n    return helper(x) + 1\n",
    }
    a = _analyse(tmp_path, base, {"pkg/a.py": "def api(x):\n    return x * 2 + 1\n"})
    assert not _kinds(a, "code.dead-removed")


def test_a_nested_function_inlined_is_not_dead_code(tmp_path: Path):
    before = (
        "def render(items):\n"
        "    def line(i):\n"
        "        return f'- {i}'\n"
        "    return [line(i) for i in items]\n"
    )
    after = "def render(items):\n    return [f'- {i}' for i in items]\n"
    a = _analyse(tmp_path, {"pkg/r.py": before}, {"pkg/r.py": after})
    assert not _kinds(a, "code.dead-removed")


def test_definitions_only_used_by_each_other_are_dead_together(tmp_path: Path):
    before = (
        "import ctypes\n\n"
        "_write = ctypes.CDLL(None).write\n"
        "_write.argtypes = [\n    ctypes.c_int,\n    ctypes.c_char_p,\n]\n"
        "_write.restype = ctypes.c_int\n\n\n"
        "def write(text):\n    return _write(1, text)\n\n\n"
        "def keep():\n    return 1\n"
    )
    after = "import ctypes\n\n\ndef keep():\n    return 1\n"
    a = _analyse(
        tmp_path,
        {"pkg/w.py": before, "pkg/use.py": "from pkg.w import keep\n"},
        {"pkg/w.py": after},
    )
    assert sorted(_kinds(a, "code.dead-removed")) == ["_write", "write"]
    assert a.model.summary.verdict == "pure-refactor"


def test_without_a_repository_search_dead_code_is_unproven_and_the_verdict_unknown(tmp_path: Path):
    a = _analyse(
        tmp_path,
        {"pkg/a.py": "def unused():\n    return 2\n\n\ndef keep():\n    return 1\n"},
        {"pkg/a.py": "def keep():\n    return 1\n"},
    )
    assert _kinds(a, "code.dead-removed") == ["unused"]
    assert a.model.summary.verdict == "pure-refactor"
    bare = dataclasses.replace(a.bundle, references={}, reference_scope="changed-files")
    b = analyse(bare, Config())
    [f] = [f for f in b.findings if f.kind == "code.dead-removed"]
    assert f.details["proven"] is False and "not searched" in f.message
    assert b.model.summary.verdict == "unknown"
    assert b.model.summary.headline["unknown_reason"] == "references-unchecked"


# -- verdict rules -------------------------------------------------------------------------


def test_a_bug_fix_that_adds_an_import_is_a_behaviour_change(tmp_path: Path):
    before = "def parse(text):\n    return text.split(',')\n"
    after = "import re\n\n\ndef parse(text):\n    return re.split(r',\\s*', text)\n"
    a = _analyse(
        tmp_path, {"pkg/p.py": before}, {"pkg/p.py": after}, msg="fix: spaces after commas (#7)"
    )
    assert a.model.summary.verdict == "behavior-change"


def test_test_changes_do_not_make_a_refactor_a_behaviour_change(tmp_path: Path):
    base = {
        "pkg/a.py": "def f(x):\n    '''F.'''\n    return x\n",
        "tests/test_a.py": "from pkg.a import f\n\n\ndef test_f():\n    assert f(1) == 1\n",
    }
    pr = {
        "pkg/a.py": "def f(x):\n    '''Identity.'''\n    return x\n",
        "tests/test_a.py": "from pkg.a import f\n\n\ndef test_f():\n    assert f(2) == 2\n    assert undefined_name\n",
    }
    a = _analyse(tmp_path, base, pr)
    assert a.model.summary.verdict == "pure-refactor"


def test_test_only_change_is_unknown(tmp_path: Path):
    base = {
        "pkg/a.py": "def f(x):\n    return x\n",
        "tests/test_a.py": "def test_f():\n    assert True\n",
    }
    a = _analyse(tmp_path, base, {"tests/test_a.py": "def test_f():\n    assert 1\n"})
    assert a.model.summary.verdict == "unknown"


def test_an_analyzer_crash_makes_the_verdict_unknown(tmp_path: Path, monkeypatch):
    from prreport.analyzers.behavior import BehaviorAnalyzer

    def boom(self, bundle, sources):
        raise IndexError("list index out of range")

    monkeypatch.setattr(BehaviorAnalyzer, "analyze", boom)
    a = _analyse(
        tmp_path,
        {"pkg/a.py": "def f():\n    return 1\n"},
        {"pkg/a.py": "def f():\n    return 1  # same\n"},
    )
    assert a.model.summary.verdict == "unknown"
    assert any("analyzer failed" in d.message for d in a.diagnostics)
    from prreport.render import render_markdown

    md = render_markdown(a.model, "en")
    assert "the analysis is incomplete: the behavior analyzer failed" in md
    assert "Safe to skim" not in md
    assert "Analysis incomplete" in md
    assert "分析器 behavior 运行失败" in render_markdown(a.model, "zh")


def test_a_name_already_unresolved_before_and_moved_unchanged_is_not_a_change(tmp_path: Path):
    # A Windows-only helper reads a name its module never bound (real projects have these);
    # the PR moves it, unchanged, to another module.
    helper = "def win_only():\n    return windll.kernel32.GetLastError()\n"
    base = {"pkg/a.py": "def keep():\n    return 1\n\n\n" + helper, "pkg/b.py": "X = 1\n"}
    pr = {"pkg/a.py": "def keep():\n    return 1\n", "pkg/b.py": "X = 1\n\n\n" + helper}
    a = _analyse(tmp_path, base, pr)
    [f] = [f for f in a.findings if f.kind == "names.unresolved"]
    assert f.symbol == "windll" and f.details["preexisting"] is True
    assert "windll" not in a.model.summary.headline["behavior_changed"]
    assert a.model.summary.verdict == "pure-refactor", [(x.kind, x.symbol) for x in a.findings]
