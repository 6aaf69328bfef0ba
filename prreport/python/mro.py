"""Which definition of a method a class reaches first along its bases: whether a class that
lost its own copy of a method now gets it from the class it was moved to (its new home).
"""

from __future__ import annotations

from dataclasses import replace

from prreport.python.definitions import Definition, file_index
from prreport.python.hierarchy import find_in_bases
from prreport.python.sources import SourceFiles


def base_index(cls: Definition, home: str) -> int | None:
    """Position among ``cls``'s bases of the one named ``home`` (``mixins.Home``, ``Home[T]``)."""
    for i, base in enumerate(cls.bases):
        if base.partition("[")[0].strip().rsplit(".", 1)[-1] == home:
            return i
    return None


def mro_reaches(
    sources: SourceFiles, path: str, cls: Definition, new: Definition
) -> tuple[bool | None, str]:
    """Whether ``cls`` (after) now gets ``new``'s method from ``new``'s class, its new home.

    ``(True, "")`` when the C3 MRO reaches the home before any other definition of the method;
    ``(False, where)`` when it reaches ``where`` first (the class itself still binding the name,
    a base listed before the home, or a same-named base that is another class), or never
    reaches the home; ``(None, "")`` when that cannot be said: a base that does not resolve, or
    an order that depends on the whole hierarchy (diamonds). When the home is a direct base,
    the bases listed before it and their ancestors are searched; otherwise the home must be
    found along first bases or single inheritance (``ForceReply(ReplyMarkup)``,
    ``ReplyMarkup(Base)``). Ancestors deeper than the base-class search goes are not seen."""
    own = file_index(sources, path, "after").get(f"{cls.qualname}.{new.name}")
    if own is not None:
        return False, own.qualname
    target = (new.path, new.qualname)

    def first(holder: Definition, in_path: str) -> tuple[tuple[str, str], bool, bool]:
        """(path, qualname) of the first definition of the method along ``holder``'s bases
        (empty when none), whether a base on the way did not resolve, and whether the C3 MRO
        must find it first too."""
        lk = find_in_bases(sources, in_path, "after", holder, new.name)
        found = (lk.base_path, lk.base.qualname) if lk.base is not None else ("", "")
        return found, bool(lk.unresolved), lk.linear

    idx = base_index(cls, new.parent.rsplit(".", 1)[-1])
    if idx is None:
        hit, unresolved, linear = first(cls, path)
        if not hit[1]:
            return (None if unresolved else False), ""
        if not linear:
            return None, ""
        return (True, "") if hit == target else (False, hit[1])
    home, unresolved, _ = first(replace(cls, bases=(cls.bases[idx],)), path)
    if home != target:
        return (None, "") if unresolved and not home[1] else (False, home[1])
    home_cls = file_index(sources, new.path, "after").get(new.parent)
    above = first(home_cls, new.path)[0] if home_cls is not None else ("", "")
    for base in cls.bases[:idx]:
        hit, unresolved, _ = first(replace(cls, bases=(base,)), path)
        if hit[1] and hit in (home, above):
            return None, ""  # the home comes first or not, depending on the whole hierarchy
        if hit[1]:
            return False, hit[1]
        if unresolved:
            return None, ""
    return True, ""
