"""Cycle safety of imports that became module-level, and the implicit contract they rest on."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, replace

from prreport.analyzers import Analyzer, register
from prreport.bundle import FileChange, PullRequestBundle
from prreport.classify import category
from prreport.findings import ContextRequest, Finding
from prreport.python.importgraph import (
    _complete,
    _Exploration,
    as_module_binding,
    explore,
    module_index,
)
from prreport.python.importmoves import scope_index
from prreport.python.initorder import (
    MODULE_DUNDERS,
    InitWalk,
    imported_by_none,
    name_state,
    walk_init,
)
from prreport.python.modules import (
    ImportBinding,
    ModuleIndex,
    module_level_imports,
    newly_module_level,
    parents,
)
from prreport.python.references import reference_request
from prreport.python.sources import SourceFiles


@dataclass(frozen=True)
class _Hoist:
    """Imports of one changed file that now load one first-party module at import time."""

    file: FileChange
    importer: str
    target: str
    bindings: tuple[ImportBinding, ...]
    hoisted: bool  # some binding was imported lazily (in a function or block) before
    # The importer already loaded the target at module level before the change (another name
    # of the same module, or the same import moved within the module): no new cycle.
    preexisting: bool = False
    # The target is first-party but has no source in the tree (a partial tree, a generated file).
    unresolved: bool = False


def _hoists(bundle: PullRequestBundle, sources: SourceFiles, index: ModuleIndex) -> list[_Hoist]:
    out: list[_Hoist] = []
    for f in sources.python_files():
        if f.after is None:
            continue
        after = sources.tree(f.path, "after")
        if after is None:
            continue
        before = sources.tree(f.before_path, "before") if f.before is not None else None
        if f.before is not None and before is None:
            continue  # an unparseable before side: nothing can be said about what is new
        importer = index.module_of(f.path)
        if importer is None:
            continue  # a script outside the packages cannot be imported back
        lazy_before = _all_keys(sources, f.before_path) if before is not None else set()
        lazy_targets = (
            _lazy_targets(sources, index, importer, f.before_path) if before is not None else set()
        )
        loaded_before = _targets(index, before, importer, f.before_path)
        by_target: dict[str, list[ImportBinding]] = {}
        missing: set[str] = set()
        for b in newly_module_level(before, after):
            target = index.target(b, importer, f.path)
            if target is None:
                target = index.unresolved(b, importer, f.path)
                if target is not None:
                    missing.add(target)
            # an ancestor package is in sys.modules already: no source needed to know that
            if target in missing and target in parents(importer):
                continue
            if target and target != importer:
                by_target.setdefault(target, []).append(b)
        for target, bindings in sorted(by_target.items()):
            # lazy before: the same binding, or the same module spelled another way
            hoisted = any(b.key in lazy_before for b in bindings) or target in lazy_targets
            ordered = tuple(sorted(bindings, key=lambda b: (b.line, b.bound)))
            preexisting = target in loaded_before[True] or (
                target in loaded_before[False] and not any(b.top_level for b in bindings)
            )
            out.append(
                _Hoist(f, importer, target, ordered, hoisted, preexisting, target in missing)
            )
    return out


def _targets(
    index: ModuleIndex, tree: ast.Module | None, importer: str, path: str
) -> dict[bool, set[str]]:
    """First-party modules a module loaded at import time: {True: unconditionally, False: any}."""
    out: dict[bool, set[str]] = {True: set(), False: set()}
    for b in module_level_imports(tree) if tree is not None else ():
        target = index.target(b, importer, path) or index.unresolved(b, importer, path)
        if target:
            out[False].add(target)
            if b.top_level:
                out[True].add(target)
    return out


def _lazy_targets(sources: SourceFiles, index: ModuleIndex, importer: str, path: str) -> set[str]:
    """First-party modules a before file imported inside functions or classes."""
    ix = scope_index(sources, path, "before")
    out: set[str] = set()
    for b in ix.imports if ix else ():
        if b.at_module_level:
            continue
        target = index.target(as_module_binding(b), importer, path)
        if target:
            out.add(target)
    return out


def _all_keys(sources: SourceFiles, path: str) -> set[tuple[int, str, str, str]]:
    """Keys of every import binding of a before file at any depth, from the shared scope index."""
    ix = scope_index(sources, path, "before")
    if ix is None:
        return set()
    return {
        (b.level, b.module[b.level :], b.name or "", b.alias or "")
        if b.is_from
        else (0, b.module, "", b.alias or "")
        for b in ix.imports
    }


def _judge(
    h: _Hoist,
    ex: _Exploration,
    index: ModuleIndex,
    complete: bool,
    unavailable: list[str],
    details: dict[str, object],
) -> tuple[str, str]:
    """The finding kind and message for one (importer, target) walk; notes go into ``details``."""
    if ex.ancestor:
        details["ancestor"] = True
        if ex.init is not None:
            return _judge_partial(h, ex.init, index, details)
        return (
            "cycle.safe",
            f"{h.target} is a package of {h.importer}: already initialising, runs nothing",
        )
    if h.preexisting:
        # The importer loaded the target at module level before: the change adds no cycle
        # (whatever loop exists, it ran the same way before).
        details["existing_chain"] = ex.chain
        details["chain"] = []
        return "cycle.safe", f"{h.target} was imported by {h.importer} before: no new cycle"
    if ex.chain:
        return "cycle.risk", " -> ".join(ex.chain)
    if h.target not in ex.explored:
        # A walk that could not finish proves nothing: say so, never "safe".
        details["target_missing"] = True
        return "cycle.unchecked", f"{h.target}: not verified, its source is not in the tree"
    if not complete:
        why = [*unavailable, *sorted(ex.unparseable)]
        if ex.truncated:
            why.append(f"depth limit {details['depth']}")
        return (
            "cycle.unchecked",
            f"{h.target}: not verified, import walk incomplete ({', '.join(why)})",
        )
    return "cycle.safe", f"{h.target} does not import {h.importer}"


def _names_of_package(h: _Hoist, index: ModuleIndex) -> list[str]:
    """Names ``from <package> import ...`` takes from the package itself (not its submodules:
    Python imports a submodule that is not loaded yet, and the walk follows those)."""
    return [
        b.name
        for b in h.bindings
        if b.name
        and b.name not in ("*", *MODULE_DUNDERS)  # set before the package's first line runs
        # ``from .. import pkg`` in pkg's own module takes the package pkg from its parent
        and index.absolute(b, h.importer, h.file.path) == h.target
        and not index.runs_nothing(f"{h.target}.{b.name}")
    ]


def _init_walk(
    sources: SourceFiles, index: ModuleIndex, h: _Hoist, depth: int, names: list[str]
) -> InitWalk:
    """The walk of the package's ``__init__``; where it cannot finish, a repository search
    may still prove that nothing imports the importer at module level."""
    walk = walk_init(sources, index, h.target, h.importer, depth, names)
    if _unfinished(walk, names) and imported_by_none(sources, index, h.importer):
        return replace(walk, unimported=True)
    return walk


def _unfinished(walk: InitWalk, names: list[str]) -> bool:
    """Some name is unknown only because the walk could not follow an import."""
    return walk.line is None and any(name_state(walk, n).why == "walk" for n in names)


def _judge_partial(
    h: _Hoist, walk: InitWalk, index: ModuleIndex, details: dict[str, object]
) -> tuple[str, str]:
    """``from <package> import X`` in a module the package's ``__init__`` may still be running."""
    states = {n: name_state(walk, n) for n in _names_of_package(h, index)}
    late = [n for n, s in states.items() if s.state == "late"]
    unknown = [n for n, s in states.items() if s.state == "unknown"]
    names = [
        {"name": n, "state": s.state, "line": s.line, "statement": s.statement, "why": s.why}
        | ({"stars": list(s.stars)} if s.stars else {})
        for n, s in states.items()
    ]
    details["partial_init"] = {
        "package": walk.package,
        "package_path": walk.path,
        "line": walk.line,
        "statement": walk.statement,
        "chain": list(walk.chain),
        "conditional": walk.conditional,
        "gap": walk.gap,
        "until": walk.until,
        "unimported": walk.unimported,
        "names": names,
        # the name the verdict rests on (what the report quotes)
        "name": next((x for x in names if x["name"] in (late or unknown)), None),
    }
    where = f"{walk.path}:{walk.line}" if walk.line is not None else walk.path
    runs = " -> ".join(walk.chain)
    if late:
        details["chain"] = [h.importer, *walk.chain]
        return (
            "cycle.risk",
            f"from {h.target} import {late[0]} fails: {where} runs {runs} before {h.target} "
            f"has {late[0]} ({walk.path} binds it only at line {states[late[0]].line})",
        )
    if unknown:
        s = states[unknown[0]]
        if s.why in ("walk", "unread"):
            unread = s.why == "unread" and not walk.unparseable
            gaps = {walk.package} if unread else walk.unavailable
            details["unavailable"] = sorted({*gaps, *walk.missing} - {""})
            details["unparseable"] = sorted(walk.unparseable)
            details["depth_limited"] = walk.truncated
            details["complete"] = False
        return (
            "cycle.unchecked",
            f"{h.target}: not verified that {unknown[0]} is bound when {h.importer} runs "
            f"({_WHY[s.why]})",
        )
    if walk.line is None and walk.until is not None:
        return (
            "cycle.safe",
            f"{walk.path} binds {', '.join(states)} before any import that could run "
            f"{h.importer} (line {walk.until})",
        )
    if walk.unimported:
        return (
            "cycle.safe",
            f"{h.target} is a package of {h.importer}: no module imports {h.importer} at "
            "module level (repository search), so its __init__ has finished first",
        )
    if walk.line is None:
        return (
            "cycle.safe",
            f"{h.target} is a package of {h.importer}: its __init__ does not import "
            f"{h.importer}, so it has finished first",
        )
    return (
        "cycle.safe",
        f"{h.target} is still initialising when {h.importer} runs ({where} runs {runs}), "
        f"but binds {', '.join(states)} before that",
    )


