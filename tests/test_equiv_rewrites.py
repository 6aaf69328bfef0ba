"""A refactor that rewrites code without changing what it does is not a behaviour change.

The code is real: starlette's ``status.py`` and ``setup.py`` (the commit that dropped Python
3.6 support, saved in tests/corpus/), pip's ``cmdoptions.check_dist_restriction`` and black's
``linegen.delimiter_split``. Each rewrite the comparison sees through (a version test the
declared Python fixes, a once-used local written at its use, nested ``if``s merged, a
loop-invariant test hoisted before its loop) has a case where it applies and a case, one edit
away, where it must not.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from prreport.bundle import load_bundle
from prreport.findings import Finding
from prreport.pipeline import Analysis
from prreport.render.markdown import render_markdown
from tests.gitrepo import analyse_commit
from tests.test_corpus import CORPUS

STATUS = "starlette/status.py"
CMDOPTIONS = "src/pip/_internal/cli/cmdoptions.py"
LINEGEN = "src/black/linegen.py"


def _texts(case: str, path: str) -> tuple[str, str]:
    f = load_bundle(CORPUS / "bundles" / f"{case}.json.gz").file(path)
    assert f is not None and f.before and f.after
    return f.before, f.after


@pytest.fixture(scope="module")
def starlette() -> dict[str, str]:
    status_before, status_after = _texts("starlette-589df786", STATUS)
    setup_before, _ = _texts("starlette-589df786", "setup.py")
    return {"status_before": status_before, "status_after": status_after, "setup": setup_before}


def _finding(a: Analysis, kind: str, symbol: str) -> Finding | None:
    return next((f for f in a.findings if f.kind == kind and f.symbol == symbol), None)


def _item(a: Analysis, path: str) -> str:
    """The implementation-breakdown item of ``path`` in the English Markdown report."""
    markdown = render_markdown(a.model, "en")
    [line] = [ln for ln in markdown.splitlines() if ln[:1].isdigit() and f"**`{path}`" in ln]
    return line


def _starlette_run(tmp_path: Path, texts: dict[str, str], setup: str, after: str) -> Analysis:
    base = {"setup.py": setup, "starlette/__init__.py": "", STATUS: texts["status_before"]}
    return analyse_commit(tmp_path, base, {STATUS: after}, "Remove compat code (#1616)")


def test_a_version_test_the_declared_python_fixes_and_the_local_it_set_are_seen_through(
    tmp_path: Path, starlette: dict[str, str]
):
    assert 'python_requires=">=3.7"' in starlette["setup"]
    assert "stacklevel = 3 if sys.version_info >= (3, 7) else 4" in starlette["status_before"]
    a = _starlette_run(tmp_path, starlette, starlette["setup"], starlette["status_after"])
    same = _finding(a, "behavior.unchanged", "__getattr__")
    assert same is not None, [f.kind for f in a.findings]
    rewrites = {(r["kind"], r["text"], r["detail"]) for r in same.details["rewrites"]}
    assert rewrites == {
        ("fixed-condition", "sys.version_info >= (3, 7)", "true 3.7"),
        ("inlined-local", "stacklevel", ""),
    }
    assert a.model.summary.verdict == "pure-refactor"
    item = _item(a, STATUS)
    assert "`__getattr__` does the same as before" in item
    assert "(the project requires Python >= 3.7)" in item


def test_the_same_edit_is_a_change_when_the_project_still_supports_older_pythons(
    tmp_path: Path, starlette: dict[str, str]
):
    setup = starlette["setup"].replace('python_requires=">=3.7"', 'python_requires=">=3.6"')
    a = _starlette_run(tmp_path, starlette, setup, starlette["status_after"])
    assert _finding(a, "behavior.changed", "__getattr__") is not None
    assert a.model.summary.verdict != "pure-refactor"


def test_a_local_whose_value_is_a_call_is_not_moved_past_other_calls(
    tmp_path: Path, starlette: dict[str, str]
):
    # The level now comes from a call: written at its use it would run after the f-string
    # and the dictionary lookup instead of before them.
    old = "stacklevel = 3 if sys.version_info >= (3, 7) else 4"
    before = starlette["status_before"].replace(old, "stacklevel = _level()")
    after = starlette["status_after"].replace("stacklevel=3,", "stacklevel=_level(),")
    assert before != starlette["status_before"] and after != starlette["status_after"]
    texts = {**starlette, "status_before": before}
    a = _starlette_run(tmp_path, texts, starlette["setup"], after)
    assert _finding(a, "behavior.changed", "__getattr__") is not None


@pytest.fixture(scope="module")
def cmdoptions() -> tuple[str, str]:
    return _texts("pip-fc2d4a3b", CMDOPTIONS)


def _pip_run(
    tmp_path: Path, before: str, after: str, path: str = CMDOPTIONS, message: str = "Tidy (#13)"
) -> Analysis:
    """A commit of pip's own module ``path`` (inside its real package layout)."""
    base = {"src/pip/__init__.py": "", "src/pip/_internal/__init__.py": "", path: before}
    return analyse_commit(tmp_path, base, {path: after}, message)


