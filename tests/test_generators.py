"""A private function that built a list made a generator that every caller consumes at once.

The code is real: packaging's ``tags.py`` and ``tests/test_tags.py`` at commit f8630ea2
("refactor(tags): make _generic_abi and _cpython_abis iterators", saved in tests/corpus/):
``_cpython_abis`` appended to and prepended into a list, ``_generic_abi`` returned list displays
or ``_cpython_abis(...)``; both now yield, and their callers wrap them in ``list(...)``. Each
near miss is the same commit one real difference away, and must stay a behaviour change.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from prreport.bundle import load_bundle
from prreport.findings import Finding
from prreport.pipeline import Analysis
from tests.gitrepo import analyse_commit
from tests.test_corpus import CORPUS

TAGS = "src/packaging/tags.py"
TESTS = "tests/test_tags.py"
SUBJECT = "refactor(tags): make _generic_abi and _cpython_abis iterators (#1347)"


def _texts(path: str) -> tuple[str, str]:
    f = load_bundle(CORPUS / "bundles" / "packaging-f8630ea2.json.gz").file(path)
    assert f is not None and f.before and f.after
    return f.before, f.after


@pytest.fixture(scope="module")
def tags() -> tuple[str, str]:
    return _texts(TAGS)


def _edit(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new)


def _run(
    tmp_path: Path,
    before: str,
    after: str,
    extra: dict[str, str] | None = None,
    tests: tuple[str, str] | None = None,
) -> Analysis:
    base: dict[str, str | None] = {"src/packaging/__init__.py": "", TAGS: before, **(extra or {})}
    change: dict[str, str | None] = {TAGS: after}
    if tests is not None:
        base[TESTS], change[TESTS] = tests
    return analyse_commit(tmp_path, base, change, SUBJECT)


def _behavior(a: Analysis, symbol: str) -> Finding:
    [f] = [f for f in a.findings if f.kind.startswith("behavior.") and f.symbol == symbol]
    return f


def _kinds(f: Finding) -> list[str]:
    return [r["kind"] for r in f.details.get("rewrites", [])]


def test_the_real_commit_is_a_pure_refactor(tmp_path: Path, tags: tuple[str, str]):
    a = _run(tmp_path, *tags, tests=_texts(TESTS))
    abis = _behavior(a, "_cpython_abis")
    assert abis.kind == "behavior.unchanged"
    assert _kinds(abis) == ["list-to-generator", "split-elif"]
    [gen, split] = abis.details["rewrites"]
    assert "StopIteration" in gen["detail"]
    assert split["text"] == "py_version >= (3, 8) and debug"
    assert "py_version" in split["detail"]
    generic = _behavior(a, "_generic_abi")
    assert (generic.kind, _kinds(generic)) == ("behavior.unchanged", ["list-to-generator"])
    caller = _behavior(a, "generic_tags")
    assert (caller.kind, _kinds(caller)) == ("behavior.unchanged", ["consumed-generator"])
    assert caller.details["rewrites"][0]["text"] == "list(_generic_abi(...))"
    for test in ("TestGenericTags.test__generic_abi_error", "TestCPythonABI.test_debug"):
        assert _behavior(a, test).kind == "behavior.unchanged", test
    assert a.model.summary.verdict == "pure-refactor"


def test_the_library_change_alone_is_pure_too(tmp_path: Path, tags: tuple[str, str]):
    # No test file: the references are cpython_tags (x = f(...) if c else [] / x = list(x)),
    # generic_tags (list(f())) and _generic_abi (yield from f(...), itself proven).
    a = _run(tmp_path, *tags)
    assert _behavior(a, "_cpython_abis").kind == "behavior.unchanged"
    assert a.model.summary.verdict == "pure-refactor"


def test_a_module_the_pr_does_not_touch_iterating_it_keeps_the_change(
    tmp_path: Path, tags: tuple[str, str]
):
    # A for loop runs its body between two steps of the generator (and may stop early).
    other = (
        "from packaging.tags import _cpython_abis\n\n\n"
        "def first():\n    for abi in _cpython_abis((3, 8)):\n        return abi\n"
    )
    a = _run(tmp_path, *tags, extra={"src/packaging/other.py": other})
    assert _behavior(a, "_cpython_abis").kind == "behavior.changed"
    assert a.model.summary.verdict != "pure-refactor"


def test_an_aliased_import_is_a_reference_that_is_not_followed(
    tmp_path: Path, tags: tuple[str, str]
):
    other = "from packaging.tags import _generic_abi as abis\n\nALL = list(abis())\n"
    a = _run(tmp_path, *tags, extra={"src/packaging/other.py": other})
    assert _behavior(a, "_generic_abi").kind == "behavior.changed"


def test_a_caller_still_using_the_result_as_a_list_keeps_the_change(
    tmp_path: Path, tags: tuple[str, str]
):
    before, after = tags
    after = _edit(after, "abis = list(_generic_abi()) if", "abis = _generic_abi() if")
    a = _run(tmp_path, before, after)
    assert _behavior(a, "_generic_abi").kind == "behavior.changed"  # abis.append("none")
    assert a.model.summary.verdict != "pure-refactor"


def test_the_debug_abi_yielded_first_is_another_order(tmp_path: Path, tags: tuple[str, str]):
    before, after = tags
    main = '    yield f"cp{version}{threading}{debug}{pymalloc}{ucs4}"\n'
    after = _edit(after, main, "")
    after = _edit(
        after,
        '        yield f"cp{version}{threading}"\n',
        f'        yield f"cp{{version}}{{threading}}"\n{main}',
    )
    a = _run(tmp_path, before, after)
    assert _behavior(a, "_cpython_abis").kind == "behavior.changed"


def test_another_condition_for_the_debug_abi_is_a_change(tmp_path: Path, tags: tuple[str, str]):
    before, after = tags
    after = _edit(after, "if py_version >= (3, 8) and debug:", "if py_version > (3, 8) and debug:")
    a = _run(tmp_path, before, after)
    assert _behavior(a, "_cpython_abis").kind == "behavior.changed"


def test_the_elif_is_only_split_on_a_tuple(tmp_path: Path, tags: tuple[str, str]):
    # A list compares like a tuple, but the rule asks for the tuple() it can see; anything
    # else (an object with its own __lt__) could answer differently the second time.
    before, after = tags
    old = "py_version = tuple(py_version)"
    a = _run(
        tmp_path,
        _edit(before, old, "py_version = list(py_version)"),
        _edit(after, old, "py_version = list(py_version)"),
    )
    assert _behavior(a, "_cpython_abis").kind == "behavior.changed"


def test_a_prepended_value_that_may_act_is_not_moved(tmp_path: Path, tags: tuple[str, str]):
    # ``version`` is no longer a str: formatting it (a tuple's items) may run code, so the
    # first element cannot be evaluated before the elif any more.
    before, after = tags
    old = "version = _version_nodot(py_version[:2])"
    a = _run(
        tmp_path,
        _edit(before, old, "version = py_version[:2]"),
        _edit(after, old, "version = py_version[:2]"),
    )
    assert _behavior(a, "_cpython_abis").kind == "behavior.changed"


def test_a_test_replacing_it_by_a_shared_list_keeps_the_change(
    tmp_path: Path, tags: tuple[str, str]
):
    # generic_tags appended "none" to what _generic_abi returned: a shared list saw it before.
    patch = 'monkeypatch.setattr(tags, "_generic_abi", lambda: ["abi"])'
    shared = 'monkeypatch.setattr(tags, "_generic_abi", lambda: SHARED)'
    tb, ta = _texts(TESTS)
    a = _run(tmp_path, *tags, tests=(_edit(tb, patch, shared), _edit(ta, patch, shared)))
    assert _behavior(a, "_generic_abi").kind == "behavior.changed"
    assert a.model.summary.verdict != "pure-refactor"


_MAC_GENERATOR = """def _mac_binary_formats(version: AppleVersion, cpu_arch: str) -> Iterator[str]:
    yield cpu_arch
    if cpu_arch == "x86_64":
        if version < (10, 4):
            return
        yield "intel"
        yield "fat64"
        yield "fat3"

    elif cpu_arch == "i386":
        if version < (10, 4):
            return
        yield "intel"
        yield "fat3"
        yield "fat"

    elif cpu_arch == "ppc64":
        # TODO: Need to care about 32-bit PPC for ppc64 through 10.2?
        if version > (10, 5) or version < (10, 4):
            return
        yield "fat64"

    elif cpu_arch == "ppc":
        if version > (10, 6):
            return
        yield "fat3"
        yield "fat"

    if cpu_arch in {"arm64", "x86_64"}:
        yield "universal2"

    if cpu_arch in {"x86_64", "i386", "ppc64", "ppc", "intel"}:
        yield "universal"
