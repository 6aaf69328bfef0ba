"""Import moves and cycles in the shapes real refactor commits take (pip, black, mypy, requests,
attrs, starlette), each as a small before/after repository."""

from __future__ import annotations

from pathlib import Path

from prreport.diffparse import changed_lines
from prreport.findings import Finding
from prreport.pipeline import Analysis
from tests.gitrepo import analyse_commit


def _pr(tmp_path: Path, before: dict[str, str], after: dict[str, str | None]) -> Analysis:
    return analyse_commit(tmp_path, dict(before), after, "refactor: imports (#7)")


def _of(a: Analysis, kind: str, path: str | None = None) -> list[Finding]:
    return [f for f in a.findings if f.kind == kind and (path is None or f.path == path)]


def _crashes(a: Analysis) -> list[str]:
    return [d.message for d in a.diagnostics if "analyzer failed" in d.message]


def _changed(a: Analysis, path: str) -> set[tuple[str, str, int]]:
    ch = changed_lines(a.bundle.file(path).patch)
    return {(path, "-", n) for n in ch.removed} | {(path, "+", n) for n in ch.added}


def _explained(a: Analysis, path: str) -> set[tuple[str, str, int]]:
    return {
        e for f in a.findings if f.kind.startswith("import.") for e in f.explains if e[0] == path
    }


# --- sunk: module-level imports made lazy (pip-4b803478, pip-fc2d4a3b, black-9ce100ba) --------

URLS_BEFORE = '''"""URL helpers."""

import os
import string
import urllib.parse
import urllib.request

from .compat import WINDOWS


def path_to_url(path: str) -> str:
    """Convert a path to a file: URL."""
    path = os.path.normpath(os.path.abspath(path))
    url = urllib.parse.urljoin("file:", urllib.request.pathname2url(path))
    return url


def url_to_path(url: str) -> str:
    """Convert a file: URL to a path."""
    assert url.startswith("file:"), f"not a file: URL: {url!r}"
    _, netloc, path, _, _ = urllib.parse.urlsplit(url)
    if WINDOWS and len(path) > 2 and path[1] in string.ascii_letters:
        path = path[1:]
    return urllib.request.url2pathname(netloc + path)
'''

URLS_AFTER = '''"""URL helpers."""

import os
import string
import urllib.parse

from .compat import WINDOWS


def path_to_url(path: str) -> str:
    """Convert a path to a file: URL."""
    import urllib.request

    path = os.path.normpath(os.path.abspath(path))
    url = urllib.parse.urljoin("file:", urllib.request.pathname2url(path))
    return url


def url_to_path(url: str) -> str:
    """Convert a file: URL to a path."""
    import urllib.request

    assert url.startswith("file:"), f"not a file: URL: {url!r}"
    _, netloc, path, _, _ = urllib.parse.urlsplit(url)
    if WINDOWS and len(path) > 2 and path[1] in string.ascii_letters:
        path = path[1:]
    return urllib.request.url2pathname(netloc + path)
'''


def test_one_of_several_module_imports_sunk_into_two_functions(tmp_path: Path):
    base = {"pip/__init__.py": "", "pip/compat.py": "WINDOWS = False\n"}
    a = _pr(tmp_path, {**base, "pip/urls.py": URLS_BEFORE}, {"pip/urls.py": URLS_AFTER})
    assert not _crashes(a)
    sunk = _of(a, "import.sunk")
    assert sorted((s.symbol, s.details["to_scope"]) for s in sunk) == [
        ("urllib.request", "path_to_url"),
        ("urllib.request", "url_to_path"),
    ]
    assert {s.details["module"] for s in sunk} == {"urllib.request"}
    assert all(s.details["from_scope"] == "<module>" and s.details["from_line"] == 6 for s in sunk)
    assert not _of(a, "import.added") and not _of(a, "import.removed")
    assert _explained(a, "pip/urls.py") == _changed(a, "pip/urls.py")


