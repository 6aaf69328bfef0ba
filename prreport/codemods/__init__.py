"""Follow-up changes the report proposes, printed from the code model.

- ``hoist``: a function-local import moved into the module's import block, as a diff (plain
  shapes edited on the text at the ``ast``'s positions).
- ``hoist_cst``: the libcst side of a hoist, for the shapes text edits cannot print (libcst is
  imported only then, and parses only the parts of the module it edits).
- ``cstblock``: the import block edited with libcst (a name merged into a ``from`` import, a
  line inserted in its isort group).
- ``importblock``: the import block as both sides see it (text, lines, isort sections, spans).
- ``lazyoffer``: a function-local import made a module-level PEP 810 ``lazy`` import, as a
  diff checked against the tree (refused when a module global would change meaning).
- ``contracts``: the import-linter contract a hoisted import relies on, ready to paste.
- ``leaftest``: the same fact as a short ``ast`` test (module-level imports only), run on the
  head source before it is printed.

Codemods read the code model (``prreport.python``) and know nothing of findings or reports.
"""
