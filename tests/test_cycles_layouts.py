"""Import cycles and lazy-import reasons on realistic package trees made in temp dirs:
``python/`` with a namespace package and a heavy package ``__init__`` (sglang), ``src/`` with
a namespace root package (poetry), a flat layout with a single-file module, a partial tree.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from prreport.config import Config
from prreport.pipeline import Analysis, analyse
from prreport.render import render_markdown
from tests.fixtures import seed_pr
from tests.gitrepo import analyse_commit

PKG = seed_pr.PKG
STAGING = "sglang.srt.disaggregation.common.staging_handler"
HEAVY_INIT = """import torch

from sglang.srt.disaggregation.mooncake.conn import MooncakeKVManager
from sglang.srt.disaggregation.nixl.conn import NixlKVManager
from sglang.srt.managers.schedule_batch import ScheduleBatch
"""


def _of(a: Analysis, kind: str) -> list:
    return [f for f in a.findings if f.kind == kind]


def _sglang_tree() -> dict[str, str | None]:
    """The seed repository as sglang lays it out: ``sglang/srt`` a namespace package, a heavy
    ``sglang/__init__.py`` that imports the backends, metadata under ``python/``."""
    files: dict[str, str | None] = dict(seed_pr.base_files())
    del files["python/sglang/srt/__init__.py"]
    files["python/sglang/__init__.py"] = HEAVY_INIT
    files["python/pyproject.toml"] = '[project]\nname = "sglang"\ndependencies = ["torch"]\n'
    return files


def test_python_layout_namespace_and_heavy_init_give_safe_and_the_root_contract(tmp_path: Path):
    a = analyse_commit(tmp_path, _sglang_tree(), seed_pr.pr_files(), "refactor: hoist (#35980)")
    safe = _of(a, "cycle.safe")
    assert sorted(f.path for f in safe) == [f"{PKG}/mooncake/conn.py", f"{PKG}/nixl/conn.py"]
    assert all(f.symbol == STAGING and f.details["complete"] for f in safe)
    # the shared ancestors' __init__ (the heavy sglang/__init__.py) is not walked
    assert all("sglang" not in f.details["explored"] for f in safe)
    (contract,) = _of(a, "contract.implicit")
    assert contract.symbol == STAGING and contract.details["forbidden"] == ["sglang"]
    assert contract.details["module_path"] == f"{PKG}/common/staging_handler.py"
    # the root package, as its wildcard; no contract: staging_handler imports sglang in functions
    assert contract.details["forbidden_checked"] == ["sglang.**"]
    assert contract.details["contract_toml"] is None and contract.details["test_verified"]
    assert a.model.summary.action["level"] != "block"


def test_new_hoist_in_python_layout_walks_the_targets_own_packages(tmp_path: Path):
    base = _sglang_tree()
    base[f"{PKG}/common/__init__.py"] = "from sglang.srt.utils import is_npu\n"
    base[f"{PKG}/decode.py"] = str(base[f"{PKG}/decode.py"]).replace(
        "def poll_decode(queue):\n",
        "def poll_decode(queue):\n    from .common import staging_handler\n",
    )
    after = str(base[f"{PKG}/decode.py"]).replace("    from .common import staging_handler\n", "")
    after = "from sglang.srt.disaggregation.common import staging_handler\n" + after
    a = analyse_commit(tmp_path, base, {f"{PKG}/decode.py": after}, "refactor: hoist (#8)")
    (safe,) = [f for f in _of(a, "cycle.safe") if f.symbol == STAGING]
    # the target's package __init__ runs (not an ancestor of decode), sglang/__init__ does not
    assert "sglang.srt.disaggregation.common" in safe.details["explored"]
    assert "sglang.srt.utils" in safe.details["explored"]
    assert "sglang" not in safe.details["explored"]


def test_src_layout_namespace_root_never_shadows_the_standard_library(tmp_path: Path):
    # poetry's shape: src/app has no __init__.py and holds a package named like a stdlib module
    base = {
        "src/app/json/__init__.py": "from app.cli import main\n",
        "src/app/cli.py": "def main():\n    from app.util import dump\n\n    return dump({})\n",
        "src/app/util.py": "import json\n\n\ndef dump(x):\n    return json.dumps(x)\n",
        "tests/test_cli.py": "from app.cli import main\n",
    }
    after = "from app.util import dump\n\n\ndef main():\n    return dump({})\n"
    a = analyse_commit(tmp_path, base, {"src/app/cli.py": after}, "refactor: hoist (#9)")
    (safe,) = _of(a, "cycle.safe")
    assert safe.details["importer_module"] == "app.cli" and safe.symbol == "app.util"
    assert safe.details["target_external_imports"] == ["json"]  # not app.json
    assert safe.details["complete"] is True and safe.details["explored"] == ["app.util"]
    (contract,) = _of(a, "contract.implicit")
    assert contract.details["forbidden"] == ["app"]


def test_flat_layout_single_file_module_and_an_indirect_cycle(tmp_path: Path):
    base = {
        "helpers.py": "from pkg import a\n\n\ndef h():\n    return a\n",
        "pkg/__init__.py": "",
        "pkg/a.py": "def run():\n    import helpers\n\n    return helpers.h()\n",
        "pkg/b.py": "from pkg.c import scale\n",
        "pkg/c.py": "import pkg.a\n\n\ndef scale(x):\n    return x\n",
        "pkg/d.py": "def use():\n    from pkg.b import scale\n\n    return scale\n\n\nX = 1\n",
    }
    after = "import helpers\n\n\ndef run():\n    return helpers.h()\n"
    a = analyse_commit(tmp_path, base, {"pkg/a.py": after}, "refactor: hoist (#10)")
    (risk,) = _of(a, "cycle.risk")
    assert risk.symbol == "helpers" and risk.details["chain"] == ["pkg.a", "helpers", "pkg.a"]
    # the lazy import in b's neighbour: hoisting pkg.b into pkg.d would not cycle (hoistable),
    # while pkg.b -> pkg.c -> pkg.a -> ... never reaches d
    d_change = str(base["pkg/d.py"]).replace("X = 1", "X = 2")
    base2 = {**base, "pkg/c.py": "import pkg.d\n\n\ndef scale(x):\n    return x\n"}
    b = analyse_commit(tmp_path / "2", base2, {"pkg/d.py": d_change}, "refactor: tidy (#11)")
    (lazy,) = _of(b, "lazy-import.retained")
    assert lazy.details["reason"] == "cycle-avoidance"  # d -> b -> c -> d: indirect
    assert lazy.details["cycle_chain"] == ["pkg.d", "pkg.b", "pkg.c", "pkg.d"]
    assert lazy.details["followup_diff"] == ""


def _render(a: Analysis, lang: str) -> str:
    return render_markdown(a.model, lang)


def test_partial_tree_is_unchecked_with_a_visible_risk_and_no_skim(tmp_path: Path):
    base = {
        "pkg/__init__.py": "",
        "pkg/a.py": "def run(x):\n    from pkg.b import helper\n\n    return helper(x)\n",
        "pkg/b.py": "def helper(x):\n    return x\n",
    }
    after = "from pkg.b import helper\n\n\ndef run(x):\n    return helper(x)\n"
    full = analyse_commit(tmp_path, base, {"pkg/a.py": after}, "refactor: hoist (#12)")
    assert _of(full, "cycle.safe") and _of(full, "contract.implicit")
    # the same PR with only the changed files (a bundle without the tree)
    partial = analyse(dataclasses.replace(full.bundle, head_paths=(), context_files={}), Config())
    (unchecked,) = _of(partial, "cycle.unchecked")
    assert unchecked.symbol == "pkg.b" and unchecked.details["target_missing"] is True
    assert not _of(partial, "cycle.safe") and not _of(partial, "contract.implicit")
    risks = {r["id"]: r for r in partial.model.risks}
    assert risks["cycle-unchecked"]["severity"] == "medium"
    assert partial.model.summary.action["level"] == "review"
    en, zh = _render(partial, "en"), _render(partial, "zh")
    assert (
        "not verified, because for `pkg.b`" in en and "the target's source is not in the tree" in en
    )
    assert "Safe to skim" not in en
    assert "未能验证，因为" in zh and "的源码不在仓库树中" in zh


def test_depth_limit_is_named_as_what_was_missing(tmp_path: Path):
    base = {
        "pkg/__init__.py": "",
        "pkg/a.py": "def run(x):\n    from pkg.b import helper\n\n    return helper(x)\n",
        "pkg/b.py": "import pkg.c\n\n\ndef helper(x):\n    return x\n",
        "pkg/c.py": "import pkg.d\n",
        "pkg/d.py": "import pkg.e\n",
        "pkg/e.py": "import pkg.f\n",
        "pkg/f.py": "X = 1\n",
    }
    after = "from pkg.b import helper\n\n\ndef run(x):\n    return helper(x)\n"
    a = analyse_commit(tmp_path, base, {"pkg/a.py": after}, "refactor: hoist (#13)")
    (unchecked,) = _of(a, "cycle.unchecked")
    assert unchecked.details["depth_limited"] is True
    assert "depth limit of 4 hops" in _render(a, "en")
    assert "4 层的深度上限" in _render(a, "zh")
    (contract,) = _of(a, "contract.implicit")  # b's own imports are known
    assert contract.details["verified"] is False


# --- lazy-import reasons -----------------------------------------------------------------------

_REASONS = """import importlib.util
import os
import platform
import sys

