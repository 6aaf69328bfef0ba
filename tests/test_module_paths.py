"""Dotted module names of the files of a real repository (fastapi's 2,700 head paths): the
package directories are worked out once per set of head paths, and a name always follows the
head paths it is asked with."""

from __future__ import annotations

from pathlib import Path

from prreport.bundle import load_bundle
from prreport.classify import module_name, python_module_path

BUNDLE = Path(__file__).resolve().parent / "corpus" / "bundles" / "fastapi-25270fce.json.gz"


def test_module_names_follow_the_head_paths_they_are_asked_with():
    heads = load_bundle(BUNDLE).head_paths
    assert len(heads) > 2000 and "fastapi/dependencies/utils.py" in heads
    assert (
        python_module_path("fastapi/dependencies/utils.py", heads) == "fastapi.dependencies.utils"
    )
    assert python_module_path("fastapi/__init__.py", heads) == "fastapi"
    assert module_name("fastapi/dependencies/utils.py", (), heads) == "fastapi.dependencies"
    # the same file in a tree without package markers: a top-level module of its directory
    bare = tuple(p for p in heads if not p.endswith("__init__.py"))
    assert python_module_path("fastapi/dependencies/utils.py", bare) == "utils"
    assert module_name("fastapi/dependencies/utils.py", (), bare) == "fastapi/dependencies"
    # any iterable of paths, not only the bundle's tuple
    assert python_module_path("fastapi/routing.py", iter(heads)) == "fastapi.routing"
    every = {python_module_path(p, heads) for p in heads if p.startswith("fastapi/")}
    assert {"fastapi.routing", "fastapi.security.oauth2", "fastapi"} <= every
