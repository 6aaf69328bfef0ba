"""Extracted code: duplicated statement runs or methods replaced by one new helper or mixin member,
and statements moved, edited, into a new helper (or a base method) that the code which ran them
now calls (or inherits)."""

from __future__ import annotations

import ast
import bisect
import builtins
import difflib
import textwrap
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial

from prreport.analyzers import Analyzer, register
from prreport.bundle import FileChange, PullRequestBundle
from prreport.equivalence.canonical import (
    bindings,
    canonical,
    imports_in,
    locally_bound,
    module_bindings,
    rebound_builtins,
)
from prreport.equivalence.canonical import module_of as module_path
from prreport.equivalence.expand import (
    OrdinalNames,
    call_matcher,
    called_names,
    calls_in,
    expansion_finding,
    imports_by_stem,
    module_level,
    prove_module,
    site_pairs,
)
from prreport.equivalence.moves import moves
from prreport.findings import Finding
from prreport.python.definitions import (
    Change,
    Definition,
    bound_names,
    definition_changes,
    dump,
    explains,
    file_index,
    first_line,
    lines_with_blanks,
    residual,
    segment,
    strip_docstring,
)
from prreport.python.hierarchy import find_in_bases
from prreport.python.parse import copy_tree
from prreport.python.parse import parse as parse_quietly
from prreport.python.sources import SourceFiles
from prreport.textlines import split_lines

_ORDER = {"byte-identical": 0, "modulo-renames": 1, "different": 2}


def _canon(stmts: Sequence[ast.AST], keep: frozenset[str], erase: bool = False) -> str:
    t = OrdinalNames(keep, erase)
    return "\n".join(dump(t.visit(copy_tree(s))) for s in stmts)


def _statement_lists(node: ast.AST, scope: str) -> Iterator[tuple[str, list[ast.stmt]]]:
    """Every statement list in a tree with the qualname of the function holding it."""
    for field in ("body", "orelse", "finalbody"):
        stmts = getattr(node, field, None)
        if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
            yield scope, stmts
            for st in stmts:
                if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    inner = f"{scope}.{st.name}" if scope else st.name
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        inner = f"{scope}.<locals>.{st.name}"
                    yield from _statement_lists(st, inner)
                else:
                    yield from _statement_lists(st, scope)
    for h in getattr(node, "handlers", []) or []:
        yield from _statement_lists(h, scope)


@dataclass(frozen=True)
class _Site:
    path: str  # after path of the file
    scope: str
    start: int
    end: int
    equality: str
    residual: tuple[str, ...]
    call_lines: tuple[int, ...]
    cls: str = ""
    inherits: bool | None = None
    # Spans of the function/class that held the copy, when it is otherwise unchanged.
    holder_before: tuple[int, int] | None = None
    holder_after: tuple[int, int] | None = None
    shadowed_by: str = ""  # another base the MRO finds the method in first
    # What in a mixin member's body depends on the class it is written in (``super()``,
    # ``__class__``, ``self.__private``): equal text, but not proven to do the same there.
    class_relative: tuple[str, ...] = ()
    # Global names the member's body means other objects by in its new module.
    rebound: tuple[str, ...] = ()


def _equality(
    a_text: str, b_text: str, a: Sequence[ast.AST], b: Sequence[ast.AST], keep: frozenset[str]
) -> str | None:
    if a_text == b_text:
        return "byte-identical"
    if _canon(a, keep) == _canon(b, keep):
        return "modulo-renames"
    if _canon(a, keep, True) == _canon(b, keep, True):
        return "different"
    return None


def _calls(node: ast.AST, name: str) -> list[ast.Call]:
    """Statements-level calls of ``name`` (``name(...)``, ``self.name(...)``) inside node."""
    out: list[ast.Call] = []
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            f = n.func
            if (isinstance(f, ast.Name) and f.id == name) or (
                isinstance(f, ast.Attribute) and f.attr == name
            ):
                out.append(n)
    return out


def _globals(sources: SourceFiles, path: str, side: str) -> frozenset[str]:
    defs = file_index(sources, path, side)
    return frozenset({d.name for d in defs.values() if not d.parent} | set(dir(builtins)))


