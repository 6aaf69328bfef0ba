"""The callers of a helper, each paired with its other version and proven, or not.

Which calls reach a helper (:func:`call_matcher`: by name in its module or imported by name, a
nested function inside its enclosing function, a method through ``self``/``cls`` from its class
or a subclass in the same file), and for each caller on the helper's side the same function on
the other side, with the :class:`~prreport.equivalence.expansion.prove.Proof` that expanding
the calls makes them equal (:func:`site_pairs`).
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from prreport.bundle import FileChange
from prreport.equivalence.expansion.binding import Helper, class_bound, helper_of, is_super
from prreport.equivalence.expansion.prove import Proof, prove
from prreport.equivalence.expansion.similarity import similar_code
from prreport.equivalence.plainclass import constructions, module_attribute, stable_field
from prreport.python.definitions import Definition, file_index
from prreport.python.localnames import local_names, params_of
from prreport.python.scopes import bound_anywhere
from prreport.python.sources import SourceFiles


def calls_in(node: ast.AST, matches: Callable[[ast.Call], bool]) -> list[ast.Call]:
    """Calls of ``node`` (the whole subtree) that ``matches`` accepts."""
    return [n for n in ast.walk(node) if isinstance(n, ast.Call) and matches(n)]


def called_names(index: dict[str, Definition]) -> dict[str, frozenset[str]]:
    """For each function of a file side: the names its calls go through (``f(...)``, ``x.f(...)``)."""
    out: dict[str, frozenset[str]] = {}
    for q, d in index.items():
        if d.kind not in ("function", "method"):
            continue
        names: set[str] = set()
        for n in ast.walk(d.node):
            if isinstance(n, ast.Call):
                f = n.func
                if isinstance(f, ast.Name):
                    names.add(f.id)
                elif isinstance(f, ast.Attribute):
                    names.add(f.attr)
        out[q] = frozenset(names)
    return out


def _class_chain(index: dict[str, Definition], cls: str, depth: int = 0) -> set[str]:
    """Short names of a class and its bases defined in the same file (transitively)."""
    d = index.get(cls)
    out = {cls.rsplit(".", 1)[-1]}
    if d is None or d.kind != "class" or depth > 5:
        return out
    for b in d.bases:
        short = b.rsplit(".", 1)[-1]
        out.add(short)
        hit = next((q for q, x in index.items() if x.kind == "class" and x.name == short), None)
        if hit is not None and hit != cls:
            out |= _class_chain(index, hit, depth + 1)
    return out


def call_matcher(
    helper: Definition,
    caller: Definition,
    index: dict[str, Definition],
    same_file: bool,
    imported: frozenset[str] = frozenset(),
    caller_locals: Callable[[], frozenset[str]] | None = None,
) -> Callable[[ast.Call], bool] | None:
    """Which calls inside ``caller`` reach ``helper`` (``index``: the caller file side's definitions).

    A function: by its name in its own module (or imported by name), not shadowed by a caller
    local; a nested function: by name inside its enclosing function; a method: through
    ``self``/``cls`` from its class or a subclass in the same file that does not redefine it,
    or through its class name. ``caller_locals`` gives the caller's local names (memoised by
    the caller of this function; computed here when not given).
    """
    name = helper.name
    if helper.kind == "function" and helper.parent.endswith(".<locals>"):
        if helper.parent != f"{caller.qualname}.<locals>":
            return None
        return lambda c: isinstance(c.func, ast.Name) and c.func.id == name
    if helper.kind == "function" and not helper.parent:
        if not (same_file or name in imported):
            return None
        local = caller_locals() if caller_locals is not None else local_names(caller)
        if name in local:
            return None
        return lambda c: isinstance(c.func, ast.Name) and c.func.id == name
    if helper.kind != "method" or caller.kind != "method":
        return None
    if not same_file:
        return None
    cls = helper.parent
    home = cls.rsplit(".", 1)[-1]
    if home not in _class_chain(index, caller.parent):
        return None
    if caller.parent != cls and f"{caller.parent}.{name}" in index:
        return None  # the caller's class has its own method of that name

    def match(c: ast.Call) -> bool:
        f = c.func
        return (
            isinstance(f, ast.Attribute)
            and f.attr == name
            and isinstance(f.value, ast.Name)
            and f.value.id in ("self", "cls", home)
        )

    return match


@dataclass(frozen=True)
class SitePair:
    """A caller present on both sides, and the proof for its calls of the helper."""

    path: str  # after path
    before_path: str
    before: Definition
    after: Definition
    proof: Proof
    call_lines: tuple[int, ...] = ()  # lines of the helper calls, on the helper's side


def imports_by_stem(tree: ast.Module | None) -> dict[str, frozenset[str]]:
    """For each last module component ``from X.stem import a, b`` names: the names imported
    under their own name (one walk of the tree answers every stem)."""
    out: dict[str, set[str]] = {}
    for st in ast.walk(tree) if tree is not None else ():
        if isinstance(st, ast.ImportFrom):
            names = {a.asname or a.name for a in st.names if (a.asname or a.name) == a.name}
            out.setdefault((st.module or "").rsplit(".", 1)[-1], set()).update(names)
    return {k: frozenset(v) for k, v in out.items()}


# Calls a caller makes of the helper that ``call_matcher`` does not see (``super().m(...)``
# through a base class the change removes): for a caller and its file side's definitions, the
# calls matched and what keeps them from being proven ("" when nothing does), or None.
SuperCalls = Callable[
    [Definition, dict[str, Definition]], tuple[Callable[[ast.Call], bool], str] | None
]


def site_pairs(
    sources: SourceFiles, helper: Definition, side: str, via_super: SuperCalls | None = None
) -> list[SitePair] | str:
    """Callers of ``helper`` on its own ``side`` (``after``: extracted, ``before``: inlined), each
    paired with the same function on the other side and proven or not; a string says why none apply.
    """
    h = helper_of(helper)
    if h is None:
        return "decorated helper"
    stem = helper.path.rsplit("/", 1)[-1].removesuffix(".py")
    if stem == "__init__":
        stem = helper.path.rsplit("/", 2)[-2] if "/" in helper.path else stem
    scan = _Scan(
        sources, helper, h, side, "before" if side == "after" else "after", stem, via_super
    )
    out: list[SitePair] = []
    for f in sources.python_files():
        if f.before is None or f.after is None:
            continue
        got = _file_pairs(scan, f)
        if isinstance(got, str):
            return got
        out += got
    # A caller nested in another caller is proven with it: keep the outermost only.
    outer = [
        p
        for p in out
        if not any(
            o is not p and o.path == p.path and p.after.qualname.startswith(f"{o.after.qualname}.")
            for o in out
        )
    ]
    return outer


@dataclass(frozen=True)
class _Scan:
    """What :func:`site_pairs` looks for: the helper, its side, its module's last name."""

    sources: SourceFiles
    helper: Definition
    h: Helper
    side: str
    other_side: str
    stem: str
    via_super: SuperCalls | None


