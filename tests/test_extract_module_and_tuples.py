"""Extraction shapes from real commits: import-time module code moved into a function called once
at import (requests 21f60fe8), and a helper returning a tuple the caller unpacks. Each with
look-alikes that must not be proven."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from prreport.findings import Finding
from prreport.pipeline import Analysis
from tests.corpus_texts import corpus_analysis
from tests.corpus_texts import corpus_text as _text
from tests.gitrepo import analyse_commit

_UA = "requests-21f60fe8"
_DEFAULTS, _UTILS = "requests/defaults.py", "requests/utils.py"


def _extracted(a: Analysis) -> Finding:
    found = [f for f in a.findings if f.kind == "code.extracted"]
    assert len(found) == 1, [(f.kind, f.symbol) for f in a.findings]
    return found[0]


def _user_agent_commit(
    tmp_path: Path, defaults: str | None = None, utils: str | None = None
) -> Analysis:
    """requests 21f60fe8 replayed, with the after side of either module replaced."""
    base = {_DEFAULTS: _text(_UA, _DEFAULTS, "before"), _UTILS: _text(_UA, _UTILS, "before")}
    change = {
        _DEFAULTS: defaults if defaults is not None else _text(_UA, _DEFAULTS),
        _UTILS: utils if utils is not None else _text(_UA, _UTILS),
    }
    return analyse_commit(
        tmp_path, {"requests/__init__.py": "__version__ = '0.8.2'\n", **base}, change
    )


# -- import-time code extracted into a function called once at import -----------------------


def test_import_time_code_moved_into_a_function_called_at_import_is_extracted():
    # requests 21f60fe8: the User-Agent computation of defaults.py (module globals
    # _implementation, _implementation_version) became utils.default_user_agent(), called
    # inside the base_headers dict literal; ``platform``, ``sys``, ``__version__`` moved along.
    a = corpus_analysis(_UA)
    fd = _extracted(a)
    assert fd.symbol == "default_user_agent"
    assert fd.details["proven"] is True
    assert fd.details["sites"][0]["scope"] == "<module>"
    assert fd.details["sites"][0]["path"] == _DEFAULTS
    assert fd.details["dropped_module_globals"] == ["_implementation", "_implementation_version"]
    # The removed computation and the new call line are explained.
    assert (_DEFAULTS, "-", 37) in fd.explains and (_DEFAULTS, "+", 34) in fd.explains
    assert a.model.summary.verdict == "pure-refactor"


def test_extracted_import_time_code_that_changed_is_not_proven(tmp_path: Path):
    utils = _text(_UA, _UTILS).replace(
        "_implementation_version = 'Unknown'", "_implementation_version = ''"
    )
    assert utils != _text(_UA, _UTILS)
    a = _user_agent_commit(tmp_path, utils=utils)
    fd = _extracted(a)
    assert fd.details["proven"] is False
    assert any("Unknown" in line for line in fd.details["sites"][0]["residual"])
    assert a.model.summary.verdict != "pure-refactor"


def _reads_former_global() -> dict[str, str]:
    # defaults.py keeps a line reading _implementation, which the extraction made a local of
    # the helper: at import it would now raise NameError.
    return {"defaults": _text(_UA, _DEFAULTS) + "\nIMPLEMENTATION = _implementation\n"}


def _reads_own_global() -> dict[str, str]:
    # The helper reads ``UNKNOWN`` from utils' own globals: spliced into defaults.py it would
    # read another module's namespace.
    utils = _text(_UA, _UTILS).replace(
        "_implementation_version = 'Unknown'", "_implementation_version = UNKNOWN"
    )
    return {"utils": utils.replace("import zlib\n", "import zlib\n\nUNKNOWN = 'Unknown'\n", 1)}


@pytest.mark.parametrize(
    ("sides", "reason"),
    [(_reads_former_global, "_implementation"), (_reads_own_global, "UNKNOWN")],
    ids=["module-reads-former-global", "helper-reads-own-global"],
)
def test_extraction_whose_names_mean_other_objects_is_not_proven(
    tmp_path: Path, sides: Callable[[], dict[str, str]], reason: str
):
    a = _user_agent_commit(tmp_path, **sides())
    fd = _extracted(a)
    assert fd.details["proven"] is False
    assert reason in fd.details["sites"][0]["reason"]
    assert a.model.summary.verdict != "pure-refactor"


def test_a_call_after_other_calls_in_its_statement_is_not_spliced(tmp_path: Path):
    # The Accept-Encoding join runs before the User-Agent value in the dict literal, on both
    # sides: after the change it also runs before the helper's statements, which ran first
    # before it. Whether the two interact is not provable here: not proven.
    enc = "    'Accept-Encoding': ', '.join(('identity', 'deflate', 'compress', 'gzip')),\n"
    head = "defaults['base_headers'] = {\n"
    before = _text(_UA, _DEFAULTS, "before")
    after = _text(_UA, _DEFAULTS)
    assert enc in before and enc in after
    before = before.replace(enc, "").replace(head, head + enc)
    after = after.replace(enc, "").replace(head, head + enc)
    base = {_DEFAULTS: before, _UTILS: _text(_UA, _UTILS, "before")}
    a = analyse_commit(
        tmp_path,
        {"requests/__init__.py": "__version__ = '0.8.2'\n", **base},
        {_DEFAULTS: after, _UTILS: _text(_UA, _UTILS)},
    )
    fd = _extracted(a)
    assert fd.details["proven"] is False
    assert "before the call" in fd.details["sites"][0]["reason"]
    assert a.model.summary.verdict != "pure-refactor"


def _helper_in_defaults(where: str) -> str:
    """defaults.py after the change, with default_user_agent defined in it (``where``: before
    or after the base_headers dict that calls it) instead of imported from utils."""
    utils = _text(_UA, _UTILS)
    helper = utils[utils.index("def default_user_agent():") :]
    defaults = _text(_UA, _DEFAULTS).replace("from .utils import default_user_agent\n", "")
    defaults = defaults.replace(
        "\ndefaults = dict()\n",
        "\nimport platform\nimport sys\n\nfrom . import __version__\n\ndefaults = dict()\n",
    )
    if where == "after":
        return defaults + "\n\n" + helper
    head = "defaults['base_headers'] = {"
    return defaults.replace(head, helper + "\n\n" + head)


def test_import_time_code_extracted_into_a_function_of_the_same_module(tmp_path: Path):
    a = _user_agent_commit(
        tmp_path, defaults=_helper_in_defaults("before"), utils=_text(_UA, _UTILS, "before")
    )
    fd = _extracted(a)
    assert fd.details["proven"] is True and fd.path == _DEFAULTS
    assert a.model.summary.verdict == "pure-refactor"


def test_a_helper_defined_below_its_import_time_call_is_not_proven(tmp_path: Path):
    # Called while the module runs, before its ``def`` ran: NameError at import.
    a = _user_agent_commit(
        tmp_path, defaults=_helper_in_defaults("after"), utils=_text(_UA, _UTILS, "before")
    )
    fd = _extracted(a)
    assert fd.details["proven"] is False
    assert "not bound once before its call" in fd.details["sites"][0]["reason"]
    assert a.model.summary.verdict != "pure-refactor"


# -- a helper returning a tuple the caller unpacks ------------------------------------------

_PIP = "src/pip/_internal/req/constructors.py"
_STRIP_BODY = """\
{i}m = re.match(r"^(.+)(\\[[^\\]]+\\])$", {arg})
{i}{extras} = None
{i}if m:
{i}    {path} = m.group(1).rstrip()
{i}    {extras} = m.group(2)
{i}else:
{i}    {path} = {arg}
"""


def _strip_extras_inlined(text: str) -> str:
    """pip's constructors.py (before 2297a4be) as it would read without ``_strip_extras``: its
    body written out at both call sites, under the names each caller unpacked the tuple into."""
    start = text.index("def _strip_extras(path: str)")
    end = text.index("def convert_extras(")
    out = text[:start] + text[end:]
    for call, indent, path, extras, arg in (
        (
            "    url_no_extras, extras = _strip_extras(url)\n",
            "    ",
            "url_no_extras",
            "extras",
            "url",
        ),
        (
            "        p, extras_as_string = _strip_extras(path)\n",
            "        ",
            "p",
            "extras_as_string",
            "path",
        ),
    ):
        assert call in out
        body = _STRIP_BODY.format(i=indent, path=path, extras=extras, arg=arg)
        out = out.replace(call, body)
    return out


def test_helper_returning_a_tuple_the_callers_unpack_is_proven(tmp_path: Path):
    after = _text("pip-2297a4be", _PIP, "before")
    before = _strip_extras_inlined(after)
    a = analyse_commit(tmp_path, {_PIP: before}, {_PIP: after})
    fd = _extracted(a)
    assert fd.symbol == "_strip_extras"
    assert fd.details["proven"] is True
    assert {s["scope"] for s in fd.details["sites"]} == {
        "_parse_pip_syntax_editable",
        "parse_req_from_line",
    }
    assert a.model.summary.verdict == "pure-refactor"


def test_tuple_unpacked_in_swapped_order_is_not_proven(tmp_path: Path):
    # The caller unpacks the tuple the other way round: extras and path trade places.
    after = _text("pip-2297a4be", _PIP, "before")
    before = _strip_extras_inlined(after)
    after = after.replace(
        "url_no_extras, extras = _strip_extras(url)", "extras, url_no_extras = _strip_extras(url)"
    )
    a = analyse_commit(tmp_path, {_PIP: before}, {_PIP: after})
    fd = _extracted(a)
    assert fd.details["proven"] is False
    assert a.model.summary.verdict != "pure-refactor"


def test_tuple_extraction_inside_a_try_of_the_caller_is_not_proven(tmp_path: Path):
    # Inside ``try``, an exception half-way through the helper leaves the caller's names as
    # they were, while the inlined code had already assigned some: not the same.
    after = _text("pip-2297a4be", _PIP, "before")
    call = "    url_no_extras, extras = _strip_extras(url)\n"
    guarded = "    try:\n    " + call + "    except re.error:\n        raise\n"
    after = after.replace(call, guarded)
    before = _strip_extras_inlined(after.replace(guarded, call))
    body = before[before.index("    m = re.match(") :]
    body = body[
        : body.index("        url_no_extras = url\n") + len("        url_no_extras = url\n")
    ]
    indented = "".join("    " + line if line.strip() else line for line in body.splitlines(True))
    before = before.replace(
        body, "    try:\n" + indented + "    except re.error:\n        raise\n", 1
    )
    a = analyse_commit(tmp_path, {_PIP: before}, {_PIP: after})
    fd = _extracted(a)
    scopes = {s["scope"]: s for s in fd.details["sites"]}
    assert scopes["_parse_pip_syntax_editable"]["proven"] is False
    assert a.model.summary.verdict != "pure-refactor"
