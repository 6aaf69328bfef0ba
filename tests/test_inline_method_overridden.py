"""A method inlined at its ``self.m(...)`` call is proven only when no subclass overrides it
(mitmproxy c3dade09: ``Master._change_reverse_host`` pasted into ``load_flow``). Where a
subclass defines its own ``_change_reverse_host``, ``self._change_reverse_host(f)`` ran that
override for its instances; the pasted body runs the base's code instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from prreport.findings import Finding
from prreport.pipeline import Analysis
from prreport.render.markdown import render_markdown
from tests.corpus_texts import corpus_analysis, corpus_text
from tests.gitrepo import analyse_commit

MASTER = "mitmproxy/master.py"
# A console master that keeps reverse-proxy flows on their recorded host (the override).
_CONSOLE = '''from mitmproxy import master


class ConsoleMaster(master.Master):
    """A master whose flows keep the host they were recorded with."""

    def _change_reverse_host(self, f):
        return None
'''


def _inlined(a: Analysis) -> Finding:
    [fd] = [f for f in a.findings if f.kind == "code.inlined"]
    return fd


def test_the_real_commit_is_a_proven_inline():
    a = corpus_analysis("mitmproxy-c3dade09")
    fd = _inlined(a)
    assert fd.symbol == "Master._change_reverse_host"
    assert fd.details["equality"] == "byte-identical"
    assert fd.details["stale_references"] == []
    assert a.model.summary.verdict == "pure-refactor"


@pytest.mark.parametrize("overrides", [True, False])
def test_a_subclass_that_overrides_the_inlined_method_keeps_it_unproven(
    tmp_path: Path, overrides: bool
):
    before = corpus_text("mitmproxy-c3dade09", MASTER, "before")
    after = corpus_text("mitmproxy-c3dade09", MASTER, "after")
    console = _CONSOLE if overrides else _CONSOLE.replace("_change_reverse_host", "_keep_host")
    base = {"mitmproxy/__init__.py": "", MASTER: before, "mitmproxy/tools/console.py": console}
    base["mitmproxy/tools/__init__.py"] = ""
    a = analyse_commit(tmp_path, base, {MASTER: after}, "inline _change_reverse_host (#5)")
    fd = _inlined(a)
    if overrides:
        assert fd.details["overridden_by"] == ["mitmproxy/tools/console.py:ConsoleMaster"]
        assert a.model.summary.verdict != "pure-refactor"
        assert (
            "overridden in `mitmproxy/tools/console.py:ConsoleMaster`, whose method the pasted"
            " body no longer runs"
        ) in render_markdown(a.model, "en")
    else:
        assert not fd.details.get("overridden_by")
        assert fd.details["stale_references"] == []
        assert a.model.summary.verdict == "pure-refactor"
