"""The public API of a PR's changed packages, before and after, and what broke for its callers.

The one door to griffe. Why griffe: it is the maintained library made for exactly this — it
reads a package's API statically (no import, no code run), applies Python's public-name
conventions (``__all__``, leading underscores, imported names private unless exported, aliases
and re-exports followed) and lists the breaking changes between two snapshots
(``find_breaking_changes``). Only the changed library modules are loaded, with the
``__init__.py`` of their packages (which re-export from them), each side written from the
bundle's text into a temporary directory: nothing of the user's repository is read.

What counts, conservatively (a false "your API broke" is a false behaviour claim):
- library code only (``libraryfiles``), and by default only the names a package declares
  public (``__all__``, a re-export in a package ``__init__``, the top-level ``__init__``);
- a name removed is one a caller could import or reach before and cannot now: a re-export
  (``from .new import X``) or an alias (``Old = New``) left behind keeps it; a method a class
  may inherit from a base griffe cannot read is not claimed removed, nor an instance attribute
  (``self.x = ...`` set elsewhere than ``__init__`` now);
- a default changed only when both defaults are literals of different values;
- a base removed only when the class's new bases cannot reach it any more (never ``object``);
- annotation-only changes (return or attribute types) are not behaviour: not reported;
- a module griffe could not read on one side is not compared (``unchecked``), never "removed".
"""

from __future__ import annotations

import ast
import logging
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from prreport.python.libraryfiles import (
    LibraryFile,
    head_paths,
    library_files,
    located,
    package_inits,
    signature_text,
    surface,
)
from prreport.python.sources import SourceFiles

# griffe reports what it cannot read as log records; they are ours to turn into facts, not to
# print on the user's terminal (Python's last-resort handler would).
_GRIFFE_LOG = logging.getLogger("griffe")
_GRIFFE_LOG.addHandler(logging.NullHandler())
_GRIFFE_LOG.propagate = False

# griffe's breakage kinds -> ours (annotation-only kinds are left out: not behaviour).
_KINDS = {
    "OBJECT_REMOVED": "removed",
    "OBJECT_CHANGED_KIND": "kind-changed",
    "PARAMETER_REMOVED": "parameter-removed",
    "PARAMETER_MOVED": "parameter-moved",
    "PARAMETER_CHANGED_KIND": "parameter-kind-changed",
    "PARAMETER_CHANGED_REQUIRED": "parameter-required",
    "PARAMETER_ADDED_REQUIRED": "parameter-added",
    "PARAMETER_CHANGED_DEFAULT": "default-changed",
    "CLASS_REMOVED_BASE": "base-removed",
}


@dataclass(frozen=True)
class ApiBreak:
    """One change of the public API a caller can observe."""

    kind: str  # a value of _KINDS
    name: str  # dotted public path: pkg.mod.Class.method
    path: str  # repository path of the file the fact is seen in (before side for a removal)
    line: int | None
    side: str  # "-": the before file (a removal), "+": the after file
    object_kind: str = ""  # module | class | function | attribute
    parameter: str = ""
    before: str = ""  # the old default, parameter kind, base(s) or object kind
    after: str = ""
    moved_to: str = ""  # a removed name now defined at this public path (no re-export left)
    before_path: str = ""
    before_line: int | None = None


@dataclass(frozen=True)
class ApiComparison:
    """What was compared and what broke."""

    packages: tuple[str, ...]  # top-level packages compared
    modules: tuple[tuple[str, str], ...]  # changed public modules compared: (dotted, path)
    breaks: tuple[ApiBreak, ...]
    unchecked: tuple[tuple[str, str], ...] = ()  # (repository path, why) not compared


