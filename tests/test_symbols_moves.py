"""Moved and renamed definitions on real code (issue #15 shape 5, #12 recall): renames whose body
changed too, constants moved between modules, renamed modules, moved-and-renamed definitions, a
function become a static method, class renames, definitions reordered in one file.

Each case is a real commit of the corpus (tests/corpus/bundles) or a real module of it with the
shape applied, and most have a look-alike that must not be reported (or not as proven).
"""

from __future__ import annotations

import re
from pathlib import Path

from prreport.findings import Finding
from prreport.pipeline import Analysis
from tests.corpus_texts import corpus_analysis as _corpus
from tests.corpus_texts import corpus_text as _text
from tests.corpus_texts import live_changes as _live_changes
from tests.gitrepo import analyse_commit


def _kind(a: Analysis, kind: str) -> list[Finding]:
    return [f for f in a.findings if f.kind == kind]


def _named(a: Analysis, kind: str, symbol: str) -> Finding:
    found = [f for f in _kind(a, kind) if f.symbol == symbol]
    assert len(found) == 1, [(f.kind, f.symbol) for f in a.findings if f.kind.startswith("sym")]
    return found[0]


# -- renamed, and the body changed too ------------------------------------------------------


def test_renamed_in_place_with_a_changed_body_is_a_rename_that_changed():
    # pip 2297a4be: ``_strip_extras`` became ``strip_extras`` where it stood (same neighbours,
    # same parameter) and now also converts the extras; ``convert_extras`` became private.
    a = _corpus("pip-2297a4be")
    fd = _named(a, "symbol.renamed", "strip_extras")
    assert fd.details["old_qualname"] == "_strip_extras"
    assert fd.details["equality"] == "different"
    assert fd.details["behavior_change"] is True
    assert any("_convert_extras(extras)" in line for line in fd.details["residual"])
    assert _named(a, "symbol.renamed", "_convert_extras").details["equality"] == "byte-identical"
    assert not _kind(a, "code.dead-removed")
    assert a.model.summary.verdict != "pure-refactor"


def test_a_new_function_elsewhere_with_callers_rewritten_is_no_rename(tmp_path: Path):
    # The same module: ``_strip_extras`` deleted, an unrelated ``split_url`` added at the end of
    # the file, and its callers rewritten beyond the name: neither the place nor the callers say
    # the new function is the old one.
    path = "src/pip/_internal/req/constructors.py"
    before = _text("pip-2297a4be", path, "before")
    start = before.index("def _strip_extras(path: str)")
    end = before.index("def convert_extras(")
    after = before[:start] + before[end:]
    after = after.replace("= _strip_extras(url)", "= split_url(url), None").replace(
        "= _strip_extras(path)", "= split_url(path), None"
    )
    after += '\n\ndef split_url(path: str) -> str:\n    return path.partition("#")[0]\n'
    assert "_strip_extras" not in after
    a = analyse_commit(tmp_path, {path: before}, {path: after})
    assert not _kind(a, "symbol.renamed") and not _kind(a, "symbol.moved")
    assert a.model.summary.verdict != "pure-refactor"


def test_an_unreferenced_function_renamed_in_place_and_changed_is_not_dead(tmp_path: Path):
    # requests' utils.py: ``get_encodings_from_content`` (nothing in the repository calls it)
    # renamed where it stands and its warning dropped: a rename that changed, not dead code.
    path = "requests/utils.py"
    before = _text("requests-1988d9cf", path, "before")
    start = before.index("    warnings.warn((\n        'In requests 3.0, get_encodings")
    end = before.index("    charset_re = re.compile(", start)
    after = before[:start] + before[end:]
    after = after.replace("def get_encodings_from_content(", "def find_meta_encodings(")
    a = analyse_commit(tmp_path, {path: before}, {path: after})
    fd = _named(a, "symbol.renamed", "find_meta_encodings")
    assert fd.details["old_qualname"] == "get_encodings_from_content"
    assert fd.details["equality"] == "different"
    assert not _kind(a, "code.dead-removed")
    assert a.model.summary.verdict != "pure-refactor"


