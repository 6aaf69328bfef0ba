"""PEP 810 cases the first round left out (Python 3.15 issue, §2 and §4): a module taken out of
``__lazy_modules__`` (or the listing removed) is reported made eager and walked for cycles as a
hoist; the digest counts imports made lazy. Real-shaped: a package whose ``__init__`` imports
its submodules, a plugin module that registers at import (``tests/test_lazy_semantics.py``).
"""

from __future__ import annotations

from pathlib import Path

from prreport.config import Config, DigestConfig, GitConfig
from prreport.digest.build import make_digest
from prreport.digest.render import render_digest
from prreport.digest.window import resolve_window
from prreport.render.markdown import render_markdown
from tests.gitrepo import Repo
from tests.test_lazy_semantics import LISTED_BEFORE, PKG, _analyse, _kind, _listed


def test_a_module_taken_out_of_lazy_modules_is_made_eager_on_315(tmp_path: Path):
    a = _analyse(
        tmp_path, {"pkg/app.py": _listed("csv", "pkg.heavy")}, {"pkg/app.py": _listed("csv")}
    )
    (eager,) = _kind(a, "import.made-eager")
    assert eager.symbol == "load" and eager.details["via"] == "__lazy_modules__"
    assert eager.details["differences"] == ["eager-on-3.15"]
    assert not _kind(a, "import.made-lazy")  # csv stays listed: nothing changes for it
    # loaded at import again on 3.15: walked as a hoist (pkg.heavy imports only json)
    (safe,) = [f for f in a.findings if f.kind == "cycle.safe" and f.symbol == "pkg.heavy"]
    assert "lazy" not in safe.details
    assert a.model.summary.verdict != "pure-refactor"  # the listing's lines are left to review
    md = render_markdown(a.model, "en")
    assert "out of `__lazy_modules__`: on Python 3.15 they load at import again" in md
    zh = render_markdown(a.model, "zh")
    assert "的导入移出 `__lazy_modules__`：在 Python 3.15 上重新于导入时加载" in zh


def test_a_listing_removed_makes_its_modules_eager_and_a_cycle_back_is_a_risk(tmp_path: Path):
    heavy = {"pkg/heavy.py": "from pkg import app\n\n\ndef load(x):\n    return x\n"}
    a = _analyse(
        tmp_path, {**heavy, "pkg/app.py": _listed("pkg.heavy")}, {"pkg/app.py": LISTED_BEFORE}
    )
    assert [f.symbol for f in _kind(a, "import.made-eager")] == ["load"]
    (risk,) = [f for f in _kind(a, "cycle.risk") if f.symbol == "pkg.heavy"]
    assert risk.details["chain"] == ["pkg.app", "pkg.heavy", "pkg.app"]
    # the listing is read by the import system: removing it is no dead code
    assert not [f for f in a.findings if f.kind == "code.dead-removed"]
    assert a.model.summary.verdict in ("behavior-change", "refactor-with-behavior-change")


def test_the_digest_counts_imports_made_lazy(tmp_path: Path):
    # two PRs of the week: one makes two function-local imports lazy, one lists a module
    repo = Repo(tmp_path / "widgets")
    day = "2026-08-18T10:00:00+00:00"
    local = "def run(p):\n    import csv\n    from pkg.heavy import load\n    return load(csv, p)\n"
    repo.commit("init", {**PKG, "pkg/app.py": local, "pkg/tool.py": LISTED_BEFORE}, date=day)
    lazy = "lazy import csv\nlazy from pkg.heavy import load\n\n\ndef run(p):\n    return load(csv, p)\n"
    repo.commit("refactor(pkg): lazy imports (#1)", {"pkg/app.py": lazy}, date=day)
    listed = {"pkg/tool.py": _listed("pkg.heavy")}
    repo.commit("perf(pkg): list pkg.heavy as lazy (#2)", listed, date=day)
    cfg = Config(
        git=GitConfig(repo=str(repo.path)),
        digest=DigestConfig(workers=1, cache_dir=str(tmp_path / "cache")),
    )
    digest = make_digest(cfg, resolve_window("2026-W34"))
    assert digest.totals["prs"] == 2 and digest.totals["imports_made_lazy"] == 3
    out = render_digest(digest, ["en", "zh"], ["md"], tmp_path / "out")
    texts = {p.name: t for p, t in out.items() if p.name.startswith("2026-W34")}
    assert "| Imports made lazy (PEP 810) | 3 |" in texts["2026-W34.md"]
    assert "| 改为惰性的 import（PEP 810） | 3 |" in texts["2026-W34.zh.md"]


