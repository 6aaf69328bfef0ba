"""A private function that built and returned a list made a generator yielding the same elements.

``def _f(): out = []; out.append(a); ...; return out`` becomes ``def _f(): yield a; ...``, and
every caller consumes the result completely and at once (``list(_f())``). Two facts make that
a refactor, and both must be proven (``list-to-generator``):

1. **Same sequence.** The old body is rewritten into the generator it stands for and compared
   with the new body (the canonical comparison of ``prreport.equivalence.canonical``, then
   ``prreport.equivalence.rewrites.see_through``):
   the local the body ends by returning, bound once, at the top of the body before any use, to
   a list display (``L = [a]`` → ``yield a`` there) and used only by ``L.append(x)`` →
   ``yield x``, ``L.extend([a, b])`` → ``yield a; yield b``, ``return L`` → ``return``; in a
   body without such a local, ``return [a, b]`` → ``yield a; yield b; return`` and
   ``return _g(...)`` of another function proven here → ``yield from _g(...); return`` (inside
   a ``try`` or ``with`` of the body, a display is split only when the elements after the
   first are constants and ``return _g(...)`` not at all: the display was built whole, so an
   exception caught there kept none of it, while the generator has yielded the first ones) (with
   the local, ``return [a]`` dropped what it held, which a generator cannot take back: refused).
   Any other use of the local (read,
   passed, rebound, also by ``except ... as``, ``import ... as``, ``def``, ``class`` or a
   ``match`` capture, used in a nested scope), another kind of ``return`` or a body that can fall
   off its end (returning ``None``, not a list) and nothing is claimed. ``L.insert(0, x)`` just
   before the final ``return L`` puts ``x`` first: ``yield x`` is placed before the first
   statement that yields, which evaluates ``x`` earlier than before; that is only claimed when
   ``x`` cannot act or fail (a ``str`` literal, or an f-string of plain names each bound, at
   the top of the body before that point, only to ``str`` values: literals, f-strings,
   ``"sep".join(...)`` or a call of a module function whose whole body returns one of those),
   nothing from that point on binds those names (``except ... as`` and other binders
   included), and nothing from that point on returns early
   (an early ``return L`` skipped the prepend). When the first statement that yields is
   ``if A: S elif B: T`` with the yields only in ``T``, it is read as ``if A: S`` followed by
   ``if not A and B: T`` (``split-elif``): ``A`` is evaluated again, so it must be
   ``v < K`` (any order operator) with ``v`` a local bound once, before, to ``tuple(...)`` (or a
   parameter rebound so; no ``except ... as v`` or other binder anywhere in the function) and ``K`` a tuple of int literals; ``not (v < K)`` is written
   ``v >= K``. Assumption, stated in the finding: comparing the items of ``v`` with ints does
   nothing and is a total order (numbers, not NaN).
2. **Nobody can tell it is lazy.** The function is private (``_name``, not in a string of any
   module such as ``__all__``), defined once at module level, undecorated, and every reference
   to its name anywhere in the repository (a whole-repository search: ``requests``) consumes
   the call completely and at once: ``list(_f(...))`` / ``tuple(_f(...))`` (builtins the file
   does not rebind), ``yield from _f(...)`` as a statement of another function proven here, or
   ``x = _f(...)`` (also as one branch of ``... if c else ...``) whose next statement to run is
   ``x = list(x)`` (the assignment last in ``if`` bodies is followed by the statement after
   the ``if``: no ``try``, ``with`` or loop in between), ``x`` a plain local of a function (not
   module or class level, not ``global``/``nonlocal``, read by no nested function or lambda:
   while ``list(x)`` runs the body, ``x`` holds the generator, not the old value), and no
   ``try`` or ``with`` of that function encloses the assignment (an exception of the body,
   caught or suppressed there, would leave ``x`` holding the generator instead of its old
   value). ``set``/``sorted``/a ``for`` loop are
   not accepted: they run code (``__hash__``, ``__lt__``, the loop body) between two steps of
   the generator. So every side effect, warning and exception of the body happens at the same
   point of the caller as before, and the caller sees a new list with the same elements.

A caller whose text changed only by wrapping such a call in ``list(...)`` is equal once
``list(_f(...))`` is read as ``_f(...)`` on both sides (``consumed-generator``): on the old side
``_f`` returned a new list nothing else holds, so a copy of it is the same value; on the new
side ``list`` builds that list from the same elements at the same point.

Corner cases ruled out: ``StopIteration`` escaping the old body would become ``RuntimeError``
inside a generator (PEP 479) — that is the one assumption of ``list-to-generator``, stated in
the finding; a ``yield``/``await`` in the old body, ``locals()``/``vars()``/``eval``/``exec``
(they see the local list), ``global``/``nonlocal`` of the local, decorators (a wrapper may
keep the result), a name bound again anywhere in its module, a reference through a string
(``monkeypatch.setattr(m, "_f", ...)``, ``getattr``), an alias (``from m import _f as g``)
or any reference the search could not read: nothing is claimed. A test replacing the function
by ``setattr(m, "_f", lambda ...: [a, b])`` (a new list at every call) is accepted: callers
consume that list as they consumed the old one. Private means nothing outside the repository
calls it (the premise of a leading underscore); the module-level functions called are the ones
the module defines (not replaced at run time), as everywhere in this package. What does move
is the line an exception or a ``warnings.warn(..., stacklevel=2)`` names in the caller (the
``list(x)`` line rather than the call's, in the same function and ``try``): lines are not
behaviour here.

Modules: ``candidates`` (the functions that became generators), ``as_generator`` (part 1: the
old body read as the generator it builds), ``prepend`` (an ``insert(0, x)`` before the final
``return`` and ``split-elif``), ``consumers`` (part 2: every reference consumes the call at
once), ``bindings`` (what a function's own scope binds) and ``proof`` (both parts over the
whole change, and ``consumed-generator``).
"""

from __future__ import annotations

from prreport.equivalence.generators.candidates import generator_requests
from prreport.equivalence.generators.proof import generator_rewrites, proven

__all__ = ["generator_requests", "generator_rewrites", "proven"]