_PER_ITEM = "        if dist_restriction_set and pylock_utils.is_valid_pylock_filename(filename):\n"


def _flag_tested_before_the_loop(text: str) -> str:
    """The ``for filename in options.requirements`` loop wrapped in ``if dist_restriction_set:``,
    its per-item test left with the other condition only (the upstream pip commit's edit)."""
    start = text.index("    for filename in options.requirements:\n")
    end = text.index("\n\n", start)
    loop = "\n".join("    " + ln if ln else ln for ln in text[start:end].split("\n"))
    loop = loop.replace("if dist_restriction_set and pylock_utils", "if pylock_utils")
    return text[:start] + "    if dist_restriction_set:\n" + loop + text[end:]


def test_a_loop_invariant_test_hoisted_before_the_loop_is_the_same_code(
    tmp_path: Path, cmdoptions: tuple[str, str]
):
    before, _ = cmdoptions
    assert "    for filename in options.requirements:\n" + _PER_ITEM in before
    a = _pip_run(tmp_path, before, _flag_tested_before_the_loop(before))
    same = _finding(a, "behavior.unchanged", "check_dist_restriction")
    assert same is not None, [(f.kind, f.symbol) for f in a.findings]
    assert same.details["rewrites"] == [
        {
            "kind": "loop-invariant-if",
            "text": "dist_restriction_set",
            "detail": "options.requirements",
        }
    ]
    assert "assuming iterating `options.requirements` does nothing" in _item(a, CMDOPTIONS)


def test_a_test_the_loop_itself_changes_is_not_hoisted(tmp_path: Path, cmdoptions: tuple[str, str]):
    before, _ = cmdoptions
    # The flag is now reassigned inside the loop, so testing it once is not the same.
    reassigning = before.replace(
        _PER_ITEM,
        "        dist_restriction_set = dist_restriction_set or filename.endswith('.toml')\n"
        + _PER_ITEM,
    )
    a = _pip_run(tmp_path, reassigning, _flag_tested_before_the_loop(reassigning))
    assert _finding(a, "behavior.changed", "check_dist_restriction") is not None


_NESTED = (
    "    if delimiter_priority == DOT_PRIORITY:\n"
    "        if bt.delimiter_count_with_priority(delimiter_priority) == 1:\n"
)


@pytest.mark.parametrize(
    ("merged", "same"),
    [
        (
            "    if delimiter_priority == DOT_PRIORITY and bt.delimiter_count_with_priority(delimiter_priority) == 1:\n",
            True,
        ),
        # The call now runs first, for every priority: not the same code.
        (
            "    if bt.delimiter_count_with_priority(delimiter_priority) == 1 and delimiter_priority == DOT_PRIORITY:\n",
            False,
        ),
    ],
)
def test_nested_ifs_merged_into_one_test_keep_the_order_of_evaluation(
    tmp_path: Path, merged: str, same: bool
):
    before, _ = _texts("black-0f18001a", LINEGEN)
    assert _NESTED in before
    after = before.replace(
        _NESTED + "            raise CannotSplit(",
        merged + "        raise CannotSplit(",
    )
    assert after != before
    base = {"src/black/__init__.py": "", LINEGEN: before}
    a = analyse_commit(tmp_path, base, {LINEGEN: after}, "Merge the DOT_PRIORITY checks (#9)")
    found = _finding(a, "behavior.unchanged" if same else "behavior.changed", "delimiter_split")
    assert found is not None, [(f.kind, f.symbol) for f in a.findings]
    if same:
        assert [r["kind"] for r in found.details["rewrites"]] == ["merged-if"]


