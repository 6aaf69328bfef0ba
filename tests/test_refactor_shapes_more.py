"""More refactoring shapes from real commits (tests/corpus), each as a small before/after repo:
overrides the base now provides, merged branches, renames under TYPE_CHECKING and functions
moved into a class — each with a look-alike that must not be claimed."""

from __future__ import annotations

from pathlib import Path

from prreport.config import Config, GitConfig
from prreport.pipeline import Analysis, analyse, gather
from prreport.sources.git import GitSource
from tests.gitrepo import Repo


def _analyse(tmp_path: Path, base: dict[str, str | None], pr: dict[str, str | None]) -> Analysis:
    repo = Repo(tmp_path / "repo")
    repo.commit("init", {"pkg/__init__.py": "", **base})
    repo.commit("refactor(pkg): tidy up (#9)", pr)
    cfg = Config()
    src = GitSource("9", GitConfig(repo=str(repo.path)))
    try:
        return analyse(gather(src, cfg), cfg)
    finally:
        src.close()


def _of(a: Analysis, kind: str) -> list:
    assert not [d for d in a.diagnostics if "analyzer failed" in d.message], a.diagnostics
    return sorted((f for f in a.findings if f.kind == kind), key=lambda f: f.symbol)


# -- code.override-removed: subclass bodies dropped because the base provides the method
# (poetry 3bdc3972): pure only when the inherited method is the dropped one.

_ENV_BEFORE = """\
import sys


class Env:
    def pip_command(self, embedded=False):
        raise NotImplementedError()


class SystemEnv(Env):
    def pip_command(self, embedded=False):
        # the running interpreter has a pip
        return [{system}, self.pip]


class NullEnv(SystemEnv):
    def pip_command(self, embedded=False):
        return [self.python, self.pip]

    def run(self):
        return 1
"""

_ENV_AFTER = """\
import sys


class Env:
    def pip_command(self, embedded=False):
        return [self.python, self.pip]


class SystemEnv(Env):
    pass


class NullEnv(SystemEnv):
    def run(self):
        return 1
"""


def test_override_equal_to_the_inherited_method_is_pure(tmp_path: Path):
    before = _ENV_BEFORE.format(system="self.python")
    a = _analyse(tmp_path, {"pkg/env.py": before}, {"pkg/env.py": _ENV_AFTER})
    found = _of(a, "code.override-removed")
    assert [(f.symbol, f.details["base"]) for f in found] == [
        ("NullEnv.pip_command", "Env.pip_command"),
        ("SystemEnv.pip_command", "Env.pip_command"),
    ]
    assert [f.details["behavior_change"] for f in found] == [False, False]
    assert all(f.details["body_kind"] == "implementation" for f in found)


def test_override_unlike_the_inherited_method_is_a_behaviour_change(tmp_path: Path):
    before = _ENV_BEFORE.format(system="sys.executable")
    a = _analyse(tmp_path, {"pkg/env.py": before}, {"pkg/env.py": _ENV_AFTER})
    found = {f.symbol: f for f in _of(a, "code.override-removed")}
    # SystemEnv's body was a full implementation unlike the one inherited now: a rewrite, not
    # a dropped override; its lines stay unexplained.
    assert sorted(found) == ["NullEnv.pip_command"]
    assert found["NullEnv.pip_command"].details["behavior_change"] is False
    assert a.model.summary.verdict != "pure-refactor"


_BASE_MOD = (
    "from pkg.util import helper\n\n\nclass Base:\n    def go(self):\n        return helper(self)\n"
)


def test_equal_text_with_a_name_bound_elsewhere_is_not_claimed(tmp_path: Path):
    util = "def helper(x):\n    return 1\n"
    other = "def helper(x):\n    return 2\n"
    sub = (
        "from pkg.base import Base\nfrom pkg.other import helper\n\n\n"
        "class Sub(Base):\n    def go(self):\n        return helper(self)\n\n    def stop(self):\n"
        "        return 0\n"
    )
    sub_after = (
        "from pkg.base import Base\nfrom pkg.other import helper\n\n\n"
        "class Sub(Base):\n    def stop(self):\n        return 0\n"
    )
    files = {"pkg/util.py": util, "pkg/other.py": other, "pkg/base.py": _BASE_MOD}
    a = _analyse(tmp_path, {**files, "pkg/sub.py": sub}, {"pkg/sub.py": sub_after})
    assert _of(a, "code.override-removed") == []
    assert a.model.summary.verdict != "pure-refactor"


