"""Why a function-local import is still lazy: the reason the tree gives (``TYPE_CHECKING``, an
optional dependency, an import cycle, an ``except`` handler, a platform guard, a heavy
dependency), the one the PR description states (``description.stated_reasons``), or none
(``hoistable``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from prreport.python.deps import OPTIONAL_BACKENDS
from prreport.python.guardtests import optional_flags, optional_guard, platform_guard
from prreport.python.importgraph import Exploration, as_module_binding, explore
from prreport.python.moduleimports import module_level_imports
from prreport.python.modules import ModuleIndex
from prreport.python.scopeindex import ImportBinding
from prreport.python.sources import SourceFiles


@dataclass(frozen=True)
class LazyContext:
    """What deciding a reason reads besides the import itself."""

    sources: SourceFiles
    index: ModuleIndex
    depth: int
    heavy: frozenset[str]
    required: frozenset[str]
    stated: dict[str, tuple[str, str]]  # module -> (reason, quote) from the PR text


def hoist_walk(
    b: ImportBinding, path: str, cx: LazyContext
) -> tuple[str | None, Exploration | None]:
    """(first-party target, the cycle walk a hoist of it would take) or (None, None)."""
    importer = cx.index.module_of(path)
    mb = as_module_binding(b)
    target = cx.index.target(mb, importer, path)
    if target is None or importer is None or target == importer:
        return target, None
    return target, explore(cx.sources, cx.index, importer, target, cx.depth)


def reason_for(
    b: ImportBinding, path: str, cx: LazyContext
) -> tuple[str, str, str, dict[str, Any]]:
    """(reason, guard text, evidence, extra details) for keeping ``b`` lazy."""
    top = b.module.lstrip(".").split(".")[0]
    flags = cx.sources.memo(
        path, "head", "optional-flags", lambda: optional_flags(cx.sources.tree(path, "head"))
    )
    target, ex = hoist_walk(b, path, cx)
    extra: dict[str, Any] = {"target_module": target or ""}
    if ex is not None:
        extra |= {
            "cycle_chain": ex.chain,
            "cycle_checked": ex.complete,
            "unavailable": sorted(ex.unavailable | ex.missing | ex.unparseable),
        }
    if b.type_checking:
        return ("type-checking", "TYPE_CHECKING", "under TYPE_CHECKING", extra)
    for g in reversed(b.context):
        if optional_guard(g, flags):
            return ("optional-dependency", g.text, "importable only if installed", extra)
    if not b.level and target is None and top in OPTIONAL_BACKENDS and top not in cx.required:
        return ("optional-dependency", "", f"{top} is an optional backend, not required", extra)
    if ex is not None and ex.chain:
        handler = next((g.text for g in reversed(b.context) if g.kind == "except"), "")
        return ("cycle-avoidance", handler, " -> ".join(ex.chain), extra)
    for g in reversed(b.context):
        if g.kind == "except":
            return ("cycle-avoidance", g.text, "inside an except handler", extra)
    for g in reversed(b.context):
        if platform_guard(g):
            return ("platform-guard", g.text, "under a platform/device/capability check", extra)
    already = _imported_at_module_level(b, path, target, cx)
    if already is not None:
        # The module is loaded when the importer is: hoisting costs nothing more.
        extra["already_imported_line"] = already
        return ("hoistable", "", f"already imported at module level (line {already})", extra)
    if not b.level and target is None and top in cx.heavy:
        return ("heavy-dependency", "", f"{top} is a heavy dependency", extra)
    heavy = sorted(ex.external & cx.heavy) if ex is not None else []
    if heavy:
        return ("heavy-dependency", "", f"{target} imports {', '.join(heavy)}", extra)
    stated = cx.stated.get(target or b.module)
    if stated:
        return (stated[0], "", f"the PR description: {stated[1]}", extra)
    if ex is not None and not ex.complete:
        return ("unverified", "", "whether hoisting it closes an import cycle is unknown", extra)
    return ("hoistable", "", "", extra)


def _imported_at_module_level(
    b: ImportBinding, path: str, target: str | None, cx: LazyContext
) -> int | None:
    """The line of an unguarded top-level import of the same module in the importer (the
    head tree), when there is one: then the module is already loaded at import time."""
    tree = cx.sources.tree(path, "head")
    if tree is None:
        return None
    wanted = target or (b.module if not b.level else None)
    if not wanted:
        return None
    importer = cx.index.module_of(path)
    for x in cx.sources.memo(
        path, "head", "module-level-imports", lambda: module_level_imports(tree)
    ):
        if not x.top_level:
            continue
        got = cx.index.target(x, importer, path) or (x.module if not x.level else None)
        if got == wanted:
            return x.line
    return None