@register
class ExtractedAnalyzer(Analyzer):
    """Duplicated code removed from ≥2 places and replaced by one new helper or mixin method.

    before: ``a(): x=load(); x.run()`` and ``b(): x=load(); x.run()`` · after: both call
    ``_run_loaded()`` → ``code.extracted``.
    """

    name = "extracted"

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``code.extracted`` for new helpers whose callers, expanded, equal their old code,
        for helpers and mixin members with at least two original copies, and ("different",
        with the residual) for helpers and base methods holding edited code that functions lost
        and now reach through a call or inheritance."""
        change = definition_changes(sources)
        renamed = {(m.new.path, m.new.qualname) for m in moves(change)}
        for new in change.added:
            if new.kind not in ("function", "method"):
                continue
            f_new = change.file_of[new.path]
            # A moved or renamed definition is no new helper (symbols.py follows its callers).
            moved = (new.path, new.qualname) in renamed
            expanded = None if moved else self._expanded(sources, new, f_new)
            if expanded is None and not moved and new.kind == "function" and not new.parent:
                expanded = _module_extraction(sources, new, f_new)
            if expanded is not None and expanded.details["proven"]:
                yield expanded
                continue
            sites = self._mixin_sites(sources, change, new) or self._helper_sites(sources, new)
            if len(sites) >= 2:
                # Copies compared window by window say which argument went where.
                yield self._finding(sources, change, new, f_new, sites)
            elif expanded is not None:
                yield expanded
            elif not moved and sources.tree(new.path, "after") is not None:
                body = _items(strip_docstring(new.node.body))  # type: ignore[attr-defined]
                edited = _edited_extraction(sources, change, new, f_new, body)
                if edited is not None:
                    yield edited
        for home, f_home, gained in _grown_bases(sources, change):
            pulled = _edited_extraction(sources, change, home, f_home, gained, inherited=True)
            if pulled is not None:
                yield pulled

    # -- any new helper: callers expanded with its body equal their old version ------------

    def _expanded(self, sources: SourceFiles, new: Definition, f_new: FileChange) -> Finding | None:
        pairs = site_pairs(sources, new, "after")
        if isinstance(pairs, str) or not pairs:
            return None
        if not any(p.proof.proven or p.proof.similar for p in pairs):
            return None
        return expansion_finding(sources, "code.extracted", new, f_new, pairs, "+")

    # -- helpers: statement runs replaced by a call --------------------------------------

    def _helper_sites(self, sources: SourceFiles, new: Definition) -> list[_Site]:
        body = strip_docstring(new.node.body)  # type: ignore[attr-defined]
        if not body:
            return []
        f_new_text = sources.text(new.path, "after") or ""
        lines = split_lines(f_new_text, keepends=True)
        body_text = segment(lines, body[0].lineno, body[-1].end_lineno or body[-1].lineno)
        keep = _globals(sources, new.path, "after")
        shape = [type(x) for x in body]
        sites: list[_Site] = []
        for f in sources.python_files():
            tree = sources.tree(f.before_path, "before") if f.before is not None else None
            if tree is None or f.after is None:
                continue
            added = set(sources.changed(f).added)
            before_lines = split_lines(f.before or "", keepends=True)
            after_defs = file_index(sources, f.path, "after")
            holder_calls: dict[str, list[ast.Call]] = {}
            for scope, stmts in _statement_lists(tree, ""):
                i = 0
                while i + len(body) <= len(stmts):
                    window = stmts[i : i + len(body)]
                    # Cheap shape test first: statement types must line up.
                    if [type(x) for x in window] != shape or isinstance(
                        window[0], (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
                    ):
                        i += 1
                        continue
                    # The holder must still exist and call the helper: cheaper than comparing.
                    holder = after_defs.get(scope) if scope else None
                    if holder is not None and scope not in holder_calls:
                        holder_calls[scope] = _calls(holder.node, new.name)
                    calls = holder_calls.get(scope, []) if holder is not None else []
                    if holder is None or not calls:
                        i += 1
                        continue
                    start, end = window[0].lineno, window[-1].end_lineno or window[-1].lineno
                    text = segment(before_lines, start, end)
                    eq = _equality(
                        text,
                        body_text,
                        window,
                        body,
                        keep | _globals(sources, f.before_path, "before"),
                    )
                    if eq is None or _still_there(holder.node, window):
                        i += 1
                        continue
                    call_lines = tuple(
                        sorted(
                            {
                                n
                                for c in calls
                                for n in range(c.lineno, (c.end_lineno or c.lineno) + 1)
                                if n in added
                            }
                        )
                    )
                    res = tuple(residual(text, body_text)) if eq == "different" else ()
                    wrong = _misbound(new.node, body, window, calls)
                    if wrong and eq != "different":
                        eq, res = (
                            "different",
                            tuple(
                                f"argument for {p!r} is {got!r}, the copy used {want!r}"
                                for p, got, want in wrong
                            ),
                        )
                    before_holder = file_index(sources, f.before_path, "before").get(scope)
                    hb = ha = None
                    if before_holder is not None and _only_replaced(
                        before_lines, before_holder, (start, end), f.after, holder, calls
                    ):
                        hb, ha = (
                            (before_holder.start, before_holder.end),
                            (holder.start, holder.end),
                        )
                    sites.append(
                        _Site(
                            f.path,
                            scope,
                            start,
                            end,
                            eq,
                            res,
                            call_lines,
                            holder_before=hb,
                            holder_after=ha,
                        )
                    )
                    i += len(body)
        return sites

    # -- mixins: the same method removed from several classes, added to one ------------

    def _mixin_sites(self, sources: SourceFiles, change, new: Definition) -> list[_Site]:
        if new.kind != "method":
            return []
        home = new.parent.rsplit(".", 1)[-1]
        home_cls = file_index(sources, new.path, "after").get(new.parent)
        home_members = {
            st.name
            for st in (home_cls.node.body if home_cls is not None else ())  # type: ignore[attr-defined]
            if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef)
        } or {new.name}
        sites = []
        related = False
        for old in change.removed:
            if old.kind != "method" or old.name != new.name or old.parent == new.parent:
                continue
            f = change.file_of[old.path]
            cls = (
                file_index(sources, f.path, "after").get(old.parent)
                if f.after is not None
                else None
            )
            if cls is None:
                continue  # the class itself is gone (moved, renamed, removed): not a hoist
            keep = _globals(sources, old.path, "before") | _globals(sources, new.path, "after")
            eq = _equality(old.text, new.text, [old.node], [new.node], keep | {old.name})
            if eq in (None, "different") and _canonical_member(
                sources, old, "before"
            ) == _canonical_member(sources, new, "after"):
                eq = "modulo-renames"  # the same objects spelled otherwise (``m.f`` / ``f``)
            lists_home = _base_index(cls, home) is not None
            if eq is None and lists_home and _edited_copy(old.node, new.node):
                # The class now inherits the new home in place of its own copy, which was
                # edited on the way: the same method, reported with what changed.
                eq = "different"
            if eq is None:
                continue
            inherits, shadow = _mro_reaches(sources, f.path, cls, new)
            related = related or lists_home or inherits is not False
            before_cls = file_index(sources, old.path, "before").get(old.parent)
            hb = ha = None
            if (
                before_cls is not None
                and inherits
                and _only_lost(before_cls, cls, _lost(change, old) & home_members, home)
                and (
                    not lists_home
                    or _base_index(before_cls, home) is not None
                    or _brings_only(home_cls, cls, _lost(change, old))
                )
            ):
                hb, ha = (before_cls.start, before_cls.end), (cls.start, cls.end)
            res = tuple(_unparsed_residual(old.node, new.node)) if eq == "different" else ()
            sites.append(
                _Site(
                    f.path,
                    old.qualname,
                    old.start,
                    old.end,
                    eq,
                    res,
                    (),
                    old.parent,
                    inherits,
                    hb,
                    ha,
                    shadow,
                    tuple(_class_relative(old.node)),
                    tuple(_rebound_globals(sources, old, new)),
                )
            )
        # A hoist: some former owner lists the new home or reaches it (a class that lost the
        # method and does not inherit it is reported with them, not alone).
        return sites if related else []

    # -- the finding -----------------------------------------------------------------------

    def _finding(
        self, sources: SourceFiles, change, new: Definition, f_new: FileChange, sites: list[_Site]
    ) -> Finding:
        worst = max((s.equality for s in sites), key=_ORDER.__getitem__)
        mixin = bool(sites[0].cls)
        ex: list[tuple[str, str, int]] = []
        # A mixin member explains the removed copies only where the MRO is proven to reach it.
        if worst != "different" and (
            not mixin
            or all(s.inherits is True and not s.class_relative and not s.rebound for s in sites)
        ):
            added_new = sources.changed(f_new).added
            ex += explains(
                f_new.path, "+", lines_with_blanks(f_new.after, new.start, new.end, added_new)
            )
            home = file_index(sources, f_new.path, "after").get(new.parent) if mixin else None
            if home is not None and home in change.added:
                # A new home holding only methods its users lost: its own lines (header,
                # docstring) with this member; each other member is its own finding's.
                owners = {(s.path, s.cls) for s in sites}
                lost = {
                    d.name
                    for d in change.removed
                    if (change.file_of[d.path].path, d.parent) in owners
                }
                if _only_members(home, lost | {new.name}):
                    others = {
                        n
                        for st in home.node.body  # type: ignore[attr-defined]
                        if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef)
                        and st.name != new.name
                        for n in range(first_line(st), (st.end_lineno or st.lineno) + 1)
                    }
                    own = lines_with_blanks(f_new.after, home.start, home.end, added_new)
                    ex += explains(f_new.path, "+", [n for n in own if n not in others])
            for s in sites:
                f = change.file_of[s.path]
                cl = sources.changed(f)
                ex += explains(f.path, "-", lines_with_blanks(f.before, s.start, s.end, cl.removed))
                ex += explains(f.path, "+", s.call_lines)
                if s.holder_before and s.holder_after:
                    ex += explains(
                        f.path, "-", lines_with_blanks(f.before, *s.holder_before, cl.removed)
                    )
                    ex += explains(
                        f.path, "+", lines_with_blanks(f.after, *s.holder_after, cl.added)
                    )
                if mixin:
                    ex += _import_lines(sources, f, new.parent.rsplit(".", 1)[-1])
        details = {
            "new_home": new.qualname,
            "method": new.name,
            "former_owners": sorted({s.cls for s in sites if s.cls}),
            "new_path": f_new.path,
            "new_line": new.start,
            "home_kind": "mixin" if mixin else new.kind,
            "equality": worst,
            "behavior_change": worst == "different" or any(s.inherits is False for s in sites),
            "sites": [
                {
                    "path": s.path,
                    "scope": s.scope,
                    "before_line": s.start,
                    "before_end": s.end,
                    "equality": s.equality,
                    "residual": list(s.residual),
                    "call_lines": list(s.call_lines),
                    "class": s.cls,
                    "inherits_new_home": s.inherits,
                    "shadowed_by": s.shadowed_by,
                    "class_relative": list(s.class_relative),
                    "rebound_globals": list(s.rebound),
                }
                for s in sorted(sites, key=lambda s: (s.path, s.start))
            ],
        }
        return Finding(
            "code.extracted",
            f_new.path,
            new.start,
            new.qualname,
            f"{len(sites)} copies replaced by {new.qualname} ({worst})",
            details,
            tuple(sorted(set(ex))),
        )


def _module_extraction(sources: SourceFiles, new: Definition, f_new: FileChange) -> Finding | None:
    """``code.extracted`` for import-time code of a module moved into a new module-level function
    that the module calls once at import (``HEADERS = {"User-Agent": default_user_agent()}``)."""
    helper_tree = sources.tree(f_new.path, "after")
    if helper_tree is None:
        return None
    for f in sources.python_files():
        before = sources.tree(f.before_path, "before") if f.before is not None else None
        after = sources.tree(f.path, "after") if f.after is not None else None
        if before is None or after is None:
            continue
        same = f.path == f_new.path
        if not same and new.name not in imported_from(after, f_new.path, f.path):
            continue
        bindings = (
            module_bindings(before, f.before_path),
            module_bindings(after, f.path),
            module_bindings(helper_tree, f_new.path),
        )
        proof = prove_module(before, after, bindings, new, same)
        if proof is None:
            continue
        cl = sources.changed(f)
        ex: list[tuple[str, str, int]] = []
        if proof.proven:
            ex += explains(
                f_new.path,
                "+",
                lines_with_blanks(f_new.after, new.start, new.end, sources.changed(f_new).added),
            )
            ex += explains(f.before_path, "-", _code_lines(before, cl.removed))
            ex += explains(f.path, "+", _code_lines(after, cl.added))
        details = {
            "helper": new.qualname,
            "new_home": new.qualname,
            "helper_path": f_new.path,
            "helper_line": new.start,
            "home_kind": "function",
            "equality": "modulo-renames" if proof.proven else "different",
            "proven": proof.proven,
            "behavior_change": None if proof.proven else True if proof.residual else None,
            "stale_references": [],
            "dropped_module_globals": list(proof.dropped_globals),
            "sites": [
                {
                    "path": f.path,
                    "scope": "<module>",
                    "calls": 1,
                    "call_lines": list(proof.call_lines),
                    "equality": "modulo-renames" if proof.proven else "different",
                    "proven": proof.proven,
                    "reason": proof.reason,
                    "residual": list(proof.residual),
                }
            ],
        }
        if proof.proven:
            details["behavior_change"] = False
        state = "modulo-renames" if proof.proven else "different"
        return Finding(
            "code.extracted",
            f_new.path,
            new.start,
            new.qualname,
            f"{f.path}:<module>: import-time code extracted into {new.qualname} ({state})",
            details,
            tuple(sorted(set(ex))),
        )
    return None


def _code_lines(tree: ast.Module, changed: Iterable[int]) -> list[int]:
    """Changed lines inside a module's import-time statements (not imports, not functions)."""
    spans = [(st.lineno, st.end_lineno or st.lineno) for st in module_level(tree)]
    return [n for n in changed if any(a <= n <= b for a, b in spans)]


