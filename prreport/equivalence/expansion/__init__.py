"""Call-site expansion: a helper's body put back at its call sites, to prove an extraction or an
inlining equal.

Shared by extraction (the after caller calls a new helper: expanded, it must equal the before
caller) and inlining (the before caller called a removed helper: expanded, it must equal the
after caller). A call is expanded only where Python's semantics allow it: the parameters are
replaced by the arguments (pure ones substituted, others assigned first, in call order), the
helper's result is bound the way the call statement used it, and the helper's own local names
must not capture or clobber the caller's.

- ``sites``: which calls reach a helper, and its callers paired with their other version;
- ``binding``: which helper a definition is and which argument each parameter gets;
- ``splice``: one call replaced by the helper's body (``multiret``: a tuple returned from
  several places, spliced as an ``if`` tree);
- ``caller``: every call of one caller expanded, and the spliced names checked;
- ``prove``: the expanded caller compared with the other version (``normal``: the form they
  are compared in; ``results``: one spelling of what the caller does with a tuple's parts);
- ``similarity``: how much of an unproven helper's code is found where its calls are;
- ``outcome``: what the proof says, as data for the plug-ins' findings;
- ``module_code``: import-time code of a module moved into a function it calls once.
"""
