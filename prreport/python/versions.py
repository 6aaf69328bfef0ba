"""The lowest Python a project declares, and ``sys.version_info`` tests it decides.

A test such as ``sys.version_info >= (3, 7)`` is fixed for every interpreter a project supports
when its packaging files declare ``requires-python >= 3.7`` (or ``python_requires``, poetry's
``python = "^3.7"``). The declaration is read from the text *before* the change (a guard dead
before the change is dead), falling back to the head text of an unchanged packaging file.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prreport.python.sources import SourceFiles

PACKAGING = ("pyproject.toml", "setup.cfg", "setup.py")
_DECLARED = (
    r"""requires-python\s*=\s*["']([^"']+)["']""",
    r"""python_requires\s*=\s*["']?([^"'\n]+)""",
    r"""^python\s*=\s*["']([^"']+)["']""",
)
_OPS = {ast.GtE: ">=", ast.Gt: ">", ast.Lt: "<", ast.LtE: "<="}


def min_python(text: str | None) -> tuple[int, ...] | None:
    """The lowest Python a packaging file declares (``>=3.7``, ``~=3.8``, poetry ``^3.7``)."""
    if not text:
        return None
    for pat in _DECLARED:
        m = re.search(pat, text, re.M)
        if not m:
            continue
        low = re.search(r"(?:>=|~=|\^|==)\s*(\d+(?:\.\d+)+)", m.group(1))
        if low:
            return tuple(int(x) for x in low.group(1).split("."))
    return None


def declared_min_python(sources: SourceFiles) -> tuple[int, ...] | None:
    """The project's declared lowest Python before the change (None when none is declared)."""

    def build() -> tuple[int, ...] | None:
        for name in PACKAGING:
            f = sources.bundle.file(name)
            low = min_python(f.before if f is not None else sources.text(name, "head"))
            if low is not None:
                return low
        return None

    return sources.memo("", "bundle", "min-python", build)  # type: ignore[no-any-return]


_CLASSIFIER = re.compile(r"Programming Language :: Python :: (3\.\d+)\b")


def supported_floor(text: str | None) -> tuple[int, ...] | None:
    """The lowest Python a packaging file says it supports: its declared minimum, else the
    lowest ``Programming Language :: Python :: 3.N`` classifier."""
    low = min_python(text)
    if low is not None or not text:
        return low
    listed = [tuple(int(x) for x in v.split(".")) for v in _CLASSIFIER.findall(text)]
    return min(listed) if listed else None


def head_python_floor(sources: SourceFiles) -> tuple[str, tuple[int, ...]] | None:
    """(packaging file, lowest supported Python) at head, the project as it is after the change
    (``requires-python``, ``python_requires``, classifiers); None when nothing declares it."""

    def build() -> tuple[str, tuple[int, ...]] | None:
        for name in PACKAGING:
            low = supported_floor(sources.text(name, "head"))
            if low is not None:
                return name, low
        return None

    return sources.memo("", "bundle", "head-python-floor", build)  # type: ignore[no-any-return]


def version_test(
    test: ast.expr, spelled: str = "sys.version_info"
) -> tuple[str, tuple[int, ...]] | None:
    """``sys.version_info OP (3, 7)`` (or ``[:2]``) as (op, version); ``spelled`` is how the
    comparison's left side reads once unparsed (``@sys.version_info`` in a canonical tree)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left = test.left
    if isinstance(left, ast.Subscript):
        left = left.value
    if ast.unparse(left) != spelled:
        return None
    right = test.comparators[0]
    if not isinstance(right, ast.Tuple) or not all(
        isinstance(e, ast.Constant) and type(e.value) is int for e in right.elts
    ):
        return None
    op = _OPS.get(type(test.ops[0]))
    if op is None:
        return None
    return op, tuple(e.value for e in right.elts)  # type: ignore[attr-defined]


def fixed_by_version(
    test: ast.expr, low: tuple[int, ...] | None, spelled: str = "sys.version_info"
) -> tuple[bool, str] | None:
    """(value, the declared lowest Python as ``"3.7"``) when every supported interpreter answers
    the version test ``test`` alike."""
    v = version_test(test, spelled)
    if v is None or low is None:
        return None
    op, version = v
    if low < version:
        return None
    # Every supported version is >= low >= version: ``>=``/``>`` hold, ``<``/``<=`` do not
    # (``>`` and ``<=`` only when low is above version, e.g. (3, 8) > (3, 7)).
    if op in (">", "<=") and low[: len(version)] == version:
        return None
    return op in (">=", ">"), ".".join(map(str, low))