REAL = Path(__file__).parent / "fixtures" / "real"
REQUIREMENTS = "packaging/requirements.py"


@pytest.fixture(scope="module")
def requirements_py() -> tuple[str, str]:
    """packaging's requirements.py around commit e91b50ee ("Rename `req` to `parsed` in
    `Requirement.__init__`"), before and after."""
    stem = "packaging-requirements-e91b50ee"
    return (
        (REAL / f"{stem}.before.py.txt").read_text(encoding="utf-8"),
        (REAL / f"{stem}.after.py.txt").read_text(encoding="utf-8"),
    )


def _packaging_run(tmp_path: Path, before: str, after: str) -> Analysis:
    base = {"packaging/__init__.py": "", REQUIREMENTS: before}
    return analyse_commit(tmp_path, base, {REQUIREMENTS: after}, "Rename req (#620)")


def test_a_local_variable_renamed_everywhere_is_the_same_code(
    tmp_path: Path, requirements_py: tuple[str, str]
):
    a = _packaging_run(tmp_path, *requirements_py)
    same = _finding(a, "behavior.unchanged", "Requirement.__init__")
    assert same is not None, [(f.kind, f.symbol) for f in a.findings]
    assert same.details["rewrites"] == [
        {"kind": "renamed-local", "text": "req → parsed", "detail": ""}
    ]
    # requirements.py is a module like any other (not a pip requirements file).
    assert a.model.summary.verdict == "pure-refactor"
    assert "the local `req` is renamed `parsed`" in _item(a, REQUIREMENTS)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # A parameter is part of the signature: callers passing it by keyword break.
        ("requirement_string", "text"),
        # Two locals merged into one name is not a rename.
        ("parsed", "parsed_url"),
    ],
)
def test_a_parameter_rename_or_a_merge_of_two_locals_is_a_change(
    tmp_path: Path, requirements_py: tuple[str, str], old: str, new: str
):
    before, after = requirements_py
    edited = re.sub(rf"\b{old}\b", new, after)
    assert edited != after
    a = _packaging_run(tmp_path, before, edited)
    assert _finding(a, "behavior.changed", "Requirement.__init__") is not None


def _rich(name: str) -> tuple[str, str]:
    """rich's ``rich/<name>.py`` around commit 579b6ac0 ("pyupgrade"), before and after."""
    stem = f"rich-{name}-579b6ac0"
    return (
        (REAL / f"{stem}.before.py.txt").read_text(encoding="utf-8"),
        (REAL / f"{stem}.after.py.txt").read_text(encoding="utf-8"),
    )


def _rich_run(tmp_path: Path, name: str, before: str, after: str) -> Analysis:
    path = f"rich/{name}.py"
    base = {"rich/__init__.py": "", path: before}
    return analyse_commit(tmp_path, base, {path: after}, "pyupgrade (#3400)")


def test_pyupgrade_spellings_are_the_same_code(tmp_path: Path):
    # str.format made an f-string, and open(path, "rt") made open(path): rich's own commit.
    before, after = _rich("filesize")
    assert '"{:,} bytes".format(size)' in before and 'f"{size:,} bytes"' in after
    a = _rich_run(tmp_path / "filesize", "filesize", before, after)
    assert _finding(a, "behavior.unchanged", "_to_str") is not None
    before, after = _rich("theme")
    assert 'open(path, "rt", encoding=encoding)' in before
    a = _rich_run(tmp_path / "theme", "theme", before, after)
    assert _finding(a, "behavior.unchanged", "Theme.read") is not None
    assert a.model.summary.verdict == "pure-refactor"


