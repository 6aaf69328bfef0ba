"""Whether the reads of a module resolve: bound in the reading scope, in an enclosing function
or the module (class bodies do not enclose), or a builtin; the star imports that make a miss
uncertain; which names a scope and the scopes nested in it read; and what ``__all__`` exports.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass

from prreport.python.bindings import Scope, walk

_BUILTINS = frozenset(dir(builtins)) | {
    "__file__",
    "__name__",
    "__doc__",
    "__spec__",
    "__loader__",
    "__package__",
    "__builtins__",
    "__path__",
    "__annotations__",
    "__cached__",
    "__dict__",
    "WindowsError",  # exists on Windows only; code guarded by a platform check uses it
}


@dataclass(frozen=True)
class Unresolved:
    """A read of ``name`` at ``line`` in scope ``scope`` (a qualname) that nothing binds."""

    name: str
    line: int
    scope: str


def unresolved(module: Scope) -> tuple[list[Unresolved], list[tuple[int, str]]]:
    """Reads bound in no visible scope nor builtins, and the star imports that make this uncertain."""
    out: list[Unresolved] = []
    stars: list[tuple[int, str]] = []
    # Names bound in the enclosing function/module scopes of a scope (class bodies are not
    # enclosing for the code nested in them); the scope's own names are checked first.
    enclosing: dict[int, frozenset[str] | set[str]] = {id(module): frozenset()}
    for s in walk(module):
        stars.extend(s.star_lines)
        outer = enclosing[id(s)]
        if s.children:
            inner = outer if s.kind == "class" else (s.bound | outer if outer else s.bound)
            for c in s.children:
                enclosing[id(c)] = inner
        if not s.uses:
            continue
        own = s.bound
        for name, line in s.uses:
            if name not in own and name not in outer and name not in _BUILTINS:
                out.append(Unresolved(name, line, s.qualname))
    return out, sorted(stars)


def used_below(scope: Scope) -> set[str]:
    """Names read in ``scope`` and every scope nested in it (string annotations included)."""
    names: set[str] = set()
    for s in walk(scope):
        names |= {n for n, _ in s.uses}
        names |= s.soft_uses
    return names


def dunder_all(tree: ast.Module) -> set[str]:
    """Names listed in a module-level ``__all__`` (assigned, extended or added to)."""
    out: set[str] = set()
    for st in tree.body:
        value: ast.AST | None = None
        if isinstance(st, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                value = st.value
        elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
            fn = st.value.func
            if (
                isinstance(fn, ast.Attribute)
                and isinstance(fn.value, ast.Name)
                and fn.value.id == "__all__"
            ):
                value = st.value.args[0] if st.value.args else None
        if value is not None:
            out |= {
                n.value
                for n in ast.walk(value)
                if isinstance(n, ast.Constant) and isinstance(n.value, str)
            }
    return out