CMDOPTIONS_BEFORE = '''from __future__ import annotations

import logging
from optparse import Values

from pip.models import FormatControl
from pip.utils import pylock as pylock_utils

logger = logging.getLogger(__name__)


def check_dist_restriction(options: Values, check_target: bool = False) -> None:
    """Refuse --lock without a target."""
    if options.lock and not check_target:
        raise ValueError("--lock needs --target")
    if options.lock:
        pylock_utils.validate(options.lock, FormatControl())
'''

CMDOPTIONS_AFTER = '''from __future__ import annotations

import logging
from optparse import Values

from pip.models import FormatControl

logger = logging.getLogger(__name__)


def check_dist_restriction(options: Values, check_target: bool = False) -> None:
    """Refuse --lock without a target."""
    if options.lock and not check_target:
        raise ValueError("--lock needs --target")
    if options.lock:
        # Lazy import to keep CLI startup fast
        from pip.utils import pylock as pylock_utils

        pylock_utils.validate(options.lock, FormatControl())
'''


def test_aliased_submodule_import_sunk_under_a_branch(tmp_path: Path):
    base = {
        "pip/__init__.py": "",
        "pip/models.py": "class FormatControl:\n    pass\n",
        "pip/utils/__init__.py": "",
        "pip/utils/pylock.py": "def validate(lock, fc):\n    return lock\n",
    }
    a = _pr(
        tmp_path,
        {**base, "pip/cli/__init__.py": "", "pip/cli/cmdoptions.py": CMDOPTIONS_BEFORE},
        {"pip/cli/cmdoptions.py": CMDOPTIONS_AFTER},
    )
    assert not _crashes(a)
    (s,) = _of(a, "import.sunk")
    assert (s.symbol, s.details["module"], s.details["to_scope"]) == (
        "pylock_utils",
        "pip.utils",
        "check_dist_restriction",
    )
    assert [g["text"] for g in s.details["to_context"]] == ["options.lock"]
    assert not _of(a, "import.added") and not _of(a, "import.removed")


BLACK_BEFORE = '''import asyncio
import os
from concurrent.futures import Executor, ThreadPoolExecutor, ProcessPoolExecutor
from typing import Any, Optional

from black.mode import Mode


def reformat_many(sources: set, mode: Mode, workers: Optional[int]) -> None:
    """Reformat many files in parallel."""
    executor: Executor
    if workers == 1:
        executor = ThreadPoolExecutor(max_workers=1)
    else:
        executor = ProcessPoolExecutor(max_workers=workers or os.cpu_count())
    asyncio.run(schedule_formatting(sources, mode, executor))


async def schedule_formatting(sources: set, mode: Mode, executor: Executor) -> Any:
    """Run the formatting jobs on the executor."""
    return sources, mode, executor
'''

BLACK_AFTER = '''import asyncio
import os
from typing import TYPE_CHECKING, Any, Optional

from black.mode import Mode

if TYPE_CHECKING:
    from concurrent.futures import Executor


def reformat_many(sources: set, mode: Mode, workers: Optional[int]) -> None:
    """Reformat many files in parallel."""
    from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor

    executor: Executor
    if workers == 1:
        executor = ThreadPoolExecutor(max_workers=1)
    else:
        executor = ProcessPoolExecutor(max_workers=workers or os.cpu_count())
    asyncio.run(schedule_formatting(sources, mode, executor))


async def schedule_formatting(sources: set, mode: Mode, executor: "Executor") -> Any:
    """Run the formatting jobs on the executor."""
    return sources, mode, executor
'''


