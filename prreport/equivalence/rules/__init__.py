"""Every proof rule the equivalence engine applies, as data: what it proves, what it assumes, and
its own before/after and near miss.

A rule is reported in a finding under its ``id`` (``details.rewrites[].kind``, a site's
rewrites too) unless ``shown`` says otherwise:

- ``"rewrite"``: a rewrite of kind ``kind`` (``id`` when empty) whose detail matches ``detail``
  (a regular expression; several rules share one kind and tell themselves apart by the fact the
  detail states);
- ``"equal"``: a ``behavior.unchanged`` finding that names no rewrite (a spelling the canonical
  form does not see);
- ``"expansion"``: a proven ``code.extracted`` or ``code.inlined`` (call-site expansion);
- ``"case-analysis"``: a proven ``code.branches-collapsed`` of the ``early-return`` pattern.

``before`` and ``after`` are one module (``pkg/mod.py``) before and after a change the rule
proves a refactor; ``near_miss`` is an after one real difference away that the rule must not
prove (from ``near_miss_before`` when the difference is on the before side); ``context`` holds
the unchanged files of the repository the rule reads (a declared Python). ``tests/
test_rules_registry.py`` runs every example through the pipeline, and checks that every rewrite
kind the engine's source can emit is listed here.

One module per family, in the order of ``RULES``: ``rewrites``, ``plainclass``, ``generators``,
``expansion``, ``multiret``, ``analyzers``, ``spelling``, ``idioms``, ``effects``; ``spec`` defines
``Rule``.
"""

from __future__ import annotations

from prreport.equivalence.rules.analyzers import ANALYZERS
from prreport.equivalence.rules.effects import EFFECTS
from prreport.equivalence.rules.expansion import EXPANSION
from prreport.equivalence.rules.generators import GENERATORS
from prreport.equivalence.rules.idioms import IDIOM_RULES
from prreport.equivalence.rules.multiret import MULTIRET
from prreport.equivalence.rules.plainclass import PLAIN
from prreport.equivalence.rules.rewrites import REWRITES
from prreport.equivalence.rules.spec import SHOWN, Rule
from prreport.equivalence.rules.spelling import CLASS_SPELLING, SPELLING

RULES: tuple[Rule, ...] = (
    *REWRITES,
    *PLAIN,
    *GENERATORS,
    *EXPANSION,
    *MULTIRET,
    *ANALYZERS,
    *SPELLING,
    *CLASS_SPELLING,
    *IDIOM_RULES,
    *EFFECTS,
)
_BY_ID = {r.id: r for r in RULES}

__all__ = ["RULES", "SHOWN", "Rule", "rule"]


def rule(id: str) -> Rule:
    """The rule named ``id`` (``KeyError`` when there is none)."""
    return _BY_ID[id]