def compare_public_api(sources: SourceFiles, scope: str = "declared") -> ApiComparison:
    """Load the before and after snapshots of the changed packages and list what broke.

    ``scope``: ``declared`` holds the PR to the names its packages declare public (listed in
    the module's ``__all__``, re-exported by a package ``__init__``, defined in the top-level
    ``__init__``, and the public members of those); ``names`` to every name griffe's
    conventions call public (no leading underscore)."""
    changed = library_files(sources)
    if not changed:
        return ApiComparison((), (), ())
    bundle = sources.bundle
    heads = head_paths(bundle)
    before: dict[str, tuple[LibraryFile, str]] = {}
    after: dict[str, tuple[LibraryFile, str]] = {}
    compared: list[LibraryFile] = []
    for f, b, a in changed:
        compared += [m for m in (b, a) if m is not None]
        if b is not None and a is not None and b.module == a.module:
            if surface(sources, f.before_path, "before") == surface(sources, f.path, "after"):
                continue  # only bodies changed: the same API, nothing to load
        old_text = signature_text(sources, f.before_path, "before")
        new_text = signature_text(sources, f.path, "after")
        if b is not None and old_text is not None:
            before[b.path] = (b, old_text)
        if a is not None and new_text is not None:
            after[a.path] = (a, new_text)
    tops = sorted({m.module.split(".")[0] for m in compared})
    modules = sorted({(m.module, m.path) for m in compared if not _private(m.module)})
    if not before and not after:
        return ApiComparison(tuple(tops), tuple(modules), ())
    mods = [m for m, _t in (*before.values(), *after.values())]
    changed_paths = {f.path for f in bundle.files} | {f.before_path for f in bundle.files}
    for init in sorted(package_inits(mods, heads) - changed_paths):
        # an ``__init__.py`` the source did not read stands empty: the package is still one
        text = signature_text(sources, init, "head") or ""
        where = located(init, heads)
        if where is not None:
            before[init] = after[init] = (where, text)
    with tempfile.TemporaryDirectory(prefix="prreport-api-") as tmp:
        old = _Snapshot(Path(tmp) / "before", before, tops)
        new = _Snapshot(Path(tmp) / "after", after, tops)
        breaks, unchecked = _compare(old, new, scope == "declared")
    return ApiComparison(tuple(tops), tuple(modules), tuple(breaks), tuple(unchecked))


def _private(module: str) -> bool:
    return any(
        p.startswith("_") and not (p.startswith("__") and p.endswith("__"))
        for p in module.split(".")
    )


class _Snapshot:
    """One side's files written below ``base`` and loaded by griffe (statically)."""

    def __init__(
        self, base: Path, files: dict[str, tuple[LibraryFile, str]], tops: list[str]
    ) -> None:
        import griffe

        self.repo_path: dict[str, str] = {}  # written file -> repository path
        self.written: dict[str, str] = {}  # dotted modules written -> repository path
        roots: list[str] = []
        for m, text in files.values():
            target = base / m.root / m.rel if m.root else base / m.rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            self.repo_path[str(target.resolve())] = m.path
            self.written[m.module] = m.path
            if m.root not in roots:
                roots.append(m.root)
        search = [base / r if r else base for r in sorted(roots)]
        self.loader = griffe.GriffeLoader(
            search_paths=[str(p) for p in search if p.is_dir()], allow_inspection=False
        )
        self.packages: dict[str, Any] = {}
        self.tops = {m.split(".")[0] for m in self.written}
        for top in tops:
            if top in self.tops:
                try:
                    self.packages[top] = self.loader.load(top, try_relative_path=False)
                except Exception:  # griffe could not read it: not compared (``unchecked``)
                    continue
        self.loader.resolve_aliases(implicit=False, external=False)
        # written but not loaded: griffe could not read it (a log record, not an exception)
        self.unread = sorted(p for m, p in self.written.items() if self.get(m) is None)

    def where(self, obj: Any) -> tuple[str, int | None]:
        """Repository path and line of a griffe object (its module's file)."""
        mod = obj
        while mod is not None and not (not mod.is_alias and mod.is_module):
            mod = mod.parent
        if mod is None:
            return "", None
        path = self.repo_path.get(str(Path(str(mod.filepath)).resolve()), "")
        import griffe

        try:
            line = obj.lineno if not (not obj.is_alias and obj.is_module) else 1
        except (griffe.AliasResolutionError, griffe.CyclicAliasError):
            line = None  # an alias whose target griffe cannot follow: its line is unknown
        return path, line

    def get(self, dotted: str) -> Any:
        try:
            return self.loader.modules_collection.get_member(dotted)
        except (KeyError, ValueError, AttributeError):
            return None


