"""The facts of ``prreport.equivalence.plainclass``, stated in the detail of the rewrite they allow."""

from __future__ import annotations

from prreport.equivalence.rules.spec import Rule, edit

_REPORT = """from dataclasses import dataclass


@dataclass
class Report:
    check: bool
    quiet: bool
"""
_REPORT_HOOKED = (
    _REPORT
    + """
    def __post_init__(self):
        print(self.check)
"""
)
_MAIN_BEFORE = """

def main(check, quiet, paths):
    sources = sorted(paths)
    report = Report(check=check, quiet=quiet)
    return sources, report
"""
_MAIN_AFTER = """

def main(check, quiet, paths):
    report = Report(check=check, quiet=quiet)
    sources = sorted(paths)
    return sources, report
"""
_NAMED = """from dataclasses import dataclass
from typing import List, Optional


@dataclass
class Report:
    check: bool
    names: Optional[List[str]] = None

    def __post_init__(self):
        self.names = tuple(sorted(set(self.names or [])))
"""
_POINT = """from dataclasses import dataclass


@dataclass
class Point:
    x: int
    y: int


def make(a):
    return Point(x=a, y=a)


def log(message):
    print(message)
"""
_AREA_BEFORE = """

def area(a):
    p = make(a)
    log("area")
    return p.x * p.x
"""
_AREA_AFTER = """

def _square(v):
    log("area")
    return v * v


def area(a):
    p = make(a)
    return _square(p.x)
"""


def _kept(text: str) -> str:
    """``text`` with the point handed to ``keep`` first (it escapes: ``log`` may change it)."""
    text = edit(text, "def area(a):", "def area(a, keep):")
    return edit(text, "    p = make(a)\n", "    p = make(a)\n    keep(p)\n")


PLAIN = (
    Rule(
        "plain-construction",
        "prreport.equivalence.plainclass.construction",
        "Building a plain dataclass of the repository by keyword runs no other code and cannot"
        " fail, so its assignment moves like a constant's.",
        "",
        before=_REPORT + _MAIN_BEFORE,
        after=_REPORT + _MAIN_AFTER,
        near_miss=_REPORT_HOOKED + _MAIN_AFTER,
        near_miss_before=_REPORT_HOOKED + _MAIN_BEFORE,
        kind="moved-assignment",
        detail=r"^pkg\.mod\.Report\|pkg/mod\.py\|$",
    ),
    Rule(
        "plain-post-init",
        "prreport.equivalence.plainclass.post_init",
        "A plain dataclass whose `__post_init__` only stores tuples, lists, sets or sorted copies"
        " of its fields is still built without running other code.",
        "The fields whose items it reads are containers of `str`, as annotated, and the"
        " statements the construction moved across do not change them.",
        before=_NAMED + _MAIN_BEFORE.replace("quiet=quiet", "names=quiet"),
        after=_NAMED + _MAIN_AFTER.replace("quiet=quiet", "names=quiet"),
        near_miss=_NAMED.replace("List[str]", "List[object]")
        + _MAIN_AFTER.replace("quiet=quiet", "names=quiet"),
        near_miss_before=_NAMED.replace("List[str]", "List[object]")
        + _MAIN_BEFORE.replace("quiet=quiet", "names=quiet"),
        kind="moved-assignment",
        detail=r"^pkg\.mod\.Report\|pkg/mod\.py\|names$",
    ),
    Rule(
        "fresh-instance",
        "prreport.equivalence.plainclass.stable",
        "A field of a new plain dataclass instance that is only ever read by field reads is the"
        " same object wherever it is read, so an inlined argument may read it again later.",
        "",
        before=_POINT + _AREA_BEFORE,
        after=_POINT + _AREA_AFTER,
        near_miss=_POINT + _kept(_AREA_AFTER),
        near_miss_before=_POINT + _kept(_AREA_BEFORE),
        kind="reread-argument",
        detail=r"^fresh\|p\|pkg\.mod\.Point\|make$",
    ),
)