def test_sunk_imports_with_a_type_checking_copy_for_annotations(tmp_path: Path):
    base = {"black/__init__.py": "", "black/mode.py": "class Mode:\n    pass\n"}
    a = _pr(tmp_path, {**base, "black/run.py": BLACK_BEFORE}, {"black/run.py": BLACK_AFTER})
    assert not _crashes(a)
    sunk = {s.symbol: s for s in _of(a, "import.sunk")}
    assert set(sunk) == {"Executor", "ThreadPoolExecutor", "ProcessPoolExecutor"}
    assert {s.details["to_scope"] for s in sunk.values()} == {"reformat_many"}
    # the TYPE_CHECKING copy is not a runtime dependency: a new typing-only import
    (tc,) = [f for f in _of(a, "import.added") if f.symbol == "Executor"]
    assert tc.details["type_checking"] is True and tc.details["to_scope"] == "<module>"
    assert ("black/run.py", "+", 7) in tc.explains  # ``if TYPE_CHECKING:`` came with it
    assert not _of(a, "cycle.risk")


# --- hoisted: respelled (mypy-b4d52e1f) and re-exported (mypy-cd422e09) ----------------------

DEFAULT_BEFORE = '''from __future__ import annotations

from typing import Callable

from mypy.plugin import Plugin


class DefaultPlugin(Plugin):
    """Type checker plugin that is enabled by default."""

    def get_function_hook(self, fullname: str) -> Callable | None:
        if fullname == "_ctypes.Array":
            from mypy.plugins import ctypes

            return ctypes.array_constructor_callback
        elif fullname == "functools.partial":
            import mypy.plugins.functools

            return mypy.plugins.functools.partial_new_callback
        return None

    def get_method_hook(self, fullname: str) -> Callable | None:
        if fullname == "_ctypes.Array.__getitem__":
            from mypy.plugins import ctypes

            return ctypes.array_getitem_callback
        return None
'''

DEFAULT_AFTER = '''from __future__ import annotations

from typing import Callable

from mypy.plugin import Plugin
from mypy.plugins.ctypes import array_constructor_callback, array_getitem_callback
from mypy.plugins.functools import partial_new_callback


class DefaultPlugin(Plugin):
    """Type checker plugin that is enabled by default."""

    def get_function_hook(self, fullname: str) -> Callable | None:
        if fullname == "_ctypes.Array":
            return array_constructor_callback
        elif fullname == "functools.partial":
            return partial_new_callback
        return None

    def get_method_hook(self, fullname: str) -> Callable | None:
        if fullname == "_ctypes.Array.__getitem__":
            return array_getitem_callback
        return None
'''

MYPY_BASE = {
    "mypy/__init__.py": "",
    "mypy/plugin.py": "class Plugin:\n    pass\n",
    "mypy/plugins/__init__.py": "",
    "mypy/plugins/ctypes.py": (
        "from mypy.plugin import Plugin\n\n\ndef array_constructor_callback(ctx):\n    return ctx\n"
        "\n\ndef array_getitem_callback(ctx):\n    return ctx\n"
    ),
    "mypy/plugins/functools.py": "def partial_new_callback(ctx):\n    return ctx\n",
}


def test_submodule_import_in_methods_hoisted_as_names_of_that_module(tmp_path: Path):
    a = _pr(
        tmp_path,
        {**MYPY_BASE, "mypy/plugins/default.py": DEFAULT_BEFORE},
        {"mypy/plugins/default.py": DEFAULT_AFTER},
    )
    assert not _crashes(a)
    hoisted = sorted(
        (h.symbol, h.details["from_scope"], h.details["module"]) for h in _of(a, "import.hoisted")
    )
    assert hoisted == [
        ("ctypes", "DefaultPlugin.get_function_hook", "mypy.plugins.ctypes"),
        ("ctypes", "DefaultPlugin.get_method_hook", "mypy.plugins.ctypes"),
        ("mypy.plugins.functools", "DefaultPlugin.get_function_hook", "mypy.plugins.functools"),
    ]
    h = next(h for h in _of(a, "import.hoisted") if h.symbol == "mypy.plugins.functools")
    assert h.details["respelled"] == {
        "before": ["import mypy.plugins.functools"],
        "after": ["from mypy.plugins.functools import partial_new_callback"],
    }
    assert not _of(a, "import.added") and not _of(a, "import.removed")
    path = "mypy/plugins/default.py"
    imports = {e for e in _changed(a, path) if "import" in _line(a, path, e)}
    assert imports and imports <= _explained(a, path)
    (safe_ctypes,) = [c for c in _of(a, "cycle.safe") if c.symbol == "mypy.plugins.ctypes"]
    assert safe_ctypes.details["origin"] == "hoisted"