_WHY = {
    "conditional": "bound before only under a condition",
    "star": "a star import may bind it",
    "getattr": "the package defines __getattr__",
    "dynamic": "the package binds names at run time",
    "walk": "an import before could not be followed",
    "unread": "the package __init__ could not be read",
    "unbound": "the package __init__ never binds it: perhaps a module not in the repository",
}


def _forbidden(importer: str, target: str, ex: _Exploration) -> str:
    """What the target must keep not importing: the root package when it imports nothing
    first-party, else the widest package of the importer that excludes all it loads."""
    if not ex.target_imports:
        return target.split(".")[0]
    loaded = set(ex.explored) | {target}
    for pkg in [*parents(importer), importer]:
        inside = lambda m, p=pkg: m == p or m.startswith(p + ".")  # noqa: E731
        if not any(inside(m) for m in loaded):
            return pkg
    return importer


def enforceable(module: str, forbidden: list[str], index: ModuleIndex) -> list[str]:
    """``forbidden`` as import-linter can check it: a package above ``module`` is replaced by
    everything in it outside ``module``'s own line of packages (import-linter cannot forbid a
    module its own ancestor, and those are loaded already anyway)."""
    out: set[str] = set()
    for f in forbidden:
        if not module.startswith(f + "."):
            out.add(f)
            continue
        line = [p for p in parents(module) if p == f or p.startswith(f + ".")] + [module]
        for pkg, keep in zip(line, line[1:], strict=False):
            out.update(c for c in index.children(pkg) if c != keep)
    return sorted(out)


