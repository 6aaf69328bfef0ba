"""An ``except ImportError`` fallback around a standard-library import that exists on every
Python the project supports never ran: removing it is proven harmless (issue #12, corpus case
poetry-aaf88068). Real commits: poetry aaf88068 (``collections.abc.Mapping``, Python ^3.6),
astroid fb41252e (``functools.lru_cache``, >=3.6), uvicorn 291c195c (the import merged into an
existing import line) and attrs a8e24b01 (``importlib.metadata`` while 3.7 was still supported:
the fallback did run there); variants on poetry's real module for what must stay unproven."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import mypy
import pytest

from prreport.findings import Finding
from prreport.pipeline import Analysis
from prreport.python.stdlib import available_since, import_cannot_fail
from prreport.render.markdown import render_markdown
from tests.corpus_texts import corpus_bundle
from tests.gitrepo import analyse_commit

REAL = Path(__file__).resolve().parent / "fixtures" / "real"
POETRY_PYPROJECT = (REAL / "poetry-pyproject-d4c2fe44.toml.txt").read_text(encoding="utf-8")
HELPERS = "src/poetry/utils/helpers.py"
_FALLBACK = (
    "try:\n"
    "    from collections.abc import Mapping\n"
    "except ImportError:\n"
    "    from collections import Mapping\n"
)


def _real(name: str) -> str:
    return (REAL / name).read_text(encoding="utf-8")


def _poetry() -> tuple[dict[str, str | None], dict[str, str | None]]:
    """poetry aaf88068 ("chore: remove unused compatibility code"): before and after texts."""
    b = corpus_bundle("poetry-aaf88068")
    return {f.path: f.before for f in b.files}, {f.path: f.after for f in b.files}


def _drops(a: Analysis) -> list[Finding]:
    assert not [d for d in a.diagnostics if "analyzer failed" in d.message], a.diagnostics
    return [f for f in a.findings if f.kind == "guard.dropped"]


# -- the data file -----------------------------------------------------------------------------


def test_availability_comes_from_typeshed():
    assert available_since("tomllib") == (3, 11)
    assert available_since("collections.abc") == (3, 3)
    assert available_since("importlib.metadata") == (3, 8)
    assert available_since("typing", "Literal") == (3, 8)
    assert available_since("functools", "cached_property") == (3, 8)
    assert available_since("contextlib", "asynccontextmanager") == (3, 7)
    # Bound by a try and by its fallback alike: always there.
    assert available_since("collections", "deque") is not None
    # Dated no later than the oldest Python its typeshed snapshot covered.
    since = available_since("collections.abc", "Mapping")
    assert since is not None and since <= (3, 5)


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("collections", "Mapping"),  # removed in 3.10
        ("distutils", None),  # removed in 3.12
        ("imp", None),
        ("asynchat", None),  # removed in 3.12
        ("pwd", None),  # not on Windows
        ("msvcrt", None),  # Windows only
        ("os", "fork"),  # not on Windows
        ("ssl", None),  # needs OpenSSL at build time
        ("sqlite3", None),
        ("http.client", "HTTPSConnection"),  # only when ssl imports
        ("hashlib", "scrypt"),  # only when OpenSSL has it
        ("multiprocessing.synchronize", None),  # fails without sem_open
        ("cPickle", None),  # Python 2 only
        ("typing_extensions", None),  # stubbed by typeshed, not in the standard library
        ("tarfile", "data_filter"),  # backported to bugfix releases: no version to trust
        ("collections.abc", "NoSuchName"),
    ],
)
def test_unknown_platform_specific_optional_or_removed_is_none(module: str, name: str | None):
    assert available_since(module, name) is None


def test_a_name_must_predate_the_minimum_minor_version():
    # typing gained names in bugfix releases; typeshed dates names by minor version only.
    assert import_cannot_fail("typing", "Literal", (3, 8)) == ""
    assert import_cannot_fail("typing", "Literal", (3, 9)).startswith("typing.Literal ")
    # A module exists from the first release of the version that added it.
    assert import_cannot_fail("tomllib", None, (3, 11))
    assert import_cannot_fail("tomllib", None, (3, 10)) == ""
    # ``from package import submodule``.
    assert import_cannot_fail("importlib", "metadata", (3, 8))


def test_the_data_file_ships_in_the_package():
    from importlib.resources import files

    data = json.loads(files("prreport").joinpath("data/stdlib_versions.json").read_text())
    assert set(data) == {"about", "modules", "names"}
    assert "typeshed" in data["about"]


def _generator() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "scripts" / "stdlib_versions.py"
    spec = importlib.util.spec_from_file_location("stdlib_versions", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_generator_reads_the_guards_of_real_typeshed_stubs():
    # The typeshed mypy ships (floor 3.10), read as the generator reads its newest snapshot.
    gen = _generator()
    stubs = gen._Stubs(Path(mypy.__file__).parent / "typeshed" / "stdlib", 10, ("",))
    typing = stubs.names("typing")
    assert gen._since(typing["TypeAliasType"]) == 12  # if sys.version_info >= (3, 12)
    assert gen._since(typing["Literal"]) == 10  # unguarded: only the floor is known
    assert gen._since(stubs.names("asyncio.coroutines")["coroutine"]) is None  # < (3, 11)
    assert "fork" not in stubs.names("os")  # under sys.platform
    assert gen._since(stubs.names("collections.abc")["Mapping"]) == 10  # via a star import
    assert gen._needs_optional("ssl", set()) and not gen._needs_optional("json", set())


# -- real commits ------------------------------------------------------------------------------


def test_poetry_collections_abc_fallback_is_proven_dead(tmp_path: Path):
    before, after = _poetry()
    a = analyse_commit(
        tmp_path,
        {**before, "pyproject.toml": POETRY_PYPROJECT},
        after,
        "chore: remove unused compatibility code",
    )
    [fd] = _drops(a)
    assert (fd.path, fd.symbol, fd.line) == (HELPERS, "<module>", 20)
    assert fd.details["reason"] == "import-cannot-fail"
    assert fd.details["proven"] is True and fd.details["behavior_change"] is False
    assert fd.details["proof"] == (
        "collections.abc.Mapping is in the standard library of Python 3.5 and later; "
        "the project requires Python >= 3.6"
    )
    # The removed try (lines 20-23) is explained; so are the other two files' changes.
    assert {(HELPERS, "-", n) for n in range(20, 24)} <= set(fd.explains)
    assert a.model.summary.verdict == "pure-refactor"
    assert not {"fallback-removed", "guard-dropped"} & {r["id"] for r in a.model.risks}

    en = render_markdown(a.model, "en")
    assert (
        "the `except ImportError` fallback in `<module>` is gone: the import cannot fail, so the "
        "fallback never ran (collections.abc.Mapping is in the standard library of Python 3.5 "
        "and later; the project requires Python >= 3.6)"
    ) in en
    assert "the dependency is now required" not in en
    zh = render_markdown(a.model, "zh")
    assert (
        "`except ImportError` 后备已删除：导入不会失败，后备从未运行"
        "（`collections.abc.Mapping` 自 Python 3.5 起一直在标准库中；项目要求 Python >= 3.6）"
    ) in zh
    assert "该依赖现为必需" not in zh


def test_poetry_import_moved_below_code_that_may_use_it_is_not_proven(tmp_path: Path):
    # The same commit with the import put at the end of the module: the statements between
    # the old try and the new import could read Mapping before it is bound.
    before, after = _poetry()
    helpers_after = after[HELPERS]
    assert helpers_after is not None
    import_line = "from collections.abc import Mapping\n"
    late = helpers_after.replace(import_line, "", 1) + "\n" + import_line
    a = analyse_commit(
        tmp_path,
        {**before, "pyproject.toml": POETRY_PYPROJECT},
        {**after, HELPERS: late},
        "chore: remove unused compatibility code",
    )
    assert not [fd for fd in _drops(a) if fd.details["proven"]]
    assert a.model.summary.verdict != "pure-refactor"


def test_poetry_fallback_stays_unproven_without_a_declared_minimum(tmp_path: Path):
    before, after = _poetry()  # no packaging file: the supported Pythons are unknown
    a = analyse_commit(tmp_path, before, after, "chore: remove unused compatibility code")
    [fd] = _drops(a)
    assert fd.details["reason"] == "dependency-now-required"
    assert fd.details["proven"] is False and fd.details["proof"] == ""
    assert a.model.summary.verdict != "pure-refactor"
    assert "fallback-removed" in {r["id"] for r in a.model.risks}


def test_astroid_lru_cache_backport_fallback_is_proven_dead(tmp_path: Path):
    # astroid fb41252e "Remove backports.functools_lru_cache dependency" (python_requires >=3.6).
    spec = "astroid/interpreter/_import/spec.py"
    a = analyse_commit(
        tmp_path,
        {
            "setup.py": _real("astroid-setup-fb41252e.before.py.txt"),
            "astroid/__init__.py": "",
            spec: _real("astroid-spec-fb41252e.before.py.txt"),
        },
        {spec: _real("astroid-spec-fb41252e.after.py.txt")},
        "Remove backports.functools_lru_cache dependency",
    )
    [fd] = _drops(a)
    assert fd.details["reason"] == "import-cannot-fail"
    assert fd.details["proof"].startswith("functools.lru_cache is in the standard library of ")
    assert fd.details["proof"].endswith("; the project requires Python >= 3.6")
    assert a.model.summary.verdict == "pure-refactor"


def _attrs(tmp_path: Path, pyproject: str) -> Analysis:
    init = "src/attr/__init__.py"
    return analyse_commit(
        tmp_path,
        {"pyproject.toml": pyproject, init: _real("attrs-init-a8e24b01.before.py.txt")},
        {init: _real("attrs-init-a8e24b01.after.py.txt")},
        "Drop Python 3.7 (#1340)",
    )


def test_attrs_importlib_metadata_fallback_ran_on_a_supported_python(tmp_path: Path):
    # attrs a8e24b01 drops Python 3.7: before it, importlib.metadata (3.8) could be missing.
    pyproject = _real("attrs-pyproject-a8e24b01.before.toml.txt")
    assert 'requires-python = ">=3.7"' in pyproject
    [fd] = _drops(_attrs(tmp_path, pyproject))
    assert fd.symbol == "_make_getattr.<locals>.__getattr__"
    assert fd.details["reason"] == "dependency-now-required"
    assert fd.details["proven"] is False


def test_attrs_importlib_metadata_fallback_when_a_newer_python_was_already_required(
    tmp_path: Path,
):
    def drop(requires: str) -> Finding:
        pyproject = _real("attrs-pyproject-a8e24b01.before.toml.txt").replace(
            'requires-python = ">=3.7"', f'requires-python = "{requires}"'
        )
        [fd] = _drops(_attrs(tmp_path / requires[2:], pyproject))
        return fd

    fd = drop(">=3.9")
    assert fd.details["reason"] == "import-cannot-fail"
    assert fd.details["proof"] == (
        "importlib.metadata.metadata is in the standard library of Python 3.8 and later; "
        "the project requires Python >= 3.9"
    )
    # A name is dated by minor version only: with 3.8 itself the minimum it stays unproven.
    assert drop(">=3.8").details["reason"] == "dependency-now-required"


def _uvicorn(tmp_path: Path, setup: str) -> Analysis:
    # uvicorn 291c195c "Remove Python 3.6": the fallback import merged into the existing
    # ``from contextlib import contextmanager`` line.
    path = "tests/utils.py"
    return analyse_commit(
        tmp_path,
        {
            "setup.py": setup,
            "uvicorn/__init__.py": "",
            path: _real("uvicorn-test-utils-291c195c.before.py.txt"),
        },
        {path: _real("uvicorn-test-utils-291c195c.after.py.txt")},
        "Remove Python 3.6 (#1261)",
    )


def test_uvicorn_fallback_merged_into_an_existing_import_line(tmp_path: Path):
    setup = _real("uvicorn-setup-291c195c.before.py.txt")
    assert "python_requires" not in setup  # uvicorn declared none then: unknown minimum
    [fd] = _drops(_uvicorn(tmp_path / "real", setup))
    assert fd.details["reason"] == "dependency-now-required"
    # Declaring Python >= 3.8 (asynccontextmanager is 3.7's) makes the fallback dead.
    declared = setup.replace("setup(\n", 'setup(\n    python_requires=">=3.8",\n', 1)
    a = _uvicorn(tmp_path / "declared", declared)
    [fd] = _drops(a)
    assert fd.details["reason"] == "import-cannot-fail"
    assert fd.details["proof"].startswith("contextlib.asynccontextmanager is in the standard ")
    # Every changed line is accounted for: the try by the drop, the merged line by the imports.
    assert a.model.summary.changed_lines == a.model.summary.explained_lines == 7
    assert not a.model.risks or {r["id"] for r in a.model.risks} <= {"no-tests"}


# -- what must stay unproven, on poetry's real module --------------------------------------------


def _variant(
    tmp_path: Path,
    try_block: str,
    kept: str,
    python: str = "^3.6",
    extra: dict[str, str | None] | None = None,
    extra_after: dict[str, str | None] | None = None,
) -> Finding | None:
    """poetry aaf88068 with its fallback replaced by ``try_block`` (and ``kept`` after it);
    ``extra``: more files before, ``extra_after``: their change."""
    before, after = _poetry()
    text = before[HELPERS]
    assert text is not None and _FALLBACK in text
    pyproject = POETRY_PYPROJECT.replace('python = "^3.6"', f'python = "{python}"', 1)
    assert pyproject != POETRY_PYPROJECT or python == "^3.6"
    helpers_after = after[HELPERS]
    assert helpers_after is not None
    a = analyse_commit(
        tmp_path,
        {HELPERS: text.replace(_FALLBACK, try_block), "pyproject.toml": pyproject, **(extra or {})},
        {
            HELPERS: helpers_after.replace(
                "from collections.abc import Mapping\n",
                kept + "from collections.abc import Mapping\n",
            ),
            **(extra_after or {}),
        },
        "chore: remove unused compatibility code",
    )
    found = [fd for fd in _drops(a) if fd.path == HELPERS]
    return found[0] if found else None


def _try(body: str, handler: str = "except ImportError:", fallback: str = "    pass\n") -> str:
    return "try:\n" + "".join(f"    {ln}\n" for ln in body.splitlines()) + handler + "\n" + fallback


@pytest.mark.parametrize(
    ("body", "python", "reason"),
    [
        # Newer than the declared minimum.
        ("from typing import Literal", "^3.7", "dependency-now-required"),
        ("from typing import Literal", "^3.8", "dependency-now-required"),  # bugfix releases
        ("import tomllib", ">=3.8", "dependency-now-required"),
        # Removed from a later Python: it fails on new ones.
        ("from collections import Mapping", "^3.6", "dependency-now-required"),
        # Not on every platform, or not in every build.
        ("import pwd", "^3.6", "dependency-now-required"),
        ("import ssl", "^3.6", "dependency-now-required"),
        # Not the standard library.
        ("import simplejson as json", "^3.6", "dependency-now-required"),
        # One uncertain import of several.
        ("import json\nfrom typing import Protocol", "^3.7", "dependency-now-required"),
    ],
)
def test_fallback_that_could_run_stays_unproven(
    tmp_path: Path, body: str, python: str, reason: str
):
    fd = _variant(tmp_path, _try(body), body + "\n", python)
    assert fd is not None
    assert fd.details["reason"] == reason
    assert fd.details["proven"] is False and fd.details["behavior_change"] is True


def test_several_certain_imports_and_import_as_are_proven(tmp_path: Path):
    body = "import json\nimport importlib.metadata as importlib_metadata\nfrom shlex import quote"
    fd = _variant(tmp_path, _try(body), body + "\n", ">=3.9")
    assert fd is not None and fd.details["reason"] == "import-cannot-fail"
    parts = fd.details["proof"].split("; ")
    assert [p.split(" ")[0] for p in parts] == [
        "json",
        "importlib.metadata",
        "shlex.quote",
        "the",
    ]
    assert parts[-1] == "the project requires Python >= 3.9"


def test_broad_handler_or_more_than_imports_is_not_a_fallback(tmp_path: Path):
    body = "from collections.abc import Mapping"
    broad = _variant(tmp_path / "a", _try(body, "except Exception:"), body + "\n")
    assert broad is not None and broad.details["reason"] == "exception-now-propagates"
    assert broad.details["proven"] is False
    more = "from collections.abc import Mapping\nHAS_ABC = True"
    acting = _variant(tmp_path / "b", _try(more), more + "\n")
    assert acting is not None and acting.details["proven"] is False
    assert acting.details["reason"] == "dependency-now-required"


def test_a_first_party_module_shadowing_the_standard_library_is_not_certain(tmp_path: Path):
    # A project with its own top-level ``tomllib`` imports that, not the standard library's.
    body = "import tomllib"
    certain = _variant(tmp_path / "a", _try(body), body + "\n", ">=3.11")
    assert certain is not None and certain.details["reason"] == "import-cannot-fail"
    shim: dict[str, str | None] = {"tomllib.py": "loads = None\n"}
    shadowed = _variant(tmp_path / "b", _try(body), body + "\n", ">=3.11", shim)
    assert shadowed is not None and shadowed.details["proven"] is False
    # Deleted together with the fallback: before the change the shim is what imported.
    deleted = _variant(
        tmp_path / "c", _try(body), body + "\n", ">=3.11", shim, {"tomllib.py": None}
    )
    assert deleted is not None and deleted.details["proven"] is False