@pytest.mark.parametrize(
    ("name", "old", "new"),
    [
        # Arguments swapped: another string.
        ("filesize", 'return "{:,} bytes".format(size)', 'return f"{base:,} bytes"'),
        # Binary mode is not the default.
        ("theme", 'open(path, "rt", encoding=encoding)', 'open(path, "rb")'),
    ],
)
def test_a_spelling_that_changes_the_value_is_a_change(
    tmp_path: Path, name: str, old: str, new: str
):
    before, _ = _rich(name)
    assert old in before
    a = _rich_run(tmp_path, name, before, before.replace(old, new))
    assert any(f.kind == "behavior.changed" for f in a.findings)


def test_open_is_only_the_builtin_when_the_module_does_not_define_its_own(tmp_path: Path):
    before, _ = _rich("theme")
    # The module now defines an ``open`` of its own: its second argument means something else.
    own = before.replace(
        "class Theme:", "def open(path, mode='r', **kw):\n    return mode\n\n\nclass Theme:"
    )
    a = _rich_run(
        tmp_path,
        "theme",
        own,
        own.replace('open(path, "rt", encoding=encoding)', "open(path, encoding=encoding)"),
    )
    assert _finding(a, "behavior.changed", "Theme.read") is not None


COLLECTOR = "src/pip/_internal/index/collector.py"


def _collector_run(tmp_path: Path, before: str, after: str) -> Analysis:
    return _pip_run(tmp_path, before, after, COLLECTOR, "Simplify header check (#11700)")


def test_elif_branches_with_one_body_and_a_prefix_tuple_are_the_same_code(tmp_path: Path):
    # pip a287a0bf: three `elif ...startswith(...): return` made one startswith((...)).
    before, after = _texts("pip-a287a0bf", COLLECTOR)
    a = _collector_run(tmp_path, before, after)
    same = _finding(a, "behavior.unchanged", "_ensure_api_header")
    assert same is not None, [(f.kind, f.symbol) for f in a.findings]
    assert {r["kind"] for r in same.details["rewrites"]} == {"affix-tuple", "merged-elif"}
    assert a.model.summary.verdict == "pure-refactor"
    item = _item(a, COLLECTOR)
    assert "proven by comparing the function with its old version" in item
    assert "(assuming `content_type_l` is a `str`)" in item
    # the snippet of the merged branch says the same as the breakdown
    assert "not proven equivalent" not in render_markdown(a.model, "en")


def test_a_prefix_dropped_from_the_tuple_is_a_change(tmp_path: Path):
    before, after = _texts("pip-a287a0bf", COLLECTOR)
    old = '            "application/vnd.pypi.simple.v1+json",\n'
    assert old in after
    a = _collector_run(tmp_path, before, after.replace(old, ""))
    assert _finding(a, "behavior.changed", "_ensure_api_header") is not None


_HASHES = "    hashes = {}\n    hm = _HASH_RE.search(url)\n"


@pytest.mark.parametrize(
    ("edit", "same"),
    [
        # The new dict is made just before the test that fills it: nothing between sees it.
        ("    hm = _HASH_RE.search(url)\n    hashes = {}\n", True),
        # Made before the URL is computed: the call between cannot see or change it either.
        (None, True),
        # The search now runs before the URL it reads is computed: another program.
        ("    hashes = {}\n", False),
    ],
)
def test_an_assignment_written_where_it_is_first_needed(
    tmp_path: Path, edit: str | None, same: bool
):
    before, _ = _texts("pip-a287a0bf", COLLECTOR)
    assert before.count(_HASHES) == 1
    url_line = "    url = _clean_link(urllib.parse.urljoin(base_url, href))\n"
    if edit is None:
        after = before.replace(_HASHES, "    hm = _HASH_RE.search(url)\n")
        after = after.replace(url_line, "    hashes = {}\n" + url_line)
    elif same:
        after = before.replace(_HASHES, edit)
    else:
        after = before.replace(_HASHES, edit).replace(
            url_line, "    hm = _HASH_RE.search(url)\n" + url_line
        )
    assert after != before
    a = _collector_run(tmp_path, before, after)
    kind = "behavior.unchanged" if same else "behavior.changed"
    found = [f for f in a.findings if f.kind == kind and f.symbol == "_create_link_from_element"]
    assert found, [(f.kind, f.symbol) for f in a.findings]
    if same:
        assert [r["kind"] for r in found[0].details["rewrites"]] == ["moved-assignment"]