def _line(a: Analysis, path: str, e: tuple[str, str, int]) -> str:
    f = a.bundle.file(path)
    text = f.before if e[1] == "-" else f.after
    return text.splitlines()[e[2] - 1]


def test_a_different_module_is_not_a_respelling(tmp_path: Path):
    before = "def load(s):\n    from json import loads\n\n    return loads(s)\n"
    after = "from pickle import loads\n\n\ndef load(s):\n    return loads(s)\n"
    a = _pr(tmp_path, {"pkg/__init__.py": "", "pkg/io.py": before}, {"pkg/io.py": after})
    assert not _of(a, "import.hoisted")
    assert [f.details["module"] for f in _of(a, "import.removed")] == ["json"]
    assert [f.details["module"] for f in _of(a, "import.added")] == ["pickle"]


CHECKMEMBER_BEFORE = '''from mypy.nodes import TypeInfo


def analyze_member_access(name, typ):
    return type_object_type(typ)


def type_object_type(info: TypeInfo):
    """The type of a type object."""
    return info
'''

CHECKMEMBER_AFTER = """from mypy.nodes import TypeInfo
from mypy.typeops import type_object_type


def analyze_member_access(name, typ):
    return type_object_type(typ)
"""

TYPEOPS_BEFORE = """from mypy.nodes import TypeInfo


def tuple_fallback(typ: TypeInfo):
    return typ
"""

TYPEOPS_AFTER = '''from mypy.nodes import TypeInfo


def tuple_fallback(typ: TypeInfo):
    return typ


def type_object_type(info: TypeInfo):
    """The type of a type object."""
    return info
'''

ATTRS_BEFORE = """from mypy.nodes import TypeInfo
from mypy.typeops import tuple_fallback


def _parse_converter(info: TypeInfo):
    if info.is_class:
        from mypy.checkmember import type_object_type  # To avoid import cycle.

        return type_object_type(info)
    return tuple_fallback(info)
"""

ATTRS_AFTER = """from mypy.nodes import TypeInfo
from mypy.typeops import tuple_fallback, type_object_type


def _parse_converter(info: TypeInfo):
    if info.is_class:
        return type_object_type(info)
    return tuple_fallback(info)
"""


def test_import_hoisted_from_the_new_home_of_a_moved_function(tmp_path: Path):
    base = {"mypy/__init__.py": "", "mypy/nodes.py": "class TypeInfo:\n    is_class = True\n"}
    a = _pr(
        tmp_path,
        {
            **base,
            "mypy/checkmember.py": CHECKMEMBER_BEFORE,
            "mypy/typeops.py": TYPEOPS_BEFORE,
            "mypy/plugins/__init__.py": "",
            "mypy/plugins/attrs.py": ATTRS_BEFORE,
        },
        {
            "mypy/checkmember.py": CHECKMEMBER_AFTER,
            "mypy/typeops.py": TYPEOPS_AFTER,
            "mypy/plugins/attrs.py": ATTRS_AFTER,
        },
    )
    (h,) = _of(a, "import.hoisted", "mypy/plugins/attrs.py")
    assert (h.symbol, h.details["module"], h.details["from_scope"]) == (
        "type_object_type",
        "mypy.typeops",
        "_parse_converter",
    )
    assert h.details["merged_into_existing"] is True
    assert not _of(a, "import.removed", "mypy/plugins/attrs.py")
    assert not _of(a, "import.added", "mypy/plugins/attrs.py")
    assert _explained(a, "mypy/plugins/attrs.py") >= {
        e
        for e in _changed(a, "mypy/plugins/attrs.py")
        if "import" in _line(a, "mypy/plugins/attrs.py", e)
    }


# --- moved across files with the code that uses them (requests-21f60fe8) -----------------------

