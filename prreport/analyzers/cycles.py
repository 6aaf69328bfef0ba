"""Cycle safety of imports that became module-level, and the implicit contract they rest on."""

from __future__ import annotations

from collections.abc import Iterable

from prreport.analyzers import Analyzer, register
from prreport.bundle import PullRequestBundle
from prreport.classify import category
from prreport.codemods.contracts import contract_texts, enforceable, forbidden_package
from prreport.codemods.leaftest import imported_anywhere, leaf_test
from prreport.findings import ContextRequest, Finding
from prreport.python.importgraph import Exploration
from prreport.python.initorder import InitWalk, name_state
from prreport.python.modules import ModuleIndex, module_index
from prreport.python.newloads import NewLoad, init_unfinished, load_walks, package_names
from prreport.python.references import reference_request
from prreport.python.sources import SourceFiles

Walks = list[tuple[NewLoad, Exploration]]


def _judge(
    h: NewLoad,
    ex: Exploration,
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


def _judge_partial(
    h: NewLoad, walk: InitWalk, index: ModuleIndex, details: dict[str, object]
) -> tuple[str, str]:
    """``from <package> import X`` in a module the package's ``__init__`` may still be running."""
    states = {n: name_state(walk, n) for n in package_names(h, index)}
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


@register
class CycleAnalyzer(Analyzer):
    """Whether an import made module-level can close an import cycle.

    before: ``def f(): from pkg.b import g`` · after: ``from pkg.b import g`` at the top of
    ``pkg.a`` → ``cycle.safe`` when ``pkg.b`` (transitively, at module level) never imports
    ``pkg.a``, else ``cycle.risk`` with the chain; plus ``contract.implicit`` to keep it so.
    """

    name = "cycles"

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
                if init_unfinished(ex.init, package_names(h, index)):
                    searched.add(h.importer.rsplit(".", 1)[-1])
        found = reference_request(bundle, searched) if searched else ContextRequest()
        return ContextRequest(files=frozenset(missing)) | found

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``cycle.safe``/``cycle.risk`` per (importer, target) and ``contract.implicit`` per target."""
        index = module_index(sources, self.config.first_party)
        depth = max(1, self.config.cycle_depth)
        findings: list[Finding] = []
        safe_by_target: dict[str, Walks] = {}
        for h, ex in self._walks(bundle, sources):
            finding = _walk_finding(h, ex, index, depth)
            findings.append(finding)
            # A new dependency of a new file rests on nothing that held before; a hoist or a
            # new import in an existing module rests on the target never importing back. The
            # target's own imports are known even when something deeper was not: the contract
            # states what the hoist relies on today.
            relies = finding.kind in ("cycle.safe", "cycle.unchecked") and h.target in ex.explored
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
            findings.append(_contract_finding(target, items, index, sources))
        return sorted(findings, key=Finding.sort_key)

    def _walks(self, bundle: PullRequestBundle, sources: SourceFiles) -> Walks:
        depth = max(1, self.config.cycle_depth)
        return load_walks(bundle, sources, self.config.first_party, depth)


def _walk_finding(h: NewLoad, ex: Exploration, index: ModuleIndex, depth: int) -> Finding:
    """``cycle.safe``, ``cycle.risk`` or ``cycle.unchecked`` for one (importer, target) walk."""
    target_path = index.path_of(h.target) or ""
    names = [b.bound for b in h.bindings]
    unavailable = sorted(ex.unavailable | {index.module_of(p) or p for p in ex.missing})
    complete = ex.complete
    details: dict[str, object] = {
        "importer_module": h.importer,
        "target_module": h.target,
        "target_path": target_path,
        "target_imports": ex.target_imports,
        "target_external_imports": ex.target_external,
        # Everything the target imports at module level, when its source was read
        # (what a PR's "it imports only the standard library and X" is checked against).
        "target_module_imports": (
            sorted({*ex.target_imports, *ex.target_external}) if h.target in ex.explored else None
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
    if all(b.lazy for b in h.bindings):
        # PEP 810: loaded at first use, but at import under -X lazy_imports=none, as a hoist.
        details["lazy"] = True
        if kind == "cycle.risk":
            message += " (at import when lazy imports are disabled: -X lazy_imports=none)"
    return Finding(kind, h.file.path, h.bindings[0].line, h.target, message, details)


def _contract_finding(
    target: str, items: Walks, index: ModuleIndex, sources: SourceFiles
) -> Finding:
    """``contract.implicit``: what ``target`` must keep not importing for its importers' sake,
    as a test checked on the head source, and as an import-linter contract when one holds there
    (import-linter counts imports inside functions and under ``TYPE_CHECKING`` too)."""
    forbidden = sorted({forbidden_package(h.importer, target, ex) for h, ex in items})
    if target.split(".")[0] in forbidden:
        forbidden = [target.split(".")[0]]  # the root covers every importer's package
    path = index.path_of(target) or ""
    head = sources.text(path, "head") if path else None
    importers = sorted({h.file.path for h, _ in items})
    test = leaf_test(target, path, forbidden, importers, head)
    holds = head is not None and not _imports_any(target, path, forbidden, head)
    checked = enforceable(target, forbidden)
    toml, ini = contract_texts(target, forbidden, checked) if holds else (None, None)
    return Finding(
        "contract.implicit",
        importers[0],
        None,
        target,
        f"{target} must keep not importing {', '.join(forbidden)} at module level",
        {
            "module": target,
            "module_path": path,
            "forbidden": forbidden,
            "forbidden_checked": checked,
            "root_package": target.split(".")[0],
            "importers": importers,
            "importer_modules": sorted({h.importer for h, _ in items}),
            "test": test.text,
            "test_path": test.path,
            "test_verified": test.verified,
            "contract_holds": holds,
            "contract": toml,
            "contract_toml": toml,
            "contract_ini": ini,
            "target_imports_first_party": bool(items[0][1].target_imports),
            "verified": all(ex.complete for _h, ex in items),
        },
    )


def _imports_any(target: str, path: str, forbidden: list[str], head: str) -> bool:
    try:
        return imported_anywhere(target, path, forbidden, head)
    except (SyntaxError, ValueError, RecursionError):
        return True  # unreadable: no contract is claimed to hold
