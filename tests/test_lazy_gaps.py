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