DEFAULTS_BEFORE = '''"""Default configuration."""

SCHEMAS = ["http", "https"]

import platform
import sys

from . import __version__

defaults = dict()

_implementation = platform.python_implementation()

if _implementation == "PyPy":
    _implementation_version = "%s.%s" % (sys.pypy_version_info.major, sys.pypy_version_info.minor)
else:
    _implementation_version = platform.python_version()

defaults["base_headers"] = {
    "User-Agent": " ".join(["python-requests/%s" % __version__, _implementation_version]),
}
'''

DEFAULTS_AFTER = '''"""Default configuration."""

SCHEMAS = ["http", "https"]

from .utils import default_user_agent

defaults = dict()

defaults["base_headers"] = {
    "User-Agent": default_user_agent(),
}
'''

UTILS_BEFORE = '''"""Utilities."""

import os
import re

from .compat import quote


def requote(uri):
    return quote(re.sub("x", "y", uri), safe=os.sep)
'''

UTILS_AFTER = '''"""Utilities."""

import os
import platform
import re
import sys

from . import __version__
from .compat import quote


def requote(uri):
    return quote(re.sub("x", "y", uri), safe=os.sep)


def default_user_agent():
    """Return a string representing the default user agent."""
    _implementation = platform.python_implementation()

    if _implementation == "PyPy":
        _implementation_version = "%s.%s" % (sys.pypy_version_info.major, sys.pypy_version_info.minor)
    else:
        _implementation_version = platform.python_version()
    return " ".join(["python-requests/%s" % __version__, _implementation_version])
'''

REQUESTS_INIT = '''"""HTTP for humans."""

__version__ = "0.13.0"

from . import utils
from .api import get
'''


def _requests(tmp_path: Path) -> Analysis:
    return _pr(
        tmp_path,
        {
            "requests/__init__.py": REQUESTS_INIT,
            "requests/api.py": "from .defaults import defaults\n\n\ndef get(url):\n    return defaults, url\n",
            "requests/compat.py": "from urllib.parse import quote\n",
            "requests/defaults.py": DEFAULTS_BEFORE,
            "requests/utils.py": UTILS_BEFORE,
        },
        {"requests/defaults.py": DEFAULTS_AFTER, "requests/utils.py": UTILS_AFTER},
    )


def test_imports_moved_to_another_file_with_their_code_explain_both_sides(tmp_path: Path):
    a = _requests(tmp_path)
    moved = {m.symbol: m for m in _of(a, "import.moved")}
    assert set(moved) == {"platform", "sys", "__version__"}
    for m in moved.values():
        assert m.path == "requests/utils.py" and m.details["from_path"] == "requests/defaults.py"
        sides = {(e[0], e[1]) for e in m.explains}
        assert sides == {("requests/defaults.py", "-"), ("requests/utils.py", "+")}
    removed_imports = {
        e
        for e in _changed(a, "requests/defaults.py")
        if e[1] == "-" and "import" in _line(a, e[0], e)
    }
    assert removed_imports and removed_imports <= _explained(a, "requests/defaults.py")
    assert not _of(a, "import.removed")
    assert [f.symbol for f in _of(a, "import.added")] == ["default_user_agent"]


def test_import_of_the_package_being_initialised_is_no_cycle(tmp_path: Path):
    a = _requests(tmp_path)
    # ``from . import __version__`` in requests.utils: ``requests`` is already in sys.modules
    assert not _of(a, "cycle.risk")
    (pkg,) = [c for c in _of(a, "cycle.safe") if c.symbol == "requests"]
    assert pkg.path == "requests/utils.py" and pkg.details["ancestor"] is True
    # the new ``from .utils import ...`` in defaults: utils imports nothing that loads defaults
    (utils,) = [c for c in _of(a, "cycle.safe") if c.symbol == "requests.utils"]
    assert utils.details["chain"] == [] and utils.details["complete"] is True


