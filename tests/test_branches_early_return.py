"""Issue #15 shape 6 on real code: an ``if/elif`` chain whose every branch answered one value
the same way is replaced by one early ``if x == K: return ...``. The chain sits in pip's real
``index/collector.py`` (676 lines, from the corpus bundle pip-a287a0bf); the case analysis
must name exactly the inputs answered differently, and claim nothing it cannot follow."""

from __future__ import annotations

from pathlib import Path

import pytest

from prreport.bundle import load_bundle
from prreport.findings import Finding
from prreport.pipeline import Analysis
from prreport.render import render_markdown
from tests.gitrepo import analyse_commit

PATH = "src/pip/_internal/index/collector.py"

_ENUMS = """

class ContentKind(enum.Enum):
    ARCHIVE = "archive"
    HTML = "text/html"
    JSON = "application/vnd.pypi.simple.v1+json"


class IndexBackend(enum.Enum):
    SIMPLE = "simple"
    LOCAL = "local"
    FIND_LINKS = "find-links"

"""

_CHAIN = """
def get_page_handler(backend: IndexBackend, kind: ContentKind) -> Optional[Callable]:
    from pip._internal.index.sources import build_source

    if backend == IndexBackend.SIMPLE:
        from pip._internal.network.session import PipSession

        handlers = {
            ContentKind.ARCHIVE: build_source,
            ContentKind.HTML: parse_links,
            ContentKind.JSON: PipSession,
        }
        return handlers.get(kind)
    elif backend == IndexBackend.LOCAL:
        from pip._internal.utils.filetypes import is_archive_file

        handlers = {
            ContentKind.ARCHIVE: {local_archive},
            ContentKind.HTML: is_archive_file,
        }
        return handlers.get(kind)
    elif backend == IndexBackend.FIND_LINKS:
        handlers = {
            ContentKind.ARCHIVE: build_source,
            ContentKind.JSON: _make_html_page,
        }
        return handlers.get(kind)
    {fallthrough}
"""

_RAISE = 'raise ValueError(f"Unsupported index backend: {backend}")'
_EARLY = "    if kind == ContentKind.ARCHIVE:\n        return build_source\n\n"


def _host() -> str:
    f = load_bundle(Path(__file__).parent / "corpus" / "bundles" / "pip-a287a0bf.json.gz").file(
        PATH
    )
    assert f is not None and f.before is not None
    return f.before.replace("import collections\n", "import collections\nimport enum\n", 1)


def _texts(
    local_archive: str = "build_source", fallthrough: str = _RAISE, enums: str = _ENUMS
) -> tuple[str, str]:
    """(before, after): the ARCHIVE entries dropped from every branch, answered early instead."""
    chain = _CHAIN.replace("{local_archive}", local_archive).replace("{fallthrough}", fallthrough)
    before = _host() + enums + chain
    after_chain = chain.replace(f"            ContentKind.ARCHIVE: {local_archive},\n", "")
    after_chain = after_chain.replace("            ContentKind.ARCHIVE: build_source,\n", "")
    anchor = "    if backend == IndexBackend.SIMPLE:\n"
    after = _host() + enums + after_chain.replace(anchor, _EARLY + anchor)
    return before, after


def _run(tmp_path: Path, before: str, after: str) -> Analysis:
    inits = {p: "" for p in ("src/pip/__init__.py", "src/pip/_internal/__init__.py")}
    inits["src/pip/_internal/index/__init__.py"] = ""
    a = analyse_commit(
        tmp_path, {**inits, PATH: before}, {PATH: after}, message="Answer archives early (#9)"
    )
    assert not [d for d in a.diagnostics if "analyzer failed" in d.message], a.diagnostics
    return a


def _of(a: Analysis, kind: str) -> list[Finding]:
    return [f for f in a.model.findings if f.kind == kind and f.symbol == "get_page_handler"]


