"""Dead code removed: definitions deleted by the PR that nothing references any more."""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial

from prreport.analyzers import Analyzer, register
from prreport.bundle import PullRequestBundle
from prreport.classify import category
from prreport.equivalence.moves import moves
from prreport.findings import ContextRequest, Finding
from prreport.python.definitions import (
    Change,
    Definition,
    definition_changes,
    explains,
    file_index,
    lines_with_blanks,
    placeholder_kind,
    reference_request,
    removal_explains,
    strip_docstring,
    word_hits,
)
from prreport.python.hierarchy import find_in_bases
from prreport.python.scopes import is_string_statement
from prreport.python.sources import SourceFiles
from prreport.textlines import split_lines


def candidates(change: Change, sources: SourceFiles) -> list[Definition]:
    """Removed definitions that were not moved, renamed, extracted or dropped as overrides,
    and that nothing calls without naming them (see ``implicit_callers``)."""
    return [d for d, caller in removals(change, sources) if caller is None]


def removals(change: Change, sources: SourceFiles) -> list[tuple[Definition, Caller | None]]:
    """Removed definitions that were not moved, renamed, extracted or dropped as overrides,
    each with what calls it without naming it (None when nothing does)."""
    added_names = {d.name for d in change.added}
    added_bodies = {
        d.renamed for d in change.added if d.kind in ("function", "method") and d.renamed
    }
    removed_quals = {(d.path, d.qualname) for d in change.removed}
    # An import of a moved or renamed definition goes with it (symbols.py reports the callers).
    paired = moves(change)
    moved = {(m.old.path, m.old.qualname) for m in paired}
    out = []
    for d in change.removed:
        if d.kind == "import":
            continue  # an import removed is import.removed; the code that used it says the rest
        if (d.path, d.qualname) in moved:
            continue  # moved or renamed (its body may have changed too): symbols.py
        parent = d.parent.removesuffix(".<locals>")
        if parent and any((d.path, q) in removed_quals for q in _prefixes(parent)):
            continue  # reported with its removed enclosing definition
        if d.name in added_names or (
            d.kind in ("function", "method") and d.renamed in added_bodies
        ):
            continue  # moved, renamed or extracted: symbols.py / extracted.py
        if d.kind == "method" and placeholder_kind(d.node):
            cls = file_index(sources, d.path, "before").get(d.parent)
            if cls is not None and cls.bases:
                continue  # a placeholder override: overrides.py
        if d.kind == "method" and _overrides_a_base(change, sources, d):
            continue  # calls now reach the base's method: an override dropped, overrides.py
        # Python or a base class outside the repository may call it with no reference to it.
        out.append((d, implicit_callers(sources, d)))
    return out


# What runs a dunder with no reference to its name (the data model), spelled as code.
_PROTOCOL = {
    **dict.fromkeys(("__init__", "__new__", "__post_init__"), "C(...)"),
    **dict.fromkeys(("__repr__", "__str__", "__format__", "__hash__", "__bool__", "__len__"), ""),
    "__eq__": "==",
    "__ne__": "!=",
    "__lt__": "<",
    "__le__": "<=",
    "__gt__": ">",
    "__ge__": ">=",
    "__iter__": "for x in obj",
    "__next__": "next(obj)",
    "__contains__": "x in obj",
    "__getitem__": "obj[k]",
    "__setitem__": "obj[k] = v",
    "__delitem__": "del obj[k]",
    **dict.fromkeys(("__getattr__", "__getattribute__"), "obj.name"),
    "__setattr__": "obj.name = v",
    **dict.fromkeys(("__enter__", "__exit__"), "with obj"),
    **dict.fromkeys(("__aenter__", "__aexit__"), "async with obj"),
    "__call__": "obj()",
    "__copy__": "copy.copy(obj)",
    "__deepcopy__": "copy.deepcopy(obj)",
    **dict.fromkeys(("__reduce__", "__reduce_ex__", "__getstate__", "__setstate__"), "pickle"),
    "__init_subclass__": "class Sub(C)",
    "__class_getitem__": "C[T]",
    "__dir__": "dir(obj)",
}


