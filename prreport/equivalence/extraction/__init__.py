"""Where a new helper's code came from, when expanding its calls (``expansion``) proves nothing.

- ``copies``: statement runs removed from functions that now call the helper, equal to its body
  (or of its shape);
- ``members``: the same method removed from several classes and added to one they now inherit
  it from (a mixin or base);
- ``edited``: a substantial share of the helper's body found, edited, among the statements
  functions lost (``items``: a body flattened into statements and headers; ``cover``: the
  match of helper code to lost code; ``losses``: the functions that lost statements and what
  runs them now).

Each answers with data (sites, equality, residual); the ``code.extracted`` plug-in turns it
into its finding.
"""