def test_nested_helper_hoisted_renamed_and_rewritten_is_found_by_its_caller():
    # requests 1988d9cf: ``get_encoding_from_headers.<locals>.parse_header`` became the
    # module-level ``_parse_content_type_header``; the caller changed only by that name.
    a = _corpus("requests-1988d9cf")
    fd = _named(a, "symbol.renamed", "_parse_content_type_header")
    assert fd.details["old_qualname"] == "get_encoding_from_headers.<locals>.parse_header"
    assert fd.details["equality"] == "different"
    # Out of a function is not into another module or class: no symbol.moved.
    assert not _kind(a, "symbol.moved")
    assert a.model.summary.verdict != "pure-refactor"


def test_a_new_function_whose_caller_changed_otherwise_is_not_the_old_one(tmp_path: Path):
    # The same commit, but the caller also stopped returning early: the caller alone does not
    # prove the new function replaces the nested one.
    case = "requests-1988d9cf"
    before = _text(case, "requests/utils.py", "before")
    after = _text(case, "requests/utils.py").replace(
        "    if not content_type:\n        return None\n\n    content_type, params = _parse",
        "    content_type, params = _parse",
    )
    assert after != _text(case, "requests/utils.py")
    a = analyse_commit(tmp_path, {"requests/utils.py": before}, {"requests/utils.py": after})
    assert not _kind(a, "symbol.renamed")


# -- constants moved between modules -------------------------------------------------------


def test_module_constants_moved_to_another_module():
    # pydantic 96876ef7: ValidateCallSupportedTypes and VALIDATE_CALL_SUPPORTED_TYPES moved from
    # _validate_call to _generate_schema; ``functools.partial`` is spelled ``partial`` there.
    a = _corpus("pydantic-96876ef7")
    types = _named(a, "symbol.moved", "ValidateCallSupportedTypes")
    assert types.details["old_path"] == "pydantic/_internal/_validate_call.py"
    assert types.details["new_path"] == "pydantic/_internal/_generate_schema.py"
    assert types.details["equality"] == "modulo-renames"
    assert types.details["definition_kind"] == "constant"
    assert types.details["globals_rebound"] == []
    # Same text, but ``get_args`` was typing's and is typing_extensions' in the new module.
    values = _named(a, "symbol.moved", "VALIDATE_CALL_SUPPORTED_TYPES")
    assert values.details["equality"] == "byte-identical"
    assert values.details["globals_rebound"] == ["get_args"]
    assert values.details["behavior_change"] is True and not values.explains
    # The moved lines are explained on both sides.
    assert ("pydantic/_internal/_validate_call.py", "-", 22) in types.explains
    assert not _kind(a, "code.dead-removed")


def test_a_constant_of_the_same_name_with_another_value_is_no_move(tmp_path: Path):
    case = "pydantic-96876ef7"
    paths = ("pydantic/_internal/_generate_schema.py", "pydantic/_internal/_validate_call.py")
    base = {p: _text(case, p, "before") for p in paths}
    change = {p: _text(case, p) for p in paths}
    # The new module's union lacks ``partial``: another value under the same name.
    change[paths[0]] = change[paths[0]].replace(
        "    BuiltinMethodType,\n    partial,\n", "    BuiltinMethodType,\n"
    )
    assert change[paths[0]] != _text(case, paths[0])
    a = analyse_commit(tmp_path, base, change)
    assert [f.symbol for f in _kind(a, "symbol.moved")] == ["VALIDATE_CALL_SUPPORTED_TYPES"]


def test_a_constant_moved_above_what_its_value_reads_is_not_explained(tmp_path: Path):
    # In the new module, VALIDATE_CALL_SUPPORTED_TYPES = get_args(ValidateCallSupportedTypes)
    # placed above ValidateCallSupportedTypes: importing the module raises NameError.
    case = "pydantic-96876ef7"
    paths = ("pydantic/_internal/_generate_schema.py", "pydantic/_internal/_validate_call.py")
    base = {p: _text(case, p, "before") for p in paths}
    change = {p: _text(case, p) for p in paths}
    values = "VALIDATE_CALL_SUPPORTED_TYPES = get_args(ValidateCallSupportedTypes)\n\n"
    comment = "# Note: This does not play very well with type checkers."
    assert values in change[paths[0]] and comment in change[paths[0]]
    change[paths[0]] = change[paths[0]].replace(values, "").replace(comment, values + comment)
    a = analyse_commit(tmp_path, base, change)
    fd = _named(a, "symbol.moved", "VALIDATE_CALL_SUPPORTED_TYPES")
    assert fd.details["unbound_at_import"] == ["ValidateCallSupportedTypes"]
    assert fd.details["behavior_change"] is True and not fd.explains
    assert (
        _named(a, "symbol.moved", "ValidateCallSupportedTypes").details["unbound_at_import"] == []
    )
    assert a.model.summary.verdict != "pure-refactor"