def imported_from(tree: ast.Module, helper_path: str, importer_path: str) -> set[str]:
    """Names ``tree`` (the module at ``importer_path``) imports from the module at ``helper_path``."""
    target = module_path(helper_path)
    names = module_bindings(tree, importer_path)
    return {k for k, v in names.items() if v.rpartition(".")[0] == target}


def _import_lines(sources: SourceFiles, f: FileChange, name: str) -> list[tuple[str, str, int]]:
    """Added module-level import lines that only bring in the new home class."""
    tree = sources.tree(f.path, "after") if f.after is not None else None
    added = set(sources.changed(f).added)
    out = []
    for st in tree.body if tree else []:
        if isinstance(st, ast.ImportFrom) and [a.asname or a.name for a in st.names] == [name]:
            out += [
                (f.path, "+", n)
                for n in range(st.lineno, (st.end_lineno or st.lineno) + 1)
                if n in added
            ]
    return out


def _base_index(cls: Definition, home: str) -> int | None:
    """Position among ``cls``'s bases of the one named ``home`` (``mixins.Home``, ``Home[T]``)."""
    for i, base in enumerate(cls.bases):
        if base.partition("[")[0].strip().rsplit(".", 1)[-1] == home:
            return i
    return None


def _mro_reaches(
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

    idx = _base_index(cls, new.parent.rsplit(".", 1)[-1])
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


def _module_names(sources: SourceFiles, path: str, side: str) -> tuple[dict[str, str], set[str]]:
    """The full name of every module-level binding of a file side (its imports, and its own
    definitions as ``module.name``), and the builtins it rebinds."""
    tree = sources.tree(path, side)
    if tree is None:
        return {}, set()

    def build() -> tuple[dict[str, str], set[str]]:
        module = module_path(path)
        top = {
            x.name: f"{module}.{x.name}"
            for x in file_index(sources, path, side).values()
            if not x.parent and x.kind != "import"
        }
        return {**top, **module_bindings(tree, path)}, rebound_builtins(tree)

    names: tuple[dict[str, str], set[str]] = sources.memo(path, side, "extracted-names", build)
    return names


def _canonical_member(sources: SourceFiles, d: Definition, side: str) -> str:
    """A method with docstrings and annotations dropped and every imported or module-level
    object spelled by its full name (``node_classes.const_factory`` in one module is
    ``const_factory`` in ``node_classes``), so copies in two modules compare alike."""
    names, rebound = _module_names(sources, d.path, side)
    own = bindings(imports_in(d.node), d.path)
    shadowed = locally_bound(d.node) - set(own)
    return dump(canonical(d.node, {**names, **own}, shadowed, rebound))


def _rebound_globals(sources: SourceFiles, old: Definition, new: Definition) -> list[str]:
    """Global names a method uses that mean another object where it now lives: a definition
    of its old module that the new one binds otherwise (``TIMEOUT = 5`` there, ``TIMEOUT =
    10`` here) or not at all, an import of another object, a builtin shadowed on one side. A
    module-level definition repeated word for word (``logger = logging.getLogger(__name__)``)
    counts as the same, as a moved definition does."""
    before, _ = _module_names(sources, old.path, "before")
    after, _ = _module_names(sources, new.path, "after")
    local = locally_bound(old.node) | set(bindings(imports_in(old.node), old.path))
    used = {n.id for n in ast.walk(old.node) if isinstance(n, ast.Name)} - local
    out = []
    for name in sorted(used):
        was, now = before.get(name), after.get(name)
        if was == now:
            continue
        a = file_index(sources, old.path, "before").get(name)
        b = file_index(sources, new.path, "after").get(name)
        if a is None or b is None or a.kind == "import" or a.text != b.text:
            out.append(name)
    return out


def _class_relative(fn: ast.AST) -> list[str]:
    """What a method's body resolves through the class it is written in: ``super``,
    ``__class__`` and private (name-mangled) ``__names``."""
    out: set[str] = set()
    for node in ast.walk(fn):
        name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
        if name in ("super", "__class__") or (
            isinstance(name, str) and name.startswith("__") and not name.endswith("__")
        ):
            out.add(name)
    return sorted(out)


def _edited_copy(old: ast.AST, new: ast.AST) -> bool:
    """True when two methods of one name take the same parameters and run the same kinds of
    statements in the same order: one method edited on its way, not another method."""
    if not isinstance(old, (ast.FunctionDef, ast.AsyncFunctionDef)) or type(old) is not type(new):
        return False
    assert isinstance(new, (ast.FunctionDef, ast.AsyncFunctionDef))
    return dump(old.args) == dump(new.args) and [type(x) for x in strip_docstring(old.body)] == [
        type(x) for x in strip_docstring(new.body)
    ]


def _unparsed_residual(old: ast.AST, new: ast.AST) -> list[str]:
    """The lines that differ between two definitions printed alike (layout and comments aside)."""
    return residual(ast.unparse(old), ast.unparse(new))


def _only_members(home: Definition, names: set[str]) -> bool:
    """True when a new class holds nothing but the extracted methods, a docstring and
    annotations without a value (``staging_requests: dict``: the attributes a mixin expects
    of its host, which bind nothing)."""
    body = strip_docstring(home.node.body)  # type: ignore[attr-defined]
    return all(
        (isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) and st.name in names)
        or (isinstance(st, ast.AnnAssign) and st.value is None and isinstance(st.target, ast.Name))
        for st in body
    )


