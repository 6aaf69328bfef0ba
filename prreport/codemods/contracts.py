"""The import-linter contract a hoisted import relies on: what the target module must keep not
importing, in the form import-linter can check, as ready-to-paste TOML and INI."""

from __future__ import annotations

from prreport.python.importgraph import Exploration
from prreport.python.modules import parents


def forbidden_package(importer: str, target: str, ex: Exploration) -> str:
    """What the target must keep not importing: the root package when it imports nothing
    first-party, else the widest package of the importer that excludes all it loads."""
    if not ex.target_imports:
        return target.split(".")[0]
    loaded = set(ex.explored) | {target}
    for pkg in [*parents(importer), importer]:
        inside = lambda m, p=pkg: m == p or m.startswith(p + ".")  # noqa: E731
        if not any(inside(m) for m in loaded):
            return pkg
    return importer


def enforceable(module: str, forbidden: list[str]) -> list[str]:
    """``forbidden`` as import-linter can check it: a package above ``module`` becomes its
    recursive wildcard (``pkg.**``). Named bare, import-linter (2.17, checked by the tests)
    keeps the contract whatever the module imports from it."""
    return sorted(f"{f}.**" if module.startswith(f + ".") else f for f in forbidden)


def contract_texts(
    module: str, forbidden: list[str], checked: list[str] | None = None
) -> tuple[str, str]:
    """Ready-to-paste import-linter ``forbidden`` contract: (pyproject TOML, INI).

    ``checked`` is the list import-linter is given (see ``enforceable``); ``forbidden`` by default.
    """
    what = ", ".join(forbidden)
    name = f"{module} must not import {what} (a hoisted import of it relies on this)"
    checked = forbidden if checked is None else checked
    toml_list = ", ".join(f'"{m}"' for m in checked)
    if len(checked) > 2:
        toml_list = "\n" + "".join(f'    "{m}",\n' for m in checked)
    root = module.split(".")[0]
    note = ""
    if checked != forbidden:
        wild = ", ".join(c for c in checked if c.endswith(".**"))
        note = f"# {wild}: a package above the source module needs the wildcard (bare, import-linter ignores it)\n"
    toml = (
        f'# needs root_packages = ["{root}"] (or root_package) under [tool.importlinter]\n'
        f"{note}"
        "[[tool.importlinter.contracts]]\n"
        f'name = "{name}"\n'
        'type = "forbidden"\n'
        f'source_modules = ["{module}"]\n'
        f"forbidden_modules = [{toml_list}]\n"
    )
    ident = module.rsplit(".", 1)[-1].replace("_", "-")
    ini = (
        f"# needs root_packages = {root} under [importlinter]\n"
        f"{note}"
        f"[importlinter:contract:{ident}-no-cycle]\n"
        f"name = {name}\n"
        "type = forbidden\n"
        "source_modules =\n"
        f"    {module}\n"
        "forbidden_modules =\n" + "".join(f"    {m}\n" for m in checked)
    )
    return toml, ini