def test_a_logger_in_two_modules_is_two_loggers(tmp_path: Path):
    # ``logger = logging.getLogger(__name__)`` removed from one module and added to another
    # names another logger: no move.
    case = "pip-a5718f51"
    old, new = "src/pip/_internal/build_env.py", "src/pip/_internal/utils/misc.py"
    before_old, before_new = _text(case, old, "before"), _text(case, new, "before")
    assert "logger = logging.getLogger(__name__)" in before_old
    assert "logger = logging.getLogger(__name__)" in before_new
    after_old = before_old.replace("logger = logging.getLogger(__name__)\n", "", 1)
    after_new = before_new.replace("logger = logging.getLogger(__name__)\n", "log = 1\n", 1)
    after_new += "\n\nlogger = logging.getLogger(__name__)\n"
    a = analyse_commit(
        tmp_path, {old: before_old, new: before_new}, {old: after_old, new: after_new}
    )
    assert not [f for f in _kind(a, "symbol.moved") if f.symbol == "logger"]


def test_a_function_moved_where_a_global_it_reads_means_another_object(tmp_path: Path):
    # attrs 3aa497d0 moved resolve_types from _make.py to _funcs.py, which imports _obj_setattr
    # and fields from _make: the same objects. Replayed with _funcs.py defining its own
    # _obj_setattr instead, the moved body now calls another function.
    case = "attrs-3aa497d0"
    paths = ("src/attr/_make.py", "src/attr/_funcs.py", "src/attr/__init__.py")
    base = {p: _text(case, p, "before") for p in paths}
    change = {p: _text(case, p) for p in paths}
    a = analyse_commit(tmp_path, base, change)
    assert _named(a, "symbol.moved", "resolve_types").details["globals_rebound"] == []
    funcs = change[paths[1]].replace(
        "from ._make import NOTHING, _obj_setattr, fields\n",
        "from ._make import NOTHING, fields\n\n_obj_setattr = setattr\n",
    )
    assert funcs != change[paths[1]]
    a = analyse_commit(tmp_path / "shadowed", base, {**change, paths[1]: funcs})
    fd = _named(a, "symbol.moved", "resolve_types")
    assert fd.details["globals_rebound"] == ["_obj_setattr"]
    assert fd.details["behavior_change"] is True and not fd.explains
    assert a.model.summary.verdict != "pure-refactor"


# -- moved and renamed at once; renamed modules ---------------------------------------------


def test_function_moved_into_a_class_and_renamed_is_both():
    # poetry 0caf55f9: utils/source.py:source_to_table(source) -> config/source.py:
    # Source.to_toml_table(self), the module deleted, both callers updated.
    a = _corpus("poetry-0caf55f9")
    moved = _named(a, "symbol.moved", "Source.to_toml_table")
    renamed = _named(a, "symbol.renamed", "Source.to_toml_table")
    for fd in (moved, renamed):
        assert fd.details["old_qualname"] == "source_to_table"
        assert fd.details["equality"] == "modulo-renames"
        assert fd.details["call_sites_updated"] is True
    assert a.model.summary.verdict == "pure-refactor"


def test_renamed_module_moves_its_definitions():
    # pydantic 2b861ba2: _internal/_dataclass.py renamed _internal/_internal_dataclass.py, its
    # ``dataclass`` renamed ``slots_dataclass``; ``dataclass_kwargs`` kept its name.
    a = _corpus("pydantic-2b861ba2")
    kwargs = _named(a, "symbol.moved", "dataclass_kwargs")
    assert kwargs.details["old_module"] == "pydantic._internal._dataclass"
    assert kwargs.details["new_module"] == "pydantic._internal._internal_dataclass"
    assert kwargs.details["equality"] == "byte-identical"
    assert _named(a, "symbol.moved", "slots_dataclass").details["old_qualname"] == "dataclass"
    assert _named(a, "symbol.renamed", "slots_dataclass").details["equality"] == "byte-identical"


