"""Public API changes for the users of a library: names removed, signatures and bases changed
(the comparison, and what counts as public, is ``prreport.python.publicapi``'s)."""

from __future__ import annotations

from collections.abc import Iterable

from prreport.analyzers import Analyzer, register
from prreport.bundle import PullRequestBundle
from prreport.findings import ContextRequest, Finding
from prreport.python.libraryfiles import context_wanted
from prreport.python.publicapi import ApiBreak, compare_public_api
from prreport.python.sources import SourceFiles

# Our finding kind for each kind of break the comparison reports.
_FINDING_KIND = {
    "removed": "api.removed",
    "kind-changed": "api.kind-changed",
    "parameter-removed": "api.parameter-removed",
    "parameter-moved": "api.parameter-moved",
    "parameter-kind-changed": "api.parameter-kind-changed",
    "parameter-required": "api.parameter-required",
    "parameter-added": "api.parameter-added",
    "default-changed": "api.default-changed",
    "base-removed": "api.base-removed",
}


@register
class PublicApiAnalyzer(Analyzer):
    """What callers of the changed library packages can no longer do, read statically by griffe.

    before: ``pkg/a.py`` defines ``def load(path, strict=False)`` · after: ``def load(path,
    strict=True)`` → ``api.default-changed`` (``pkg.a.load``, ``strict``: ``False`` → ``True``);
    ``def f`` moved from ``pkg/a.py`` to ``pkg/b.py`` with no ``from pkg.b import f`` left in
    ``pkg/a.py`` → ``api.removed`` (``pkg.a.f``); nothing broke → ``api.unchanged``.
    """

    name = "public-api"

    def requests(self, bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
        """The ``__init__.py`` of the changed modules' packages (they re-export from them)."""
        return ContextRequest(files=context_wanted(sources))

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit one ``api.*`` finding per break, ``api.unchanged`` per package that kept its
        API, ``api.unchecked`` per module griffe could not read on one side."""
        result = compare_public_api(sources, self.config.public_api)
        if not result.packages:
            return
        broken = set()
        for b in result.breaks:
            broken.add(b.name.split(".")[0])
            yield _finding(b)
        for path, why in result.unchecked:
            if not path:
                continue  # nothing of the repository to point at (a namespace package)
            yield Finding(
                "api.unchecked",
                path,
                None,
                "",
                f"public API of {path} not compared: {why}",
                {"reason": why},
            )
        for top in result.packages:
            if top in broken:
                continue
            modules = [(m, p) for m, p in result.modules if m == top or m.startswith(top + ".")]
            if not modules:
                continue  # only private modules of it changed
            names = sorted({m for m, _p in modules})
            yield Finding(
                "api.unchanged",
                modules[0][1],
                None,
                top,
                f"public API of {top} unchanged ({len(names)} changed modules compared)",
                {"package": top, "modules": names},
            )


def _finding(b: ApiBreak) -> Finding:
    details = {
        "name": b.name,
        "object_kind": b.object_kind,
        "side": b.side,
        "behavior_change": True,  # a caller observes it: a witness by itself
    }
    if b.parameter:
        details["parameter"] = b.parameter
    if b.before or b.after:
        details["before"], details["after"] = b.before, b.after
    if b.moved_to:
        details["moved_to"] = b.moved_to
    if b.before_path:
        details["before_path"], details["before_line"] = b.before_path, b.before_line
    return Finding(_FINDING_KIND[b.kind], b.path, b.line, b.name, _message(b), details)


def _message(b: ApiBreak) -> str:
    p = f"`{b.parameter}`"
    return {
        "removed": f"public name {b.name} removed"
        + (
            f" (now defined at {b.moved_to}, no re-export left)"
            if b.moved_to
            else " (no re-export or alias left)"
        ),
        "kind-changed": f"public {b.before} {b.name} is now a {b.after}",
        "parameter-removed": f"{b.name}: parameter {p} removed",
        "parameter-moved": f"{b.name}: parameter {p} moved from position {b.before} to {b.after}",
        "parameter-kind-changed": f"{b.name}: parameter {p} is now {b.after} (was {b.before})",
        "parameter-required": f"{b.name}: parameter {p} is now required",
        "parameter-added": f"{b.name}: new required parameter {p}",
        "default-changed": f"{b.name}: default of {p} changed from {b.before} to {b.after}",
        "base-removed": f"{b.name} no longer derives from {b.before}",
    }[b.kind]
