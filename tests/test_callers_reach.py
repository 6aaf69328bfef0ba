"""Issue 32 §5: a behaviour change says whether callers can reach the input now answered
differently. On the sglang ``get_kv_class`` shape (#35847) with its callers in a file the PR did
not change (``prefill.py``, found by the repository search): none of them passes KVARGS; the near
miss that does is named with its line; with no repository search, no claim about callers."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

from prreport.bundle import FileChange, PullRequestBundle, PullRequestMeta
from prreport.pipeline import analyse
from prreport.python.definitions import file_index
from prreport.python.reach import callers_reach
from prreport.python.sources import SourceFiles
from prreport.render import render_markdown
from tests.fixtures import sglang_series as S
from tests.test_sglang_series import _of, _run

PREFILL = f"{S.PKG}/prefill.py"
ARG = "class_type=KVClassType.KVARGS"


def _callers(a) -> dict:
    [fd] = _of(a, "code.branches-collapsed")
    [i] = fd.details["inputs"]
    return i["callers"]


def _verdict(md: str, head: str) -> str:
    return next(ln for ln in md.splitlines() if ln.startswith(head))


def test_no_caller_in_the_repository_passes_kvargs_today(tmp_path: Path):
    a = _run(tmp_path, "35847")
    assert _callers(a) == {
        "argument": ARG,
        "calls": 2,  # MANAGER (positional) and SENDER (by keyword), in prefill.py
        "passing": 0,
        "example": "",
        "status": "none",
    }
    en = _verdict(render_markdown(a.model, "en"), "- **Verdict**")
    assert (
        "instead of `raise ValueError(f'Unsupported transfer backend: {transfer_backend}')` "
        "— none of the 2 calls in the repository passes it today" in en
    ), en
    zh = _verdict(render_markdown(a.model, "zh"), "- **结论**")
    assert "，仓库中的 2 处调用目前都不会传入该输入" in zh, zh
    # the behaviour change carries the same answer (the risk and the breakdown read it too)
    [changed] = [f for f in a.model.findings if f.kind == "behavior.changed"]
    assert changed.details["inputs"][0]["callers"]["status"] == "none"


def test_a_caller_that_passes_kvargs_is_named_with_its_line(tmp_path: Path):
    a = _run(tmp_path, "35847", "kvargs")
    line = (
        S.pr_35847("kvargs")[0][PREFILL]
        .splitlines()
        .index("        kv_args_class = get_kv_class(self.transfer_backend, KVClassType.KVARGS)")
    )
    reach = _callers(a)
    assert reach["status"] == "some" and reach["calls"] == 3 and reach["passing"] == 1
    assert reach["example"] == f"{PREFILL}:{line + 1}"
    en = render_markdown(a.model, "en")
    assert f"— 1 call passes `{ARG}`, at `disaggregation/prefill.py:{line + 1}`" in en
    assert "passes it today" not in en
    zh = render_markdown(a.model, "zh")
    assert f"仓库中有 1 处调用传入 `{ARG}`：`disaggregation/prefill.py:{line + 1}`" in zh


def test_without_a_repository_search_callers_are_not_known(tmp_path: Path):
    a = _run(tmp_path, "35847")
    unsearched = dataclasses.replace(a.bundle, references={}, reference_scope="changed-files")
    b = analyse(unsearched, _config())
    assert _callers(b)["status"] == "not-searched"
    en = render_markdown(b.model, "en")
    assert "— its callers are not known (the repository was not searched)" in en
    assert "passes it today" not in en and "calls it today" not in en
    assert "调用方未知（未搜索整个仓库）" in render_markdown(b.model, "zh")


def _config():
    from prreport.config import Config

    return Config()


# --- the reading of one call, on small trees -------------------------------------------------

_LIB = """import enum


class Kind(enum.Enum):
    A = "a"
    B = "b"
    C = "c"


def pick(backend, kind=Kind.B, *, strict=False):
    if kind == Kind.A:
        return 1
    return 2
