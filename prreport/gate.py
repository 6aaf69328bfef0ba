"""The risk gate: ``--fail-on`` turns listed finding kinds, families, risk tags, levels or
verdicts into exit 1.

A gate that silently never fires is worse than none, so every item of ``--fail-on`` must name
something a report can contain: a finding kind (``cycle.risk``), a family (``cycle.*``), a risk
tag (``import-in-loop``), a risk level (``risk:high``, which fires on that level or above) or a
verdict (``verdict:behavior-change``; ``verdict:not-pure`` fires on every verdict but
``pure-refactor``). Anything else is an error with the closest known names. Callers pass the
report's verdict among the kinds as ``verdict:<value>`` (``verdict_kind``).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from prreport.errors import ConfigError

# Every finding kind an analyzer can produce: the public JSON interface (DESIGN §2).
# tests/test_cli_gate.py checks that the analyzers emit no other kind.
FINDING_KINDS: tuple[str, ...] = (
    "behavior.changed",
    "behavior.unchanged",
    "code.branches-collapsed",
    "code.branches-flattened",
    "code.dead-removed",
    "code.extracted",
    "code.inlined",
    "code.override-removed",
    "contract.implicit",
    "cycle.risk",
    "cycle.safe",
    "cycle.unchecked",
    "file.binary",
    "file.renamed",
    "file.unreadable",
    "guard.changed",
    "guard.dropped",
    "guard.preserved",
    "import.added",
    "import.guard-changed",
    "import.hoisted",
    "import.lazy-forbidden",
    "import.made-eager",
    "import.made-lazy",
    "import.moved",
    "import.removed",
    "import.sunk",
    "lazy-import.retained",
    "loop.imports-added",
    "loop.imports-remaining",
    "loop.imports-removed",
    "names.not-checkable",
    "names.unresolved",
    "names.unused-import",
    "symbol.moved",
    "symbol.renamed",
)

_RISK_PREFIX = "risk:"
_VERDICT_PREFIX = "verdict:"
VERDICTS = (
    "pure-refactor",
    "refactor-unproven",
    "refactor-with-behavior-change",
    "behavior-change",
    "unknown",
)
_NOT_PURE = _VERDICT_PREFIX + "not-pure"


def verdict_kind(verdict: str) -> str:
    """The report's verdict as the gate reads it among the kinds."""
    return _VERDICT_PREFIX + verdict


@dataclass(frozen=True)
class Vocabulary:
    """What a report can contain: finding kinds, risk tags and risk levels (highest first)."""

    kinds: tuple[str, ...]
    risk_tags: tuple[str, ...]
    levels: tuple[str, ...]

    def families(self) -> tuple[str, ...]:
        """``cycle.*`` for every family of kinds."""
        return tuple(sorted({k.split(".", 1)[0] + ".*" for k in self.kinds}))

    def words(self) -> tuple[str, ...]:
        """Every item ``--fail-on`` accepts."""
        return (
            *self.kinds,
            *self.families(),
            *self.risk_tags,
            *(_RISK_PREFIX + lv for lv in self.levels),
            *(_VERDICT_PREFIX + v for v in VERDICTS),
            _NOT_PURE,
        )


@dataclass(frozen=True)
class FailOn:
    """A parsed ``--fail-on``: the items as given (empty: the gate is off)."""

    items: tuple[str, ...] = ()
    levels: tuple[str, ...] = ()

    def hits(self, kinds: Iterable[str], risks: Iterable[tuple[str, str]]) -> list[str]:
        """What in a report trips the gate: finding kinds and ``risk tag (level)``, sorted, unique.

        ``risks`` are ``(tag, level)`` pairs; ``risk:LEVEL`` fires on LEVEL or any higher one.
        """
        found: set[str] = set()
        for kind in kinds:
            for want in self.items:
                if kind == want or (want.endswith(".*") and kind.startswith(want[:-1])):
                    found.add(kind)
                elif want == _NOT_PURE and kind.startswith(_VERDICT_PREFIX):
                    if kind != verdict_kind("pure-refactor"):
                        found.add(kind)
        wanted_levels = {
            lv
            for item in self.items
            if item.startswith(_RISK_PREFIX)
            for lv in self.levels[: self.levels.index(item[len(_RISK_PREFIX) :]) + 1]
        }
        for tag, level in risks:
            if tag in self.items or level in wanted_levels:
                found.add(f"risk {tag} ({level})")
        return sorted(found)


def parse_fail_on(value: str | None, vocab: Vocabulary) -> FailOn:
    """``cycle.risk,loop.*,import-in-loop,risk:high`` -> a gate; an unknown item is an error."""
    if value is None:
        return FailOn(levels=vocab.levels)
    items = tuple(dict.fromkeys(v.strip() for v in value.split(",") if v.strip()))
    if not items:
        raise ConfigError(
            f"--fail-on: {value!r} names nothing; give a finding kind, family, risk tag or "
            "risk:LEVEL (`prreport help fail-on` lists them), or leave the option out"
        )
    known = vocab.words()
    for item in items:
        if item not in known:
            raise ConfigError(_unknown(item, known))
    return FailOn(items, vocab.levels)


def _unknown(item: str, known: Sequence[str]) -> str:
    """The error for an item no report can contain, with the closest known ones."""
    close = difflib.get_close_matches(item, known, n=3, cutoff=0.6)
    if item.startswith(_RISK_PREFIX):
        levels = [w for w in known if w.startswith(_RISK_PREFIX)]
        hint = f"risk levels are {', '.join(levels)}"
    else:
        hint = "expected a finding kind (cycle.risk), a family (cycle.*), a risk tag (import-in-loop), risk:LEVEL or verdict:VALUE"
    if item.startswith(_VERDICT_PREFIX):
        hint = "verdicts are " + ", ".join(w for w in known if w.startswith(_VERDICT_PREFIX))
    if close:
        hint = "did you mean " + " or ".join(f"`{c}`" for c in close) + "?"
    return f"--fail-on: {item!r} is not a finding kind, family, risk tag, level or verdict; {hint} (`prreport help fail-on` lists them)"


def gate_failure(
    gate: FailOn, kinds: Iterable[str], risks: Iterable[tuple[str, str]]
) -> str | None:
    """The ``fail-on: …`` line when the report trips the gate (then exit 1), else None."""
    kinds = list(kinds)
    hits = gate.hits(kinds, risks)
    if not hits:
        return None
    counts = ", ".join(
        f"{h} ×{kinds.count(h)}" if h in kinds and not h.startswith(_VERDICT_PREFIX) else h
        for h in hits
    )
    return f"fail-on: the report has {counts} (listed in --fail-on {','.join(gate.items)})"
