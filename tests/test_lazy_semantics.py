"""PEP 810 semantics in the analyzers (Python 3.15 issue, §2): imports made lazy with ``lazy
import`` or ``__lazy_modules__``, what still differs, the effects a lazy import defers, ``lazy``
where Python forbids it, and a fallback that no longer catches the error of a lazy import.

Each case is a real git repository with a package whose ``__init__`` imports submodules,
analysed through the whole pipeline on the Python CI runs (3.11: the parse door lowers ``lazy``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from prreport.config import Config, GitConfig
from prreport.pipeline import Analysis, analyse, gather
from prreport.render.markdown import render_markdown
from prreport.sources.git import GitSource
from tests.gitrepo import Repo

PKG = {
    "pkg/__init__.py": "from pkg import app\nfrom pkg import heavy\n",
    "pkg/heavy.py": "import json\n\n\ndef load(x):\n    return json.loads(x)\n",
    # a plugin module: registering at import is its point
    "pkg/plugin.py": (
        "from pkg.registry import register\n\n\n@register\ndef handler(x):\n    return x\n"
    ),
    "pkg/registry.py": "HANDLERS = []\n\n\ndef register(f):\n    HANDLERS.append(f)\n    return f\n",
    "pkg/paths.py": "import sys\n\nsys.path.insert(0, '/opt/plugins')\nROOT = '/opt'\n",
}


def _analyse(
    root: Path, before: Mapping[str, str], after: Mapping[str, str | None], title: str = ""
) -> Analysis:
    repo = Repo(root / "repo")
    repo.commit("init", {**PKG, **before})
    repo.commit(title or "refactor(pkg): lazy imports (#9)", dict(after))
    cfg = Config()
    src = GitSource("9", GitConfig(repo=str(repo.path)))
    try:
        return analyse(gather(src, cfg), cfg)
    finally:
        src.close()


def _kind(a: Analysis, kind: str) -> list:
    return [f for f in a.findings if f.kind == kind]


LOOP_BEFORE = (
    "def run(paths):\n"
    "    out = []\n"
    "    for p in paths:\n"
    "        import csv\n"
    "        from pkg.heavy import load\n"
    "        out.append(load(csv.__name__ + p))\n"
    "    return out\n"
)
LOOP_AFTER = (
    "lazy import csv\n"
    "lazy from pkg.heavy import load\n"
    "\n"
    "\n"
    "def run(paths):\n"
    "    out = []\n"
    "    for p in paths:\n"
    "        out.append(load(csv.__name__ + p))\n"
    "    return out\n"
)


def test_function_local_imports_made_module_level_lazy_are_a_proven_refactoring(tmp_path: Path):
    a = _analyse(tmp_path, {"pkg/app.py": LOOP_BEFORE}, {"pkg/app.py": LOOP_AFTER})
    made = {f.symbol: f for f in _kind(a, "import.made-lazy")}
    assert set(made) == {"csv", "load"}
    assert not _kind(a, "import.hoisted")
    d = made["load"].details
    assert d["from_function"] and d["via"] == "keyword" and d["proven"]
    assert d["loops_freed"] == ["for p in paths"]
    assert d["differences"][:2] == ["module-attribute", "eager-when-disabled"]
    # under -X lazy_imports=none it is a hoist: the cycle walk ran and says so
    (cycle,) = [f for f in a.findings if f.kind.startswith("cycle.") and f.symbol == "pkg.heavy"]
    assert cycle.kind == "cycle.safe" and cycle.details["lazy"] is True
    assert _kind(a, "loop.imports-removed")
    assert a.model.summary.verdict == "pure-refactor"
    md = render_markdown(a.model, "en")
    assert "by module-level `lazy` imports, freeing `for p in paths` of them" in md
    assert "`-X lazy_imports=none`" in md
    assert "lazy (PEP 810)" in md
    zh = render_markdown(a.model, "zh")
    assert "改为模块级 `lazy` 导入" in zh


def test_a_lazy_import_that_closes_a_cycle_when_lazy_imports_are_disabled_is_a_risk(
    tmp_path: Path,
):
    before = {"pkg/heavy.py": "from pkg import app\n\n\ndef load(x):\n    return x\n"}
    a = _analyse(tmp_path, {**before, "pkg/app.py": LOOP_BEFORE}, {"pkg/app.py": LOOP_AFTER})
    (risk,) = [f for f in _kind(a, "cycle.risk") if f.symbol == "pkg.heavy"]
    assert risk.details["lazy"] is True and "-X lazy_imports=none" in risk.message
    assert a.model.summary.verdict != "pure-refactor"


LISTED_BEFORE = (
    '"""The app."""\n'
    "\n"
    "from __future__ import annotations\n"
    "\n"
    "import csv\n"
    "from pkg.heavy import load\n"
    "\n"
    "\n"
    "def run(p):\n"
    "    return load(csv.__name__ + p)\n"
)


def _listed(*names: str) -> str:
    listing = "__lazy_modules__ = {\n" + "".join(f'    "{n}",\n' for n in names) + "}\n\n"
    return LISTED_BEFORE.replace("import csv\n", listing + "import csv\n")


def test_a_commit_that_only_adds_lazy_modules_is_explained(tmp_path: Path):
    a = _analyse(
        tmp_path, {"pkg/app.py": LISTED_BEFORE}, {"pkg/app.py": _listed("csv", "pkg.heavy")}
    )
    made = {f.symbol: f for f in _kind(a, "import.made-lazy")}
    assert set(made) == {"csv", "load"}
    d = made["load"].details
    assert d["via"] == "__lazy_modules__" and not d["from_function"]
    assert "eager-before-3.15" in d["differences"] and "loaded-at-first-use" in d["differences"]
    assert d["target_module"] == "pkg.heavy" and d["effects_checked"] and d["effects"] == []
    assert a.model.summary.verdict == "pure-refactor", a.model.summary.one_line
    md = render_markdown(a.model, "en")
    assert "lazy through a new `__lazy_modules__`" in md


def test_lazy_modules_spelled_from_the_package_name_are_read(tmp_path: Path):
    after = LISTED_BEFORE.replace(
        "import csv\n", '__lazy_modules__ = {"csv", f"{__spec__.parent}.heavy"}\n\nimport csv\n'
    )
    a = _analyse(tmp_path, {"pkg/app.py": LISTED_BEFORE}, {"pkg/app.py": after})
    assert {f.symbol for f in _kind(a, "import.made-lazy")} == {"csv", "load"}
    assert a.model.summary.verdict == "pure-refactor"


def test_an_import_in_a_try_statement_stays_eager_under_lazy_modules(tmp_path: Path):
    before = LISTED_BEFORE.replace(
        "import csv\n", "try:\n    import csv\nexcept ImportError:\n    csv = None\n"
    )
    after = before.replace("try:\n", '__lazy_modules__ = {"csv"}\n\ntry:\n')
    a = _analyse(tmp_path, {"pkg/app.py": before}, {"pkg/app.py": after})
    assert not _kind(a, "import.made-lazy")
    assert a.model.summary.verdict != "pure-refactor"  # the listing explains nothing here


def test_a_plugin_module_made_lazy_is_a_named_risk_with_its_registration(tmp_path: Path):
    before = LISTED_BEFORE.replace("import csv\n", "import csv\nimport pkg.plugin\n")
    after = before.replace("import csv\n", '__lazy_modules__ = ["pkg.plugin"]\n\nimport csv\n', 1)
    a = _analyse(tmp_path, {"pkg/app.py": before}, {"pkg/app.py": after})
    (made,) = _kind(a, "import.made-lazy")
    assert made.symbol == "pkg.plugin" and made.details["proven"] is False
    assert made.details["effects"] == [
        {
            "path": "pkg/plugin.py",
            "line": 4,
            "what": "decorated with register (may register it)",
            "statement": "def handler",
        }
    ]
    assert made.explains == ()
    assert a.model.summary.verdict == "refactor-unproven"
    (risk,) = [r for r in a.model.risks if r["id"] == "lazy-import-effects"]
    assert risk["evidence"][0]["module_path"] == "pkg/plugin.py"
    # what the plugin imports is deferred too: pkg.registry (no effect of its own) was read
    assert made.details["effects_checked"] is True
    md = render_markdown(a.model, "en")
    assert "`pkg/plugin.py:4` decorated with register (may register it)" in md
    zh = render_markdown(a.model, "zh")
    assert "改为惰性导入的模块在导入时有副作用" in zh


def test_an_eager_import_made_lazy_is_proven_only_without_import_time_effects(tmp_path: Path):
    before = LISTED_BEFORE.replace("import csv\n", "import csv\nimport pkg.paths\n")
    after = before.replace("import pkg.paths\n", "lazy import pkg.paths\n").replace(
        "from pkg.heavy import load\n", "lazy from pkg.heavy import load\n"
    )
    a = _analyse(tmp_path, {"pkg/app.py": before}, {"pkg/app.py": after})
    made = {f.symbol: f for f in _kind(a, "import.made-lazy")}
    assert made["load"].details["proven"] is True and made["load"].explains
    paths = made["pkg.paths"].details
    assert paths["proven"] is False
    assert [(e["line"], e["what"]) for e in paths["effects"]] == [(3, "calls sys.path.insert")]
    assert a.model.summary.verdict == "refactor-unproven"


def test_lazy_keyword_on_a_project_that_supports_older_pythons_is_a_behaviour_change(
    tmp_path: Path,
):
    project = {"pyproject.toml": '[project]\nname = "pkg"\nrequires-python = ">=3.10"\n'}
    after = LISTED_BEFORE.replace("from pkg.heavy", "lazy from pkg.heavy")
    a = _analyse(tmp_path, {**project, "pkg/app.py": LISTED_BEFORE}, {"pkg/app.py": after})
    (made,) = _kind(a, "import.made-lazy")
    assert made.details["requires_python"] == "3.10" and made.details["behavior_change"]
    assert a.model.summary.verdict in ("behavior-change", "refactor-with-behavior-change")
    # __lazy_modules__ is ignored before 3.15: the same project may use it
    b = _analyse(
        tmp_path / "b",
        {**project, "pkg/app.py": LISTED_BEFORE},
        {"pkg/app.py": _listed("pkg.heavy")},
    )
    assert b.model.summary.verdict == "pure-refactor"


def test_a_lazy_import_made_eager_is_checked_for_cycles_as_a_hoist(tmp_path: Path):
    lazy = LISTED_BEFORE.replace("from pkg.heavy", "lazy from pkg.heavy")
    heavy = {"pkg/heavy.py": "from pkg import app\n\n\ndef load(x):\n    return x\n"}
    a = _analyse(tmp_path, {**heavy, "pkg/app.py": lazy}, {"pkg/app.py": LISTED_BEFORE})
    assert [f.symbol for f in _kind(a, "import.made-eager")] == ["load"]
    (risk,) = _kind(a, "cycle.risk")
    assert risk.symbol == "pkg.heavy" and "lazy" not in risk.details
    assert a.model.summary.verdict == "refactor-with-behavior-change"


FORBIDDEN = (
    ("def run(p):\n    lazy import csv\n    return csv\n", 2, "function"),
    ("class Box:\n    lazy import csv\n", 2, "class"),
    ("try:\n    lazy import csv\nexcept ImportError:\n    csv = None\n", 2, "try"),
    ("lazy from csv import *\n", 1, "star"),
    ('"""Doc."""\nlazy from __future__ import annotations\n', 2, "future"),
)


def test_lazy_where_python_forbids_it_is_an_error_with_its_line(tmp_path: Path):
    for i, (code, line, reason) in enumerate(FORBIDDEN):
        before = code.replace("lazy ", "")
        a = _analyse(tmp_path / str(i), {"pkg/app.py": before}, {"pkg/app.py": code})
        (bad,) = _kind(a, "import.lazy-forbidden")
        assert (bad.line, bad.details["reason"]) == (line, reason), code
        assert a.model.summary.verdict in ("behavior-change", "refactor-with-behavior-change")
        md = render_markdown(a.model, "en")
        assert "Python raises SyntaxError when it compiles the module" in md


def test_an_import_fallback_around_an_import_made_lazy_no_longer_catches_its_error(
    tmp_path: Path,
):
    before = (
        "try:\n"
        "    import yaml\n"
        "except ImportError:\n"
        "    yaml = None\n"
        "\n"
        "\n"
        "def run(p):\n"
        "    return yaml.safe_load(p)\n"
    )
    after = "lazy import yaml\n\n\ndef run(p):\n    return yaml.safe_load(p)\n"
    a = _analyse(tmp_path, {"pkg/app.py": before}, {"pkg/app.py": after})
    (drop,) = _kind(a, "guard.dropped")
    assert drop.details["reason"] == "dependency-now-required"
    assert drop.details["lazy_names"] == ["yaml"]
    (risk,) = [r for r in a.model.risks if r["id"] == "fallback-removed"]
    assert risk["evidence"][0]["lazy_names"] == ["yaml"]
    md = render_markdown(a.model, "en")
    assert "its ImportError surfaces at the first use, where nothing catches it" in md
    assert a.model.summary.verdict != "pure-refactor"


def test_the_effects_of_what_a_module_made_lazy_imports_are_deferred_too(tmp_path: Path):
    # pkg.loader has no effect of its own, but importing it runs pkg.plugin's registration
    loader = {"pkg/loader.py": "import pkg.plugin\n\nNAME = 'loader'\n"}
    before = LISTED_BEFORE.replace("import csv\n", "import csv\nimport pkg.loader\n")
    after = before.replace("import pkg.loader\n", "lazy import pkg.loader\n")
    a = _analyse(tmp_path, {**loader, "pkg/app.py": before}, {"pkg/app.py": after})
    (made,) = _kind(a, "import.made-lazy")
    assert made.details["proven"] is False
    assert [(e["path"], e["line"]) for e in made.details["effects"]] == [("pkg/plugin.py", 4)]
    md = render_markdown(a.model, "en")
    assert "`pkg/plugin.py:4` decorated with register" in md


def test_a_function_local_import_dropped_for_an_existing_lazy_one_is_made_lazy(tmp_path: Path):
    before = "lazy import csv\n\n\ndef run(p):\n    import csv\n    return csv.__name__ + p\n"
    after = "lazy import csv\n\n\ndef run(p):\n    return csv.__name__ + p\n"
    a = _analyse(tmp_path, {"pkg/app.py": before}, {"pkg/app.py": after})
    (made,) = _kind(a, "import.made-lazy")
    assert made.details["already_bound"] is True and made.details["from_function"] is True
    assert not _kind(a, "import.hoisted")
    assert a.model.summary.verdict == "pure-refactor"


def test_a_module_taken_out_of_lazy_modules_leaves_the_listing_to_review(tmp_path: Path):
    a = _analyse(tmp_path, {"pkg/app.py": _listed("pkg.heavy")}, {"pkg/app.py": _listed("csv")})
    (csv,) = _kind(a, "import.made-lazy")
    assert csv.symbol == "csv" and csv.details["proven"] is True
    assert csv.explains == ()  # the listing's lines are not explained by it
    assert a.model.summary.verdict != "pure-refactor"  # pkg.heavy is eager again on 3.15


def test_an_import_for_its_effect_made_lazy_is_never_loaded(tmp_path: Path):
    # ``import colorama_init`` (outside the repository) is read by nothing: lazy, it never runs
    before = LISTED_BEFORE.replace("import csv\n", "import csv\nimport colorama_init\n")
    after = before.replace("import colorama_init\n", "lazy import colorama_init\n")
    a = _analyse(tmp_path, {"pkg/app.py": before}, {"pkg/app.py": after})
    (made,) = _kind(a, "import.made-lazy")
    assert made.details["never_read"] is True and made.details["proven"] is False
    assert a.model.summary.verdict == "refactor-unproven"
    md = render_markdown(a.model, "en")
    assert "nothing in the module reads the name, so it is never loaded" in md
    # a standard-library module read by nothing does nothing at import: proven
    b = _analyse(
        tmp_path / "b",
        {"pkg/app.py": before.replace("colorama_init", "csv as _csv")},
        {"pkg/app.py": after.replace("colorama_init", "csv as _csv")},
    )
    assert [f.details["proven"] for f in _kind(b, "import.made-lazy")] == [True]