def test_equal_text_bound_alike_in_another_module_is_pure(tmp_path: Path):
    util = "def helper(x):\n    return 1\n"
    sub = (
        "from pkg.base import Base\nfrom pkg.util import helper\n\n\n"
        "class Sub(Base):\n    def go(self):\n        return helper(self)\n\n    def stop(self):\n"
        "        return helper(0)\n"
    )
    sub_after = (
        "from pkg.base import Base\nfrom pkg.util import helper\n\n\n"
        "class Sub(Base):\n    def stop(self):\n        return helper(0)\n"
    )
    files = {"pkg/util.py": util, "pkg/base.py": _BASE_MOD}
    a = _analyse(tmp_path, {**files, "pkg/sub.py": sub}, {"pkg/sub.py": sub_after})
    [f] = _of(a, "code.override-removed")
    assert f.details["behavior_change"] is False and f.explains
    assert a.model.summary.verdict == "pure-refactor"


def test_equal_text_using_zero_argument_super_is_not_claimed(tmp_path: Path):
    src = (
        "class A:\n    def go(self):\n        return 1\n\n\nclass B(A):\n    def go(self):\n"
        "        return super().go() + 1\n\n\nclass C(B):\n    def go(self):\n"
        "        return super().go() + 1\n"
    )
    after = src[: src.index("\n\nclass C(B)")] + "\n\n\nclass C(B):\n    pass\n"
    a = _analyse(tmp_path, {"pkg/m.py": src}, {"pkg/m.py": after})
    assert _of(a, "code.override-removed") == []
    assert a.model.summary.verdict != "pure-refactor"


# -- code.branches-collapsed: two branches merged into one whose code one of them did not run
# (mypy c5c12fad): the inputs of the branch whose code is gone now get another result.

_SPAN_BEFORE = """\
def span(ctx):
    if isinstance(ctx, (ClassDef, FuncDef)):
        return range(ctx.line, ctx.line + 1)
    elif not isinstance(ctx, Expression):
        return [ctx.line]
    else:
        return range(ctx.line, ctx.end_line + 1)
"""

_SPAN_MERGED = """\
def span(ctx):
    if not isinstance(ctx, Expression):
        return range(ctx.line, ctx.line + 1)
    return range(ctx.line, ctx.end_line + 1)
"""

_SPAN_DELETED = """\
def span(ctx):
    if isinstance(ctx, (ClassDef, FuncDef)):
        return range(ctx.line, ctx.line + 1)
    else:
        return range(ctx.line, ctx.end_line + 1)
"""


def test_merged_branch_returning_another_value_is_a_behaviour_change(tmp_path: Path):
    a = _analyse(tmp_path, {"pkg/m.py": _SPAN_BEFORE}, {"pkg/m.py": _SPAN_MERGED})
    [f] = _of(a, "code.branches-collapsed")
    d = f.details
    assert (f.symbol, d["pattern"], d["proven"], d["behavior_change"]) == (
        "span",
        "merged-branches",
        False,
        True,
    )
    assert d["dropped"] == [
        {"test": "not isinstance(ctx, Expression)", "body": "return [ctx.line]"}
    ]
    assert f.explains == ()
    assert a.model.summary.verdict != "pure-refactor"


def test_deleted_branch_is_not_a_merge(tmp_path: Path):
    a = _analyse(tmp_path, {"pkg/m.py": _SPAN_BEFORE}, {"pkg/m.py": _SPAN_DELETED})
    assert _of(a, "code.branches-collapsed") == []
    assert a.model.summary.verdict != "pure-refactor"


# -- symbol.renamed: a function defined under ``if TYPE_CHECKING:`` (an alias) and ``else:``
# (the def that runs) renamed (pydantic 2b861ba2).