BACKEND = "import yaml\n\n\ndef load(p):\n    return yaml.safe_load(p)\n"
OPTIONAL_INIT = (
    '"""The package: its backends are optional."""\n'
    "\n"
    "from pkg import app\n"
    "\n"
    "try:\n"
    "    from pkg import backend\n"
    "except ImportError:  # yaml not installed\n"
    "    backend = None\n"
)


def test_a_fallback_in_the_package_init_no_longer_catches_an_import_made_lazy(tmp_path: Path):
    # pkg/__init__.py guards the import of pkg.backend; pkg.backend's import of yaml made lazy
    # means a missing yaml no longer fails ``from pkg import backend``: backend is never None,
    # and the ImportError comes at ``backend.load()``, which nothing catches
    before = {"pkg/__init__.py": OPTIONAL_INIT, "pkg/backend.py": BACKEND}
    after = {"pkg/backend.py": BACKEND.replace("import yaml", "lazy import yaml")}
    a = _analyse(tmp_path, before, after)
    (drop,) = _kind(a, "guard.dropped")
    assert (drop.path, drop.line, drop.symbol) == ("pkg/__init__.py", 5, "pkg.backend")
    assert drop.details["reason"] == "dependency-now-required"
    assert drop.details["lazy_names"] == ["yaml"]
    assert drop.details["escaped_by"] == {
        "module": "pkg.backend",
        "path": "pkg/backend.py",
        "lines": [1],
    }
    (risk,) = [r for r in a.model.risks if r["id"] == "fallback-escaped"]
    assert risk["evidence"][0]["path"] == "pkg/__init__.py"
    assert "fallback-removed" not in {r["id"] for r in a.model.risks}  # nothing was removed
    assert a.model.summary.verdict in ("behavior-change", "refactor-with-behavior-change")
    md = render_markdown(a.model, "en")
    assert (
        "`except ImportError` around the import of `pkg.backend` at `pkg/__init__.py:5` no "
        "longer catches a missing `yaml`: `pkg/backend.py` imports it lazily now"
    ) in md
    assert "the `except ImportError` around `pkg.backend` no longer catches" in md  # verdict
    zh = render_markdown(a.model, "zh")
    assert "导入后备被惰性导入绕过" in zh and "不再能捕获缺失的 `yaml`" in zh
    # the same through __lazy_modules__ (lazy on 3.15), and in a plugin loader function
    loader = (
        "def backends():\n"
        "    try:\n"
        "        import pkg.backend\n"
        "    except (ImportError, AttributeError):\n"
        "        return []\n"
        "    return [pkg.backend]\n"
    )
    listed = '__lazy_modules__ = ["yaml"]\n\n' + BACKEND
    b = _analyse(
        tmp_path / "b",
        {"pkg/backend.py": BACKEND, "pkg/plugins.py": loader},
        {"pkg/backend.py": listed},
    )
    (drop,) = _kind(b, "guard.dropped")
    assert (drop.path, drop.details["scope"]) == ("pkg/plugins.py", "backends")