def contract_texts(
    module: str, forbidden: list[str], checked: list[str] | None = None
) -> tuple[str, str]:
    """Ready-to-paste import-linter ``forbidden`` contract: (pyproject TOML, INI).

    ``checked`` is the list import-linter is given (see ``enforceable``); ``forbidden`` by default.
    """
    what = ", ".join(forbidden)
    name = f"{module} must not import {what} (a hoisted import of it relies on this)"
    checked = forbidden if checked is None else checked
    toml_list = ", ".join(f'"{m}"' for m in checked)
    if len(checked) > 2:
        toml_list = "\n" + "".join(f'    "{m}",\n' for m in checked)
    root = module.split(".")[0]
    note = ""
    if checked != forbidden:
        note = f"# that is, {what} outside the packages above {module} (loaded already)\n"
    toml = (
        f'# needs root_packages = ["{root}"] (or root_package) under [tool.importlinter]\n'
        f"{note}"
        "[[tool.importlinter.contracts]]\n"
        f'name = "{name}"\n'
        'type = "forbidden"\n'
        f'source_modules = ["{module}"]\n'
        f"forbidden_modules = [{toml_list}]\n"
    )
    ident = module.rsplit(".", 1)[-1].replace("_", "-")
    ini = (
        f"# needs root_packages = {root} under [importlinter]\n"
        f"{note}"
        f"[importlinter:contract:{ident}-no-cycle]\n"
        f"name = {name}\n"
        "type = forbidden\n"
        "source_modules =\n"
        f"    {module}\n"
        "forbidden_modules =\n" + "".join(f"    {m}\n" for m in checked)
    )
    return toml, ini


