"""Plain dataclasses of the repository: building one, or reading one of its fields, runs no code.

A class is *plain* when its source (read from the repository, never guessed) shows that

- it is decorated only by ``dataclass`` / ``dataclasses.dataclass`` (the names resolve to the
  standard library in its module), with constant options among ``frozen``, ``eq``, ``order``,
  ``repr``, ``unsafe_hash``, ``kw_only``, ``slots``, ``match_args``, ``weakref_slot`` (not
  ``init=False``: then ``object.__init__`` rejects keywords), and no metaclass or class keyword;
- its bases are none, ``object``, or one plain dataclass of the same module (no diamond, no
  field of the base redeclared: the field order stays the one written);
- its body holds only a docstring, ``pass``, fields (``name: T``, ``name: T = <constant>``,
  ``name: T = field(default=<constant>|default_factory=list|dict|set|tuple, init=..., ...)``
  with constant options; no ``ClassVar``, ``InitVar`` or ``KW_ONLY`` annotation), class
  attributes of constant value and ``def``s (decorated or not: they run when called, or are
  read by a name that is no field) whose names are not field names, its bases' included, and
  not a hook that runs on construction or attribute access (``__init__``, ``__new__``,
  ``__setattr__``, ``__getattr__``, ``__getattribute__``, ``__delattr__``, ``__init_subclass__``,
  ``__set_name__``, ``__get__``, ``__set__``, ``__delete__``, ``__class_getitem__``, nor
  ``__del__``, which runs when the object is dropped: a construction moved across a statement
  that raises would be built, and finalized, or not; a
  ``__post_init__`` only of the shape below);
- neither its module nor the module building it sets or deletes one of its attributes
  (``C.__post_init__ = f``, ``setattr(C, ...)``; patching from any other module of the
  repository, which is not searched, is outside what is checked);
- the builtins it uses as factories are not rebound in its module, and the class name is bound
  once in its module (``prreport.python.scopes.single_binding``), as is the name a caller builds it by.

Then ``C(f=a, g=b)`` (keywords only, each naming an ``__init__`` field, every field without a
default given, no ``*``/``**``) runs the generated ``__init__``: it stores the values, calls the
factories (``list()`` and friends) and nothing else; it cannot raise ``TypeError`` and returns a
new object each time. That is the fact ``constructions`` gives ``prreport.equivalence.rewrites`` (an assignment of
such a construction may move within its block like a constant: ``moved-assignment``).

Moving ``n = C(f=a)`` across statements of its block (``rewrites``) is then sound when those
statements do not mention ``n`` (nor hold a nested def, lambda or class that could close over
it) and rebind none of the argument names, each a constant, an imported object (a name its one
import binds, not rebound anywhere in the module, e.g. by ``global`` in a function a call
between could run; not ``module.attr``, which any code may assign) or a local of
the function's own scope (a global could be rebound by any call; a name only a nested def
assigns is such a global) that is surely bound where the construction stood (a parameter, or
assigned by an earlier statement of the block) and that nothing unbinds (``del``,
``except ... as``: reading an unbound local raises): the construction has no effect to reorder and raises nothing, so
which statement raises first, or whether a ``yield``/``await`` suspends between, cannot tell
the two orders apart; it runs as many times as before (the same block), each time giving a new
object nothing else refers to (identity and aliasing unchanged); ``locals()``/``eval``/
``global``/``nonlocal`` in the function turn the rewrite off. The class name must mean the
class on both sides: bound once in its module, not a name the function binds.

One ``__post_init__`` shape is accepted under a stated assumption: each statement assigns
``self.<field> = <expr>`` (not in a frozen class) where ``<expr>`` is made of constants, tuple
displays, reads of ``__init__`` fields and ``tuple``/``list``/``set``/``frozenset``/``sorted``
of a field (``self.f or []`` too). Those read the *items* of the field, which could run code
(``__hash__``, ``__lt__``, ``__iter__``) or fail; the field must be annotated as a container of
``str`` (``Optional[List[str]]``) and the finding says so: *assumed a container of str, as
annotated, not changed by the statements the construction moved across* (the construction
snapshots the items, so a statement it moved across must not change them).

``moved_constructions`` says which modules to fetch for that: those defining the classes built
by keyword in functions whose change moves a line.

``stable_field`` proves the other fact: ``v.a`` reads the same object wherever it is read, when
``v`` is a local assigned once, by ``v = F(...)`` where ``F`` is a plain function of the same
module whose every exit is ``return C(...)`` (``C`` plain) or ``raise``, and every use of ``v``
is a read of an ``__init__`` field of ``C`` in a statement after ``v = F(...)`` in its own block
(so ``v`` is bound there: a read where it may be unbound raises, and the expansion may read it
fewer times): the object is new, only ``v`` refers to it (it is
never passed, called, stored or written through), so no code can reach it to change the field,
and reading a field of a plain class runs no code and cannot fail. Ruled out: a nested scope or
``locals()``/``eval``/``global`` seeing ``v``; ``v`` a parameter; a generator or decorated
``F``; a method called through ``v`` (its ``self`` would escape). Frame or ``gc`` introspection
is outside the model, as everywhere in prreport.

Modules: ``plain`` (a plain class as data), ``recognise`` (whether a class is plain, read from
its source), ``post_init`` (the one ``__post_init__`` shape and its assumption), ``modules``
(which repository file a module is, and what to fetch), ``construction`` (the fact a call is a
construction) and ``stable`` (``stable_field``).
"""

from __future__ import annotations

from prreport.equivalence.plainclass.construction import constructions
from prreport.equivalence.plainclass.modules import defining_files, moved_constructions
from prreport.equivalence.plainclass.plain import Field, PlainClass
from prreport.equivalence.plainclass.recognise import class_named
from prreport.equivalence.plainclass.stable import module_attribute, stable_field

__all__ = [
    "Field",
    "PlainClass",
    "class_named",
    "constructions",
    "defining_files",
    "moved_constructions",
    "module_attribute",
    "stable_field",
]