_HAS_ORJSON = importlib.util.find_spec("orjson") is not None


def by_spec():
    if importlib.util.find_spec("yaml") is not None:
        import yaml

        return yaml
    return None


def by_flag():
    if _HAS_ORJSON:
        import orjson

        return orjson
    return None


def backend():
    import trio

    return trio


def required_backend():
    import uvloop

    return uvloop


def windows():
    if os.name == "nt":
        import msvcrt

        return msvcrt
    return None


def mac():
    if platform.system() == "Darwin":
        import fcntl

        return fcntl
    return None


def old_python():
    if sys.version_info < (3, 11):
        import tomli

        return tomli
    return None


def gpu(torch):
    if torch.cuda.is_available():
        import pynvml

        return pynvml
    return None


def capability(obj):
    if hasattr(obj, "fileno"):
        import select

        return select
    return None


def typed(value):
    if isinstance(value, dict):
        import collections

        return collections
    return None


def numeric():
    from app.numeric import mean

    return mean


def stated():
    from app.plugins import load

    return load


def stated_again():
    from app.plugins import load as again

    return again
"""


def test_each_lazy_import_reason_on_a_real_shape(tmp_path: Path):
    base = {
        "pyproject.toml": '[project]\nname = "app"\ndependencies = ["uvloop>=0.17"]\n',
        "app/__init__.py": "",
        "app/reasons.py": _REASONS,
        "app/numeric.py": "from app.stats import mean\n",
        "app/stats.py": "import numpy\n\n\ndef mean(x):\n    return numpy.mean(x)\n",
        "app/plugins.py": "def load():\n    return []\n",
    }
    body = "Tidy.\n\n- `app.plugins` stays lazy in `stated()`: it is optional, loaded only on request.\n"
    a = analyse_commit(
        tmp_path,
        base,
        {"app/reasons.py": _REASONS + "\nX = 1\n"},
        f"refactor: tidy (#14)\n\n{body}",
    )
    reasons = {
        (f.details["scope"], f.symbol): f.details["reason"] for f in _of(a, "lazy-import.retained")
    }
    assert reasons == {
        ("by_spec", "yaml"): "optional-dependency",
        ("by_flag", "orjson"): "optional-dependency",
        ("backend", "trio"): "optional-dependency",  # an optional backend, not declared
        ("required_backend", "uvloop"): "hoistable",  # declared required in pyproject.toml
        ("windows", "msvcrt"): "platform-guard",
        ("mac", "fcntl"): "platform-guard",
        ("old_python", "tomli"): "platform-guard",
        ("gpu", "pynvml"): "platform-guard",
        ("capability", "select"): "platform-guard",
        ("typed", "collections"): "hoistable",  # isinstance is no platform check
        ("numeric", "mean"): "heavy-dependency",  # app.numeric -> app.stats -> numpy
        ("stated", "load"): "optional-dependency",  # the PR text says why
        ("stated_again", "again"): "optional-dependency",  # ... for every import of the module
    }


def test_seed_report_states_the_implicit_contract_in_both_languages(tmp_path: Path):
    repo, _base, _sha = seed_pr.build_seed_repo(tmp_path / "sglang")
    from prreport.config import GitConfig
    from prreport.pipeline import gather
    from prreport.sources.git import GitSource

    cfg = Config(git=GitConfig(repo=str(repo.path)))
    a = analyse(gather(GitSource(str(seed_pr.PR_NUMBER), cfg.git), cfg), cfg)
    en, zh = _render(a, "en"), _render(a, "zh")
    handler = "`common/staging_handler.py`"
    en_line = next(ln for ln in en.splitlines() if "**Implicit contract**" in ln)
    assert handler in en_line and "does not import `sglang` at module level" in en_line
    assert "the import cycle appears at once" in en_line
    zh_line = next(ln for ln in zh.splitlines() if "**隐式契约**" in ln)
    assert handler in zh_line and "模块级永不导入 `sglang`" in zh_line
    assert "会立即形成循环导入" in zh_line
