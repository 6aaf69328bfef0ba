"""Removed placeholder overrides, and whether a base class still provides the method."""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterable

from prreport.analyzers import Analyzer, register
from prreport.bundle import PullRequestBundle
from prreport.findings import ContextRequest, Finding
from prreport.python.definitions import (
    Definition,
    bound_names,
    definition_changes,
    dump,
    explains,
    file_index,
    lines_with_blanks,
    pass_line,
    placeholder_kind,
    reference_request,
    strip_docstring,
)
from prreport.python.hierarchy import _head_index, _import_of, _subclasses, find_in_bases
from prreport.python.sources import SourceFiles

_NO_OP = ("pass", "ellipsis", "docstring")


def _is_abstract(fn: ast.AST) -> bool:
    decos = getattr(fn, "decorator_list", [])
    return any(
        (isinstance(d, ast.Name) and d.id == "abstractmethod")
        or (isinstance(d, ast.Attribute) and d.attr == "abstractmethod")
        for d in decos
    )


def _removed_overrides(sources: SourceFiles) -> list[tuple[Definition, Definition, str]]:
    """(removed method, class after, body kind) for methods removed from surviving subclasses.

    The body kind is ``_body_kind``'s: a placeholder kind, ``raise``, ``constant`` or
    ``implementation`` (judged against the base by the analyzer).
    """
    change = definition_changes(sources)
    out = []
    for d in change.removed:
        if d.kind != "method" or d.name in _NOT_INHERITED:
            continue
        kind = _body_kind(d.node)
        f = change.file_of[d.path]
        cls = file_index(sources, f.path, "after").get(d.parent) if f.after is not None else None
        if cls is None or cls.kind != "class" or not cls.bases:
            continue
        if any(a.name == d.name and a.parent == d.parent for a in change.added):
            continue
        out.append((d, cls, kind))
    return out


# Looked up on the class itself, never inherited the usual way (name-mangled privates too).
_NOT_INHERITED = frozenset({"__init_subclass__", "__class_getitem__", "__set_name__"})
_BUILTINS = frozenset(dir(builtins))


def _binding(sources: SourceFiles, path: str, side: str, name: str) -> str | None:
    """What a module-level name of a file is bound to: ``import:<dump>``, ``builtin``, or None."""
    defs = file_index(sources, path, side) if side != "head" else _head_index(sources, path)
    d = defs.get(name)
    if d is None:
        return "builtin" if name in _BUILTINS else None
    if d.kind != "import" or not isinstance(d.node, (ast.Import, ast.ImportFrom)):
        return None
    node = d.node
    for a in node.names:
        if (a.asname or a.name.split(".")[0]) == name:
            if isinstance(node, ast.ImportFrom):
                module = _import_of(sources.tree(path, side), name, path, sources)
                return f"from:{module}:{a.name}"
            return f"import:{a.name}:{a.asname or ''}"
    return None


def _body_kind(fn: ast.AST) -> str:
    """A placeholder kind (``pass``, ``ellipsis``, ``docstring``, ``not-implemented``,
    ``super-call``), ``raise`` (a fixed exception), ``constant`` (returns a literal), or
    ``implementation``."""
    kind = placeholder_kind(fn)
    if kind is not None:
        return kind
    body = strip_docstring(getattr(fn, "body", []))
    st = body[0] if len(body) == 1 else None
    if isinstance(st, ast.Raise) and st.exc is not None and st.cause is None:
        exc = st.exc
        call = exc if isinstance(exc, ast.Call) else None
        name = call.func if call is not None else exc
        args = [*call.args, *(k.value for k in call.keywords)] if call is not None else []
        if isinstance(name, (ast.Name, ast.Attribute)) and all(_literal(x) for x in args):
            return "raise"
    if isinstance(st, ast.Return) and (st.value is None or _literal(st.value)):
        return "constant"
    return "implementation"


