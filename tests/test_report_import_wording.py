"""How the report names a lazy import and its call sites, on a real commit (pypa/pip 4b803478,
saved in tests/corpus/): ``import urllib.request`` is ``urllib.request`` to a reader (it binds
only ``urllib``), each import is named once per file however many functions it moved into, and
call sites that share a name and guards are counted, not listed one by one."""

from __future__ import annotations

import re

import pytest

from prreport.bundle import load_bundle
from prreport.config import Config
from prreport.pipeline import Analysis, analyse
from prreport.render.markdown import render_markdown
from tests.test_corpus import CORPUS


@pytest.fixture(scope="module")
def pip_lazy_urllib() -> Analysis:
    return analyse(load_bundle(CORPUS / "bundles" / "pip-4b803478.json.gz"), Config())


def _item(markdown: str, path: str) -> str:
    # the breakdown item of the file (its path linked when the source has a URL)
    item = rf"\d+\. \*\*\[?`{re.escape(path)}`"
    [line] = [ln for ln in markdown.splitlines() if re.match(item, ln)]
    return line


def test_a_dotted_plain_import_is_named_by_its_module(pip_lazy_urllib: Analysis):
    sunk = [f for f in pip_lazy_urllib.findings if f.kind == "import.sunk"]
    assert {f.symbol for f in sunk} == {"urllib.request", "install_wheel"}
    assert all("urllib moved" not in f.message for f in sunk)


def test_each_import_is_named_once_and_equal_call_sites_are_counted(pip_lazy_urllib: Analysis):
    md = render_markdown(pip_lazy_urllib.model, "en")
    urls = _item(md, "src/pip/_internal/utils/urls.py")
    # two functions gained the same import: one name, not "`urllib.request` and `urllib.request`"
    assert "Makes `urllib.request` function-local;" in urls
    # four unguarded calls through `urllib` in path_to_url and url_to_path
    assert "call sites keep their guards (`urllib` ×4 unguarded)" in urls
    git = _item(md, "src/pip/_internal/vcs/git.py")
    assert 'call sites keep their guards (`urllib` under `scheme.endswith("file")`)' in git


def test_a_guard_finding_names_the_call_not_the_bound_root(pip_lazy_urllib: Analysis):
    guards = [f for f in pip_lazy_urllib.findings if f.kind == "guard.preserved"]
    assert guards
    assert all(not f.message.startswith("urllib()") for f in guards)
    assert any(f.message.startswith("urllib.request.url2pathname() in ") for f in guards)
