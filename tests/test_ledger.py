"""The line ledger: every changed line of a PR once, its kind, and the findings that explain it."""

from __future__ import annotations

import difflib

from prreport.bundle import FileChange, PullRequestBundle, PullRequestMeta
from prreport.findings import Diagnostic, Finding
from prreport.report.ledger import ledger_of


def _change(path: str, before: str, after: str, old_path: str | None = None) -> FileChange:
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=1)
    patch = "\n".join(list(diff)[2:])
    return FileChange(path, "modified", 0, 0, old_path, False, patch, before, after)


def _bundle(*files: FileChange) -> PullRequestBundle:
    meta = PullRequestMeta("o/n", 1, "t", "", "me", "base", "head")
    return PullRequestBundle("bundle", meta, files)


BEFORE = "import os\n\n\ndef f():\n    x = 1  # one\n    return x\n\n\ndef g():\n    return 2\n"
AFTER = "import os\n\n\ndef f():\n    x  = 1  # uno\n    return x\n\n\ndef g():\n    # why\n    return 3\n"


def test_each_changed_line_has_its_kind_and_what_explains_it():
    fd = Finding("code.extracted", "m.py", 11, "g", "", {}, (("m.py", "+", 11),))
    ledger = ledger_of(_bundle(_change("m.py", BEFORE, AFTER)), [fd], [])
    lines = {(ln.side, ln.line): ln for ln in ledger.file("m.py").lines}  # type: ignore[union-attr]
    assert {k: ln.kind for k, ln in lines.items()} == {
        ("-", 5): "formatting",
        ("+", 5): "formatting",
        ("-", 10): "code",
        ("+", 10): "comment",
        ("+", 11): "code",
    }
    assert lines[("+", 11)].explained_by == (fd,) and not lines[("+", 11)].left
    assert lines[("-", 10)].left
    assert ledger.explained_by(fd) == (lines[("+", 11)],)
    assert (ledger.changed_count, ledger.explained_count) == (5, 1)
    assert [(ln.side, ln.line, ln.text.strip()) for ln in ledger.unexplained] == [
        ("-", 10, "return 2")
    ]
    assert ledger.source_changed and ledger.analysed and not ledger.incomplete


def test_a_removed_line_is_named_by_the_before_path_of_a_renamed_file():
    fd = Finding("symbol.moved", "new.py", 1, "g", "", {}, (("old.py", "-", 10),))
    ledger = ledger_of(_bundle(_change("new.py", BEFORE, AFTER, old_path="old.py")), [fd], [])
    (line,) = ledger.explained_by(fd)
    assert (line.path, line.side, line.line) == ("new.py", "-", 10)
    assert line.counted and ledger.explained_count == 1


def test_lines_of_a_function_equal_apart_from_formatting_are_not_left():
    same = Finding(
        "behavior.unchanged",
        "m.py",
        9,
        "g",
        "",
        {"before_line": 9, "before_end": 10, "after_line": 9, "after_end": 11},
    )
    ledger = ledger_of(_bundle(_change("m.py", BEFORE, AFTER)), [same], [])
    held = [ln for ln in ledger.file("m.py").lines if ln.unchanged_in]  # type: ignore[union-attr]
    assert [(ln.side, ln.line) for ln in held] == [("-", 10), ("+", 10), ("+", 11)]
    assert ledger.left() == {} and ledger.explained_count == 0


def test_left_groups_the_left_over_lines_by_file_and_hunk():
    before = "".join(f"x{i} = {i}\n" for i in range(1, 21))
    after = before.replace("x2 = 2", "x2 = 22").replace("x18 = 18", "x18 = 81")
    ledger = ledger_of(
        _bundle(_change("m.py", before, after), _change("README.md", "a\n", "b\n")), [], []
    )
    (path, hunks), *_ = ledger.left().items()
    assert path == "m.py" and list(ledger.left()) == ["m.py"]  # docs are not read for the verdict
    assert [[(ln.side, ln.line) for ln in h] for h in hunks] == [
        [("-", 2), ("+", 2)],
        [("-", 18), ("+", 18)],
    ]


def test_what_the_analysis_could_not_see():
    bundle = _bundle(_change("m.py", BEFORE, AFTER), _change("n.py", "a = 1\n", "a = (\n"))
    diags = [Diagnostic("names", "", "analyzer failed: boom"), Diagnostic("parse", "n.py", "bad")]
    ledger = ledger_of(bundle, [], diags)
    assert ledger.failed == ("names",) and ledger.unparsed == ("n.py",)
    assert ledger.incomplete
    assert ledger.file("n.py").status == "unparsed"  # type: ignore[union-attr]
    assert [ln.path for ln in ledger.unexplained] == ["m.py", "m.py"]