def _lost(change, old: Definition) -> set[str]:
    """Names of the methods the class holding ``old`` lost in the change."""
    return {d.name for d in change.removed if d.path == old.path and d.parent == old.parent}


def _brings_only(home: Definition | None, cls: Definition, lost: set[str]) -> bool:
    """True when ``cls``, newly listing ``home`` as a base, gains nothing from it but methods it
    lost itself: no other member, class attribute, base, metaclass or class decorator, and no
    instance ``__dict__`` (a class with ``__slots__`` would get one from a base without)."""
    if home is None:
        return False
    node, own = home.node, cls.node
    assert isinstance(node, ast.ClassDef) and isinstance(own, ast.ClassDef)
    slotted = any(
        isinstance(t, ast.Name) and t.id == "__slots__"
        for st in own.body
        if isinstance(st, (ast.Assign, ast.AnnAssign))
        for t in (st.targets if isinstance(st, ast.Assign) else [st.target])
    )
    return (
        all(b == "object" for b in home.bases)
        and not node.keywords
        and not node.decorator_list
        and not slotted
        and _only_members(home, lost)
    )


def _only_lost(before: Definition, after: Definition, moved: set[str], home: str) -> bool:
    """True when a class differs only by the methods it lost to the new home (``moved``) and
    the new home among its bases."""
    b, a = before.node, after.node
    kept = [
        st
        for st in b.body  # type: ignore[attr-defined]
        if not (isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) and st.name in moved)
    ]
    a_body = a.body  # type: ignore[attr-defined]
    if not kept and len(a_body) == 1 and isinstance(a_body[0], ast.Pass):
        a_body = []

    def bases(cls: ast.AST, home: str = "") -> list[str]:  # ``(object)`` is no base in Python 3
        names = [ast.unparse(x) for x in cls.bases]  # type: ignore[attr-defined]
        return [x for x in names if x != "object" and x.rsplit(".", 1)[-1] != home]

    return (
        dump(kept) == dump(a_body)
        and bases(a, home) == bases(b, home)
        and dump(a.keywords) == dump(b.keywords)  # type: ignore[attr-defined]
    )


