"""Since which Python a standard-library module or name exists in every later Python, and
which standard-library names are bound to objects that are true in every boolean context.

The versions come from typeshed, written to ``prreport/data/stdlib_versions.json`` by
``scripts/stdlib_versions.py`` (its docstring says how to re-run it and what is left out:
platform-specific modules and names, modules needing an optional system library, anything
removed in a later Python); the truth of a name is asked of the running standard library.
"""

from __future__ import annotations

import importlib
import json
import sys
from functools import cache
from importlib.resources import files

_DATA = "data/stdlib_versions.json"
# Standard-library modules never imported to look an attribute up (importing them acts).
_NO_IMPORT = frozenset({"antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo"})


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split("."))


@cache
def _load() -> tuple[dict[str, tuple[int, ...]], dict[str, dict[str, tuple[int, ...]]]]:
    raw = json.loads(files("prreport").joinpath(_DATA).read_text(encoding="utf-8"))
    modules = {m: _version(v) for m, v in raw["modules"].items()}
    names: dict[str, dict[str, tuple[int, ...]]] = {}
    for module, by_since in raw["names"].items():
        for since, spelled in by_since.items():
            version = _version(since) if since else modules[module]
            names.setdefault(module, {}).update(dict.fromkeys(spelled.split(), version))
    return modules, names


def available_since(module: str, name: str | None = None) -> tuple[int, ...] | None:
    """The Python since which ``module`` (or ``module.name``) is in every standard library, as
    ``(3, N)``; None when unknown, platform-specific, optional, or removed in a later Python."""
    modules, names = _load()
    if name is None:
        return modules.get(module)
    return names.get(module, {}).get(name)


def import_cannot_fail(module: str, name: str | None, low: tuple[int, ...]) -> str:
    """Why ``import module`` (``from module import name``) succeeds on every Python >= ``low``,
    or "" when that is not certain.

    A module exists from the first release of the minor version that added it. A name is dated
    by minor version only (typeshed does not record bugfix releases, and provisional modules
    such as ``typing`` gained names in them), so it must predate ``low``'s minor version.
    """
    since = available_since(module, name) if name is not None else None
    if since is not None and since < low[:2]:
        return _why(f"{module}.{name}", since)
    # ``from package import submodule``, or a plain ``import module``.
    target = module if name is None else f"{module}.{name}"
    since = available_since(target)
    if since is not None and since <= low[:2]:
        return _why(target, since)
    return ""


def _why(spelled: str, since: tuple[int, ...]) -> str:
    return f"{spelled} is in the standard library of Python {'.'.join(map(str, since))} and later"


def truthy_object(module: str, name: str) -> bool:
    """A standard-library class, function or module: true in every boolean context."""
    top = module.split(".")[0]
    if top not in sys.stdlib_module_names or top in _NO_IMPORT:
        return False
    try:
        # Static analysis cannot tell a class from None; the standard library itself can.
        obj = getattr(importlib.import_module(module), name)
    except Exception:  # noqa: BLE001 - an unknown attribute proves nothing
        return False
    kind = type(obj)
    callable_or_module = isinstance(obj, type) or callable(obj) or kind.__name__ == "module"
    return callable_or_module and not hasattr(kind, "__bool__") and not hasattr(kind, "__len__")
