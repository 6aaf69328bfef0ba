"""The risks PEP 810 ``lazy`` imports bring (rules of ``report.risks``): a module that acts at
import time made lazy, and a fallback that no longer catches a lazy import's failure."""

from __future__ import annotations

from typing import Any, Protocol

from prreport.findings import Finding
from prreport.report.facts import evidence, guard_texts


class RiskInput(Protocol):
    """What a rule reads (``report.risks.RiskInput``): the findings of some kinds."""

    def of(self, *kinds: str) -> list[Finding]: ...


Evidence = list[dict[str, Any]]


def fallback_escaped(x: RiskInput) -> Evidence:
    # PEP 810: a fallback around the import of a module whose own imports were made lazy no
    # longer fails there when they are missing; they fail at their first use, uncaught.
    return [
        evidence(
            fd,
            guard=guard_texts(fd.details.get("before")),
            lazy_names=list(fd.details.get("lazy_names", [])),
            lazy_modules=list(fd.details.get("lazy_modules", [])),
            escaped_by=dict(fd.details["escaped_by"]),
        )
        for fd in x.of("guard.dropped")
        if "escaped_by" in fd.details
    ]


def lazy_import_effects(x: RiskInput) -> Evidence:
    # A module-level import made lazy whose module acts at import time: that now happens at
    # the first use of the name, or never (or its source could not be read to tell).
    seen: set[tuple[str, str]] = set()  # one importing file and module, however many names
    return [
        evidence(
            fd,
            module=fd.details.get("target_module") or fd.details.get("module", ""),
            module_path=fd.details.get("target_path", ""),
            checked=fd.details.get("effects_checked", True),
            effects=list(fd.details.get("effects", []))[:3],
            effect_count=len(fd.details.get("effects", [])),
            via=fd.details.get("via", ""),
            never_read=bool(fd.details.get("never_read")),
        )
        for fd in x.of("import.made-lazy")
        if fd.details.get("proven") is False
        and not fd.details.get("requires_python")
        and not _seen(seen, (fd.path, str(fd.details.get("target_module", ""))))
    ]


def _seen(seen: set[tuple[str, str]], key: tuple[str, str]) -> bool:
    if key in seen:
        return True
    seen.add(key)
    return False