def _only_replaced(
    before_lines: list[str],
    holder_before: Definition,
    window: tuple[int, int],
    after_text: str,
    holder_after: Definition,
    calls: Sequence[ast.AST],
) -> bool:
    """True when the holder's only change is the copied run replaced by one statement calling the helper."""
    after_lines = split_lines(after_text, keepends=True)
    stmt = _statement_of(holder_after.node, calls[0]) if len(calls) == 1 else None
    if stmt is None:
        return False

    def stub(lines: list[str], start: int, end: int, span: tuple[int, int]) -> str:
        indent = lines[start - 1][: len(lines[start - 1]) - len(lines[start - 1].lstrip())]
        text = (
            lines[span[0] - 1 : start - 1] + [f"{indent}__extracted__()\n"] + lines[end : span[1]]
        )
        return textwrap.dedent("".join(text))

    try:
        a = parse_quietly(stub(before_lines, *window, (holder_before.start, holder_before.end)))
        b = parse_quietly(
            stub(
                after_lines,
                stmt.lineno,
                stmt.end_lineno or stmt.lineno,
                (holder_after.start, holder_after.end),
            )
        )
    except SyntaxError:
        return False
    return dump(a) == dump(b)


def _statement_of(root: ast.AST, call: ast.AST) -> ast.stmt | None:
    """The innermost statement of ``root`` containing ``call``."""
    best = None
    for n in ast.walk(root):
        if isinstance(n, ast.stmt) and n is not root and any(c is call for c in ast.walk(n)):
            if (
                best is None
                or n.lineno >= best.lineno
                and (n.end_lineno or 0) <= (best.end_lineno or 0)
            ):
                best = n
    return best


def _still_there(holder: ast.AST, window: list[ast.stmt]) -> bool:
    """True when the after version of the holder still contains the copied run."""
    want = dump(window)
    n = len(window)
    for _scope, stmts in _statement_lists(holder, ""):
        for i in range(len(stmts) - n + 1):
            if dump(stmts[i : i + n]) == want:
                return True
    return False


def _misbound(
    helper: ast.AST, body: Sequence[ast.stmt], window: Sequence[ast.stmt], calls: Sequence[ast.AST]
) -> list[tuple[str, str, str]]:
    """(parameter, name passed, name the copy used) where a call binds a parameter to the wrong local."""
    used: dict[str, str] = {}
    for h, w in zip(
        (n for s in body for n in ast.walk(s)),
        (n for s in window for n in ast.walk(s)),
        strict=False,
    ):
        if isinstance(h, ast.Name) and isinstance(w, ast.Name):
            used.setdefault(h.id, w.id)
    args = helper.args  # type: ignore[attr-defined]
    params = [p.arg for p in args.posonlyargs + args.args]
    if (
        params
        and params[0] in ("self", "cls")
        and isinstance(getattr(calls[0], "func", None), ast.Attribute)
    ):
        params = params[1:]
    out = []
    call = calls[0]
    assert isinstance(call, ast.Call)
    bound = list(zip(params, call.args, strict=False)) + [
        (k.arg, k.value) for k in call.keywords if k.arg
    ]
    for p, value in bound:
        if isinstance(value, ast.Name) and p in used and used[p] != value.id:
            out.append((p, value.id, used[p]))
    return out


# -- helpers whose code is found, edited, among the statements their callers lost ----------
#
# A helper that is no verbatim copy (a statement added, a guard moved in, a caller's local or
# constant made a parameter, a default) is still extracted when a substantial share of its
# body is found among the statements some function lost, and the code that ran those
# statements now calls the helper there. Never proven: a "different" site with its residual
# (what the helper does that the lost statements did not, and the reverse), so the verdict
# follows from the callers' own findings.

# Share of the helper's code (weighted by syntax nodes) found, in order, among one function's
# lost statements; the fewest statements the helper body and that match must have; and the
# fewest syntax nodes matched (``for p in self.procs: p.join()`` is too common to say where
# code came from).
_COVERED = 0.5
_MIN_ITEMS = 2
_MIN_WEIGHT = 10
# New functions a call may pass through on its way to the helper (caller -> new -> helper).
_VIA_DEPTH = 2
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_COMPOUND = (ast.If, ast.While, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.Try, *_SCOPES)
_BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "decorator_list")
_CODE = (ast.expr, ast.stmt, ast.arg, ast.keyword, ast.excepthandler, ast.withitem)


@dataclass(frozen=True)
class _Item:
    """A simple statement, or the header of a compound one, of a flattened function body."""

    node: ast.AST  # the statement; a header: the statement with its blocks emptied
    text: str
    line: int
    end: int
    depth: int
    block_end: int  # the last line of the whole statement (a compound one: of its blocks)
    weight: int  # syntax nodes: a call with arguments outweighs ``return False``
    tokens: frozenset[str]  # names, attributes and constants it spells


def _weight(node: ast.AST) -> int:
    return sum(1 for n in ast.walk(node) if isinstance(n, _CODE))


def _tokens(node: ast.AST, free: frozenset[str] = frozenset()) -> frozenset[str]:
    """The names (but ``free`` ones), attributes and constants a statement spells: code that
    unifies with it spells them all too (a quick test before unifying)."""
    out: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id not in free:
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(f".{n.attr}")
        elif isinstance(n, ast.Constant):
            out.add(repr(n.value))
    return frozenset(out)


class _Put(ast.NodeTransformer):
    """Write an expression in place of a name."""

    def __init__(self, name: str, value: ast.expr) -> None:
        self.name, self.value = name, value

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return copy_tree(self.value) if node.id == self.name else node


def _constant_local(st: ast.stmt) -> str | None:
    if (
        isinstance(st, ast.Assign)
        and len(st.targets) == 1
        and isinstance(st.targets[0], ast.Name)
        and isinstance(st.value, ast.Constant)
    ):
        return st.targets[0].id
    return None


def _uses(node: ast.AST, name: str) -> list[ast.Name]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == name]


