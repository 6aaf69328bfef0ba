"""Witnesses of a behaviour change, read from left-over lines (issue 29: verdicts by evidence).

Each shape is an edit that says what differs, with a near miss beside it: a restructuring the
engine could not prove, which is left to review and never called a change.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from prreport.report.witness import Hunk, witnesses
from tests.gitrepo import analyse_commit


def _kinds(
    removed: list[str], added: list[str], refactored: frozenset[str] = frozenset()
) -> list[str]:
    hunk = Hunk(
        "pkg/a.py",
        tuple(enumerate(removed, start=10)),
        tuple(enumerate(added, start=10)),
    )
    return [w.kind for w in witnesses([hunk], refactored)]


@pytest.mark.parametrize(
    ("removed", "added", "kind"),
    [
        (["    return user.is_admin"], ["    return True"], "value"),
        (["    timeout = 30"], ["    timeout = 60"], "value"),
        (["    if n > 0:"], ["    if n >= 0:"], "operator"),
        (["    if ok:"], ["    if not ok:"], "operator"),
        (["    x = self._read(p, None)"], ["    x = self.read_all(p, None)"], "call"),
        (["    if a:"], ["    if a and b:"], "edit"),
        (
            ["    warn(msg,", "        DeprecationWarning,"],
            ["    warn(msg,", "        FutureWarning,"],
            "edit",
        ),
        (["    self.flush()"], [], "removed"),
        ([], ["    if x is None:", "        return None"], "added"),
        (
            ["    y = f()"],
            ["    try:", "        y = f()", "    except ValueError:", "        y = None"],
            "added",
        ),
        (
            [
                "    if k == 1:",
                "        log('x')",
                "        return 1",
                "    if k == 2:",
                "        log('x')",
                "        return 2",
            ],
            [
                "    log('x')",
                "    if k == 1:",
                "        return 1",
                "    if k == 2:",
                "        return 2",
            ],
            "moved",
        ),
    ],
)
def test_an_edit_that_says_what_differs_is_a_witness(
    removed: list[str], added: list[str], kind: str
):
    assert kind in _kinds(removed, added)


@pytest.mark.parametrize(
    ("removed", "added"),
    [
        # if/else assignments written as a conditional expression
        (
            [
                "    if len(extras) == 1:",
                "        verb = 'was'",
                "    else:",
                "        verb = 'were'",
            ],
            ["    verb = 'was' if len(extras) == 1 else 'were'"],
        ),
        # try/except/pass written as contextlib.suppress
        (
            ["    try:", "        os.remove(p)", "    except OSError:", "        pass"],
            ["    with suppress(OSError):", "        os.remove(p)"],
        ),
        # unpacking written as indexing
        (["    a, b = pair"], ["    a = pair[0]", "    b = pair[1]"]),
        # a local renamed where it is assigned
        (["    total = a + b"], ["    result = a + b"]),
        # a statement moved within the hunk
        (["    log.info('x')", "    y = 1"], ["    y = 1", "    log.info('x')"]),
        # the same call spelled another way
        (["    x = dict()"], ["    x = {}"]),
        # annotations added to a def header and to an assignment
        (["    def finalize(self, files):"], ["    def finalize(self, files: list[str]) -> None:"]),
        (["    options = []"], ["    options: List[str] = []"]),
        # a TYPE_CHECKING block added: it never runs
        (
            [],
            [
                "if TYPE_CHECKING:",
                "    from pkg.dist import Distribution",
                "    register(Distribution)",
            ],
        ),
        # a value named once and read where it was computed (pyflakes a55a1263)
        (
            ["    if ok and isinstance(self.parent_of(v.source), ast.For):"],
            [
                "    parent = self.parent_of(v.source)",
                "    if ok and isinstance(parent, ast.For):",
                "        x = 1",
            ],
        ),
        # a parameter kept in a private attribute (structlog 19ad6c7e): its readers decide
        ([], ["        self._pad_event = pad_event"]),
        (["        self._styles = styles"], []),
    ],
)
def test_a_restructuring_is_no_witness(removed: list[str], added: list[str]):
    assert _kinds(removed, added) == []


def test_a_call_of_a_helper_the_pr_extracted_is_the_extraction_not_a_witness():
    removed = ["    a = x * 2", "    self.out.write(a)"]
    added = ["    self._emit(x)"]
    assert _kinds(removed, added) != []
    assert _kinds(removed, added, frozenset({"_emit"})) == []


_BASE = {
    "pkg/__init__.py": "",
    "pkg/auth.py": "def allowed(user):\n    if user.is_admin:\n        return True\n    return False\n",
    "pkg/pairs.py": "def first(pair):\n    a, b = pair\n    return a\n",
}


def test_an_unproven_restructuring_is_refactor_unproven_with_its_lines_named(tmp_path: Path):
    after = "def first(pair):\n    a = pair[0]\n    b = pair[1]\n    return a\n"
    a = analyse_commit(tmp_path, _BASE, {"pkg/pairs.py": after})
    h = a.model.summary.headline
    assert a.model.summary.verdict == "refactor-unproven"
    assert h["witnesses"] == [] and h["left_lines"] > 0
    assert [(e["path"], e["start"], e["end"]) for e in h["left_edits"]] == [("pkg/pairs.py", 2, 3)]
    from prreport.render.markdown import render_markdown

    md = render_markdown(a.model, "en")
    assert "changed lines left to review" in md and "`pkg/pairs.py:2–3`" in md
    assert "待审阅" in render_markdown(a.model, "zh")


def test_a_witnessed_change_names_its_edit(tmp_path: Path):
    after = "def allowed(user):\n    if user.is_admin:\n        return True\n    return True\n"
    a = analyse_commit(tmp_path, _BASE, {"pkg/auth.py": after}, message="fix(auth): allow (#7)")
    assert a.model.summary.verdict == "behavior-change"
    (w,) = a.model.summary.headline["witnesses"]
    assert (w["kind"], w["before"], w["after"], w["line"]) == ("value", "False", "True", 4)
    from prreport.render.markdown import render_markdown

    assert "`False` became `True` (`pkg/auth.py:4`)" in render_markdown(a.model, "en")


def test_a_signature_change_in_an_annotated_header_is_still_a_witness():
    # ``**kwargs`` added next to the annotations: the function now accepts more.
    kinds = _kinds(["def _chmod(*args):"], ["def _chmod(*args: object, **kwargs: object) -> None:"])
    assert kinds != []
    # and code after a TYPE_CHECKING block, back at its indentation, is read again
    assert _kinds([], ["if TYPE_CHECKING:", "    import x", "register(plugin)"]) != []


def _names(*texts: str) -> frozenset[str]:
    import re

    return frozenset(m for t in texts for m in re.findall(r"[A-Za-z_]\w*", t))


def test_a_name_the_pr_replaces_everywhere_is_a_rename_not_a_witness():
    removed = ["        self._multiline: dict = {}", "        return self._multiline.get(n, n)"]
    added = ["        self.multiline_map: dict = {}", "        return self.multiline_map.get(n, n)"]
    hunk = Hunk("pkg/a.py", tuple(enumerate(removed, 10)), tuple(enumerate(added, 10)))
    before, after = (
        _names(*removed, "def parse(self): pass"),
        _names(*added, "def parse(self): pass"),
    )
    assert witnesses([hunk], names=lambda: (before, after)) == []
    # near misses: the new name was already bound before (another attribute now read), or the
    # old one is still spelled after the change (a reader the PR did not update)
    assert [
        w.kind for w in witnesses([hunk], names=lambda: (before | {"multiline_map"}, after))
    ] == [
        "edit",
        "edit",
    ]
    assert witnesses([hunk], names=lambda: (before, after | {"_multiline"})) != []
    # and without the files' names (nothing to say the rename is complete) it is an edit
    assert witnesses([hunk]) != []


def test_a_statement_re_placed_elsewhere_in_the_pr_is_no_witness():
    moved_out = Hunk("pkg/a.py", ((10, "    self.close(handle)"),), ())
    moved_in = Hunk("pkg/a.py", (), ((31, "        self.close(handle)"),))
    assert witnesses([moved_out, moved_in]) == []
    # near miss: what arrives elsewhere is another call
    other = Hunk("pkg/a.py", (), ((31, "        self.close(handle, force=True)"),))
    assert [w.kind for w in witnesses([moved_out, other])] == ["removed", "added"]


def test_an_extraction_that_differs_is_witnessed_by_the_line_that_differs(tmp_path: Path):
    base = {
        "pkg/__init__.py": "",
        "pkg/log.py": (
            "import sys\n\n\ndef start(colors):\n    if colors:\n"
            "        sys.stderr.write('colors need colorama')\n        sys.stderr.flush()\n"
            "    return colors\n"
        ),
    }
    after = (
        "import sys\n\n\ndef _warn():\n    sys.stderr.write('colors on Windows need colorama')\n"
        "    sys.stderr.flush()\n\n\ndef start(colors):\n    if colors:\n        _warn()\n"
        "    return colors\n"
    )
    a = analyse_commit(tmp_path, base, {"pkg/log.py": after}, message="refactor: extract (#3)")
    assert a.model.summary.verdict == "refactor-with-behavior-change"
    kinds = {(w["kind"], w["before"], w["after"]) for w in a.model.summary.headline["witnesses"]}
    assert ("value", "'colors need colorama'", "'colors on Windows need colorama'") in kinds


def test_a_change_of_only_comments_and_layout_of_the_shipped_code_is_pure(tmp_path: Path):
    after = (
        "def allowed(user):  # type: ignore[misc]\n    if user.is_admin:\n"
        "        return True  # admins pass\n    return False\n"
    )
    a = analyse_commit(tmp_path, _BASE, {"pkg/auth.py": after}, message="chore: type ignores (#4)")
    h = a.model.summary.headline
    assert a.model.summary.verdict == "pure-refactor" and h["layout_only"] and not h["tests_only"]
    from prreport.render.markdown import render_markdown

    assert "Only the comments and layout of the shipped code changed" in render_markdown(
        a.model, "en"
    )
    assert "只改动了注释和排版" in render_markdown(a.model, "zh")
    # near miss: the same comments beside a changed value is not layout
    changed = after.replace("return False", "return None")
    b = analyse_commit(tmp_path / "b", _BASE, {"pkg/auth.py": changed}, message="fix (#5)")
    assert b.model.summary.verdict == "behavior-change"
    assert not b.model.summary.headline["layout_only"]


def test_another_attribute_of_an_outside_object_is_no_rename():
    # bandit: ``sys.stdout.write`` -> ``sys.stderr.write`` everywhere; nothing defines ``stderr``
    removed, added = ['    sys.stdout.write("]\\n")'], ['    sys.stderr.write("]\\n")']
    hunk = Hunk("pkg/a.py", tuple(enumerate(removed, 10)), tuple(enumerate(added, 10)))
    names = (_names(*removed, "import sys"), _names(*added, "import sys"))
    assert [w.kind for w in witnesses([hunk], names=lambda: names)] == ["edit"]


_FORMAT = "def variables(prefix, n):\n    return dict(\n        n=n,\n        total=n * 2,\n    )\n"


def test_an_entry_added_to_a_value_being_built_is_a_witness(tmp_path: Path):
    # tqdm 5af11351: a ``'desc': ...`` entry joins the format variables (no statement added)
    after = _FORMAT.replace(
        "        total=n * 2,\n", "        total=n * 2,\n        desc=prefix or '',\n"
    )
    base = {"pkg/__init__.py": "", "pkg/fmt.py": _FORMAT}
    a = analyse_commit(tmp_path, base, {"pkg/fmt.py": after}, message="feat: desc (#8)")
    assert a.model.summary.verdict == "behavior-change"
    (w,) = a.model.summary.headline["witnesses"]
    assert (w["kind"], w["after"]) == ("added", "desc=prefix or '',")
    # near miss: the same call laid out on other lines holds the same elements
    relaid = "def variables(prefix, n):\n    return dict(n=n,\n                total=n * 2)\n"
    b = analyse_commit(tmp_path / "b", base, {"pkg/fmt.py": relaid}, message="style (#9)")
    assert b.model.summary.verdict == "pure-refactor"


def test_an_import_line_is_the_import_analyzers_to_judge():
    # ``from ..utils import text`` -> ``from faker.utils import text``: the same module; an
    # import now bound to another object is witnessed by the import findings instead
    assert _kinds(["from ..utils import text"], ["from faker.utils import text"]) == []
    multi = (
        ["from .a import (", "    x,", "    y,", ")"],
        ["from .a import (", "    x,", "    z,", ")"],
    )
    assert _kinds(*multi) == []
    assert _kinds(["    x = load(1)"], ["    x = load(2)"]) == [
        "value"
    ]  # the lines around still count


def test_a_flag_or_a_computed_value_kept_in_a_private_attribute_is_a_witness():
    # near misses of the private-state rule: a literal stored is a flag, a call computes anew
    assert _kinds([], ["        self._closed = True"]) == ["added"]
    assert _kinds(["        self._algorithms = get_default_algorithms()"], []) == ["removed"]
    assert _kinds([], ["        self.pad_event = pad_event"]) == ["added"]  # public: others read it


def test_a_named_value_read_beside_a_new_condition_is_still_a_witness():
    # near miss: the local stands for its value, but ``strict`` is new
    kinds = _kinds(
        ["    if ok and isinstance(self.parent_of(v.source), ast.For):"],
        [
            "    parent = self.parent_of(v.source)",
            "    if ok and strict and isinstance(parent, ast.For):",
            "        x = 1",
        ],
    )
    assert kinds == ["added"]


def test_a_value_read_through_the_private_attribute_that_keeps_it_is_no_witness():
    # structlog 19ad6c7e: ``styles`` is kept in ``self._styles`` and read through it elsewhere
    store = Hunk("pkg/dev.py", (), ((10, "        self._styles = styles"),))
    read = Hunk(
        "pkg/dev.py",
        ((40, "            styles.reset,"), (41, "            width=pad,")),
        (
            (40, "            self._styles.reset,"),
            (41, "            width=self._pad,"),
            (42, "        x = 1"),
        ),
    )
    elements = lambda _p, _s, n, _t: n in (40, 41)  # noqa: E731
    got = [(w.kind, w.line) for w in witnesses([store, read], elements=elements)]
    # ``self._pad`` keeps nothing the PR stored: still witnesses, both sides
    assert got == [("added", 41), ("removed", 41)]