def test_only_the_backends_that_used_to_raise_are_answered_differently(tmp_path: Path):
    a = _run(tmp_path, *_texts())
    [fd] = _of(a, "code.branches-collapsed")
    d = fd.details
    assert (d["pattern"], d["subject"], d["value"]) == (
        "early-return",
        "kind",
        "ContentKind.ARCHIVE",
    )
    assert d["inputs"] == [
        {
            "when": "kind == ContentKind.ARCHIVE and backend not in "
            "(IndexBackend.SIMPLE, IndexBackend.LOCAL, IndexBackend.FIND_LINKS)",
            "before": "raise ValueError(f'Unsupported index backend: {backend}')",
            "after": "return build_source",
            # nothing in the repository calls the function (the git source searched it)
            "callers": {
                "argument": "kind=ContentKind.ARCHIVE",
                "calls": 0,
                "passing": 0,
                "example": "",
                "status": "none",
            },
        }
    ]
    [changed] = _of(a, "behavior.changed")
    assert changed.details["inputs"] == d["inputs"] and not changed.details.get("accounted_by")
    assert a.model.summary.verdict == "refactor-with-behavior-change"
    # The report names those inputs, in the breakdown and in the risk, in both languages.
    en, zh = render_markdown(a.model, "en"), render_markdown(a.model, "zh")
    when = f"`{d['inputs'][0]['when']}`"
    assert (
        "Answers `kind == ContentKind.ARCHIVE` early in `get_page_handler` with `return build_source`"
        in en
    )
    assert f"for {when} it now does `return build_source` instead of `raise ValueError(" in en
    assert f"当 {when} 时现在为 `return build_source`" in zh


def test_branches_that_each_imported_and_returned_the_same_name(tmp_path: Path):
    """The issue's own wording: every branch imports and returns the same name for the value."""
    own = (
        "        if kind == ContentKind.ARCHIVE:\n"
        "            from pip._internal.index.sources import build_source\n\n"
        "            return build_source\n"
    )
    before, after = _texts()
    for backend in ("SIMPLE", "LOCAL", "FIND_LINKS"):
        head = f"backend == IndexBackend.{backend}:\n"
        before = before.replace(head, head + own, 1)
    before = before.replace("            ContentKind.ARCHIVE: build_source,\n", "")
    a = _run(tmp_path, before, after)
    [fd] = _of(a, "code.branches-collapsed")
    assert fd.details["pattern"] == "early-return"
    assert [i["before"] for i in fd.details["inputs"]] == [
        "raise ValueError(f'Unsupported index backend: {backend}')"
    ]


def test_an_enum_with_its_own_equality_is_not_enumerated(tmp_path: Path):
    eq = "\n    def __eq__(self, other):\n        return self.value == getattr(other, 'value', other)\n"
    enums = _ENUMS.replace(
        '    JSON = "application/vnd.pypi.simple.v1+json"\n',
        '    JSON = "application/vnd.pypi.simple.v1+json"\n' + eq,
    )
    a = _run(tmp_path, *_texts(enums=enums))
    assert _of(a, "code.branches-collapsed") == []


def test_a_branch_that_answered_the_value_otherwise_is_named(tmp_path: Path):
    a = _run(tmp_path, *_texts(local_archive="is_archive_file"))
    [fd] = _of(a, "code.branches-collapsed")
    assert [i["when"] for i in fd.details["inputs"]] == [
        "kind == ContentKind.ARCHIVE and not (backend == IndexBackend.SIMPLE) and "
        "backend == IndexBackend.LOCAL",
        "kind == ContentKind.ARCHIVE and backend not in "
        "(IndexBackend.SIMPLE, IndexBackend.LOCAL, IndexBackend.FIND_LINKS)",
    ]
    assert fd.details["inputs"][0]["before"] == "return is_archive_file"


def test_every_path_answering_the_value_alike_is_a_proven_collapse(tmp_path: Path):
    """With a fall-through that answers ARCHIVE with build_source too, nothing changed."""
    fall = "fallback = {ContentKind.ARCHIVE: build_source}\n    return fallback.get(kind)"
    before, after = _texts(fallthrough=fall)
    after = after.replace("fallback = {ContentKind.ARCHIVE: build_source}", "fallback = {}")
    a = _run(tmp_path, before, after)
    [fd] = _of(a, "code.branches-collapsed")
    assert fd.details["proven"] is True and fd.details["inputs"] == []
    assert fd.details["behavior_change"] is False
    assert all(f.details.get("accounted_by") for f in _of(a, "behavior.changed"))
    assert a.model.summary.verdict == "pure-refactor"