def _literal(node: ast.expr) -> bool:
    """A literal, or a tuple/list/set/dict of literals (a new list each call is still equal)."""
    return all(
        isinstance(n, (ast.Constant, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Load))
        for n in ast.walk(node)
    )


def _raised(fn: ast.AST) -> str:
    """Dump of what a one-``raise`` body raises: the class and its arguments (no call = no args)."""
    st = strip_docstring(getattr(fn, "body", []))[0]
    assert isinstance(st, ast.Raise) and st.exc is not None
    exc = st.exc
    if isinstance(exc, ast.Call):
        return dump(exc.func) + "|" + dump(exc.args) + "|" + dump(exc.keywords)
    return dump(exc) + "||"


def _signature(fn: ast.AST) -> str:
    """Parameter names, kinds and defaults (annotations left out): what callers may pass."""
    a = getattr(fn, "args", None)
    if not isinstance(a, ast.arguments):
        return ""
    names = [
        [p.arg for p in a.posonlyargs],
        [p.arg for p in a.args],
        a.vararg.arg if a.vararg else "",
        [p.arg for p in a.kwonlyargs],
        a.kwarg.arg if a.kwarg else "",
    ]
    return repr(names) + dump(a.defaults) + dump([d for d in a.kw_defaults if d is not None])


def _same_placeholder(
    sources: SourceFiles, d: Definition, path: str, kind: str, base: Definition, base_path: str
) -> bool:
    """The inherited method answers every call as the dropped placeholder did: the same
    parameters and the same result (``None``, the same exception, the same literal)."""
    if _signature(d.node) != _signature(base.node) or type(d.node) is not type(base.node):
        return False
    base_kind = _body_kind(base.node)
    if kind in _NO_OP:
        return base_kind in _NO_OP
    if kind != base_kind:
        return False
    if kind == "constant":
        return dump(strip_docstring(d.node.body)) == dump(strip_docstring(base.node.body))  # type: ignore[attr-defined]
    if _raised(d.node) != _raised(base.node):
        return False
    # The exception class must be the same object in both modules.
    exc = strip_docstring(d.node.body)[0].exc  # type: ignore[attr-defined]
    name = _head_name(exc.func if isinstance(exc, ast.Call) else exc)
    return path == base_path or (
        name is not None
        and _binding(sources, path, "before", name) is not None
        and _binding(sources, path, "before", name) == _binding(sources, base_path, "head", name)
    )


