"""Guards removed from changed code (issue #15 shape 7, corpus fastapi-17e49bc9 and
requests-327512f5), applied to real standard-library modules of several hundred lines:
an import fallback dropped makes the dependency required (a behaviour change); a guard whose
condition could never fail (a class, a version the project no longer supports) is proven
harmless; any other dropped guard is a behaviour change naming what is no longer checked."""

from __future__ import annotations

import sysconfig
from pathlib import Path

from prreport.pipeline import Analysis
from tests.gitrepo import analyse_commit

_STDLIB = Path(sysconfig.get_paths()["stdlib"])
TARFILE = (_STDLIB / "tarfile.py").read_text(encoding="utf-8")
HANDLERS = (_STDLIB / "logging" / "handlers.py").read_text(encoding="utf-8")

_PWD_FALLBACK = "try:\n    import pwd\nexcept ImportError:\n    pwd = None\n"


def _drops(a: Analysis) -> list:
    assert not [d for d in a.diagnostics if "analyzer failed" in d.message], a.diagnostics
    return [f for f in a.findings if f.kind == "guard.dropped"]


def test_removed_import_fallback_makes_the_dependency_required(tmp_path: Path):
    assert _PWD_FALLBACK in TARFILE
    after = TARFILE.replace(_PWD_FALLBACK, "import pwd\n")
    a = analyse_commit(
        tmp_path, {"pkg/__init__.py": "", "pkg/tarfile.py": TARFILE}, {"pkg/tarfile.py": after}
    )
    [fd] = _drops(a)
    assert fd.symbol == "<module>"
    assert fd.details["reason"] == "dependency-now-required"
    assert fd.details["caught"] == ["ImportError"]
    assert fd.details["behavior_change"] is True
    assert a.model.summary.verdict == "behavior-change"
    # Its own risk, to review (the dependency must now be installed everywhere), not to block.
    [risk] = [r for r in a.model.risks if r["id"] == "fallback-removed"]
    assert risk["severity"] == "medium"
    assert not any(r["id"] == "guard-dropped" for r in a.model.risks)


def test_import_fallback_moved_or_reformatted_is_no_dropped_guard(tmp_path: Path):
    moved = TARFILE.replace(_PWD_FALLBACK, "").replace(
        "# os.symlink on Windows", _PWD_FALLBACK + "\n# os.symlink on Windows"
    )
    reformatted = TARFILE.replace(_PWD_FALLBACK, _PWD_FALLBACK.replace("None", "None  # no pwd"))
    for i, after in enumerate((moved, reformatted)):
        a = analyse_commit(
            tmp_path / str(i),
            {"pkg/__init__.py": "", "pkg/tarfile.py": TARFILE},
            {"pkg/tarfile.py": after},
        )
        assert _drops(a) == []


# -- a guard that can never fail (fastapi-17e49bc9: ``if AsyncExitStack:``) -----------------

_EMIT = """        try:
            if self.shouldRollover(record):
                self.doRollover()
            logging.FileHandler.emit(self, record)
        except Exception:
            self.handleError(record)
"""


def _guarded(condition: str, header: str = "from contextlib import ExitStack\n") -> str:
    """handlers.py with BaseRotatingHandler.emit's body under ``condition`` (else: a fallback)."""
    body = "".join("    " + ln if ln.strip() else ln for ln in _EMIT.splitlines(keepends=True))
    guarded = f"        if {condition}:\n{body}        else:\n            logging.FileHandler.emit(self, record)\n"
    assert _EMIT in HANDLERS
    return header + HANDLERS.replace(_EMIT, guarded, 1)


def test_guard_on_an_imported_class_is_proven_always_true(tmp_path: Path):
    before = _guarded("ExitStack")
    after = "from contextlib import ExitStack\n" + HANDLERS
    a = analyse_commit(
        tmp_path, {"pkg/__init__.py": "", "pkg/handlers.py": before}, {"pkg/handlers.py": after}
    )
    [fd] = _drops(a)
    assert fd.symbol == "BaseRotatingHandler.emit"
    assert fd.details["guard"] == "if ExitStack"
    assert fd.details["reason"] == "condition-always-true"
    assert fd.details["proven"] is True and fd.details["behavior_change"] is False
    assert a.model.summary.verdict == "pure-refactor"
    assert not any(r["id"] == "guard-dropped" for r in a.model.risks)