@dataclass(frozen=True)
class Caller:
    """What runs a removed definition without naming it: ``via`` ``protocol`` (Python, for
    ``what``), ``override`` (callers of the base method ``what``), ``base`` (the base class
    ``what``, whose code was not read: outside the repository or not fetched, may call it)."""

    via: str
    what: str


def implicit_callers(sources: SourceFiles, d: Definition) -> Caller | None:
    """What may run a definition with no reference to its name in the repository.

    ``__deepcopy__``, ``__eq__``, ``__enter__``, a module's ``__getattr__``: Python's protocols
    call dunder names. A method of a class with a base outside the repository
    (``logging.Handler``, ``ast.NodeVisitor``, a framework's ``Widget``) may be a hook that
    base calls, by name or by a composed name (``"visit_" + kind``): no text search can rule
    that out, so it is not claimed dead. Built-in exceptions call no method of a subclass.
    A method that overrides a base's is reached through the base's callers. A shim whose body
    only raises with a message exists for callers outside the repository: none inside is
    expected.
    """
    if d.kind not in ("function", "method", "class"):
        return None
    if category(d.path) == "test" and _collected(d):
        return Caller("test-runner", "pytest")
    if d.kind == "class":
        return None
    if d.name.startswith("__") and d.name.endswith("__"):
        return Caller("protocol", _PROTOCOL.get(d.name) or f"{d.name[2:-2]}(obj)")
    shim = _shim(d.node)
    if shim:
        return Caller("shim", shim)
    cls = _class_of(sources, d)
    if cls is None:
        return None
    found = find_in_bases(sources, d.path, "before", cls, d.name)
    if found.base is not None:
        return Caller("override", found.base.qualname)
    outside = [b for b in found.unresolved if not _hook_free(b)]
    return Caller("base", outside[0]) if outside else None


def _shim(fn: ast.AST) -> str:
    """The exception a function only raises, with a message (``raise NotImplementedError(
    "request.DATA was removed, use request.data")``): a shim that tells outside callers an API
    is gone; "" otherwise. (A deprecated function that still works and that nothing in the
    repository calls is dead code like any other.)"""
    body = strip_docstring(getattr(fn, "body", []))
    if (
        len(body) == 1
        and isinstance(body[0], ast.Raise)
        and isinstance(body[0].exc, ast.Call)
        and body[0].exc.args
    ):
        return ast.unparse(body[0].exc.func)
    return ""


_TEST_HOOKS = re.compile(r"(setup|teardown)(_module|_function|_class|_method)?$|pytest_\w+$")


def _collected(d: Definition) -> bool:
    """A test, a test class, a fixture or a hook: the test runner finds it by its name or mark."""
    if d.kind == "class":
        return d.name.startswith("Test")
    if d.parent:
        in_test_class = d.qualname.split(".")[0].startswith("Test")
        return in_test_class and (d.name.startswith("test") or bool(_TEST_HOOKS.match(d.name)))
    decorators = [ast.unparse(x) for x in getattr(d.node, "decorator_list", ())]
    return (
        d.name.startswith("test")
        or bool(_TEST_HOOKS.match(d.name))
        or any("fixture" in x for x in decorators)
    )


def _class_of(sources: SourceFiles, d: Definition) -> Definition | None:
    """The class a removed method was defined in, before the change."""
    if d.kind != "method":
        return None
    cls = file_index(sources, d.path, "before").get(d.parent)
    return cls if cls is not None and cls.kind == "class" else None


def _hook_free(base: str) -> bool:
    """A built-in exception: it calls no method a subclass adds (dunders aside)."""
    obj = getattr(builtins, base.removeprefix("builtins."), None)
    return isinstance(obj, type) and issubclass(obj, BaseException)