def _read_later(stmts: Sequence[ast.stmt], name: str) -> bool:
    """True when ``name`` may be read by ``stmts`` before they assign it again (a block that
    may not run assigns it for itself only)."""
    for st in stmts:
        if not _uses(st, name):
            continue
        if isinstance(st, ast.Assign) and not _uses(st.value, name):
            if all(isinstance(t, ast.Name) and t.id == name for t in st.targets):
                return False
        if not isinstance(st, (ast.If, ast.While, ast.For, ast.AsyncFor, ast.Try)):
            return True
        if any(_uses(getattr(st, f), name) for f in ("test", "target", "iter") if hasattr(st, f)):
            return True
        blocks = [st.body, st.orelse, *[h.body for h in getattr(st, "handlers", [])]]
        if any(_read_later(b, name) for b in blocks) or _uses_any(st, "finalbody", name):
            return True
    return False


def _uses_any(st: ast.stmt, field: str, name: str) -> bool:
    return any(_uses(x, name) for x in getattr(st, field, None) or [])


def _inline_constants(stmts: Sequence[ast.stmt]) -> list[ast.stmt]:
    """``msg = "…"; log(msg)`` read as ``log("…")``: a local assigned a constant and read once,
    by the next statement only (a spelling, for comparing; never for a proof)."""
    out: list[ast.stmt] = []
    i = 0
    while i < len(stmts):
        st, name = stmts[i], _constant_local(stmts[i])
        nxt = stmts[i + 1] if i + 1 < len(stmts) else None
        if (
            name is not None
            and nxt is not None
            and [isinstance(n.ctx, ast.Load) for n in _uses(nxt, name)] == [True]
            and not _read_later(stmts[i + 2 :], name)
        ):
            assert isinstance(st, ast.Assign)
            out.append(_Put(name, st.value).visit(copy_tree(nxt)))
            i += 2
            continue
        out.append(st)
        i += 1
    return out


def _header(st: ast.AST) -> ast.AST:
    head = copy_tree(st)
    for block in _BLOCK_FIELDS:
        if hasattr(head, block):
            setattr(head, block, [])
    return head


def _items(stmts: Sequence[ast.stmt], depth: int = 0) -> list[_Item]:
    """A body flattened into simple statements and compound-statement headers, in order (a
    nested function or class is its header only: its body is its own definition's)."""
    out: list[_Item] = []

    def add(node: ast.AST, st: ast.stmt | ast.excepthandler, end: int) -> None:
        text = ast.unparse(node).splitlines()
        last = st.end_lineno or end
        first = text[0] if text else ""
        out.append(_Item(node, first, st.lineno, end, depth, last, _weight(node), _tokens(node)))

    def header_end(st: ast.stmt | ast.excepthandler) -> int:
        body = getattr(st, "body", None) or []
        return max(st.lineno, body[0].lineno - 1) if body else st.lineno

    for st in _inline_constants(stmts):
        if isinstance(st, (ast.Import, ast.ImportFrom, ast.Pass)):
            continue
        if not isinstance(st, _COMPOUND):
            add(st, st, st.end_lineno or st.lineno)
            continue
        add(_header(st), st, header_end(st))
        if isinstance(st, _SCOPES):
            continue
        out += _items(st.body, depth + 1)
        for h in getattr(st, "handlers", None) or []:
            add(_header(h), h, header_end(h))
            out += _items(h.body, depth + 1)
        for block in ("orelse", "finalbody"):
            rest = getattr(st, block, None) or []
            if rest:
                n = rest[0].lineno
                mark = ast.Name(id=f"<{block}>")
                out.append(_Item(mark, f"{block}:", n, n, depth, n, 1, frozenset({mark.id})))
                out += _items(rest, depth + 1)
    return out


def _unify(
    h: object, o: object, params: frozenset[str], own: frozenset[str], bound: dict[str, str]
) -> bool:
    """Whether helper code ``h`` reads as caller code ``o`` with each parameter standing for one
    caller expression and each of the helper's own locals for one caller name (``bound``)."""
    if isinstance(h, ast.Name) and (h.id in params or h.id in own):
        if h.id in own and not isinstance(o, ast.Name):
            return False
        if not isinstance(o, ast.expr):
            return False
        return bound.setdefault(h.id, ast.unparse(o)) == ast.unparse(o)
    if type(h) is not type(o):
        return False
    if isinstance(h, ast.AST):
        for field in h._fields:
            if field in ("ctx", "type_comment"):
                continue
            if not _unify(getattr(h, field, None), getattr(o, field, None), params, own, bound):
                return False
        return True
    if isinstance(h, list):
        assert isinstance(o, list)
        return len(h) == len(o) and all(
            _unify(x, y, params, own, bound) for x, y in zip(h, o, strict=True)
        )
    return h == o


@dataclass(frozen=True)
class _Cover:
    """Where a helper's statements are found among one function's lost statements."""

    pairs: tuple[tuple[int, int], ...]  # (helper item, lost item) indices, in order
    share: float  # of the helper's code (by weight)
    bound: dict[str, str]  # helper parameter/local -> the caller expression it stands for
    item_bound: dict[int, dict[str, str]]  # the same, per matched helper item