def _file_pairs(scan: _Scan, f: FileChange) -> list[SitePair] | str:
    """The callers of the helper in one changed file, paired and proven (or why none apply)."""
    sources, helper, side = scan.sources, scan.helper, scan.side
    here_path = f.path if side == "after" else f.before_path
    there_path = f.before_path if side == "after" else f.path
    here = file_index(sources, here_path, side)
    there = file_index(sources, there_path, scan.other_side)
    same_file = here_path == helper.path
    # Per file side, not per helper: which names each function calls, what it imports.
    called = sources.memo(here_path, side, "called-names", partial(called_names, here))
    imported = (
        frozenset()
        if same_file
        else sources.memo(
            here_path,
            side,
            "imports-by-stem",
            partial(imports_by_stem, sources.tree(here_path, side)),
        ).get(scan.stem, frozenset())
    )
    out: list[SitePair] = []
    for q, c in here.items():
        if c.kind not in ("function", "method") or c is helper:
            continue
        if helper.name not in called.get(q, ()):
            continue  # no call through that name at all
        if q.startswith(f"{helper.qualname}."):
            continue  # nested in the helper itself
        m = call_matcher(
            helper,
            c,
            here,
            same_file,
            imported,
            partial(sources.memo, here_path, side, f"locals:{q}", partial(local_names, c)),
        )
        hc, obstacle = scan.h, ""
        if m is None and scan.via_super is not None:
            through = scan.via_super(c, here)
            if through is not None:
                (m, obstacle), hc = through, _reached_by_super(scan.h, c)
        if m is None or not calls_in(c.node, m):
            continue
        own = class_bound(helper.node)
        if hc is scan.h and helper.kind == "method" and c.parent != helper.parent and own:
            # Spliced into a method of another class, these name that class instead.
            obstacle = f"{helper.qualname} uses {', '.join(own)}: its own class, not {c.parent}"
        if any(
            p.before.qualname == q and p.path == f.path for p in out
        ):  # pragma: no cover - qualnames are unique per file
            continue
        o = there.get(q)
        if o is None or o.kind != c.kind:
            return f"caller {q} exists on one side only"
        # (A super() call on the other side no longer reaches a base the change removes.)
        if hc is scan.h and _calls_by_name(o.node, helper.name, helper.kind == "method"):
            return f"caller {q} still calls {helper.name} on the other side"
        out.append(_pair(scan, f, (c, o), hc, m, obstacle))
    return out