def _compare(
    old: _Snapshot, new: _Snapshot, declared: bool
) -> tuple[list[ApiBreak], list[tuple[str, str]]]:
    import griffe

    breaks: list[ApiBreak] = []
    unchecked: list[tuple[str, str]] = []
    unchecked += [(p, "before-unreadable") for p in old.unread]
    unchecked += [(p, "after-unreadable") for p in new.unread]
    for top, old_pkg in sorted(old.packages.items()):
        new_pkg = new.packages.get(top)
        if new_pkg is None and top in new.tops:
            continue  # not read on the after side: unchecked, not removed
        if new_pkg is None:
            # none of the package's files is left: the package itself is the removed name
            gone = _removed(old_pkg, old, new)
            breaks += [gone] if gone is not None and not declared else []
            continue
        try:
            found = list(griffe.find_breaking_changes(old_pkg, new_pkg))
        except (griffe.AliasResolutionError, griffe.CyclicAliasError, KeyError, AttributeError):
            # an alias griffe cannot follow (hypothesis-23a13d0b: `hypothesis.configure`
            # pointing at a name the blanked module no longer shows): not compared
            unchecked.append((_init_path(old_pkg), "unresolvable"))
            continue
        for b in found:
            try:
                kept = _kept(b, old, new)
            except (griffe.AliasResolutionError, griffe.CyclicAliasError):
                unchecked.append((_init_path(old_pkg), "unresolvable"))
                continue
            if kept is None:
                continue
            public = _declared_as(kept.name, old) if declared else kept.name
            if public:
                breaks.append(replace(kept, name=public))
    order = sorted(set(breaks), key=lambda b: (b.path, b.line or 0, b.name, b.kind, b.parameter))
    return order, sorted(set(unchecked))