@pytest.mark.parametrize(
    ("value", "same"),
    [('cast("str", content_type)', True), ("cast(str, content_type)", True),
     # the cast is of another value: not the same code
     ('cast("str", content_type.strip())', False)],
)  # fmt: skip
def test_a_cast_added_around_a_value_is_the_value(tmp_path: Path, value: str, same: bool):
    # mypy --strict clean-ups add casts; typing.cast(T, x) returns x.
    before, _ = _texts("pip-a287a0bf", COLLECTOR)
    old = "    content_type_l = content_type.lower()\n"
    assert old in before and "\nimport " in before
    after = before.replace(old, f"    content_type_l = {value}.lower()\n")
    after = after.replace("\nimport ", "\nfrom typing import cast\nimport ", 1)
    a = _collector_run(tmp_path, before, after)
    kind = "behavior.unchanged" if same else "behavior.changed"
    assert _finding(a, kind, "_ensure_api_header") is not None, [
        (f.kind, f.symbol) for f in a.findings
    ]


AUTH = "src/pip/_internal/network/auth.py"


@pytest.mark.parametrize(
    ("before_call", "after_call", "same"),
    [
        # a str literal (here an f-string) encodes to UTF-8 by default
        ('f"{password}".encode("utf-8")', 'f"{password}".encode()', True),
        # ``password`` could be any object with its own ``encode``: not provably the same
        ('password.encode("utf-8")', "password.encode()", False),
    ],
)
def test_the_default_encoding_of_a_str_literal_is_spelling(
    tmp_path: Path, before_call: str, after_call: str, same: bool
):
    text, _ = _texts("pip-4f8a6137", AUTH)
    old = 'password.encode("utf-8")'
    assert text.count(old) == 1
    before, after = text.replace(old, before_call), text.replace(old, after_call)
    a = _pip_run(tmp_path, before, after, AUTH, "pyupgrade (#12000)")
    kind = "behavior.unchanged" if same else "behavior.changed"
    symbol = "KeyRingCliProvider._set_password"
    assert _finding(a, kind, symbol) is not None, [(f.kind, f.symbol) for f in a.findings]


WHEEL_PY = "src/pip/_internal/operations/install/wheel.py"
_SUPER = "        return super(PipScriptMaker, self).make(specification, options)\n"


@pytest.mark.parametrize(
    ("decorated", "same"),
    [
        # pyupgrade's rewrite in a method of the (undecorated, module-level) class itself
        (False, True),
        # a class decorator may return another class (a slots dataclass): not provably the same
        (True, False),
    ],
)
def test_super_with_the_class_and_self_is_super(tmp_path: Path, decorated: bool, same: bool):
    text, _ = _texts("pip-239accb1", WHEEL_PY)
    assert text.count(_SUPER) == 1
    if decorated:
        text = text.replace("class PipScriptMaker(", "@_registered\nclass PipScriptMaker(")
    after = text.replace(_SUPER, _SUPER.replace("super(PipScriptMaker, self)", "super()"))
    a = _pip_run(tmp_path, text, after, WHEEL_PY, "pyupgrade (#12001)")
    kind = "behavior.unchanged" if same else "behavior.changed"
    found = _finding(a, kind, "PipScriptMaker.make")
    assert found is not None, [(f.kind, f.symbol) for f in a.findings]


MARKERS = "src/packaging/markers.py"
_FORMAT_INFO = '    version = "{0.major}.{0.minor}.{0.micro}".format(info)\n'


@pytest.mark.parametrize(
    ("after_line", "same"),
    [
        # packaging 2c885fe9's own rewrite: an argument read three times is a name
        ('    version = f"{info.major}.{info.minor}.{info.micro}"\n', True),
        # the fields in another order: another string
        ('    version = f"{info.minor}.{info.major}.{info.micro}"\n', False),
    ],
)
def test_format_fields_reading_attributes_of_a_name_are_an_fstring(
    tmp_path: Path, after_line: str, same: bool
):
    before = (REAL / "packaging-markers-2c885fe9.before.py.txt").read_text(encoding="utf-8")
    assert before.count(_FORMAT_INFO) == 1
    base = {"src/packaging/__init__.py": "", MARKERS: before}
    change = {MARKERS: before.replace(_FORMAT_INFO, after_line)}
    a = analyse_commit(tmp_path, base, change, "Apply ruff/pyupgrade rules (UP) (#786)")
    kind = "behavior.unchanged" if same else "behavior.changed"
    assert _finding(a, kind, "format_full_version") is not None, [
        (f.kind, f.symbol) for f in a.findings
    ]