def test_renamed_module_with_every_importer_updated_is_pure(tmp_path: Path):
    # pydantic 2b861ba2 left one ``@dataclass`` in _decorators.py (line 120) unbound; with that
    # use updated too, the rename of module and decorator is fully explained, the relative
    # ``from ._dataclass import dataclass`` -> ``from ._internal_dataclass import
    # slots_dataclass`` included.
    case = "pydantic-2b861ba2"
    deco, old, new = (
        "pydantic/_internal/_decorators.py",
        "pydantic/_internal/_dataclass.py",
        "pydantic/_internal/_internal_dataclass.py",
    )
    after = _text(case, deco)
    assert after.count("\n@dataclass\n") == 1
    base = {deco: _text(case, deco, "before"), old: _text(case, new, "before")}
    base |= {"pydantic/__init__.py": "", "pydantic/_internal/__init__.py": ""}
    change = {deco: after.replace("\n@dataclass\n", "\n@slots_dataclass\n"), old: None}
    change[new] = _text(case, new)
    a = analyse_commit(tmp_path, base, change)
    fd = _named(a, "symbol.renamed", "slots_dataclass")
    assert fd.details["call_sites_updated"] is True
    assert (deco, "+", 41) in fd.explains and (deco, "-", 41) in fd.explains
    assert not [f for f in a.findings if f.kind == "names.unresolved"]
    assert a.model.summary.verdict == "pure-refactor"


def test_a_docstring_still_showing_the_old_name_as_a_call_is_a_stale_reference():
    # rich 76e234b7 renamed Progress.default_columns with no alias, and the new docstring shows
    # ``*Progress.default_columns(),``: a use spelled in prose is still a use.
    a = _corpus("rich-76e234b7")
    fd = _named(a, "symbol.renamed", "Progress.get_default_columns")
    assert fd.details["stale_references"] == ["rich/progress.py:626"]
    assert fd.details["call_sites_updated"] is False
    assert a.model.summary.verdict != "pure-refactor"


def test_a_renamed_test_module_moves_no_symbols():
    # poetry 0caf55f9 also renamed tests/utils/test_source.py: tests are no importable symbols.
    a = _corpus("poetry-0caf55f9")
    assert not [f for f in a.findings if f.kind.startswith("symbol.") and "tests/" in f.path]


# -- a function become a static method -----------------------------------------------------

_MODELS = "requests/models.py"


def _encode_params_as_function(models: str) -> str:
    """requests' models.py with ``RequestEncodingMixin._encode_params`` a module function."""
    start = models.index("    @staticmethod\n    def _encode_params(data):")
    end = models.index("    @staticmethod\n    def _encode_files(")
    method = models[start:end]
    function = re.sub(r"(?m)^    ", "", method.replace("    @staticmethod\n", "", 1))
    out = models[:start] + models[end:]
    cls = out.index("class RequestEncodingMixin(object):")
    out = out[:cls] + function.rstrip() + "\n\n\n" + out[cls:]
    return out.replace("self._encode_params(", "_encode_params(")


def test_function_moved_into_a_class_as_a_staticmethod(tmp_path: Path):
    after = _text("requests-327512f5", _MODELS)
    before = _encode_params_as_function(after)
    assert before.count("_encode_params(") == 3 and "def _encode_params" in before
    a = analyse_commit(tmp_path, {_MODELS: before}, {_MODELS: after})
    fd = _named(a, "symbol.moved", "RequestEncodingMixin._encode_params")
    assert fd.details["old_qualname"] == "_encode_params"
    assert fd.details["equality"] == "modulo-renames"
    assert not _kind(a, "symbol.renamed") and not _kind(a, "code.dead-removed")
    # ``self._encode_params(...)`` in PreparedRequest (a subclass) reaches the static method.
    assert _live_changes(a) == []
    assert a.model.summary.verdict == "pure-refactor"


