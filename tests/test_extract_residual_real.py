"""Extractions whose helper is no verbatim copy of the removed lines, on real commits: a guard
moved into the helper and a warning added (uvicorn 587a1ccc), a method generalised into a
function with the mapping and default as parameters (pip 26eaddcf), boilerplate reached through
another new helper (attrs 1499c77e), and overrides pulled up into the base method they now
inherit (pip c6906f1a). Each is ``code.extracted`` "different" with its residual, never
proven; each with a look-alike (the same commit edited) that must not be reported."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from prreport.findings import Finding
from prreport.pipeline import Analysis
from tests.corpus_texts import corpus_analysis, corpus_bundle
from tests.gitrepo import analyse_commit

_UVICORN, _PIP_ID, _ATTRS, _PIP_VCS = (
    "uvicorn-587a1ccc",
    "pip-26eaddcf",
    "attrs-1499c77e",
    "pip-c6906f1a",
)
_H11 = "uvicorn/protocols/http/h11_impl.py"
_HTTPTOOLS = "uvicorn/protocols/http/httptools_impl.py"
_PROVIDER = "src/pip/_internal/resolution/resolvelib/provider.py"
_MAKE = "src/attr/_make.py"
_GIT, _HG = "src/pip/_internal/vcs/git.py", "src/pip/_internal/vcs/mercurial.py"
_VCS = "src/pip/_internal/vcs/versioncontrol.py"


def _extracted(a: Analysis, symbol: str) -> Finding | None:
    found = [f for f in a.findings if f.kind == "code.extracted" and f.symbol == symbol]
    assert len(found) <= 1, found
    return found[0] if found else None


def _replayed(tmp_path: Path, case: str, edits: dict[str, Callable[[str], str]]) -> Analysis:
    """A corpus commit replayed in a new repository, the after side of some files edited."""
    files = [f for f in corpus_bundle(case).files if f.path.endswith(".py")]
    base = {f.before_path: f.before for f in files}
    change: dict[str, str | None] = {}
    for f in files:
        assert f.after is not None
        change[f.path] = edits[f.path](f.after) if f.path in edits else f.after
        assert change[f.path] != f.after or f.path not in edits, f"edit of {f.path} missed"
    return analyse_commit(tmp_path, base, change, "refactor: edited replay (#7)")


def _edit(old: str, new: str) -> Callable[[str], str]:
    def apply(text: str) -> str:
        assert text.count(old) == 1, old
        return text.replace(old, new)

    return apply


def _kept(case: str, path: str, start: str, end: str) -> str:
    """The before text of a file from ``start`` up to ``end`` (a definition the commit removed,
    to keep in an edited replay)."""
    f = corpus_bundle(case).file(path)
    assert f is not None and f.before is not None
    return f.before[f.before.index(start) : f.before.index(end)]


def _unproven(fd: Finding) -> None:
    """What every edited extraction says: different, not proven, explains no line."""
    assert fd.details["equality"] == "different"
    assert fd.details["proven"] is False
    assert fd.details["behavior_change"] is not False
    assert fd.explains == ()
    assert all(s["equality"] == "different" and not s["proven"] for s in fd.details["sites"])


def _one_site(case: str, helper: str, scope: str, caller: str) -> tuple[Analysis, dict]:
    """The analysis of a corpus commit and the one site of its edited extraction into
    ``helper``: the code ``scope`` lost, which ``caller`` ran and now calls the helper for."""
    a = corpus_analysis(case)
    fd = _extracted(a, helper)
    assert fd is not None
    _unproven(fd)
    (site,) = fd.details["sites"]
    assert (site["scope"], site["callers"]) == (scope, [caller])
    return a, site


# -- uvicorn 587a1ccc: a guard moved into the helper, the caller's control flow tidied --------


def test_warning_helper_with_a_new_guard_is_extracted_with_the_guard_as_residual():
    # httptools_impl: the two warnings of _should_upgrade_to_ws (under ``if self.config.ws ==
    # "auto"``) became _unsupported_upgrade_warning (under ``if not
    # self._should_upgrade_to_ws()``), which data_received now calls in an ``else:`` where it
    # called _should_upgrade_to_ws.
    a, site = _one_site(
        _UVICORN,
        "HttpToolsProtocol._unsupported_upgrade_warning",
        "HttpToolsProtocol._should_upgrade_to_ws",
        "HttpToolsProtocol.data_received",
    )
    text = corpus_bundle(_UVICORN).file(_HTTPTOOLS).after  # type: ignore[union-attr]
    rows = text.splitlines()
    assert [rows[n - 1].strip() for n in site["call_lines"]] == [
        "self._unsupported_upgrade_warning()"
    ]
    assert site["residual"] == [
        "-if self.config.ws == 'auto':",
        "+if not self._should_upgrade_to_ws():",
    ]
    # Each statement of the old code found in the helper, old line -> new line (a constant
    # local read once, ``msg = "..."; warning(msg)``, reads as ``warning("...")``).
    before = corpus_bundle(_UVICORN).file(_HTTPTOOLS).before.splitlines()  # type: ignore[union-attr]
    assert [(before[o - 1].strip(), rows[n - 1].strip()) for o, n in site["line_map"]] == [
        ("self.logger.warning(msg)", 'self.logger.warning("Unsupported upgrade request.")'),
        ("self.logger.warning(msg)", "self.logger.warning(msg)"),
    ]
    assert a.model.summary.verdict == "refactor-with-behavior-change"


def test_helpers_reached_through_another_new_helper_are_extracted_in_h11():
    # h11_impl: handle_events calls the new _should_upgrade where it ran ``upgrade == b"websocket"
    # and self._should_upgrade_to_ws()``; _should_upgrade calls _unsupported_upgrade_warning,
    # whose warnings _should_upgrade_to_ws lost.
    a = corpus_analysis(_UVICORN)
    warning = _extracted(a, "H11Protocol._unsupported_upgrade_warning")
    upgrade = _extracted(a, "H11Protocol._should_upgrade")
    assert warning is not None and upgrade is not None
    _unproven(warning)
    _unproven(upgrade)
    (site,) = warning.details["sites"]
    assert site["scope"] == "H11Protocol._should_upgrade_to_ws"
    assert site["callers"] == ["H11Protocol.handle_events"]
    assert site["via"] == ["H11Protocol._should_upgrade"]
    assert site["scope_removed"] is False  # _should_upgrade_to_ws stays, without the warnings
    assert "-    if self.config.ws == 'auto':" in site["residual"]
    (site,) = upgrade.details["sites"]
    assert site["scope"] == site["callers"][0] == "H11Protocol.handle_events"
    # What the helper does that handle_events did not: the warning for other upgrades.
    assert "+    self._unsupported_upgrade_warning()" in site["residual"]


def test_a_warning_helper_its_callers_do_not_call_is_not_extracted(tmp_path: Path):
    # The same commit, but data_received drops the ``else:`` calling the helper: the helper
    # resembles the lost warnings, and nothing that ran them calls it.
    a = _replayed(
        tmp_path,
        _UVICORN,
        {
            _HTTPTOOLS: _edit(
                "                self.handle_websocket_upgrade()\n"
                "            else:\n"
                "                self._unsupported_upgrade_warning()\n",
                "                self.handle_websocket_upgrade()\n",
            )
        },
    )
    assert _extracted(a, "HttpToolsProtocol._unsupported_upgrade_warning") is None
    assert _extracted(a, "H11Protocol._unsupported_upgrade_warning") is not None


# -- pip 26eaddcf: a method generalised into a function with mapping/default parameters -----


def test_method_generalised_into_a_function_with_parameters_is_extracted():
    a, site = _one_site(
        _PIP_ID, "_get_with_identifier", "PipProvider._get_constraint", "PipProvider.find_matches"
    )
    # The parameters stand for what the method read: the whole body is found.
    assert site["bindings"] == {"default": "Constraint.empty()", "mapping": "self._constraints"}
    assert site["coverage"] == 1.0
    assert site["scope_removed"] is True
    assert site["residual"] == []
    # _eligible_for_upgrade now finds ``name[extras]`` identifiers: not pure.
    assert a.model.summary.verdict == "refactor-with-behavior-change"
    # The subject's claim ("Extract identifier cleanup ...") is answered "extracted, but not
    # equivalent", never "proven equivalent".
    assert [(c["id"], c["status"]) for c in a.model.claims] == [("extracted", "contradicted")]
    assert "PipProvider.find_matches.<locals>._eligible_for_upgrade" in {
        f.symbol for f in a.findings if f.kind == "behavior.changed"
    }


def test_a_new_function_like_a_method_that_stays_is_not_extracted(tmp_path: Path):
    # The same commit, but find_matches keeps calling the method it keeps: the new function
    # resembles it, and only _eligible_for_upgrade (which lost no such code) calls it.
    method = _kept(_PIP_ID, _PROVIDER, "    def _get_constraint(", "    def find_matches(")
    a = _replayed(
        tmp_path,
        _PIP_ID,
        {
            _PROVIDER: lambda text: _edit(
                "    def find_matches(", method + "    def find_matches("
            )(
                _edit(
                    "        constraint = _get_with_identifier(\n"
                    "            self._constraints,\n"
                    "            identifier,\n"
                    "            default=Constraint.empty(),\n"
                    "        )\n",
                    "        constraint = self._get_constraint(identifier)\n",
                )(text)
            )
        },
    )
    assert _extracted(a, "_get_with_identifier") is None


def test_a_method_replaced_by_an_edited_one_in_its_place_is_a_rename_not_an_extraction(
    tmp_path: Path,
):
    # The same commit with the function written as a method of PipProvider in place of
    # _get_constraint: an edited rename (symbols' business), not an extraction.
    def as_method(text: str) -> str:
        start = text.index("def _get_with_identifier(")
        end = text.index("class PipProvider(")
        func = text[start:end].rstrip() + "\n\n"
        method = "    @staticmethod\n" + "".join(
            f"    {line}" if line.strip() else line for line in func.splitlines(True)
        )
        text = text[:start] + text[end:]
        text = text.replace("_get_with_identifier(", "self._get_with_identifier(")
        return text.replace("    def find_matches(", method + "    def find_matches(")

    a = _replayed(tmp_path, _PIP_ID, {_PROVIDER: as_method})
    assert _extracted(a, "PipProvider._get_with_identifier") is None


# -- attrs 1499c77e: boilerplate reached through another new helper ------------------------


def test_compile_and_eval_reached_through_make_method_is_extracted():
    a = corpus_analysis(_ATTRS)
    fd = _extracted(a, "_compile_and_eval")
    assert fd is not None
    _unproven(fd)
    sites = {s["scope"]: s for s in fd.details["sites"]}
    assert set(sites) == {"_make_hash", "_make_eq", "_make_init"}
    for s in sites.values():
        assert s["via"] == ["_make_method"]
        assert s["bindings"] == {"filename": "unique_filename"}
        assert len(s["line_map"]) == 2
    # _make_method itself is the expansion's (its callers expanded differ: not proven).
    assert _extracted(a, "_make_method") is not None


def test_functions_that_no_longer_reach_the_helper_are_no_sites(tmp_path: Path):
    # The same commit with _make_method compiling inline: _make_hash, _make_eq and _make_init
    # lost the helper's code but no longer reach the helper. What is left is the one caller
    # that calls it where its own compile/eval was (_make_attr_tuple_class), found by expanding
    # the call: that finding's, with no site for the three.
    a = _replayed(
        tmp_path,
        _ATTRS,
        {
            _MAKE: _edit(
                "    _compile_and_eval(script, globs, locs, filename)\n",
                '    eval(compile(script, filename, "exec"), globs, locs)\n',
            )
        },
    )
    fd = _extracted(a, "_compile_and_eval")
    assert fd is not None
    assert [s["scope"] for s in fd.details["sites"]] == ["_make_attr_tuple_class"]
    assert "method" not in fd.details


# -- pip c6906f1a: overrides pulled up into the base method they inherit -------------------


def test_overrides_pulled_up_into_the_base_method_are_extracted():
    a = corpus_analysis(_PIP_VCS)
    fd = _extracted(a, "VersionControl.get_subdirectory")
    assert fd is not None
    _unproven(fd)
    assert fd.details["method"] == "pulled-up"
    assert fd.details["home_kind"] == "method"
    assert fd.line == 240  # the ``def`` line, below ``@classmethod``
    # What every other subclass ran before (Bazaar, Subversion): now the pulled-up body.
    assert fd.details["home_before"] == ["return None"]
    sites = {s["scope"]: s for s in fd.details["sites"]}
    assert set(sites) == {"Git.get_subdirectory", "Mercurial.get_subdirectory"}
    assert sites["Git.get_subdirectory"]["callers"] == ["Git"]
    assert all(s["scope_removed"] for s in sites.values())
    git = sites["Git.get_subdirectory"]["residual"]
    assert git[0].startswith("-git_dir = cls.run_command(['rev-parse', '--git-dir']")
    assert "+root_dir = cls.get_repo_root_dir(location)" in git
    assert a.model.summary.verdict != "pure-refactor"


def test_a_base_method_growing_code_its_subclasses_keep_is_not_a_pull_up(tmp_path: Path):
    # The same commit, but Git keeps its override and Mercurial no longer derives from
    # VersionControl: neither class runs the base method's new body in place of its own.
    override = _kept(
        _PIP_VCS,
        _GIT,
        "    @classmethod\n    def get_subdirectory(",
        "    @classmethod\n    def get_url_rev_and_auth(",
    )
    a = _replayed(
        tmp_path,
        _PIP_VCS,
        {
            _GIT: _edit(
                "    @classmethod\n    def get_url_rev_and_auth(",
                override + "    @classmethod\n    def get_url_rev_and_auth(",
            ),
            _HG: _edit("class Mercurial(VersionControl):", "class Mercurial(object):"),
        },
    )
    assert _extracted(a, "VersionControl.get_subdirectory") is None


def test_the_report_says_what_only_the_old_code_or_only_the_helper_does():
    from prreport.render.markdown import render_markdown
    from tests.corpus_texts import corpus_analysis

    # uvicorn 587a1ccc: the warnings moved into _unsupported_upgrade_warning lost their
    # ``config.ws == 'auto'`` guard and gained a ``_should_upgrade_to_ws()`` test.
    md = render_markdown(corpus_analysis("uvicorn-587a1ccc").model, "en")
    assert (
        "`H11Protocol._should_upgrade_to_ws` did something else (only the old code ran"
        " `if self.config.ws == 'auto':`, only the new one runs"
        " `if not self._should_upgrade_to_ws():`)"
    ) in md
    assert "extracts the shared" not in md.lower()


def test_a_method_pulled_up_into_an_existing_base_method_is_not_called_new():
    from prreport.render.markdown import render_markdown
    from tests.corpus_texts import corpus_analysis

    # pip c6906f1a: Git's and Mercurial's get_subdirectory went into VersionControl's, which
    # existed before (it raised NotImplementedError).
    md = render_markdown(corpus_analysis("pip-c6906f1a").model, "en")
    assert (
        "pulls the code of `Git.get_subdirectory` and `Mercurial.get_subdirectory` up into the"
        " existing method `VersionControl.get_subdirectory`"
    ) in md
    assert "The new method `VersionControl.get_subdirectory`" not in md
