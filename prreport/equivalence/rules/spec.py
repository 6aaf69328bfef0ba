"""What an entry of the registry holds: a proof rule as data, and a helper to write its examples."""

from __future__ import annotations

from dataclasses import dataclass

SHOWN = ("rewrite", "equal", "expansion", "case-analysis")


def edit(text: str, old: str, new: str) -> str:
    """``text`` with its one ``old`` replaced by ``new``."""
    if text.count(old) != 1:
        raise ValueError(f"{old!r} is not in the text once")
    return text.replace(old, new)


@dataclass(frozen=True)
class Rule:
    """One proof rule: its name, where it lives, what it proves and assumes, and its examples."""

    id: str
    module: str
    proves: str
    assumption: str  # "" when the rule holds for every input
    before: str
    after: str
    near_miss: str
    near_miss_before: str = ""  # the before of the near miss, when not ``before``
    context: tuple[tuple[str, str], ...] = ()  # (path, text) of unchanged files it reads
    shown: str = "rewrite"  # how a finding names it (see the module docstring)
    kind: str = ""  # the rewrite kind a finding names it by, when not ``id``
    detail: str = ""  # a regular expression the rewrite's detail matches

    @property
    def reported_kind(self) -> str:
        """The rewrite kind findings name this rule by (``shown == "rewrite"``)."""
        return self.kind or self.id
