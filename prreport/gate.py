"""The risk gate: ``--fail-on cycle.risk,guard.dropped`` turns listed finding kinds into exit 1."""

from __future__ import annotations

import re
from collections.abc import Iterable

from prreport.errors import ConfigError

_KIND_RE = re.compile(r"^[a-z][a-z0-9-]*(\.[a-z0-9*-]+)*$")


def parse_fail_on(value: str | None) -> tuple[str, ...]:
    """``cycle.risk,guard.dropped`` -> kinds; ``cycle.*`` matches a whole family."""
    if not value:
        return ()
    kinds = tuple(v.strip() for v in value.split(",") if v.strip())
    bad = [k for k in kinds if not _KIND_RE.match(k) or ("*" in k and not k.endswith(".*"))]
    if bad:
        raise ConfigError(
            f"--fail-on: {bad[0]!r} is not a finding kind (expected e.g. cycle.risk,guard.dropped or cycle.*)"
        )
    return kinds


def gate_failure(kinds: tuple[str, ...], found: list[str]) -> str | None:
    """The ``fail-on: …`` line when a listed kind is in ``found`` (then exit 1), else None."""
    hits = gate(kinds, found)
    if not hits:
        return None
    counts = ", ".join(f"{k} ×{found.count(k)}" for k in hits)
    return f"fail-on: the report has {counts} (listed in --fail-on {','.join(kinds)})"


def gate(kinds: tuple[str, ...], found: Iterable[str]) -> list[str]:
    """The finding kinds in ``found`` that ``--fail-on`` lists (sorted, unique)."""
    hits = set()
    for kind in found:
        for want in kinds:
            if kind == want or (want.endswith(".*") and kind.startswith(want[:-1])):
                hits.add(kind)
    return sorted(hits)