def _either(*facts: Callable[[ast.expr], str | None]) -> Callable[[ast.expr], str | None]:
    """The first of ``facts`` that states why a read gives the same object wherever it is read."""

    def fact(read: ast.expr) -> str | None:
        return next((why for f in facts if (why := f(read)) is not None), None)

    return fact


def _module_names(sources: SourceFiles, path: str, side: str) -> frozenset[str] | None:
    """The names a module side binds anywhere (None when it does not parse)."""
    tree = sources.tree(path, side)
    if tree is None:
        return None
    return sources.memo(path, side, "bound-anywhere", partial(bound_anywhere, tree))


def _calls_by_name(node: ast.AST, name: str, method: bool = False) -> bool:
    """Whether ``node`` calls anything named ``name`` that could be the helper (``name(...)``,
    ``x.name(...)``; for a method, only through one name such as ``self``: a call of a method
    of the same name on another object, ``self.transport._log(...)``, is not)."""
    return any(
        isinstance(n, ast.Call)
        and (
            (isinstance(n.func, ast.Name) and n.func.id == name and not method)
            or (
                isinstance(n.func, ast.Attribute)
                and n.func.attr == name
                and (not method or isinstance(n.func.value, ast.Name) or is_super(n.func.value))
            )
        )
        for n in ast.walk(node)
    )


def _pair(
    scan: _Scan,
    f: FileChange,
    caller: tuple[Definition, Definition],
    hc: Helper,
    m: Callable[[ast.Call], bool],
    obstacle: str,
) -> SitePair:
    """One caller (``c`` on the helper's side, ``o`` on the other) proven, or not."""
    sources, helper, side = scan.sources, scan.helper, scan.side
    c, o = caller
    here_path = f.path if side == "after" else f.before_path
    there_path = f.before_path if side == "after" else f.path
    nested = helper.parent == f"{c.qualname}.<locals>"
    # Last resort (only where the expanded code differs): plain constructions moved.
    inert = (
        constructions(sources, here_path, side, local_names(c)),
        constructions(sources, there_path, scan.other_side, local_names(o)),
    )
    stable = _either(
        partial(module_attribute, sources, here_path, side, c.node),
        partial(stable_field, sources, here_path, side, c.node),
    )
    names = (
        _module_names(sources, here_path, side),
        _module_names(sources, there_path, scan.other_side),
    )
    proof = prove(c.node, o.node, hc, m, nested, inert, stable, names)  # type: ignore[arg-type]
    if obstacle and proof.proven:
        proof = dataclasses.replace(proof, proven=False, reason=obstacle)
    elif obstacle:
        proof = dataclasses.replace(proof, reason=f"{obstacle}; {proof.reason}")
    b, a = (o, c) if side == "after" else (c, o)
    call_lines = tuple(sorted({x.lineno for x in calls_in(c.node, m)}))
    if not proof.proven:
        residual = proof.residual if proof.sites > 0 else None
        similar = similar_code(sources, f, side, o, helper, residual)
        proof = dataclasses.replace(proof, similar=similar)
    if side == "after" and proof.residual:
        # The expansion diffs the new caller (expanded) against the old one: told as a change
        # from old to new, ``-`` is what only the old code did.
        flipped = [{"-": "+", "+": "-"}.get(r[:1], r[:1]) + r[1:] for r in proof.residual]
        flipped.sort(key=lambda r: r[:1] != "-")  # removed lines first, as a diff lists them
        proof = dataclasses.replace(proof, residual=tuple(flipped))
    return SitePair(f.path, f.before_path, b, a, proof, call_lines)


def _reached_by_super(h: Helper, caller: Definition) -> Helper:
    """The helper as ``super().name(...)`` in ``caller`` reaches it: bound to its first parameter."""
    params = params_of(caller.node)
    return dataclasses.replace(h, super_self=params[0].arg if params else "self")