"""


def test_an_early_return_of_a_new_list_is_not_a_bare_return(tmp_path: Path, tags: tuple[str, str]):
    # packaging's real _mac_binary_formats starts from [cpu_arch] and returns [] for an
    # unsupported version: the naive generator has already yielded cpu_arch by then.
    before, after = tags
    start = after.index("def _mac_binary_formats(")
    end = after.index("def mac_platforms(")
    after = after[:start] + _MAC_GENERATOR + "\n\n" + after[end:]
    call = "binary_formats = _mac_binary_formats(compat_version, arch)"
    after = _edit(after, call, "binary_formats = list(_mac_binary_formats(compat_version, arch))")
    a = _run(tmp_path, before, after)
    assert _behavior(a, "_mac_binary_formats").kind == "behavior.changed"
    assert _behavior(a, "_cpython_abis").kind == "behavior.unchanged"


def test_an_early_return_past_the_prepended_element_keeps_the_change(
    tmp_path: Path, tags: tuple[str, str]
):
    # Returning from the elif skipped abis.insert(0, ...): the debug build got ["cp38"] only,
    # while the generator has yielded the main ABI first.
    before, after = tags
    debug = '        abis.append(f"cp{version}{threading}")\n'
    before = _edit(before, debug, debug + "        return abis\n")
    debug = '        yield f"cp{version}{threading}"\n'
    after = _edit(after, debug, debug + "        return\n")
    a = _run(tmp_path, before, after)
    assert _behavior(a, "_cpython_abis").kind == "behavior.changed"
