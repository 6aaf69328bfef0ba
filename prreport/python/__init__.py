"""The code model: what the Python of a pull request is, before and after, as facts to ask.

It is the one door to the stdlib ``ast`` for the analyzers and the equivalence engine, and it
knows nothing of findings or reports (it never imports ``prreport.analyzers``,
``prreport.equivalence`` or ``prreport.report``). One line per module:

Files and trees
- ``sources``: the before/after/head text of the changed and context files, parsed once, memoised.
- ``parse``: the one parse door, quietly (the compile warnings are the PR's, not this run's).
- ``lowering``: syntax newer than the running Python (``lazy import``, type parameters, ``except
  A, B:``) read by libcst and lowered to the same lines, what was lowered kept on the nodes.
- ``linekinds``: what a source line holds (code, a comment, nothing, part of an import).

Statements, scopes and guards
- ``scopes``: statement kinds and blocks, the nodes of one scope, the names a tree binds.
- ``walk``: the statement walk with each statement's scope qualname and guard chain.
- ``scopeindex``: every import binding and loop of a file side, with scope and guards.
- ``callsites``: the calls of given names, with their scope and guard chain.
- ``guardtests``: what a guard tests (an installed package, a platform, device or build).

Definitions
- ``definitions``: every function, class, method, constant and import of a file.
- ``functions``: every function and method by qualified name, with its span.
- ``hierarchy``: the repository's classes, their bases and overriding subclasses.
- ``mro``: which definition of a method a class reaches first along its bases.
- ``chains``: the ``if/elif/else`` chains of a tree, with their tests and bodies.
- ``localnames``: the names a function binds, reads and takes.
- ``bindings``: the scope tree of a file: what each scope binds and where a read resolves.
- ``resolution``: builtins, unresolved names and ``__all__``.
- ``references``: where a name occurs in the repository, and where it is code.
- ``reach``: whether the calls the repository search found can pass an input a function
  now answers differently.
- ``callers``: what runs a definition without naming it (protocols, the test runner, a base,
  a registering decorator, a tool that reads a file's names).
- ``placeholders``: what a function body amounts to (a placeholder, a ``super()`` call...).
- ``reflection``: where code reaches a class, or a class namespace, without naming it.
- ``importtime``: what module-level code binds, reads and runs as it is imported.

Modules and imports
- ``modules``: dotted module names <-> repository paths (first-party resolution).
- ``moduleimports``: the imports a module runs when it is imported.
- ``importobjects``: what an import binding loads (a module, or the definition behind a name).
- ``publicapi``: the public API of the changed packages before and after, and what broke for
  callers (the one door to griffe).
- ``libraryfiles``: which changed files are library API, as modules below their source roots.
- ``importmoves``: import bindings paired across the change (hoisted, sunk, moved, added...).
- ``importgraph``: what a new module-level import newly runs, and whether it reaches back.
- ``newloads``: the first-party modules a change newly loads at import time, with their walks.
- ``initorder``: how far a package's ``__init__`` has run when one of its modules first runs.
- ``boundnames``: the names a module has bound when its statement at a given line runs.
- ``lazyreasons``: why a function-local import is still lazy (or that it is hoistable).
- ``lazyimports``: PEP 810 facts: ``__lazy_modules__`` and ``lazy`` where Python forbids it.
- ``importeffects``: what a module (and what it imports) does at import time that a lazy
  import of it defers.

Declared facts
- ``versions``: the lowest Python a project declares, and the version tests it decides.
- ``stdlib``: since which Python a standard-library module or name exists.
- ``deps``: the dependencies a project declares as required, and optional backends.
- ``description``: what the PR description says of the code (files, imports, reasons).
"""