def _declared_as(dotted: str, snap: _Snapshot) -> str:
    """The public path under which a package declares the module-level object ``dotted`` belongs
    to (itself or a re-export), or "" when nothing declares it: its module's ``__all__`` lists
    it, a package ``__init__`` above it imports it (and lists it too when it has an ``__all__``),
    or the top-level ``__init__`` defines it. A removed module counts when its package imports it."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        holder = snap.get(".".join(parts[:cut]))
        if holder is not None and not holder.is_alias and holder.is_module:
            break
    else:
        return ""
    head, rest = ".".join(parts[: cut + 1]), parts[cut + 1 :]
    obj = snap.get(head)
    module = obj is not None and not obj.is_alias and obj.is_module
    if parts[cut] in {str(x) for x in holder.exports or ()} and not _private(head):
        return dotted  # its module's ``__all__`` lists it
    if not module and cut == 1 and str(holder.filepath).endswith("__init__.py"):
        return dotted if not _private(head) else ""  # defined in the top-level package itself
    for i in range(cut, 0, -1):
        package = snap.get(".".join(parts[:i]))
        if package is None or package.is_alias or not package.is_module:
            continue
        for name, member in package.members.items():
            if not _reexports(member, head) or name.startswith("_"):
                continue
            if package.exports and name not in {str(x) for x in package.exports}:
                continue
            return ".".join([str(package.path), name, *rest])
    return ""


def _reexports(member: Any, target: str) -> bool:
    """Whether a package member is an import of ``target`` (directly or through re-exports)."""
    if not member.is_alias:
        return False
    if str(member.target_path) == target:
        return True
    try:
        return str(member.final_target.path) == target
    except Exception:  # an import griffe cannot follow
        return False


def _object_kind(obj: Any) -> str:
    try:
        return str(obj.kind.value)
    except Exception:  # an alias whose target griffe cannot resolve
        return "alias"


def _kept(b: Any, old: _Snapshot, new: _Snapshot) -> ApiBreak | None:
    """Our fact for one griffe breakage, or None when it is not one a caller can observe."""
    kind = _KINDS.get(b.kind.name)
    obj = b.obj
    if kind is None or "__main__" in str(obj.path).split("."):
        return None
    if kind == "removed":
        return _removed(obj, old, new)
    path, line = new.where(obj)
    if not path:
        return None
    old_obj = old.get(str(obj.path))
    before_path, before_line = old.where(old_obj) if old_obj is not None else ("", None)
    base = ApiBreak(
        kind,
        str(obj.path),
        path,
        line,
        "+",
        object_kind=_object_kind(obj),
        before_path=before_path,
        before_line=before_line,
    )
    if kind == "kind-changed":
        return _kind_changed(b, base)
    if kind == "base-removed":
        gone = _bases_gone(b)
        return replace(base, before=", ".join(gone)) if gone else None
    param = b.old_value if b.old_value is not None else b.new_value
    base = replace(base, parameter=str(getattr(param, "name", "")))
    if kind == "default-changed":
        was, now = str(b.old_value.default), str(b.new_value.default)
        old_value, new_value = _literal(was), _literal(now)
        if _NOT_LITERAL in (old_value, new_value) or old_value == new_value:
            return None
        return replace(base, before=was, after=now)
    if kind == "parameter-moved":
        was, now = _positions(b.details)
        return replace(base, before=was, after=now)
    if kind == "parameter-kind-changed":
        return replace(base, before=_param_kind(b.old_value), after=_param_kind(b.new_value))
    return base


def _param_kind(param: Any) -> str:
    kind = getattr(param, "kind", None)
    return str(getattr(kind, "value", kind or ""))


def _positions(details: str) -> tuple[str, str]:
    # griffe: "position: from 1 to 2 (+1)"
    words = str(details).replace("(", " ").split()
    if "from" in words and "to" in words:
        i, j = words.index("from"), words.index("to")
        if i + 1 < len(words) and j + 1 < len(words):
            return words[i + 1], words[j + 1]
    return "", ""


def _removed(obj: Any, old: _Snapshot, new: _Snapshot) -> ApiBreak | None:
    dotted = str(obj.path)
    path, line = old.where(obj)
    if not path:
        return None
    is_module = not obj.is_alias and obj.is_module
    if is_module and dotted in new.written:
        return None  # written on the after side, yet not loaded: unchecked, not removed
    if not obj.is_alias and "instance-attribute" in set(getattr(obj, "labels", ()) or ()):
        return None  # ``self.x`` may now be set by a method griffe does not read
    parent = new.get(str(obj.parent.path)) if obj.parent is not None else None
    if parent is not None and not parent.is_alias and parent.is_class and not _bases_known(parent):
        return None  # it may be inherited from a base griffe cannot read
    return ApiBreak(
        "removed",
        dotted,
        path,
        line,
        "-",
        object_kind=_object_kind(obj),
        moved_to=_moved_to(obj, new),
        before_path=path,
        before_line=line,
    )


def _bases_known(cls: Any) -> bool:
    """Every base of a class (and theirs) is a class griffe read: its inherited members are known."""
    try:
        return len(cls.resolved_bases) == len([b for b in cls.bases if str(b) != "object"]) and all(
            _bases_known(base) for base in cls.resolved_bases
        )
    except Exception:  # an unresolvable alias on the way
        return False


def _moved_to(obj: Any, new: _Snapshot) -> str:
    """Where a removed module-level definition is defined now (same name), if anywhere public."""
    if obj.is_alias or obj.parent is None or obj.is_module or not obj.parent.is_module:
        return ""
    for mod in (m for pkg in new.packages.values() for m in _modules(pkg)):
        member = mod.members.get(obj.name)
        if member is not None and not member.is_alias and not _private(str(member.path)):
            return str(member.path) if member.is_public else ""
    return ""


def _modules(mod: Any) -> Iterator[Any]:
    yield mod
    for m in mod.modules.values():
        if not m.is_alias:
            yield from _modules(m)


def _kind_changed(b: Any, base: ApiBreak) -> ApiBreak | None:
    was, now = str(b.old_value.value), str(b.new_value.value)
    if was not in ("class", "function"):
        return None  # an attribute made a def or class: what callers read of it is unknown
    value = str(getattr(b.obj, "value", None) or "")
    if now == "attribute" and all(part.isidentifier() for part in value.split(".")):
        return None  # ``Old = New`` (or no value griffe can show): an alias kept after a rename
    return replace(base, before=was, after=now)


def _bases_gone(b: Any) -> list[str]:
    """Bases of the old class its new version does not reach any more (``object`` aside)."""
    now = {str(x) for x in b.new_value}
    gone = [str(x) for x in b.old_value if str(x) not in now and str(x) != "object"]
    if not gone or not _bases_known(b.obj):
        return []  # nothing gone, or a base griffe cannot read may still reach it
    try:
        reached = {n for c in b.obj.mro() for n in (str(c.path), c.name)}
    except Exception:  # an inconsistent order: Python would refuse the class
        return []
    return [x for x in gone if x not in reached and x.rpartition(".")[2] not in reached]


_NOT_LITERAL = object()


def _literal(default: Any) -> Any:
    try:
        return ast.literal_eval(str(default))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _NOT_LITERAL


def _init_path(pkg: object) -> str:
    """The repository path griffe read a package from, as best known."""
    return str(getattr(pkg, "relative_filepath", "") or getattr(pkg, "path", ""))
