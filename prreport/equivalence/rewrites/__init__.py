"""Rewrites that keep what code does, so a refactor spelled differently still compares equal.

``see_through(before, after, low)`` normalises two canonical trees (see ``prreport.equivalence.canonical``)
and, when they are then equal, says which rewrite made the difference. Each rewrite is
proven for every input, or states the one assumption it makes:

- ``fixed-condition``: ``sys.version_info >= (3, 7)`` is always true when the project requires
  Python >= 3.7; an ``if``/``x if c else y``/``and``/``or``/``not`` on a fixed value keeps the
  branch that runs.
- ``inlined-local``: ``n = <value>`` whose only use is one later statement of the same block
  is the value written at that use, when the value cannot change or act between the two
  (constants, imported objects, tuples, comparisons and boolean operations of those).
- ``moved-assignment``: ``n = <value>`` written earlier or later in the same block, when
  nothing between mentions ``n``, no nested function, lambda or class of the function
  mentions ``n`` (one defined earlier and called between would see it bound or unbound),
  nothing between leaves the block by ``break``/``continue``, the block is in no ``try`` or
  ``with`` of the function (an exception between, caught or suppressed there, would let
  later code read ``n`` assigned or not), and the value cannot change or act (constants, imported
  objects, new empty containers, or, with the fact it relies on as the detail, the
  construction of a plain dataclass of the repository from locals nothing between rebinds:
  ``plainclass``).
- ``merged-if``: ``if a:`` whose whole body is ``if b: X`` (neither with ``else``) is
  ``if a and b: X`` (``and`` evaluates ``b`` only when ``a`` holds, as the nested test did).
- ``renamed-local``: a function's own local variable renamed everywhere it is used (its
  parameters are not: they are part of its signature).
- ``merged-elif``: ``if a: X`` / ``elif b: X`` (the same body) is ``if a or b: X``.
- ``affix-tuple``: ``s.startswith(("a", "b"))`` is ``s.startswith("a") or s.startswith("b")``
  (``endswith`` too). Assumption, stated in the finding: ``s`` is a ``str`` (the arguments are).
- ``loop-invariant-if``: ``for t in xs: if a and b: X`` (``a`` a name the loop never
  assigns) is ``if a: for t in xs: if b: X``. Assumption, stated in the finding: iterating
  ``xs`` (a name or attribute, not a call) does nothing when ``a`` is false.
- ``match-chain``: ``match s:`` whose cases are literals (``case "a" | "b":``, a dotted
  constant) and at most a final ``case _:``, with no guard or capture, is
  ``if s == "a" or s == "b": ... elif ...: ... else: ...`` (a value pattern compares with
  ``==``, subject first). Assumption, stated in the finding when ``s`` is not a plain name:
  evaluating ``s`` again gives the same value and does nothing (``match`` evaluates it once).

Each side is rewritten to a fixed point; a rewrite is reported only when the two sides did
not both need it (the same guard simplified in both says nothing about the change).

One module per family: ``conditions`` (tests and branches: ``fixed-condition``, ``merged-if``,
``merged-elif``, ``affix-tuple``, ``loop-invariant-if``, ``match-chain``), ``assignments``
(where a local is written: ``moved-assignment``, ``inlined-local``), ``renamed``
(``renamed-local``); ``normalise`` runs them over the statement lists of one side and
``compare`` (``see_through``) tells which made two sides equal. Every rule, with its own
before/after and near miss, is listed in ``prreport.equivalence.rules``.
"""

from __future__ import annotations

from prreport.equivalence.rewrites.compare import see_through
from prreport.equivalence.rewrites.rewrite import Inert, Rewrite

__all__ = ["Inert", "Rewrite", "see_through"]
