"""The terms an effect summary is made of, the interner that names program states, and one path.

A term is a nested tuple, compared by value. A *value* term (a constant, an f-string of
values, a tuple of values, an operator or pure builtin applied to values) means the same at
every state; any other computed term carries the id of the state it was computed in, so a
read or an operator moved across a call or a write never compares equal to the original.
States are interned from (previous state, effect): two versions get the same state id exactly
when they made the same effects in the same order from the function's entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Term = tuple

NONE: Term = ("c", "NoneType", None)
_VALUE_HEADS = frozenset({"c", "imp", "b", "fn"})
_DERIVED = frozenset({"bin", "un", "cmp", "pure", "fmt", "truthy", "not"})


class Unsupported(Exception):
    """The code uses something the summary does not model: the comparison gives no answer."""


class OverBudget(Unsupported):
    """The summary grew past its node budget (too many paths): no answer, never a hang."""


def const(value: object) -> Term:
    """A literal, tagged by its type (``1``, ``1.0`` and ``True`` are different terms)."""
    return ("c", type(value).__name__, value)


def is_value(t: Term) -> bool:
    """Whether ``t`` means the same at every state (no state tag anywhere inside)."""
    head = t[0]
    if head in _VALUE_HEADS:
        return True
    if head in ("tuple", "fstr"):
        return all(is_value(x) for x in t[1])
    if head in _DERIVED:
        return t[-1] is None
    if head == "ite":
        return all(is_value(x) for x in t[1:])
    return False


def tag(state: int, *parts: Term) -> int | None:
    """The state tag of a term computed from ``parts``: none when they are all values."""
    return None if all(is_value(p) for p in parts) else state


def ite(cond: Term, yes: Term, no: Term) -> Term:
    """``yes if cond else no``, with the trivial case folded."""
    return yes if yes == no else ("ite", cond, yes, no)


class Interner:
    """Names states and block keys; shared by the two versions compared, so equal effect
    histories get equal ids."""

    def __init__(self, budget: int) -> None:
        self._ids: dict[object, int] = {}
        self.nodes = 0
        self.budget = budget

    def intern(self, key: object) -> int:
        got = self._ids.get(key)
        if got is None:
            got = self._ids[key] = len(self._ids) + 1
        return got

    def count(self, n: int = 1) -> None:
        self.nodes += n
        if self.nodes > self.budget:
            raise OverBudget("too many paths")


@dataclass
class Path:
    """One path of execution: local names, the current state, effects not yet put in the tree,
    what the path's tests decided, and the count of objects made at this state."""

    env: dict[str, Term]
    state: int
    effects: list[Term] = field(default_factory=list)
    facts: dict[Term, bool] = field(default_factory=dict)
    made: int = 0
    # Containers this call made that no other code can reach yet (term -> "list"/"set"/"dict"):
    # changing one is a local effect that leaves the state others read as it was.
    private: dict[Term, str] = field(default_factory=dict)

    def fork(self) -> Path:
        """A copy for one side of a branch (the pending effects stay with the tree above it)."""
        return Path(dict(self.env), self.state, [], dict(self.facts), self.made, dict(self.private))

    def escape(self, term: Term) -> None:
        """The private containers inside ``term`` are reachable by other code from now on."""
        if self.private:
            for t in _inside(term, self.private):
                self.private.pop(t, None)

    def fresh(self) -> Term:
        """A new object's identity: the state it is made in and its rank among those made there."""
        self.made += 1
        return ("new", self.state, self.made)


def _inside(term: object, private: dict[Term, str]) -> list[Term]:
    """The keys of ``private`` that occur in ``term`` (at any depth)."""
    found: list[Term] = []
    stack = [term]
    while stack:
        t = stack.pop()
        if isinstance(t, tuple):
            if t in private:
                found.append(t)
            stack.extend(x for x in t if isinstance(x, tuple))
    return found