def _head_name(node: ast.expr) -> str | None:
    """The first name of ``a.b.c``."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _same_inherited(
    sources: SourceFiles, dropped: Definition, dropped_path: str, base: Definition, base_path: str
) -> bool:
    """The inherited method does what the dropped one did: equal text, names bound alike."""
    a, b = dropped.node, base.node
    if type(a) is not type(b) or dropped.body != base.body:
        return False
    assert isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef))
    names = {n.id for n in ast.walk(a) if isinstance(n, ast.Name)}
    attrs = {n.attr for n in ast.walk(a) if isinstance(n, ast.Attribute)}
    # Zero-argument super() and __class__ name the defining class; __x is mangled with it.
    if names & {"super", "__class__"} or any(
        x.startswith("__") and not x.endswith("__") for x in names | attrs
    ):
        return False
    if dropped_path == base_path:
        return True
    free = names - bound_names([a.args, *a.body])
    return all(
        _binding(sources, dropped_path, "before", n) is not None
        and _binding(sources, dropped_path, "before", n) == _binding(sources, base_path, "head", n)
        for n in free
    )


@register
class OverridesAnalyzer(Analyzer):
    """Overrides removed: placeholders (``pass``, ``...``, a docstring, ``raise NotImplementedError``,
    a raise of a fixed exception, a returned literal, ``return super().m()``) or copies of the base.

    before: ``class B(A): def run(self): return super().run()`` · after: ``class B(A): pass``
    → ``code.override-removed`` (base_provides true). A method no readable base defines is no
    override; a full implementation counts only when the method inherited after (through the
    MRO) has the same body. A placeholder's removal is unchanged when the inherited method has
    the same parameters and answers alike, or the base declares it abstract and every
    subclass in the repository overrides it.
    """

    name = "overrides"

    def requests(self, bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
        """Fetch the modules that define the base classes of classes that lost an override,
        and search the repository for their subclasses (do they all override it?)."""
        wanted: set[str] = set()
        classes: set[str] = set()
        change = definition_changes(sources)
        for d, cls, _kind in _removed_overrides(sources):
            wanted |= set(
                find_in_bases(sources, change.file_of[d.path].path, "after", cls, d.name).wanted
            )
            classes.add(cls.name)
        refs = reference_request(bundle, classes) if classes else ContextRequest()
        return ContextRequest(files=frozenset(wanted)) | refs

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``code.override-removed`` with the base implementation it now falls back to."""
        change = definition_changes(sources)
        for d, cls, kind in _removed_overrides(sources):
            f = change.file_of[d.path]
            look = find_in_bases(sources, f.path, "after", cls, d.name)
            base = look.base
            if base is None and not look.unresolved:
                continue  # no base class defines it: a method removed, not an override
            base_kind = None
            abstract = False
            if base is not None:
                abstract = _is_abstract(base.node)
                base_kind = _body_kind(base.node)
            if base is not None and not abstract:
                provides: bool | None = True
            elif look.unresolved:
                provides = None  # a base we cannot read may provide it
            else:
                provides = False
            if kind == "implementation" and (
                base is None
                or any(a.path == look.base_path and a == base for a in change.added)
                or not _same_inherited(sources, d, d.path, base, look.base_path)
            ):
                # A full implementation is an override dropped only when the method inherited
                # now is the same; otherwise it is a rewrite (copies pulled up into a new base
                # or mixin are extracted.py's).
                continue
            if provides is None:
                change_flag: bool | None = None
            elif not provides:
                change_flag = True
            elif kind in ("implementation", "super-call"):
                change_flag = False  # the same body (checked above), or a call of the base's
            else:
                assert base is not None
                change_flag = not _same_placeholder(sources, d, f.path, kind, base, look.base_path)
            if change_flag is False and not look.linear:
                change_flag = None  # multiple inheritance: the MRO may pick another base
            subs = _subclasses(bundle, sources, cls, d.name)
            if (
                change_flag is True
                and base is not None
                and abstract
                and subs is not None
                and subs.overriding
                and not subs.relying
                and not subs.instantiated
            ):
                # The base declares it abstract and every subclass has its own implementation:
                # nothing ever ran the placeholder the intermediate class held.
                change_flag = False
            ex: tuple[tuple[str, str, int], ...] = ()
            if change_flag is False:
                lines = set(lines_with_blanks(f.before, d.start, d.end, sources.changed(f).removed))
                ex = explains(f.path, "-", lines) + pass_line(sources, f, cls)
            details = {
                "class": d.parent,
                "method": d.name,
                "body_kind": kind,
                "before_line": d.start,
                "before_end": d.end,
                "base_provides": provides,
                "base": base.qualname if base is not None else "",
                "base_path": look.base_path,
                "base_line": base.start if base is not None else None,
                "base_body_kind": base_kind,
                "base_abstract": abstract,
                "unresolved_bases": list(look.unresolved),
                "declared_by": base.qualname if base is not None else "",
                "overridden_by": list(subs.overriding) if subs is not None else [],
                "relied_on_by": list(subs.relying) if subs is not None else [],
                "subclasses_searched": subs is not None,
                "behavior_change": change_flag,
            }
            yield Finding(
                "code.override-removed",
                f.path,
                d.start,
                d.qualname,
                f"override {d.qualname} ({kind}) removed",
                details,
                ex,
            )
