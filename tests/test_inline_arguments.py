"""A one-line helper inlined at calls whose arguments are attribute reads (pyflakes a55a1263:
``self.hasParent(node, ast.For)`` -> ``isinstance(self.getParent(node), ast.For)``): an
attribute of an imported module, a tuple of such classes and an attribute of a local may be
read where the parameter is; each caller whose own expansion is proven is accounted for even
when another caller of the helper is not; and the inlined call and the removed helper body are
the inlining, unproven, never a witness."""

from __future__ import annotations

from pathlib import Path

from tests.gitrepo import analyse_commit

_BEFORE = """import ast


class Checker:
    def getParent(self, node):
        return node.parent

    def hasParent(self, node, kind):
        return isinstance(self.getParent(node), kind)

    def loops(self, node):
        if self.hasParent(node, ast.For):
            return 1
        return 0

    def either(self, value):
        if self.hasParent(value.source, (ast.For, ast.comprehension)):
            return 2
        return 0
"""
_AFTER = """import ast


class Checker:
    def getParent(self, node):
        return node.parent

    def loops(self, node):
        if isinstance(self.getParent(node), ast.For):
            return 1
        return 0

    def either(self, value):
        if isinstance(self.getParent(value.source), (ast.For, ast.comprehension)):
            return 2
        return 0
"""
_BASE = {"pkg/__init__.py": "", "pkg/checker.py": _BEFORE}


def _sites(a) -> dict[str, dict]:
    [fd] = [f for f in a.findings if f.kind == "code.inlined"]
    return {s["scope"]: s for s in fd.details["sites"]}


def test_module_attributes_and_tuples_of_them_are_read_in_place(tmp_path: Path):
    a = analyse_commit(tmp_path, _BASE, {"pkg/checker.py": _AFTER}, "Refactoring (#5)")
    sites = _sites(a)
    assert sites["Checker.loops"]["proven"] and sites["Checker.either"]["proven"], sites
    notes = [n["text"] for s in sites.values() for n in s["rewrites"]]
    assert "ast.For" in notes, sites
    assert a.model.summary.verdict == "pure-refactor"


def test_a_proven_caller_is_accounted_for_when_another_is_not(tmp_path: Path):
    # ``either`` now also reads another attribute: that caller differs, ``loops`` does not
    after = _AFTER.replace("(ast.For, ast.comprehension)", "(ast.For, ast.While)")
    a = analyse_commit(tmp_path, _BASE, {"pkg/checker.py": after}, "Refactoring (#5)")
    sites = _sites(a)
    assert sites["Checker.loops"]["proven"] and not sites["Checker.either"]["proven"]
    changed = {f.symbol: f for f in a.model.findings if f.kind == "behavior.changed"}
    assert changed["Checker.loops"].details.get("accounted_by"), changed
    assert not changed["Checker.either"].details.get("accounted_by")
    assert a.model.summary.verdict in ("behavior-change", "refactor-with-behavior-change")


def test_a_module_rebound_in_the_module_is_not_read_in_place(tmp_path: Path):
    # near miss: ``ast`` is also assigned in the module, so ``ast.For`` may be another object
    before = _BEFORE + "\n\ndef swap(m):\n    global ast\n    ast = m\n"
    after = _AFTER + "\n\ndef swap(m):\n    global ast\n    ast = m\n"
    a = analyse_commit(tmp_path, {**_BASE, "pkg/checker.py": before}, {"pkg/checker.py": after})
    assert not _sites(a)["Checker.loops"]["proven"]
    assert a.model.summary.verdict != "pure-refactor"
