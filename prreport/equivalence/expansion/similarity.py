"""How much of a helper's code is found where its calls are: an extraction or inlining that is
not proven is still reported (as "different", with the residual) when the code is similar.
"""

from __future__ import annotations

import ast
import difflib
import re

from prreport.bundle import FileChange
from prreport.python.definitions import Definition, strip_docstring
from prreport.python.sources import SourceFiles
from prreport.textlines import split_lines

# Share of an unproven helper's code found among the caller's changed lines to still call it
# an extraction/inlining (reported as "different", with the residual).
_SIMILAR = 0.6


_TOKEN = re.compile(r"\w+|[^\w\s]")


def contained(part: str, whole: str) -> float:
    """Share of ``part``'s tokens found, in order, in ``whole`` (1.0: all of it)."""
    a, b = _TOKEN.findall(part), _TOKEN.findall(whole)
    if not a:
        return 0.0
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return sum(m.size for m in sm.get_matching_blocks()) / len(a)


def similar_code(
    sources: SourceFiles,
    f: FileChange,
    side: str,
    other: Definition,
    helper: Definition,
    residual: tuple[str, ...] | None,
) -> bool:
    """Whether most of the helper's code is found among the changed lines of the caller's other
    version ``other`` (``side``: the helper's), or half of it is and its calls expanded with a
    ``residual`` of a few lines only (None: the calls did not expand)."""
    # Where the helper's code went (or came from): the other side's changed lines.
    g = f.before if side == "after" else f.after
    cl = sources.changed(f)
    moved = set(cl.removed if side == "after" else cl.added)
    rows = split_lines(g or "")
    text = "\n".join(
        rows[n - 1] for n in range(other.start, other.end + 1) if n in moved and n <= len(rows)
    )
    body = strip_docstring(helper.node.body)  # type: ignore[attr-defined]
    body_text = "\n".join(ast.unparse(x) for x in body)
    share = contained(body_text, text)
    # Or the calls expanded and the result is off by a few lines only.
    near = residual is not None and len(residual) <= max(4, len(split_lines(body_text)))
    return share >= _SIMILAR or (near and share >= _SIMILAR / 2)