def test_guard_re_exported_by_a_first_party_module_is_followed(tmp_path: Path):
    header = "from pkg.compat import ExitStack\n"
    base = {
        "pkg/__init__.py": "",
        "pkg/compat.py": "from contextlib import ExitStack as ExitStack  # noqa\n",
        "pkg/handlers.py": _guarded("ExitStack", header),
    }
    a = analyse_commit(tmp_path, base, {"pkg/handlers.py": header + HANDLERS})
    [fd] = _drops(a)
    assert fd.details["proven"] is True
    assert a.model.summary.verdict == "pure-refactor"


def test_guard_on_a_module_flag_or_the_else_branch_kept_is_a_change(tmp_path: Path):
    flag = "_HAVE_EXITSTACK = True\n"
    cases = {
        "flag": (_guarded("_HAVE_EXITSTACK", flag), flag + HANDLERS, "condition-no-longer-checked"),
        # ExitStack is a class, so the else branch never ran: keeping it changes behaviour.
        "else": (
            _guarded("ExitStack"),
            "from contextlib import ExitStack\n"
            + HANDLERS.replace(_EMIT, "        logging.FileHandler.emit(self, record)\n", 1),
            "condition-no-longer-checked",
        ),
        "try": (
            HANDLERS,
            HANDLERS.replace(_EMIT, _EMIT.replace("        try:\n", "        if True:\n", 1), 1),
            None,
        ),
    }
    for name, (before, after, reason) in cases.items():
        a = analyse_commit(
            tmp_path / name,
            {"pkg/__init__.py": "", "pkg/handlers.py": before},
            {"pkg/handlers.py": after},
        )
        found = _drops(a)
        if reason is None:
            assert found == [], name
            continue
        [fd] = found
        assert (fd.details["reason"], fd.details["behavior_change"]) == (reason, True), name
        assert a.model.summary.verdict != "pure-refactor", name


def test_removed_try_except_lets_the_exception_propagate(tmp_path: Path):
    """requests-327512f5: ``try/except AttributeError`` removed around a method's body."""
    body = "".join(ln[4:] if ln.strip() else ln for ln in _EMIT.splitlines(keepends=True)[1:-2])
    after = HANDLERS.replace(_EMIT, body, 1)
    a = analyse_commit(
        tmp_path, {"pkg/__init__.py": "", "pkg/handlers.py": HANDLERS}, {"pkg/handlers.py": after}
    )
    [fd] = _drops(a)
    assert fd.symbol == "BaseRotatingHandler.emit"
    assert (fd.details["reason"], fd.details["caught"]) == (
        "exception-now-propagates",
        ["Exception"],
    )
    assert a.model.summary.verdict == "behavior-change"


# -- version guards (starlette-589df786): dead only when the project no longer supports the else


def _version_case(tmp_path: Path, requires: str) -> Analysis:
    guard = (
        "if sys.version_info >= (3, 8):\n"
        "    from functools import cached_property\n"
        "else:\n"
        "    cached_property = property\n"
    )
    marker = "import queue\n"
    assert marker in HANDLERS
    before = HANDLERS.replace(marker, marker + "import sys\n" + guard, 1)
    after = HANDLERS.replace(
        marker, marker + "import sys\nfrom functools import cached_property\n", 1
    )
    pyproject = f'[project]\nname = "pkg"\nrequires-python = "{requires}"\n'
    base = {"pyproject.toml": pyproject, "pkg/__init__.py": "", "pkg/handlers.py": before}
    return analyse_commit(tmp_path, base, {"pkg/handlers.py": after})


def test_version_guard_below_the_declared_minimum_is_proven_dead(tmp_path: Path):
    a = _version_case(tmp_path, ">=3.8")
    [fd] = _drops(a)
    assert fd.details["reason"] == "condition-always-true"
    assert "3.8" in fd.details["proof"]
    assert a.model.summary.verdict == "pure-refactor"


def test_version_guard_the_project_still_needs_is_a_change(tmp_path: Path):
    a = _version_case(tmp_path, ">=3.7")
    [fd] = _drops(a)
    assert fd.details["proven"] is False and fd.details["behavior_change"] is True
    assert a.model.summary.verdict != "pure-refactor"
