"""The equivalence engine: whether two versions of code do the same, and by which proof rules.

It owns the proofs, not the findings: analyzers (``prreport.analyzers``) ask it and turn its
answers into findings; it asks the code model (``prreport.python``) for parsed trees, scopes,
definitions and declared versions, and knows nothing of reports.

- ``canonical``: the canonical form two versions are compared in (docstrings, annotations, the
  spelling of an imported object and pyupgrade-style spellings do not count), with
  ``idioms``, ``returns``, ``accumulators``, ``constants`` (tests on constants) and
  ``conditionals`` (``if``/``else`` assigning one target) (the spellings linters' autofixes produce: ``suppress``,
  ``any``/``all``, a list filled by a loop as its comprehension...), ``fstrings`` (``.format``
  as an f-string) and ``typingnames`` (``typing.Dict[...]`` as ``dict[...]``) in their one form;
- ``rewrites``: rewrites that keep what code does (a fixed version test, merged ``if``s, a local
  written at its use, a moved assignment, a renamed local...) and ``see_through``, which says
  which of them made two versions equal;
- ``expand`` (with ``multiret``, ``rereads`` and ``laterkey``): call-site expansion, a helper's
  body pasted at its calls, for extracted and inlined code;
- ``generators``: a private list builder made a generator that every caller consumes at once;
- ``plainclass``: plain dataclasses of the repository, whose construction and field reads run
  no code (the facts ``rewrites`` and ``expand`` rely on);
- ``assume``: case analysis under ``x == K`` / ``x != K``.
- ``compare`` and ``modulecode``: two versions of a function, and module- or class-level code
  outside functions, compared;
- ``branches``, ``earlyreturn``, ``flatten``: ``if/elif`` chains that do the same (branches
  merged, an answer moved into an early return, an ``else`` after an exiting branch);
- ``unguard`` and ``guards``: code aligned where only guards were removed, and why a removed
  guard never mattered;
- ``expansion`` and ``extraction``: call-site expansion (a helper's body at its calls) and where
  a new helper's code came from;
- ``moves``, ``equality``, ``renames``, ``relocation``, ``retarget``, ``uses``, ``reorder``:
  definitions paired across a change (moved, renamed, reordered), how equal, whether they mean
  the same in their new home, and the uses spelled the new way;
- ``effects``: two versions compared by their effect summaries (symbolic execution: the calls
  made in order, the values returned or raised on every path), the last resort of ``compare``
  and of call-site expansion;
- ``shadowing``, ``inherited``, ``superfold``: a removed method no caller can reach, the method
  inherited once an override goes, a base class folded into its subclass.

Every rule the engine applies, with what it proves, the one assumption it states, and its own
before/after and near miss, is listed in ``rules`` (``prreport.equivalence.rules``: ``RULES``, ``rule(id)``).
"""