def _overrides_a_base(change: Change, sources: SourceFiles, d: Definition) -> bool:
    """A removed method that a base class of its (surviving) class defines too."""
    f = change.file_of[d.path]
    cls = file_index(sources, f.path, "after").get(d.parent) if f.after is not None else None
    if cls is None or cls.kind != "class" or not cls.bases:
        return False
    return find_in_bases(sources, f.path, "after", cls, d.name).base is not None


def _prefixes(qual: str) -> list[str]:
    parts = qual.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def _definition_line(text: str, name: str) -> bool:
    return bool(re.match(rf"\s*(async\s+def|def|class)\s+{re.escape(name)}\b", text))


@register
class DeadCodeAnalyzer(Analyzer):
    """Removed definitions that nothing referenced before the change either.

    before: ``def unused(): ...`` (no caller anywhere, before or after) · after: gone →
    ``code.dead-removed``. A definition removed with its last callers, inlined, moved or
    renamed was live: it is not dead code.
    """

    name = "dead-code"

    def requests(self, bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
        """Search the repository for every removed name, then fetch the files it was found in,
        and the files of the bases of classes that lost a method (a base may call it)."""
        change = definition_changes(sources)
        bases: set[str] = set()
        for d in change.removed:
            cls = _class_of(sources, d)
            if cls is not None:
                bases.update(find_in_bases(sources, d.path, "before", cls, d.name).wanted)
        found = reference_request(bundle, {d.name for d in candidates(change, sources)})
        return found | ContextRequest(files=frozenset(bases))

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``code.dead-removed`` for each removed definition unreferenced before the change."""
        change = definition_changes(sources)
        # Only a whole-repository search proves "no reference anywhere". Without one (the GitHub
        # source), removals unreferenced in the changed files are reported as unproven.
        searched = bundle.reference_scope == "repository"
        removed = removals(change, sources)
        cands = [
            d
            for d, caller in removed
            if caller is None and (d.name in bundle.references or not searched)
        ]
        refs = {id(d): _base_references(bundle, sources, d) for d in cands}
        # Definitions referenced only by each other (and removed together) are dead together:
        # drop candidates with a reference outside the dead set until nothing changes.
        dead = list(cands)
        while True:
            spans = [(d.path, d.start, d.end) for d in dead]
            keep = [d for d in dead if all(_within(hit, spans) for hit in refs[id(d)])]
            if len(keep) == len(dead):
                break
            dead = keep
        for d in dead:
            yield self._finding(sources, change, d, searched)
        for d, caller in removed:
            if caller is not None and caller.via != "test-runner":
                yield _live_removal(sources, change, d, caller)

    def _finding(
        self, sources: SourceFiles, change: Change, d: Definition, searched: bool
    ) -> Finding:
        f = change.file_of[d.path]
        removed = sources.changed(f).removed
        lines = lines_with_blanks(f.before, d.start, d.end, removed)
        # ``_W = lib.W`` then ``_W.argtypes = [...]``: its own configuration goes with it.
        lines = (*lines, *_own_setup(f.before, d, removed))
        ex = removal_explains(sources, f, d, lines)
        return Finding(
            "code.dead-removed",
            f.path,
            d.start,
            d.qualname,
            f"{d.kind} {d.qualname} removed; nothing referenced it before the change either"
            + ("" if searched else " in the changed files (the repository was not searched)"),
            {
                "kind": d.kind,
                "name": d.name,
                "before_path": d.path,
                "before_line": d.start,
                "before_end": d.end,
                "references": [],
                "reference_scope": "repository" if searched else "changed-files",
                "proven": searched,
            },
            ex,
        )


_CALLER_WORDS = {
    "protocol": "Python calls it for {}",
    "override": "it overrides {}: callers of that method reached it",
    "base": "the base class {} (whose code was not read) may call it",
    "shim": "it is there for callers outside the repository ({} tells them the API is gone)",
}


def _live_removal(sources: SourceFiles, change: Change, d: Definition, caller: Caller) -> Finding:
    """A removed definition something calls without naming it: what called it now does not."""
    f = change.file_of[d.path]
    lines = lines_with_blanks(f.before, d.start, d.end, sources.changed(f).removed)
    return Finding(
        "behavior.changed",
        f.path,
        d.start,
        d.qualname,
        f"{d.kind} {d.qualname} removed; it is not dead code: "
        + _CALLER_WORDS[caller.via].format(caller.what),
        {
            "removed": True,
            "called_by": caller.via,
            "caller": caller.what,
            "before_path": d.path,
            "before_line": d.start,
            "before_end": d.end,
            "behavior_change": True,
        },
        explains(f.path, "-", sorted(set(lines))),
    )


def _within(hit: tuple[str, int], spans: list[tuple[str, int, int]]) -> bool:
    path, line = hit
    return any(p == path and a <= line <= b for p, a, b in spans)


def _base_references(
    bundle: PullRequestBundle, sources: SourceFiles, d: Definition
) -> list[tuple[str, int]]:
    """Where ``d.name`` occurred before the change, outside ``d`` itself, as (before path, line).

    Files the PR did not change are the same before and after, so the repository search at
    head answers for them; changed files are searched in their before text. Comment lines and
    other definitions of the same name are not references. A test that used it (even one the
    PR removed with it) is a reference: rewritten tests cannot be told from removed ones here.
    """
    changed = {f.path for f in bundle.files} | {f.before_path for f in bundle.files}
    out: list[tuple[str, int]] = []
    searched = bundle.reference_scope == "repository"
    for hit in bundle.references.get(d.name, ()) if searched else ():
        path, _, line = hit.rpartition(":")
        if path in changed or not line.isdigit():
            continue
        text = sources.text(path, "head")
        rows: list[str] = sources.memo(path, "head", "lines", partial(split_lines, text or ""))
        row = rows[int(line) - 1] if 0 < int(line) <= len(rows) else None
        if row is not None and (row.lstrip().startswith("#") or _definition_line(row, d.name)):
            continue
        if int(line) in _docstring_lines(sources, path, "head"):
            continue
        out.append((path, int(line)))
    for f in bundle.files:
        if f.before is None or not f.before_path.endswith(".py"):
            continue
        rows = sources.memo(f.before_path, "before", "lines", partial(split_lines, f.before))
        for n in word_hits(f.before, d.name):
            if f.before_path == d.path and d.start <= n <= d.end:
                continue
            if _definition_line(rows[n - 1], d.name):
                continue
            if n in _docstring_lines(sources, f.before_path, "before"):
                continue
            if f.before_path == d.path and n in _own_setup(f.before, d, sources.changed(f).removed):
                continue
            out.append((f.before_path, n))
    return out


def _docstring_lines(sources: SourceFiles, path: str, side: str) -> frozenset[int]:
    """Lines of the module, class and function docstrings of a file side: prose, not code."""

    def build() -> frozenset[int]:
        tree = sources.tree(path, side)
        lines: set[int] = set()
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                first = node.body[0] if node.body else None
                if first is not None and is_string_statement(first):
                    lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
        return frozenset(lines)

    result: frozenset[int] = sources.memo(path, side, "docstring-lines", build)
    return result


def _own_setup(text: str | None, d: Definition, removed: Iterable[int]) -> list[int]:
    """Removed lines right after a removed constant that only configure it (``NAME.attr = ...``)."""
    if d.kind not in ("constant", "import") or not text:
        return []
    rows = split_lines(text)
    gone = set(removed)
    setup = re.compile(rf"\s*{re.escape(d.name)}\.\w+\s*=")
    out: list[int] = []
    n = d.end + 1
    while n in gone and n <= len(rows):
        row = rows[n - 1]
        if setup.match(row):
            out.append(n)
        elif row.strip() and not row.startswith((" ", "\t", "]", ")", "}")):
            break
        elif out:
            out.append(n)
        n += 1
    return out