def test_a_staticmethod_shadowed_in_the_subclass_is_not_the_old_function(tmp_path: Path):
    # PreparedRequest has had its own ``_encode_params`` all along: after the change,
    # ``self._encode_params(...)`` in it reaches that one, not the moved function.
    shadow = "    def _encode_params(self, data):\n        return data\n\n"
    head = "class PreparedRequest(RequestEncodingMixin, RequestHooksMixin):\n"
    after = _text("requests-327512f5", _MODELS).replace(head, head + shadow)
    before = _encode_params_as_function(after)
    a = analyse_commit(tmp_path, {_MODELS: before}, {_MODELS: after})
    assert _named(a, "symbol.moved", "RequestEncodingMixin._encode_params")
    assert {"PreparedRequest.prepare_url", "PreparedRequest.prepare_body"} <= set(_live_changes(a))
    assert a.model.summary.verdict != "pure-refactor"


# -- a class renamed -----------------------------------------------------------------------

_PROGRESS = "rich/progress.py"


def test_class_renamed_is_one_rename_its_methods_follow(tmp_path: Path):
    # rich's progress.py with ``_TrackThread`` renamed (its ``-> "_TrackThread"`` annotation and
    # its one use in Progress.track follow).
    before = _text("rich-76e234b7", _PROGRESS)
    after = before.replace("_TrackThread", "_TaskUpdateThread")
    assert after.count("_TaskUpdateThread") == 3
    a = analyse_commit(tmp_path, {_PROGRESS: before}, {_PROGRESS: after})
    fd = _named(a, "symbol.renamed", "_TaskUpdateThread")
    assert fd.details["old_qualname"] == "_TrackThread"
    assert fd.details["equality"] == "modulo-renames"
    assert fd.details["call_sites_updated"] is True
    assert [f.symbol for f in a.findings if f.kind.startswith("symbol.")] == ["_TaskUpdateThread"]
    assert not _kind(a, "code.dead-removed")
    assert _live_changes(a) == []
    assert a.model.summary.verdict == "pure-refactor"


def test_class_renamed_with_a_changed_method_is_a_rename_that_changed(tmp_path: Path):
    before = _text("rich-76e234b7", _PROGRESS)
    after = before.replace("_TrackThread", "_TaskUpdateThread").replace(
        "        self.done.set()\n", "        self.done.clear()\n", 1
    )
    assert "self.done.clear()" in after
    a = analyse_commit(tmp_path, {_PROGRESS: before}, {_PROGRESS: after})
    fd = _named(a, "symbol.renamed", "_TaskUpdateThread")
    assert fd.details["equality"] == "different"
    assert fd.details["behavior_change"] is True
    assert not [f for f in a.findings if f.kind == "symbol.moved"]
    assert not _kind(a, "code.dead-removed")
    assert a.model.summary.verdict != "pure-refactor"


# -- definitions reordered in one file -----------------------------------------------------


def _swap(text: str, first: str, second: str) -> str:
    """``text`` with the top-level blocks starting at ``first`` and ``second`` swapped (the first
    block ends where the second starts; the second ends at the next top-level class)."""
    i, j = text.index(first), text.index(second)
    k = text.index("\nclass ", j + 1) + 1
    return text[:i] + text[j:k] + text[i:j] + text[k:]


def test_classes_reordered_in_one_file_are_explained(tmp_path: Path):
    before = _text("rich-76e234b7", _PROGRESS)
    after = _swap(before, "class TimeElapsedColumn(", "class TimeRemainingColumn(")
    assert after != before and sorted(after) == sorted(before)
    a = analyse_commit(tmp_path, {_PROGRESS: before}, {_PROGRESS: after})
    # Reordered is no move to another file or class: unchanged, its lines explained.
    assert not _kind(a, "symbol.moved")
    moved = [f for f in _kind(a, "behavior.unchanged") if f.details.get("reordered")]
    assert moved and {f.symbol for f in moved} <= {"TimeElapsedColumn", "TimeRemainingColumn"}
    assert a.model.summary.verdict == "pure-refactor"


def test_a_base_class_moved_below_its_subclass_is_not_explained(tmp_path: Path):
    # ProgressColumn is a base of the columns after it: below them, ``class SpinnerColumn(
    # ProgressColumn)`` would run before ProgressColumn exists.
    before = _text("rich-76e234b7", _PROGRESS)
    after = _swap(before, "class ProgressColumn(", "class RenderableColumn(")
    a = analyse_commit(tmp_path, {_PROGRESS: before}, {_PROGRESS: after})
    assert "ProgressColumn" not in {f.symbol for f in _kind(a, "behavior.unchanged")}
    assert a.model.summary.verdict != "pure-refactor"