"""
WHEN = "kind == Kind.A and backend not in (1, 2)"


def _reach(callers: str, lib: str = _LIB, scope: str = "repository") -> dict:
    files = (
        FileChange("lib.py", "modified", 1, 1, before=lib, after=lib),
        FileChange("use.py", "modified", 1, 1, before=callers, after=callers),
    )
    hits = tuple(
        f"{p}:{n}"
        for p, text in (("lib.py", lib), ("use.py", callers))
        for n, row in enumerate(text.splitlines(), 1)
        if "pick" in row
    )
    bundle = PullRequestBundle(
        source="git",
        pr=PullRequestMeta("o/r", 1, "refactor: tidy", "", "a", "0" * 40, "1" * 40),
        files=files,
        references={"pick": hits},
        reference_scope=scope,
    )
    sources = SourceFiles(bundle)
    fn = file_index(sources, "lib.py", "after")["pick"]
    ast.parse(callers)  # the callers are valid Python
    return callers_reach(bundle, sources, fn, WHEN, "kind=Kind.A")


def test_other_members_defaults_and_known_backends_do_not_reach_the_input():
    got = _reach(
        "from lib import Kind, pick\n"
        "pick(3, Kind.B)\n"
        "pick(3)\n"  # the default, Kind.B
        "pick(1, Kind.A)\n"  # KVARGS-like value, but a backend the chain answers
        "pick(backend=2, kind=Kind.A, strict=True)\n"
        "pick(3, Kind.C)\n"
    )
    assert (got["status"], got["calls"]) == ("none", 5)


def test_values_not_known_here_are_never_read_as_no_caller():
    for call, why in (
        ("pick(3, k)", "value"),  # a local: it may be Kind.A
        ("pick(*args)", "indirect"),  # cannot be bound
        ("f = pick", "indirect"),  # passed on: its calls go unseen
        ("pick(3, Other.A)", "value"),  # another class: not known to differ
    ):
        got = _reach(f"from lib import Kind, pick\n{call}\n")
        assert (got["status"], got.get("why")) == ("unknown", why), call
        assert got["example"] == "use.py:2"
    aliased = _reach("from lib import pick as choose\nchoose(3, Kind.A)\n")
    assert aliased["status"] == "unknown" and aliased["why"] == "indirect"


def test_members_that_may_be_aliases_are_not_told_apart():
    lib = _LIB.replace('B = "b"', 'B = "a"')  # an Enum alias: Kind.B is Kind.A
    assert _reach("pick(3, Kind.B)\n", lib=lib)["status"] == "unknown"


def test_a_passing_call_with_an_unknown_backend_counts_as_passing():
    got = _reach("from lib import Kind, pick\npick(backend, Kind.A)\n")
    assert (got["status"], got["passing"], got["example"]) == ("some", 1, "use.py:2")


def test_a_search_that_did_not_cover_the_repository_claims_nothing():
    got = _reach("pick(3, Kind.B)\n", scope="changed-files")
    assert got["status"] == "not-searched"


def test_a_method_is_bound_after_self_and_a_staticmethod_is_not():
    lib = (
        "class Kind:\n    A = 'a'\n    B = 'b'\n\n\n"
        "class Picker:\n"
        "    def pick(self, backend, kind):\n        return kind\n\n"
        "    @staticmethod\n    def spick(backend, kind):\n        return kind\n"
    )
    callers = "p.pick(3, Kind.B)\nPicker.pick(p, 3, Kind.B)\nPicker.spick(3, Kind.A)\n"
    files = (
        FileChange("lib.py", "modified", 1, 1, before=lib, after=lib),
        FileChange("use.py", "modified", 1, 1, before=callers, after=callers),
    )
    bundle = PullRequestBundle(
        source="git",
        pr=PullRequestMeta("o/r", 1, "refactor: tidy", "", "a", "0" * 40, "1" * 40),
        files=files,
        references={"pick": ("use.py:1", "use.py:2"), "spick": ("use.py:3",)},
        reference_scope="repository",
    )
    sources = SourceFiles(bundle)
    index = file_index(sources, "lib.py", "after")
    pick = callers_reach(bundle, sources, index["Picker.pick"], "kind == Kind.A", "kind=Kind.A")
    assert (pick["status"], pick["calls"]) == ("none", 2)
    spick = callers_reach(bundle, sources, index["Picker.spick"], "kind == Kind.A", "kind=Kind.A")
    assert (spick["status"], spick["example"]) == ("some", "use.py:3")
