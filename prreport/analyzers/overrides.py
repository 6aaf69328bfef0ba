"""Removed placeholder overrides, and whether a base class still provides the method."""

from __future__ import annotations

from collections.abc import Iterable

from prreport.analyzers import Analyzer, register
from prreport.bundle import FileChange, PullRequestBundle
from prreport.equivalence.inherited import same_inherited, same_placeholder
from prreport.findings import ContextRequest, Finding
from prreport.python.definitions import (
    Change,
    Definition,
    definition_changes,
    explains,
    file_index,
    lines_with_blanks,
    pass_line,
)
from prreport.python.hierarchy import Lookup, Subclasses, find_in_bases, subclasses_of
from prreport.python.placeholders import body_kind, is_abstract
from prreport.python.references import reference_request
from prreport.python.sources import SourceFiles


def _removed_overrides(sources: SourceFiles) -> list[tuple[Definition, Definition, str]]:
    """(removed method, class after, body kind) for methods removed from surviving subclasses.

    The body kind is ``body_kind``'s: a placeholder kind, ``raise``, ``constant`` or
    ``implementation`` (judged against the base by the analyzer).
    """
    change = definition_changes(sources)
    out = []
    for d in change.removed:
        if d.kind != "method" or d.name in _NOT_INHERITED:
            continue
        kind = body_kind(d.node)
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
            if look.base is None and not look.unresolved:
                continue  # no base class defines it: a method removed, not an override
            if kind == "implementation" and not _inherits_the_same(sources, change, d, look):
                # A full implementation is an override dropped only when the method inherited
                # now is the same; otherwise it is a rewrite (copies pulled up into a new base
                # or mixin are extracted.py's).
                continue
            yield _finding(bundle, sources, f, d, cls, kind, look)


def _inherits_the_same(sources: SourceFiles, change: Change, d: Definition, look: Lookup) -> bool:
    """The method inherited now is an unchanged base method with the dropped one's body."""
    base = look.base
    return (
        base is not None
        and not any(a.path == look.base_path and a == base for a in change.added)
        and same_inherited(sources, d, d.path, base, look.base_path)
    )


def _finding(
    bundle: PullRequestBundle,
    sources: SourceFiles,
    f: FileChange,
    d: Definition,
    cls: Definition,
    kind: str,
    look: Lookup,
) -> Finding:
    base = look.base
    abstract = base is not None and is_abstract(base.node)
    base_kind = body_kind(base.node) if base is not None else None
    if base is not None and not abstract:
        provides: bool | None = True
    elif look.unresolved:
        provides = None  # a base we cannot read may provide it
    else:
        provides = False
    subs = subclasses_of(bundle, sources, cls, d.name)
    change_flag = _behavior_change(sources, f, d, kind, look, provides, abstract, subs)
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
    where = f"override {d.qualname} ({kind}) removed"
    return Finding("code.override-removed", f.path, d.start, d.qualname, where, details, ex)


def _behavior_change(
    sources: SourceFiles,
    f: FileChange,
    d: Definition,
    kind: str,
    look: Lookup,
    provides: bool | None,
    abstract: bool,
    subs: Subclasses | None,
) -> bool | None:
    """Whether dropping the override changes what calls get (None: cannot tell)."""
    base = look.base
    if provides is None:
        change_flag: bool | None = None
    elif not provides:
        change_flag = True
    elif kind in ("implementation", "super-call"):
        change_flag = False  # the same body (checked above), or a call of the base's
    else:
        assert base is not None
        change_flag = not same_placeholder(sources, d, f.path, kind, base, look.base_path)
    if change_flag is False and not look.linear:
        change_flag = None  # multiple inheritance: the MRO may pick another base
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
    return change_flag