@pytest.mark.parametrize(
    "variant",
    [
        # Members compared by values we cannot read (auto()): a key may equal ARCHIVE or not.
        "auto-enum",
        # A branch logs before it answers: the early return skips a side effect.
        "side-effect",
        # The chain also changed what it answers for another value.
        "other-change",
        # The subject is rebound in the function: its value is not the parameter's.
        "rebound-subject",
    ],
)
def test_what_the_case_analysis_cannot_follow_is_not_claimed(tmp_path: Path, variant: str):
    enums = _ENUMS
    if variant == "auto-enum":
        enums = _ENUMS.replace('ARCHIVE = "archive"', "ARCHIVE = enum.auto()")
    before, after = _texts(enums=enums)
    if variant == "side-effect":
        line = "        return handlers.get(kind)\n"
        logged = '        logger.debug("index page handler for %s", backend)\n' + line
        # Both sides log in the first branch; for ARCHIVE the early return now skips it.
        before, after = before.replace(line, logged, 1), after.replace(line, logged, 1)
    if variant == "rebound-subject":
        imp = "    from pip._internal.index.sources import build_source\n"
        rebind = imp + "    kind = ContentKind(getattr(kind, 'value', kind))\n"
        before, after = before.replace(imp, rebind), after.replace(imp, rebind)
    if variant == "other-change":
        after = after.replace("ContentKind.HTML: parse_links", "ContentKind.HTML: build_source")
    a = _run(tmp_path, before, after)
    assert [f.details.get("pattern") for f in _of(a, "code.branches-collapsed")] == []
    [changed] = _of(a, "behavior.changed")
    assert "inputs" not in changed.details
    assert a.model.summary.verdict != "pure-refactor"


# -- else after an exit flattened (black 95fd5cb6: "Use early returns in get_grammars()") -----

BLACK = Path(__file__).parent / "corpus" / "bundles" / "black-95fd5cb6.json.gz"


def _black_texts() -> tuple[str, str]:
    f = load_bundle(BLACK).file("black.py")
    assert f is not None and f.before is not None and f.after is not None
    return f.before, f.after


def _grammars(a: Analysis, kind: str) -> list[Finding]:
    return [f for f in a.model.findings if f.kind == kind and f.symbol == "get_grammars"]


def test_elif_and_else_after_returning_branches_become_early_returns(tmp_path: Path):
    before, after = _black_texts()
    a = analyse_commit(tmp_path, {"black.py": before}, {"black.py": after}, message="Early (#1)")
    [fd] = _grammars(a, "code.branches-flattened")
    assert fd.details["proven"] is True and fd.explains
    assert all(f.details.get("accounted_by") for f in _grammars(a, "behavior.changed"))
    assert a.model.summary.verdict == "pure-refactor"


_FIRST = "        # No target_version specified, so try all grammars.\n        return ["
_PY2 = "        # Python 2-only code, so try Python 2 grammars.\n        return ["


@pytest.mark.parametrize(
    ("old", "both"),
    [
        # The Python 2 branch no longer returns: Python 2 targets fall into the Python 3 tail.
        (_PY2, False),
        # The first branch does not exit (in both versions): with no targets the old chain
        # ended there, the new code goes on to the next test (all() of nothing is true).
        (_FIRST, True),
    ],
)
def test_a_flattening_that_changes_a_path_is_not_claimed(tmp_path: Path, old: str, both: bool):
    before, after = _black_texts()
    assert old in after and old in before
    new = old.replace("return [", "grammars = [")
    after = after.replace(old, new, 1)
    if both:
        before = before.replace(old, new, 1)
    a = analyse_commit(tmp_path, {"black.py": before}, {"black.py": after}, message="Early (#1)")
    assert _grammars(a, "code.branches-flattened") == []
    assert a.model.summary.verdict != "pure-refactor"