@register
class CycleAnalyzer(Analyzer):
    """Whether an import made module-level can close an import cycle.

    before: ``def f(): from pkg.b import g`` · after: ``from pkg.b import g`` at the top of
    ``pkg.a`` → ``cycle.safe`` when ``pkg.b`` (transitively, at module level) never imports
    ``pkg.a``, else ``cycle.risk`` with the chain; plus ``contract.implicit`` to keep it so.
    """

    name = "cycles"

    def _walks(
        self, bundle: PullRequestBundle, sources: SourceFiles
    ) -> list[tuple[_Hoist, _Exploration]]:
        index = module_index(sources, self.config.first_party)
        depth = max(1, self.config.cycle_depth)

        def build() -> list[tuple[_Hoist, _Exploration]]:
            cache: dict[tuple[str, str], _Exploration] = {}
            out = []
            for h in _hoists(bundle, sources, index):
                key = (h.importer, h.target)
                if key not in cache:
                    cache[key] = explore(sources, index, h.importer, h.target, depth)
                ex = cache[key]
                names = _names_of_package(h, index)
                if ex.ancestor and ex.init is None and names:
                    ex.init = _init_walk(sources, index, h, depth, names)
                out.append((h, ex))
            return out

        # planning and analysis of one bundle walk the same imports: walk once
        fp = ",".join(self.config.first_party)
        walks: list[tuple[_Hoist, _Exploration]] = sources.memo(
            "", "", f"cycle-walks:{fp}:{depth}", build
        )
        return walks

    def requests(self, bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
        """The target modules, then the files they import, one level per round (for a package of
        the importer: its ``__init__``, then what that imports; when that walk cannot finish, a
        repository search for the importer's name and the files it is found in)."""
        missing: set[str] = set()
        searched: set[str] = set()
        index = module_index(sources, self.config.first_party)
        for h, ex in self._walks(bundle, sources):
            missing |= ex.missing
            if ex.init is not None:  # the package __init__ and what it imports first
                missing |= ex.init.missing
                if _unfinished(ex.init, _names_of_package(h, index)):
                    searched.add(h.importer.rsplit(".", 1)[-1])
        found = reference_request(bundle, searched) if searched else ContextRequest()
        return ContextRequest(files=frozenset(missing)) | found

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``cycle.safe``/``cycle.risk`` per (importer, target) and ``contract.implicit`` per target."""
        index = module_index(sources, self.config.first_party)
        depth = max(1, self.config.cycle_depth)
        findings: list[Finding] = []
        safe_by_target: dict[str, list[tuple[_Hoist, _Exploration]]] = {}
        for h, ex in self._walks(bundle, sources):
            target_path = index.path_of(h.target) or ""
            names = [b.bound for b in h.bindings]
            unavailable = sorted(ex.unavailable | {index.module_of(p) or p for p in ex.missing})
            complete = _complete(ex)
            details: dict[str, object] = {
                "importer_module": h.importer,
                "target_module": h.target,
                "target_path": target_path,
                "target_imports": ex.target_imports,
                "target_external_imports": ex.target_external,
                # Everything the target imports at module level, when its source was read
                # (what a PR's "it imports only the standard library and X" is checked against).
                "target_module_imports": (
                    sorted({*ex.target_imports, *ex.target_external})
                    if h.target in ex.explored
                    else None
                ),
                "chain": ex.chain,
                "depth": depth,
                "names": names,
                "origin": "hoisted" if h.hoisted else "new",
                "lines": [b.line for b in h.bindings],
                "explored": sorted(ex.explored),
                "unavailable": unavailable,
                "unparseable": sorted(ex.unparseable),
                "depth_limited": ex.truncated,
                "complete": complete,
            }
            if h.preexisting:
                details["preexisting"] = True
            kind, message = _judge(h, ex, index, complete, unavailable, details)
            findings.append(
                Finding(kind, h.file.path, h.bindings[0].line, h.target, message, details)
            )
            # A new dependency of a new file rests on nothing that held before; a hoist or a
            # new import in an existing module rests on the target never importing back. The
            # target's own imports are known even when something deeper was not: the contract
            # states what the hoist relies on today.
            relies = kind in ("cycle.safe", "cycle.unchecked") and h.target in ex.explored
            if (
                relies
                and not (ex.ancestor or ex.chain)
                and h.file.before is not None
                and category(h.file.path) == "source"
            ):
                safe_by_target.setdefault(h.target, []).append((h, ex))
        for target, items in sorted(safe_by_target.items()):
            if any(f.kind == "cycle.risk" and f.symbol == target for f in findings):
                continue
            forbidden = sorted({_forbidden(h.importer, target, ex) for h, ex in items})
            if target.split(".")[0] in forbidden:
                forbidden = [target.split(".")[0]]  # the root covers every importer's package
            checked = enforceable(target, forbidden, index)
            toml, ini = contract_texts(target, forbidden, checked)
            importers = sorted({h.file.path for h, _ in items})
            findings.append(
                Finding(
                    "contract.implicit",
                    importers[0],
                    None,
                    target,
                    f"{target} must keep not importing {', '.join(forbidden)} at module level",
                    {
                        "module": target,
                        "module_path": index.path_of(target) or "",
                        "forbidden": forbidden,
                        "forbidden_checked": checked,
                        "root_package": target.split(".")[0],
                        "importers": importers,
                        "importer_modules": sorted({h.importer for h, _ in items}),
                        "contract": toml,
                        "contract_toml": toml,
                        "contract_ini": ini,
                        "target_imports_first_party": bool(items[0][1].target_imports),
                        "verified": all(_complete(ex) for _h, ex in items),
                    },
                )
            )
        return sorted(findings, key=Finding.sort_key)