def test_import_dropped_in_one_file_and_added_elsewhere_for_other_code_is_no_move(tmp_path: Path):
    before_a = "from . import schema\n\n\ndef build(cfg):\n    return schema.Generate(cfg)\n"
    after_a = "from .schema import Generate\n\n\ndef build(cfg):\n    return Generate(cfg)\n"
    before_b = "def check(fn):\n    return callable(fn)\n"
    after_b = "from . import schema\n\n\ndef check(fn):\n    return isinstance(fn, schema.Types)\n"
    a = _pr(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/schema.py": "class Generate:\n    pass\n\n\nTypes = (type,)\n",
            "pkg/a.py": before_a,
            "pkg/b.py": before_b,
        },
        {"pkg/a.py": after_a, "pkg/b.py": after_b},
    )
    assert not _of(a, "import.moved")
    assert [(f.path, f.symbol) for f in _of(a, "import.added")] == [
        ("pkg/a.py", "Generate"),
        ("pkg/b.py", "schema"),
    ]
    assert [(f.path, f.symbol) for f in _of(a, "import.removed")] == [("pkg/a.py", "schema")]


# --- same scope, other guards (starlette-589df786) ----------------------------------------------

ROUTING_BEFORE = """import inspect
import sys

from starlette.types import ASGIApp

if sys.version_info >= (3, 7):
    from contextlib import asynccontextmanager  # pragma: no cover
else:
    from contextlib2 import asynccontextmanager  # pragma: no cover


class Router:
    def __init__(self, app: ASGIApp, lifespan=None) -> None:
        if inspect.isasyncgenfunction(lifespan):
            self.lifespan = asynccontextmanager(lifespan)
"""

ROUTING_AFTER = """import inspect
from contextlib import asynccontextmanager

from starlette.types import ASGIApp


class Router:
    def __init__(self, app: ASGIApp, lifespan=None) -> None:
        if inspect.isasyncgenfunction(lifespan):
            self.lifespan = asynccontextmanager(lifespan)
"""


def test_module_import_that_lost_its_version_guard_is_not_a_move(tmp_path: Path):
    a = _pr(
        tmp_path,
        {"starlette/__init__.py": "", "starlette/types.py": "ASGIApp = object\n",
         "starlette/routing.py": ROUTING_BEFORE},
        {"starlette/routing.py": ROUTING_AFTER},
    )  # fmt: skip
    assert not _of(a, "import.moved") and not _of(a, "import.hoisted")
    (g,) = _of(a, "import.guard-changed")
    assert g.symbol == "asynccontextmanager" and g.details["module"] == "contextlib"
    assert [x["text"] for x in g.details["from_context"]] == ["sys.version_info >= (3, 7)"]
    assert g.details["to_context"] == []
    removed = {(f.symbol, f.details["module"]) for f in _of(a, "import.removed")}
    assert removed == {("sys", "sys"), ("asynccontextmanager", "contextlib2")}
    # the dropped condition itself is no import: left unexplained for the verdict
    assert ("starlette/routing.py", "-", 6) not in _explained(a, "starlette/routing.py")


# --- an existing import of the target is no new cycle (attrs-3aa497d0) --------------------------

ATTR_INIT_BEFORE = """from . import converters
from ._funcs import asdict, evolve
from ._make import attrib, attrs, resolve_types

__all__ = ["asdict", "attrib", "attrs", "converters", "evolve", "resolve_types"]
"""

ATTR_INIT_AFTER = """from . import converters
from ._funcs import asdict, evolve, resolve_types
from ._make import attrib, attrs

__all__ = ["asdict", "attrib", "attrs", "converters", "evolve", "resolve_types"]
"""

FUNCS_BEFORE = """import copy

from ._make import NOTHING, fields


def asdict(inst):
    return {a.name: copy.copy(getattr(inst, a.name, NOTHING)) for a in fields(type(inst))}


def evolve(inst, **changes):
    return type(inst)(**changes)
"""

FUNCS_AFTER = (
    FUNCS_BEFORE
    + '''

def resolve_types(cls, globalns=None, localns=None):
    """Resolve string annotations."""
    import typing

    typing.get_type_hints(cls, globalns=globalns, localns=localns)
    return cls
'''
)