_TC = """\
from dataclasses import dataclass as std
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    {name} = std
else:

    def {name}(*args, **kwargs):
        kwargs = {{"slots": True, **kwargs}}
        return std(*args, **kwargs)
"""

_TC_USER = "from pkg.dc import {name}\n\n\n@{name}\nclass A:\n    x: int\n\n\n@{use}\nclass B:\n    y: int\n"


def test_rename_of_a_type_checking_split_definition_is_paired(tmp_path: Path):
    a = _analyse(
        tmp_path,
        {
            "pkg/dc.py": _TC.format(name="dataclass"),
            "pkg/use.py": _TC_USER.format(name="dataclass", use="dataclass"),
        },
        {
            "pkg/dc.py": _TC.format(name="slots_dataclass"),
            "pkg/use.py": _TC_USER.format(name="slots_dataclass", use="slots_dataclass"),
        },
    )
    [f] = _of(a, "symbol.renamed")
    assert (f.details["old_qualname"], f.symbol) == ("dataclass", "slots_dataclass")
    assert f.details["definition_kind"] == "function"
    assert f.details["behavior_change"] is False
    assert a.model.summary.verdict == "pure-refactor"


def test_rename_with_a_use_left_on_the_old_name_is_not_claimed(tmp_path: Path):
    a = _analyse(
        tmp_path,
        {
            "pkg/dc.py": _TC.format(name="dataclass"),
            "pkg/use.py": _TC_USER.format(name="dataclass", use="dataclass"),
        },
        {
            "pkg/dc.py": _TC.format(name="slots_dataclass"),
            "pkg/use.py": _TC_USER.format(name="slots_dataclass", use="dataclass"),
        },
    )
    [f] = _of(a, "symbol.renamed")
    assert f.details["behavior_change"] is True and f.details["call_sites_updated"] is False
    assert a.model.summary.verdict != "pure-refactor"


# -- symbol.renamed: a module function ``f(x: C)`` moved into ``C`` as a method and renamed,
# callers updated from ``f(x)`` to ``x.m()`` (poetry 0caf55f9).

_SOURCE = 'class Source:\n    def __init__(self, name):\n        self.name = name\n\n    def to_dict(self):\n        return {"name": self.name}\n'
_METHOD = "\n    def to_table(self):\n        table = {}\n        for key, value in self.to_dict().items():\n            table[key] = value\n        return table\n"
_FUNC = (
    "from __future__ import annotations\n\nfrom pkg.source import Source\n\n\n"
    "def source_to_table({param}) -> dict:\n    table = {{}}\n"
    "    for key, value in source.to_dict().items():\n        table[key] = value\n    return table\n"
)
_CALLER = "from pkg.source import Source\n\n\ndef handle(names):\n    {imp}out = []\n    for name in names:\n        source = Source(name)\n        out.append({call})\n    return out\n"


def _to_method(tmp_path: Path, param: str) -> Analysis:
    return _analyse(
        tmp_path,
        {
            "pkg/source.py": _SOURCE,
            "pkg/util.py": _FUNC.format(param=param),
            "pkg/cmd.py": _CALLER.format(
                imp="from pkg.util import source_to_table\n\n    ", call="source_to_table(source)"
            ),
        },
        {
            "pkg/source.py": _SOURCE + _METHOD,
            "pkg/util.py": None,
            "pkg/cmd.py": _CALLER.format(imp="", call="source.to_table()"),
        },
    )


def test_function_moved_into_its_argument_class_as_a_method_is_paired(tmp_path: Path):
    a = _to_method(tmp_path, "source: Source")
    [f] = _of(a, "symbol.renamed")
    d = f.details
    assert (d["old_qualname"], f.symbol, d["equality"]) == (
        "source_to_table",
        "Source.to_table",
        "modulo-renames",
    )
    assert d["behavior_change"] is False and d["call_sites_updated"] is True
    assert a.model.summary.verdict == "pure-refactor"


def test_function_whose_argument_is_not_declared_that_class_is_not_claimed(tmp_path: Path):
    a = _to_method(tmp_path, "source")
    assert all(f.details.get("behavior_change") is not False for f in _of(a, "symbol.renamed"))
    assert a.model.summary.verdict != "pure-refactor"
