"""A method rewritten in place under a new name is no rename: pip c6906f1a replaced
``Git.get_subdirectory`` (a 20-line search for setup.py) by ``Git.get_repo_root_dir`` (one
line) at the same place with the same parameters, and moved the search into the base class.
Calling that a rename would tell the reviewer the old behaviour lives on under the new name."""

from __future__ import annotations

import pytest

from prreport.bundle import load_bundle
from prreport.config import Config
from prreport.pipeline import Analysis, analyse
from tests.test_corpus import CORPUS


@pytest.fixture(scope="module")
def pip_vcs() -> Analysis:
    return analyse(load_bundle(CORPUS / "bundles" / "pip-c6906f1a.json.gz"), Config())


def test_a_body_rewritten_in_place_under_a_new_name_is_not_a_rename(pip_vcs: Analysis):
    renames = {
        (f.details.get("old_qualname"), f.details.get("new_qualname"))
        for f in pip_vcs.findings
        if f.kind == "symbol.renamed"
    }
    assert ("Git.get_subdirectory", "Git.get_repo_root_dir") not in renames
    assert ("Mercurial.get_subdirectory", "Mercurial.get_repo_root_dir") not in renames
