"""The equivalence engine: whether two versions of code do the same, and by which proof rules.

It owns the proofs, not the findings: analyzers (``prreport.analyzers``) ask it and turn its
answers into findings; it asks the code model (``prreport.python``) for parsed trees, scopes,
definitions and declared versions, and knows nothing of reports.

- ``canonical``: the canonical form two versions are compared in (docstrings, annotations, the
  spelling of an imported object and pyupgrade-style spellings do not count);
- ``rewrites``: rewrites that keep what code does (a fixed version test, merged ``if``s, a local
  written at its use, a moved assignment, a renamed local...) and ``see_through``, which says
  which of them made two versions equal;
- ``expand`` (with ``multiret``, ``rereads`` and ``laterkey``): call-site expansion, a helper's
  body pasted at its calls, for extracted and inlined code;
- ``generators``: a private list builder made a generator that every caller consumes at once;
- ``plainclass``: plain dataclasses of the repository, whose construction and field reads run
  no code (the facts ``rewrites`` and ``expand`` rely on);
- ``assume``: case analysis under ``x == K`` / ``x != K``.

Every rule the engine applies, with what it proves, the one assumption it states, and its own
before/after and near miss, is listed in ``prreport.equivalence.rules`` (``RULES``, ``rule(id)``).
"""
