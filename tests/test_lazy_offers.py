"""PEP 810 offers (Python 3.15 issue, §3): what a project requiring Python 3.15 keeps
function-local for weight, for no reason or to break a cycle is offered as a module-level
``lazy`` import with a codemod diff checked against the tree; a project supporting older Pythons
is told once that ``lazy`` needs 3.15 and offered nothing.

Real git repositories: a package whose ``__init__`` imports its submodules, a views module that
imports the app back (the cycle), a plugin module that registers at import.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from prreport.config import Config, GitConfig
from prreport.pipeline import Analysis, analyse, gather
from prreport.python.parse import parse_source
from prreport.render.markdown import render_markdown
from prreport.sources.git import GitSource
from tests.gitrepo import Repo

PKG = {
    "pkg/__init__.py": "from pkg import app\nfrom pkg import views\n",
    "pkg/views.py": "from pkg import app\n\n\ndef render(x):\n    return app.NAME + x\n",
    "pkg/registry.py": "HANDLERS = []\n\n\ndef register(f):\n    HANDLERS.append(f)\n    return f\n",
    "pkg/plugin.py": "from pkg.registry import register\n\n\n@register\ndef handler(x):\n    return x\n",
}

BEFORE = (
    '"""The app."""\n'
    "\n"
    "import os\n"
    "\n"
    "NAME = 'app'\n"
    "\n"
    "\n"
    "def parse(p):\n"
    "    for line in p:\n"
    "        import json\n"
    "        yield json.loads(line)\n"
    "\n"
    "\n"
    "def train(x):\n"
    "    import torch\n"
    "    return torch.tensor(x)\n"
    "\n"
    "\n"
    "def show(x):\n"
    "    from pkg.views import render\n"
    "    return render(x)\n"
    "\n"
    "\n"
    "def home():\n"
    "    import os.path\n"
    "    return os.path.expanduser('~')\n"
)
# the PR hoists the import of ``os.path`` (an import PR: where imports run is its business)
AFTER = BEFORE.replace("import os\n", "import os\nimport os.path\n", 1).replace(
    "    import os.path\n", ""
)


def _pyproject(requires: str) -> dict[str, str]:
    return {"pyproject.toml": f'[project]\nname = "pkg"\nrequires-python = "{requires}"\n'}


def _analyse(root: Path, extra: dict[str, str], after: str = AFTER) -> Analysis:
    repo = Repo(root / "repo")
    repo.commit("init", {**PKG, **extra, "pkg/app.py": BEFORE})
    repo.commit("refactor(pkg): hoist os.path (#9)", {"pkg/app.py": after})
    cfg = Config()
    src = GitSource("9", GitConfig(repo=str(repo.path)))
    try:
        return analyse(gather(src, cfg), cfg)
    finally:
        src.close()


def _kept(a: Analysis) -> dict[str, dict]:
    return {f.symbol: f.details for f in a.findings if f.kind == "lazy-import.retained"}


def _step(a: Analysis, what: str) -> dict | None:
    return next((x for x in a.model.summary.action["next_steps"] if x["what"] == what), None)


def _apply(root: Path, diff: str) -> str:
    subprocess.run(["git", "apply", "-"], cwd=root, input=diff, text=True, check=True)
    return (root / "pkg/app.py").read_text()


def test_a_project_requiring_python_315_is_offered_lazy_imports_with_diffs(tmp_path: Path):
    a = _analyse(tmp_path, _pyproject(">=3.15"))
    kept = _kept(a)
    assert {s: d["reason"] for s, d in kept.items()} == {
        "json": "hoistable",
        "torch": "heavy-dependency",
        "render": "cycle-avoidance",
    }
    assert all(d["lazy_offer"] == "offered" for d in kept.values())
    diff = kept["json"]["lazy_followup_diff"]
    assert "+lazy import json\n" in diff and "-        import json\n" in diff
    # the diff applies to the head tree, and the module it gives parses with a module-level
    # lazy import where Python allows it
    text = _apply(tmp_path / "repo", diff)
    tree, problem, _ = parse_source(text, "pkg/app.py")
    assert tree is not None and not problem
    (lazy,) = [st for st in tree.body if getattr(st, "is_lazy", False)]
    assert lazy.names[0].name == "json"
    step = _step(a, "use-lazy-import")
    assert step is not None and step["names"] == ["json", "render", "torch"]
    assert step["requires_python"] == "3.15" and step["cycles"] == ["render"]
    assert len(step["diffs"]) == 3
    assert _step(a, "lazy-needs-3.15") is None
    md = render_markdown(a.model, "en")
    assert "module-level `lazy` imports (PEP 810: the project requires Python 3.15" in md
    # the cycle the function-local import avoids returns when lazy imports are disabled
    assert (
        "under `-X lazy_imports=none` a lazy import is eager: the import cycle the function-local import of `render` avoids returns then"
        in md
    )
    assert "+lazy from pkg.views import render" in md  # the diff, in the appendix
    zh = render_markdown(a.model, "zh")
    assert "改为模块级 `lazy` 导入（PEP 810：项目要求 Python 3.15" in zh
    assert "导入环会重新出现" in zh


def test_classifiers_declare_the_supported_pythons_when_requires_python_is_absent(tmp_path: Path):
    classifiers = (
        '[project]\nname = "pkg"\nclassifiers = [\n'
        '    "Programming Language :: Python :: 3",\n'
        '    "Programming Language :: Python :: 3.15",\n'
        '    "Programming Language :: Python :: 3.16",\n]\n'
    )
    a = _analyse(tmp_path, {"pyproject.toml": classifiers})
    assert _kept(a)["torch"]["lazy_offer"] == "offered"
    older = classifiers.replace("3.15", "3.12")
    b = _analyse(tmp_path / "b", {"pyproject.toml": older})
    assert _kept(b)["torch"] == {**_kept(b)["torch"], "lazy_offer": "needs-3.15"}
    assert _kept(b)["torch"]["requires_python"] == "3.12"


def test_setup_cfg_python_requires_is_read(tmp_path: Path):
    cfg = {"setup.cfg": "[options]\npackages = pkg\npython_requires = >=3.15\n"}
    a = _analyse(tmp_path, cfg)
    assert _step(a, "use-lazy-import") is not None


def test_a_project_supporting_older_pythons_is_told_once_and_offered_nothing(tmp_path: Path):
    a = _analyse(tmp_path, _pyproject(">=3.10"))
    kept = _kept(a)
    assert all(d["lazy_offer"] == "needs-3.15" for d in kept.values())
    assert not any("lazy_followup_diff" in d for d in kept.values())
    assert _step(a, "use-lazy-import") is None
    steps = [x for x in a.model.summary.action["next_steps"] if x["what"] == "lazy-needs-3.15"]
    assert steps == [
        {"what": "lazy-needs-3.15", "names": ["json", "render", "torch"], "requires_python": "3.10"}
    ]
    md = render_markdown(a.model, "en")
    assert md.count("`lazy` needs Python 3.15") == 1
    assert "the project supports Python 3.10: nothing is offered" in md
    assert "lazy import json" not in md
    zh = render_markdown(a.model, "zh")
    assert "`lazy` 需要 Python 3.15，而项目支持 Python 3.10：因此不作建议" in zh


def test_a_pr_not_about_imports_gets_no_word_about_lazy(tmp_path: Path):
    after = BEFORE.replace("NAME = 'app'", "NAME = 'the app'")
    a = _analyse(tmp_path, _pyproject(">=3.10"), after)
    assert _step(a, "lazy-needs-3.15") is None


def test_what_a_lazy_import_would_change_is_not_offered(tmp_path: Path):
    # the module binds ``json`` already; ``torch`` is bound again in the function; a fallback
    # inside an except handler and an import under ``with`` must run where they are
    before = (
        "import contextlib\n"
        "\n"
        "json = None\n"
        "\n"
        "\n"
        "def parse(p):\n"
        "    import json\n"
        "    return json.loads(p)\n"
        "\n"
        "\n"
        "def train(x):\n"
        "    import torch\n"
        "    torch = torch.cuda\n"
        "    return torch\n"
        "\n"
        "\n"
        "def quiet():\n"
        "    with contextlib.suppress(Warning):\n"
        "        import csv\n"
        "    return csv\n"
        "\n"
        "\n"
        "def home():\n"
        "    import os.path\n"
        "    return os.path.expanduser('~')\n"
    )
    after = before.replace("import contextlib\n", "import contextlib\nimport os.path\n").replace(
        "    import os.path\n", ""
    )
    repo = Repo(tmp_path / "repo")
    repo.commit("init", {**PKG, **_pyproject(">=3.15"), "pkg/app.py": before})
    repo.commit("refactor(pkg): hoist os.path (#9)", {"pkg/app.py": after})
    cfg = Config()
    src = GitSource("9", GitConfig(repo=str(repo.path)))
    try:
        a = analyse(gather(src, cfg), cfg)
    finally:
        src.close()
    kept = _kept(a)
    assert kept["json"]["lazy_offer"] == "no-codemod"
    assert kept["torch"]["lazy_offer"] == "no-codemod"
    assert "lazy_offer" not in kept["csv"]  # under ``with``: not a candidate
    assert _step(a, "use-lazy-import") is None