def test_a_lazy_import_read_while_the_module_runs_still_fails_inside_the_fallback(
    tmp_path: Path,
):
    # ``yaml.SafeLoader`` is read at import: the lazy import is loaded there, inside the try
    backend = BACKEND + "\n\nLOADER = yaml.SafeLoader\n"
    before = {"pkg/__init__.py": OPTIONAL_INIT, "pkg/backend.py": backend}
    after = {"pkg/backend.py": backend.replace("import yaml", "lazy import yaml")}
    a = _analyse(tmp_path, before, after)
    assert not _kind(a, "guard.dropped")
    # a standard-library module is always there: its import cannot fail
    csv = BACKEND.replace("yaml", "csv")
    b = _analyse(
        tmp_path / "b",
        {"pkg/__init__.py": OPTIONAL_INIT, "pkg/backend.py": csv},
        {"pkg/backend.py": csv.replace("import csv", "lazy import csv")},
    )
    assert not _kind(b, "guard.dropped")


EFFECTS = {
    # each module acts on the process when imported: made lazy, that happens at first use
    "pkg/patches.py": (
        "import json\n\n\ndef _fast(obj):\n    return str(obj)\n\n\njson.dumps = _fast\n",
        (8, "stores into json.dumps"),
    ),
    "pkg/env.py": (
        'import os\n\nos.environ["PKG_MODE"] = "fast"\nMODE = "fast"\n',
        (3, "stores into os.environ['PKG_MODE']"),
    ),
    "pkg/compat.py": (
        'import sys\n\nfrom pkg import heavy\n\nsys.modules["pkg_legacy"] = heavy\n',
        (5, "stores into sys.modules['pkg_legacy']"),
    ),
    "pkg/logs.py": (
        "import logging\n\nlogging.basicConfig(level=logging.INFO)\nLOG = logging.getLogger()\n",
        (3, "calls logging.basicConfig"),
    ),
}


def test_each_kind_of_import_time_effect_deferred_by_lazy_is_named_with_its_line(
    tmp_path: Path,
):
    for i, (path, (code, effect)) in enumerate(sorted(EFFECTS.items())):
        module = path[:-3].replace("/", ".")
        before = LISTED_BEFORE.replace("import csv\n", f"import csv\nimport {module}\n")
        after = before.replace(f"import {module}\n", f"lazy import {module}\n")
        a = _analyse(tmp_path / str(i), {path: code, "pkg/app.py": before}, {"pkg/app.py": after})
        (made,) = _kind(a, "import.made-lazy")
        assert made.details["proven"] is False, path
        assert [(e["line"], e["what"]) for e in made.details["effects"]] == [effect], path
        (risk,) = [r for r in a.model.risks if r["id"] == "lazy-import-effects"]
        assert risk["evidence"][0]["module_path"] == path


def test_a_lazy_import_made_eager_names_the_heavy_packages_it_now_loads_at_import(
    tmp_path: Path,
):
    # pkg.model imports torch at module level: making ``lazy from pkg.model import Net`` eager
    # loads torch whenever pkg.app is imported; ``lazy import numpy`` made eager, numpy itself
    model = {"pkg/model.py": "import torch\n\n\nclass Net(torch.nn.Module):\n    pass\n"}
    lazy = LISTED_BEFORE.replace(
        "from pkg.heavy import load\n",
        "lazy from pkg.heavy import load\nlazy from pkg.model import Net\nlazy import numpy\n",
    )
    eager = lazy.replace("lazy from pkg.model", "from pkg.model").replace(
        "lazy import numpy", "import numpy"
    )
    a = _analyse(tmp_path, {**model, "pkg/app.py": lazy}, {"pkg/app.py": eager})
    got = {f.symbol: f.details["heavy_loaded"] for f in _kind(a, "import.made-eager")}
    assert got == {"Net": ["torch"], "numpy": ["numpy"]}
    md = render_markdown(a.model, "en")
    assert "loads the heavy `numpy` and `torch` at import now instead of at first use" in md
    zh = render_markdown(a.model, "zh")
    assert "较重的 `numpy`、`torch` 现在于导入时加载" in zh