MAKE_BEFORE = '''from . import converters

NOTHING = object()


def fields(cls):
    return getattr(cls, "__attrs_attrs__", ())


def attrib(default=NOTHING):
    return default


def attrs(cls):
    return cls


def resolve_types(cls, globalns=None, localns=None):
    """Resolve string annotations."""
    import typing

    typing.get_type_hints(cls, globalns=globalns, localns=localns)
    return cls
'''

MAKE_AFTER = MAKE_BEFORE[: MAKE_BEFORE.index("\n\ndef resolve_types")] + "\n"


def test_name_added_to_an_existing_import_of_a_submodule_is_no_new_cycle(tmp_path: Path):
    a = _pr(
        tmp_path,
        {
            "src/attr/__init__.py": ATTR_INIT_BEFORE,
            "src/attr/converters.py": "def optional(c):\n    return c\n",
            "src/attr/_funcs.py": FUNCS_BEFORE,
            "src/attr/_make.py": MAKE_BEFORE,
        },
        {
            "src/attr/__init__.py": ATTR_INIT_AFTER,
            "src/attr/_funcs.py": FUNCS_AFTER,
            "src/attr/_make.py": MAKE_AFTER,
        },
    )
    assert not _of(a, "cycle.risk")
    (c,) = [c for c in _of(a, "cycle.safe") if c.path == "src/attr/__init__.py"]
    assert c.symbol == "attr._funcs" and c.details["preexisting"] is True
    # the function-local ``import typing`` travelled with resolve_types
    (m,) = _of(a, "import.moved")
    assert (m.symbol, m.details["from_path"], m.details["to_scope"]) == (
        "typing",
        "src/attr/_make.py",
        "resolve_types",
    )


def test_new_import_that_closes_a_cycle_through_a_sibling_is_still_a_risk(tmp_path: Path):
    before = "def run(x):\n    from .b import helper\n\n    return helper(x)\n"
    after = "from .b import helper\n\n\ndef run(x):\n    return helper(x)\n"
    a = _pr(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/sub/__init__.py": "",
            "pkg/sub/a.py": before,
            # b imports the package above a (settled) and a itself (a real cycle)
            "pkg/sub/b.py": "import pkg\nfrom pkg.sub import a\n\n\ndef helper(x):\n    return x\n",
        },
        {"pkg/sub/a.py": after},
    )
    (risk,) = _of(a, "cycle.risk")
    assert risk.details["chain"] == ["pkg.sub.a", "pkg.sub.b", "pkg.sub.a"]
    (h,) = _of(a, "import.hoisted")
    assert h.symbol == "helper"


def test_a_package_init_importing_its_submodules_is_no_cycle(tmp_path: Path):
    # prreport's own cli package: __init__ re-exports main from cli.main, which imports the
    # sibling commands. The package is in sys.modules while __init__ runs, so importing its
    # submodules does not run it again; only `from app.cli import NAME` (a name __init__ has not
    # bound yet) closes a cycle.
    before = {
        "app/__init__.py": "",
        "app/cli/__init__.py": "",
        "app/cli/main.py": "from app.cli.report import report\n\n\ndef main():\n    report()\n",
        "app/cli/report.py": "def report():\n    return 1\n",
    }
    after = {"app/cli/__init__.py": "from app.cli.main import main\n\n__all__ = ['main']\n"}
    a = _pr(tmp_path, before, after)
    assert not [f for f in a.findings if f.kind == "cycle.risk"], a.findings
    back = {
        "app/cli/report.py": "from app.cli import VERSION\n\n\ndef report():\n    return VERSION\n"
    }
    init = {"app/cli/__init__.py": "from app.cli.main import main\n\nVERSION = 1\n"}
    b = _pr(tmp_path / "b", {**before, **back}, init)
    assert [f.symbol for f in b.findings if f.kind == "cycle.risk"] == ["app.cli.main"]