def _cover(helper: ast.AST, body: list[_Item], lost: list[_Item]) -> _Cover:
    """The in-order match of helper items to lost items heaviest in helper code, each parameter
    and local of the helper standing for the one caller expression most of the match gives it."""
    args = helper.args  # type: ignore[attr-defined]
    params = frozenset(a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs])
    params |= frozenset(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    own = frozenset(bound_names(helper.body)) - params  # type: ignore[attr-defined]
    spelled = [_tokens(x.node, params | own) for x in body]
    candidates = [
        (i, j)
        for i, x in enumerate(body)
        for j, y in enumerate(lost)
        if type(x.node) is type(y.node) and spelled[i] <= y.tokens
    ]
    total = sum(x.weight for x in body) or 1
    if sum(body[i].weight for i in {i for i, _ in candidates}) < _COVERED * total:
        return _Cover((), 0.0, {}, {})  # too little of it can match anyway
    unify = partial(_unify, params=params, own=own)
    first = _align(body, lost, candidates, unify, {})
    votes: dict[str, Counter[str]] = {}
    for i, _ in first.pairs:
        for k, v in first.item_bound[i].items():
            votes.setdefault(k, Counter())[v] += body[i].weight
    fixed = {k: c.most_common(1)[0][0] for k, c in votes.items()}
    return _align(body, lost, candidates, unify, fixed)


def _align(
    body: list[_Item],
    lost: list[_Item],
    candidates: list[tuple[int, int]],
    unify: Callable[..., bool],
    fixed: dict[str, str],
) -> _Cover:
    n, m = len(body), len(lost)
    ok: dict[tuple[int, int], dict[str, str]] = {}
    for i, j in candidates:
        b = dict(fixed)
        if unify(body[i].node, lost[j].node, bound=b):
            ok[i, j] = b
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            take = best[i + 1][j + 1] + body[i].weight if (i, j) in ok else 0
            best[i][j] = max(best[i + 1][j], best[i][j + 1], take)
    pairs: list[tuple[int, int]] = []
    i = j = 0
    while i < n and j < m:
        if (i, j) in ok and best[i][j] == best[i + 1][j + 1] + body[i].weight:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif best[i + 1][j] >= best[i][j + 1]:
            i += 1
        else:
            j += 1
    total = sum(x.weight for x in body) or 1
    item_bound = {i: ok[i, j] for i, j in pairs}
    bound = {k: v for b in item_bound.values() for k, v in b.items()}
    return _Cover(tuple(pairs), best[0][0] / total, bound, item_bound)


def _lost_items(one: Definition, other: Definition | None) -> list[_Item]:
    """Statements of one version of a function that the other version does not have (all of
    them when there is no other version)."""
    old = _items(strip_docstring(one.node.body))  # type: ignore[attr-defined]
    if other is None:
        return old
    new = _items(strip_docstring(other.node.body))  # type: ignore[attr-defined]
    sm = difflib.SequenceMatcher(None, [x.text for x in old], [x.text for x in new], autojunk=False)
    kept = {b.a + k for b in sm.get_matching_blocks() for k in range(b.size)}
    return [x for i, x in enumerate(old) if i not in kept]


def _edit_residual(
    body: list[_Item], lost: list[_Item], pairs: Sequence[tuple[int, int]], whole: bool
) -> list[str]:
    """What the lost statements did that the helper does not (``-``), and what the helper does
    that they did not (``+``), in order: all of them when ``whole`` (the function is gone),
    else those from the first found (or the header of a block holding it) to the last found."""
    if not pairs:
        return []
    first, last = pairs[0][1], pairs[-1][1]
    if whole:
        first, last = 0, len(lost) - 1
    while first > 0 and lost[first - 1].block_end >= lost[pairs[0][1]].line:
        first -= 1  # an ``if``/``for``/``with`` around the found statements
    out: list[str] = []
    i, j = 0, first
    for hi, lj in [*pairs, (len(body), last + 1)]:
        out += [f"-{'    ' * lost[k].depth}{lost[k].text}" for k in range(j, lj)]
        out += [f"+{'    ' * body[k].depth}{body[k].text}" for k in range(i, hi)]
        i, j = hi + 1, lj + 1
    return out


_FUNCTION_KINDS = ("function", "method")


@dataclass(frozen=True)
class _Losses:
    """A function of a file's before side that lost statements in the change."""

    before: Definition
    after: Definition | None  # None: removed
    items: list[_Item]


def _losses(sources: SourceFiles, f: FileChange) -> list[_Losses]:
    """Functions of a changed file that lost statements (removed, or changed), with those."""

    def build() -> list[_Losses]:
        if f.before is None:
            return []
        removed = sorted(sources.changed(f).removed)
        before = file_index(sources, f.before_path, "before")
        after = file_index(sources, f.path, "after") if f.after is not None else {}
        out = []
        for q, d in before.items():
            k = bisect.bisect_left(removed, d.start)
            if d.kind not in _FUNCTION_KINDS or k == len(removed) or removed[k] > d.end:
                continue
            a = after.get(q)
            lost = _lost_items(d, a if a is not None and a.kind == d.kind else None)
            if lost:
                out.append(_Losses(d, a if a is not None and a.kind == d.kind else None, lost))
        return out

    losses: list[_Losses] = sources.memo(f.path, "change", "extracted-losses", build)
    return losses


def _matcher(
    sources: SourceFiles, target: Definition, caller: Definition, path: str, side: str
) -> Callable[[ast.Call], bool] | None:
    """Which calls in ``caller`` (in the file side ``path``/``side``) reach ``target``."""
    stem = target.path.rsplit("/", 1)[-1].removesuffix(".py")
    if stem == "__init__" and "/" in target.path:
        stem = target.path.rsplit("/", 2)[-2]
    same = path == target.path
    imported = (
        frozenset()
        if same
        else sources.memo(
            path, side, "imports-by-stem", partial(imports_by_stem, sources.tree(path, side))
        ).get(stem, frozenset())
    )
    return call_matcher(target, caller, file_index(sources, path, side), same, imported)


def _call_lines(
    sources: SourceFiles,
    target: Definition,
    caller: Definition,
    path: str,
    side: str,
    lines: set[int] | None,
) -> list[int]:
    """Lines (among ``lines``, when given) where ``caller`` calls ``target``."""
    index = file_index(sources, path, side)
    called = sources.memo(path, side, "called-names", partial(called_names, index))
    if target.name not in called.get(caller.qualname, ()):
        return []  # no call through that name at all
    m = _matcher(sources, target, caller, path, side)
    if m is None:
        return []
    return sorted(
        {c.lineno for c in calls_in(caller.node, m) if lines is None or c.lineno in lines}
    )


def _reaches(
    sources: SourceFiles,
    change: Change,
    caller: Definition,
    path: str,
    helper: Definition,
    lines: set[int] | None,
    depth: int = _VIA_DEPTH,
) -> tuple[list[int], list[str]] | None:
    """The lines (among ``lines``) where ``caller`` calls the helper, directly or through new
    functions that do (their qualnames), or None."""
    hits = _call_lines(sources, helper, caller, path, "after", lines)
    if hits:
        return hits, []
    if depth <= 1:
        return None
    for g in change.added:
        if g.kind not in _FUNCTION_KINDS or g is helper or g is caller:
            continue
        hits = _call_lines(sources, g, caller, path, "after", lines)
        further = _reaches(sources, change, g, g.path, helper, None, depth - 1) if hits else None
        if further is not None:
            return hits, [g.qualname, *further[1]]
    return None


@dataclass(frozen=True)
class _Link:
    """A function that ran lost statements before and calls the helper now."""

    caller: str  # qualname (a class: it inherits the helper in place of its own method)
    call_lines: tuple[int, ...] = ()
    via: tuple[str, ...] = ()  # new functions the calls pass through


def _links(
    sources: SourceFiles, change: Change, f: FileChange, loss: _Losses, helper: Definition
) -> list[_Link]:
    """The functions that ran ``loss``'s statements before and call the helper where they did:
    the function itself (its new lines call it), or a caller of it whose call was replaced."""
    out = []
    added = set(sources.changed(f).added)
    if loss.after is not None:
        r = _reaches(sources, change, loss.after, f.path, helper, added)
        if r is not None:
            out.append(_Link(loss.after.qualname, tuple(r[0]), tuple(r[1])))
    for g in sources.python_files():
        if g.before is None or g.after is None:
            continue
        before = file_index(sources, g.before_path, "before")
        after = file_index(sources, g.path, "after")
        removed, new_lines = set(sources.changed(g).removed), set(sources.changed(g).added)
        for q, c in before.items():
            if c.kind not in _FUNCTION_KINDS or c is loss.before:
                continue
            if not _call_lines(sources, loss.before, c, g.before_path, "before", removed):
                continue
            a = after.get(q)
            if (
                a is None
                or a.kind != c.kind
                or (a.path, a.qualname) == (helper.path, helper.qualname)
            ):
                continue
            r = _reaches(sources, change, a, g.path, helper, new_lines)
            if r is not None:
                out.append(_Link(q, tuple(r[0]), tuple(r[1])))
    return out


def _edited_extraction(
    sources: SourceFiles,
    change: Change,
    helper: Definition,
    f_helper: FileChange,
    body: list[_Item],
    inherited: bool = False,
) -> Finding | None:
    """``code.extracted`` ("different") for a helper whose statements ``body`` are, in a
    substantial share and edited, statements functions lost whose code now calls it (or, with
    ``inherited``, removed overrides whose classes now inherit it: a body pulled up)."""
    if len(body) < _MIN_ITEMS:
        return None
    travelled = {(m.old.path, m.old.qualname) for m in moves(change)}
    sites = []
    for f in sources.python_files():
        for loss in _losses(sources, f):
            if (loss.before.path, loss.before.qualname) in travelled:
                continue
            if inherited and (loss.after is not None or loss.before.name != helper.name):
                continue
            if not inherited and loss.after is None and _same_place(loss.before, f, helper):
                continue  # renamed with edits, not extracted
            cover = _cover(helper.node, body, loss.items)
            if (
                cover.share < _COVERED
                or len(cover.pairs) < _MIN_ITEMS
                or sum(body[i].weight for i, _ in cover.pairs) < _MIN_WEIGHT
            ):
                continue
            if inherited:
                cls = file_index(sources, f.path, "after").get(loss.before.parent)
                if cls is None or _mro_reaches(sources, f.path, cls, helper)[0] is not True:
                    continue
                links = [_Link(cls.qualname)]
            else:
                links = _links(sources, change, f, loss, helper)
            if not links:
                continue
            found = [loss.items[j] for _, j in cover.pairs]
            sites.append(
                {
                    "path": f.path,
                    "scope": loss.before.qualname,
                    # Removed with the change (replaced), or still there, having lost code.
                    "scope_removed": loss.after is None,
                    "before_line": found[0].line,
                    "before_end": found[-1].end,
                    "callers": sorted({x.caller for x in links}),
                    "call_lines": sorted({n for x in links for n in x.call_lines}),
                    "via": sorted({g for x in links for g in x.via}),
                    "calls": sum(len(x.call_lines) for x in links),
                    "equality": "different",
                    "proven": False,
                    "reason": "the helper's code is found, edited, among the statements "
                    f"{loss.before.qualname} lost ({round(cover.share * 100)}% of it)",
                    "coverage": round(cover.share, 2),
                    "bindings": {k: v for k, v in sorted(cover.bound.items()) if k != v},
                    "line_map": [[loss.items[j].line, body[i].line] for i, j in cover.pairs],
                    "residual": _edit_residual(body, loss.items, cover.pairs, loss.after is None),
                }
            )
    if not sites:
        return None
    sites.sort(key=lambda s: (s["path"], s["before_line"]))
    def_line = int(getattr(helper.node, "lineno", helper.start))  # ``def``, below decorators
    details = {
        "helper": helper.qualname,
        "new_home": helper.qualname,
        "helper_path": f_helper.path,
        "helper_line": def_line,
        "home_kind": helper.kind,
        "equality": "different",
        "proven": False,
        "method": "pulled-up" if inherited else "edited",
        # Not expanded: what the residual does is for the callers' findings to say.
        "behavior_change": None,
        "stale_references": [],
        "sites": sites,
    }
    if inherited:
        # The base method's old body: every class inheriting it without an override of its
        # own (not only the former owners) ran that, and now runs the pulled-up body instead.
        old = file_index(sources, f_helper.before_path, "before").get(helper.qualname)
        details["home_before"] = [x.text for x in _lost_items(old, None)] if old else []
    scopes = ", ".join(sorted({str(s["scope"]) for s in sites}))
    return Finding(
        "code.extracted",
        f_helper.path,
        def_line,
        helper.qualname,
        f"{scopes}: code extracted into {helper.qualname}, edited (different)",
        details,
        (),
    )


def _same_place(old: Definition, f: FileChange, new: Definition) -> bool:
    """True when a removed definition and a new one are the same kind in the same scope of the
    same file: the new one stands in the old one's place (a rename, possibly edited)."""
    return (f.path, old.parent, old.kind) == (new.path, new.parent, new.kind)


def _grown_bases(
    sources: SourceFiles, change: Change
) -> Iterator[tuple[Definition, FileChange, list[_Item]]]:
    """Methods on both sides that gained statements while same-named methods were removed
    elsewhere (a body pulled up into a base): each with the statements it gained."""
    names = {d.name for d in change.removed if d.kind == "method"}
    for f in sources.python_files():
        if f.before is None or f.after is None or not names:
            continue
        before = file_index(sources, f.before_path, "before")
        for q, d in file_index(sources, f.path, "after").items():
            old = before.get(q)
            if d.kind != "method" or d.name not in names or old is None or old.kind != "method":
                continue
            gained = _lost_items(d, old)
            if gained:
                yield d, f, gained
