"""A method removed from a class whose every subclass in the repository defines it itself, the
class never used as a value, was reached by no lookup: ``behavior.unchanged`` (shadowed.py).

Real commits: mypy 58debfad (``StatementVisitor.visit_var`` dropped; its only subclass
``NodeVisitor`` defines ``visit_var``) and mypy 929377ac (three abstract declarations dropped
from ``ExpressionCheckerSharedApi``; ``ExpressionChecker`` defines all three). Each near miss
adds one real difference to the first commit's repository, and must stay unexplained.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from prreport.config import Config
from prreport.findings import Finding
from prreport.pipeline import Analysis, analyse
from prreport.render.markdown import render_markdown
from tests.corpus_texts import corpus_analysis, corpus_bundle, corpus_text
from tests.gitrepo import analyse_commit

CASE = "mypy-58debfad"
VISITOR = "mypy/visitor.py"
REAL = Path(__file__).resolve().parent / "fixtures" / "real"


def _shadowed(a: Analysis) -> list[Finding]:
    return [f for f in a.findings if f.kind == "behavior.unchanged" and "shadowed_by" in f.details]


def test_the_real_commit_is_pure():
    a = corpus_analysis(CASE)
    [fd] = _shadowed(a)
    assert fd.symbol == "StatementVisitor.visit_var"
    assert fd.details["shadowed_by"] == ["mypy/visitor.py:NodeVisitor"]
    assert a.model.summary.verdict == "pure-refactor"
    # The reader is told why, and the assumption it rests on.
    text = render_markdown(a.model, "en")
    assert "every subclass in the repository defines `visit_var` itself" in text
    assert "assuming the removed definition's annotations evaluated without side effects" in text


def test_no_claim_without_a_whole_repository_search():
    # The GitHub source searches only the changed files: a subclass elsewhere is unknown.
    bundle = dataclasses.replace(corpus_bundle(CASE), reference_scope="changed-files")
    a = analyse(bundle, Config())
    assert _shadowed(a) == []
    assert a.model.summary.verdict != "pure-refactor"


_HEAD = "from typing import Generic, TypeVar\n\nfrom mypy.visitor import NodeVisitor, StatementVisitor\n\n"
_DEFINES = (
    "class Checker(StatementVisitor[None]):\n    def visit_var(self, o):\n        return None\n"
)

# One more module of the repository (unchanged by the PR), and whether the removal stays proven.
VARIANTS = {
    "a-subclass-that-defines-it": (_DEFINES, True),
    "a-mixin-before-it-without-super": (
        "class Log:\n    def log(self):\n        return 1\n\n\n"
        + _DEFINES.replace("(StatementVisitor[None])", "(Log, StatementVisitor[None])"),
        True,
    ),
    "a-subclass-that-inherits-it": (
        "class Checker(StatementVisitor[None]):\n    def visit_import(self, o):\n        return None\n",
        False,
    ),
    "the-class-instantiated": (_DEFINES + "\n\nDEFAULT = StatementVisitor()\n", False),
    "the-method-read-on-the-class": (_DEFINES + "\n\nPLAIN = StatementVisitor.visit_var\n", False),
    "super-past-the-subclass": (
        "class Deep(NodeVisitor[None]):\n    def visit_var(self, o):\n"
        "        return super(NodeVisitor, self).visit_var(o)\n",
        False,
    ),
    "super-past-the-subclass-through-its-module": (
        "import mypy.visitor\n\n\nclass Deep(NodeVisitor[None]):\n    def visit_var(self, o):\n"
        "        return super(mypy.visitor.NodeVisitor, self).visit_var(o)\n",
        False,
    ),
    "a-super-proxy-as-a-value": (
        _DEFINES.replace("return None", 'return getattr(super(), "visit_" + "var")(o)'),
        False,
    ),
    "a-mixin-before-it-that-calls-super": (
        "class Log:\n    def log(self, o):\n        return super().visit_var(o)\n\n\n"
        + _DEFINES.replace("(StatementVisitor[None])", "(Log, StatementVisitor[None])"),
        False,
    ),
    "a-mixin-whose-base-calls-super": (
        "class Base:\n    def log(self, o):\n        return super().visit_var(o)\n\n\n"
        "class Log(Base):\n    pass\n\n\n"
        + _DEFINES.replace("(StatementVisitor[None])", "(Log, StatementVisitor[None])"),
        False,
    ),
    "super-past-a-mixin-in-a-subclass-of-the-subclass": (
        "class Log:\n    def log(self):\n        return 1\n\n\n"
        + _DEFINES.replace("(StatementVisitor[None])", "(Log, StatementVisitor[None])")
        + "\n\nclass Deep(Checker):\n    def visit_var(self, o):\n"
        "        return super(Log, self).visit_var(o)\n",
        False,
    ),
    "imported-under-another-name": (
        "from mypy.visitor import StatementVisitor as Visitor\n\n\n"
        + _DEFINES.replace("StatementVisitor[None]", "Visitor[None]"),
        False,
    ),
    "the-name-as-a-string": (
        _DEFINES + '\n\ndef run(v, o):\n    return getattr(v, "visit_var")(o)\n',
        False,
    ),
    "a-composed-name-in-a-class-namespace": (
        _DEFINES + '\n\ndef find(klass, kind):\n    return vars(klass).get("visit_" + kind)\n',
        False,
    ),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_one_more_module_of_the_repository(tmp_path: Path, variant: str):
    extra, proven = VARIANTS[variant]
    base = {
        "mypy/__init__.py": "",
        VISITOR: corpus_text(CASE, VISITOR, "before"),
        "mypy/extra.py": _HEAD + extra,
    }
    a = analyse_commit(tmp_path, base, {VISITOR: corpus_text(CASE, VISITOR, "after")}, "move (#9)")
    found = _shadowed(a)
    if proven:
        [fd] = found
        assert "mypy/extra.py:Checker" in fd.details["shadowed_by"]
        assert a.model.summary.verdict == "pure-refactor"
    else:
        assert found == []
        assert a.model.summary.verdict != "pure-refactor"


def test_a_base_outside_the_repository_is_no_proof(tmp_path: Path):
    # ``ast.NodeVisitor.visit`` looks up ``"visit_" + kind`` on any instance: it is not read.
    def outside(text: str) -> str:
        text = text.replace(
            "from abc import abstractmethod", "import ast\nfrom abc import abstractmethod"
        )
        return text.replace(
            "class StatementVisitor(Generic[T]):",
            "class StatementVisitor(Generic[T], ast.NodeVisitor):",
        )

    before, after = corpus_text(CASE, VISITOR, "before"), corpus_text(CASE, VISITOR, "after")
    assert "ast.NodeVisitor" in outside(before)
    base = {"mypy/__init__.py": "", VISITOR: outside(before)}
    a = analyse_commit(tmp_path, base, {VISITOR: outside(after)}, "move (#9)")
    assert _shadowed(a) == []
    assert a.model.summary.verdict != "pure-refactor"


def _checker_repo(tmp_path: Path, extra: str = "") -> Analysis:
    """mypy 929377ac: checker_shared.py as it was and became, checkexpr.py trimmed to the class
    line and the three methods, visitor.py of the corpus (``ExpressionVisitor``)."""
    shared = "mypy/checker_shared.py"
    base = {
        "mypy/__init__.py": "",
        VISITOR: corpus_text(CASE, VISITOR, "after"),
        shared: (REAL / "mypy-checker-shared-929377ac.before.py.txt").read_text(),
        "mypy/checkexpr.py": (REAL / "mypy-checkexpr-929377ac.trimmed.py.txt").read_text() + extra,
    }
    after = (REAL / "mypy-checker-shared-929377ac.after.py.txt").read_text()
    return analyse_commit(tmp_path, base, {shared: after}, "Refactor static attributes (#19254)")


def test_the_second_real_commit_drops_three_shadowed_declarations(tmp_path: Path):
    found = _shadowed(_checker_repo(tmp_path))
    assert sorted(f.symbol for f in found) == [
        "ExpressionCheckerSharedApi.alias_type_in_runtime_context",
        "ExpressionCheckerSharedApi.module_type",
        "ExpressionCheckerSharedApi.typeddict_callable",
    ]
    assert all(f.details["shadowed_by"] == ["mypy/checkexpr.py:ExpressionChecker"] for f in found)


def test_a_second_subclass_that_misses_one_keeps_that_one_unexplained(tmp_path: Path):
    extra = (
        "\n\nclass Lite(ExpressionCheckerSharedApi):\n"
        "    def module_type(self, node):\n        return None\n\n"
        "    def typeddict_callable(self, info):\n        return None\n"
    )
    found = _shadowed(_checker_repo(tmp_path, extra))
    assert sorted(f.symbol for f in found) == [
        "ExpressionCheckerSharedApi.module_type",
        "ExpressionCheckerSharedApi.typeddict_callable",
    ]


def test_a_removed_method_with_a_registering_decorator_is_no_proof(tmp_path: Path):
    # Defining it ran the decorator at import: its removal changes what ``TRACED`` holds.
    before = corpus_text(CASE, VISITOR, "before")
    old = "    @abstractmethod\n    def visit_var("
    assert before.count(old) == 1
    before = before.replace(old, "    @abstractmethod\n    @trace\n    def visit_var(")
    helper = "TRACED = []\n\n\ndef trace(f):\n    TRACED.append(f.__name__)\n    return f\n\n\n"
    before = before.replace("T = TypeVar('T')\n", "T = TypeVar('T')\n" + helper)
    after = corpus_text(CASE, VISITOR, "after").replace(
        "T = TypeVar('T')\n", "T = TypeVar('T')\n" + helper
    )
    assert "TRACED" in before and "TRACED" in after
    base = {"mypy/__init__.py": "", VISITOR: before}
    a = analyse_commit(tmp_path, base, {VISITOR: after}, "move (#9)")
    assert _shadowed(a) == []
    assert a.model.summary.verdict != "pure-refactor"