TAGS = "src/packaging/tags.py"


@pytest.mark.parametrize(
    ("edit", "same"),
    [
        (None, True),  # the real commit: packaging c5675838
        (('        case "iOS":', '        case "iOS" | "iPadOS":'), False),  # one more value
        (('        case "Linux":', '        case "Linux" if sys.maxsize > 2**32:'), False),  # guard
        (("        case _:\n", "        case other:\n"), False),  # a capture, not a wildcard
        (('        case "Android":', '        case "android":'), False),  # another literal
    ],
)
def test_a_match_on_literals_is_the_same_if_elif_chain(
    tmp_path: Path, edit: tuple[str, str] | None, same: bool
):
    # packaging's platform_tags: an ``if platform.system() == "Darwin": ... elif ...`` chain
    # rewritten as ``match platform.system(): case "Darwin": ...``. The chain evaluates the
    # subject once per test, match once: the finding states that assumption.
    before, after = _texts("packaging-c5675838", TAGS)
    if edit is not None:
        assert edit[0] in after
        after = after.replace(edit[0], edit[1])
    a = analyse_commit(tmp_path, {TAGS: before}, {TAGS: after}, "refactor(tags): use match (#1)")
    fd = _finding(a, "behavior.unchanged", "platform_tags")
    if not same:
        assert fd is None
        assert _finding(a, "behavior.changed", "platform_tags") is not None
        return
    assert fd is not None
    assert fd.details["rewrites"] == [
        {"kind": "match-chain", "text": "platform.system()", "detail": "again"}
    ]
    assert a.model.summary.verdict == "pure-refactor"
    assert (
        "a `match` on `platform.system()` with literal cases is the same `if`/`elif` chain of"
        " `==` tests (assuming evaluating `platform.system()` again gives the same value"
    ) in _item(a, TAGS)


def _renamed(before: str, after: str) -> object:
    from prreport.equivalence.canonical import canonical
    from prreport.equivalence.rewrites import see_through

    a, b = ast.parse(before).body[0], ast.parse(after).body[0]
    return see_through(canonical(a, {}), canonical(b, {}), None)


_SHADOW = "def f():\n    x = 1\n\n    def inner(x):\n        return x\n\n    return inner(2)\n"


@pytest.mark.parametrize(
    "after",
    [
        # inner now returns the outer local, not its own parameter: 1, not 2
        "def f():\n    y = 1\n\n    def inner(x):\n        return y\n\n    return inner(2)\n",
        # a lambda's parameter and a comprehension's target shadow the same way
        "def f():\n    y = 1\n\n    inner = lambda x: y\n    return inner(2)\n",
    ],
)
def test_a_local_renamed_where_a_nested_scope_binds_the_old_name_is_not_the_same(after: str):
    lam = "def f():\n    x = 1\n\n    inner = lambda x: x\n    return inner(2)\n"
    before = lam if "lambda" in after else _SHADOW
    assert _renamed(before, after) is None


def test_a_loop_variable_renamed_beside_a_comprehension_of_the_old_name_is_a_rename():
    # faker-fff4c0d8: ``for i in range(n)`` -> ``for _ in range(n)``, ``[i / t for i in cdf]`` kept
    before = "def f(n, cdf, t):\n    for i in range(n):\n        g([i / t for i in cdf])\n"
    after = "def f(n, cdf, t):\n    for _ in range(n):\n        g([i / t for i in cdf])\n"
    assert _renamed(before, after) is not None
    reads_outer = "def f(n, cdf, t):\n    for _ in range(n):\n        g([i / t for j in cdf])\n"
    assert _renamed(before, reads_outer) is None
