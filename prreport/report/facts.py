"""Per-file facts: findings grouped into what a file's description and breakdown item state,
and the shapes findings are cited in as evidence (site labels, guard texts, partial inits)."""

from __future__ import annotations

import posixpath
from typing import Any

from prreport.findings import Finding
from prreport.report.reconcile import accounted, proves_equivalence

_IMPORT_MOVES = (
    "import.hoisted",
    "import.sunk",
    "import.moved",
    "import.added",
    "import.removed",
    "import.made-lazy",
    "import.made-eager",
    "import.lazy-forbidden",
)


# Findings whose scope the diff changed, and the key in ``details`` that names that scope.
_CHANGED_SCOPE_KINDS = ("import.", "loop.", "behavior.", "code.", "symbol.", "guard.")


def mark_touching(retained: list[dict[str, Any]], findings: list[Finding]) -> list[dict[str, Any]]:
    """``retained`` facts with ``touches_diff``: named in the description, in a function the diff
    changed (or one nesting it), or importing from a module this PR hoists imports of."""
    scopes: set[tuple[str, str]] = set()
    modules: set[str] = set()
    for fd in findings:
        if fd.kind == "lazy-import.retained" or not fd.kind.startswith(_CHANGED_SCOPE_KINDS):
            continue
        d = fd.details
        for scope in (d.get("from_scope"), d.get("scope"), fd.symbol):
            if scope and scope != "<module>":
                scopes.add((fd.path, str(scope)))
        if fd.kind == "import.hoisted" and d.get("module"):
            modules.add(str(d["module"]))

    def nests(a: str, b: str) -> bool:
        return a == b or a.startswith(b + ".") or b.startswith(a + ".")

    out = []
    for x in retained:
        touching = (
            bool(x["named_in_description"])
            or x["module"] in modules
            or any(p == x["path"] and nests(x["scope"], sc) for p, sc in scopes if x["scope"])
        )
        out.append({**x, "touches_diff": touching})
    return out


def guard_texts(value: Any) -> list[str]:
    """Guard texts, without the enclosing loops (the loop is the same before and after)."""
    return [
        g.get("text", "") for g in value or [] if isinstance(g, dict) and g.get("kind") != "loop"
    ]


# Every key is always present (templates run with StrictUndefined).
_FACT_KEYS = (
    "hoisted",
    "sunk",
    "moved",
    "added",
    "removed",
    "imports_removed",
    "imports_remaining",
    "imports_added",
    "guards_preserved",
    "guards_changed",
    "guards_dropped",
    "guards_removed",
    "behavior_unchanged",
    "behavior_changed",
    "code",
    "retained",
    "unresolved",
    "unused",
    "not_checkable",
    "behavior_accounted",
    "cycle_safe",
    "cycle_unchecked",
    "cycle_risk",
    "moved_out",
    "extracted_out",
)


def moved_out_of(findings: list[Finding]) -> dict[str, list[dict[str, Any]]]:
    """Definitions that left a file (``symbol.moved`` to another file, or a copy replaced by a
    definition ``code.extracted`` into another file: ``into``), keyed by their old path."""
    out: dict[str, list[dict[str, Any]]] = {}
    for fd in findings:
        d = fd.details
        if fd.kind == "code.extracted":
            for site in d.get("sites", []):
                # A definition gone for the shared one (a method a mixin now gives the class);
                # a function that kept its place but lost lines to a helper is not "replaced".
                gone = site.get("scope_removed", d.get("home_kind") == "mixin") is True
                if gone and site.get("path") and site["path"] != fd.path and site.get("scope"):
                    out.setdefault(site["path"], []).append(
                        {
                            "symbol": site["scope"],
                            "old_qualname": site["scope"],
                            "into": fd.symbol,
                            "new_path": fd.path,
                            "equality": site.get("equality", ""),
                        }
                    )
            continue
        if fd.kind == "symbol.moved" and d.get("old_path") and d.get("old_path") != fd.path:
            out.setdefault(d["old_path"], []).append(
                {
                    "symbol": fd.symbol,
                    "old_qualname": d.get("old_qualname", fd.symbol),
                    "into": "",
                    "new_path": fd.path,
                    "new_module": d.get("new_module", ""),
                    "shim": bool(d.get("shim")),
                    "in_all": bool(d.get("in_all")),
                    "call_sites_updated": d.get("call_sites_updated") is not False,
                }
            )
    return out


def _grouped_overrides(code: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Placeholder overrides of one class dropped alike (same body kind, one base class that
    answers for all of them) told once, naming the methods (``members``)."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for c in code:
        if c["kind"] == "code.override-removed" and c["base_provides"] and not c["behavior_change"]:
            key = (
                c["symbol"].rpartition(".")[0],
                c["base"].rpartition(".")[0],
                c["base_path"],
                c["body_kind"],
            )
            groups.setdefault(key, []).append(c)
    group_of = {id(x): g for g in groups.values() if len(g) > 1 for x in g}
    out: list[dict[str, Any]] = []
    for c in code:
        group = group_of.get(id(c))
        if group is None:
            out.append(c)
        elif group[0] is c:
            members = [x["symbol"].rpartition(".")[2] for x in group]
            out.append({**c, "members": members, "owner": c["symbol"].rpartition(".")[0]})
    return out


def site_labels(sites: list[dict[str, Any]]) -> list[str]:
    """Each site's scope, prefixed with its module's name where two sites share one
    (``crawl.Command.add_options``, ``runspider.Command.add_options``)."""
    scopes = [str(s.get("scope") or s.get("class", "")) for s in sites]
    out = []
    for scope, site in zip(scopes, sites, strict=True):
        path = str(site.get("path", ""))
        if scopes.count(scope) > 1 and path:
            stem = posixpath.splitext(posixpath.basename(path))[0]
            if stem == "__init__":
                stem = posixpath.basename(posixpath.dirname(path)) or stem
            scope = f"{stem}.{scope}"
        out.append(scope)
    return out


def _code_fact(fd: Finding) -> dict[str, Any]:
    """A ``code.*``/``symbol.*`` finding as the description needs it: what, where, and whether proven."""
    d = fd.details
    labels = site_labels(list(d.get("sites", [])))
    sites = [
        {
            "scope": label,
            "class": site.get("class", ""),
            "equality": site.get("equality", ""),
            "call_lines": list(site.get("call_lines", [])),
            "inherits_new_home": site.get("inherits_new_home"),
            # Rewrites and stated assumptions the proof of this site relied on.
            "rewrites": list(site.get("rewrites", [])),
            # What only the old code did (``-``) and only the new definition does (``+``).
            "old_only": [r[1:].strip() for r in site.get("residual", []) if r[:1] == "-"][:2],
            "new_only": [r[1:].strip() for r in site.get("residual", []) if r[:1] == "+"][:2],
        }
        for site, label in zip(d.get("sites", []), labels, strict=True)
    ]
    return {
        "kind": fd.kind,
        "symbol": fd.symbol,
        "line": fd.line,
        "verified": proves_equivalence(fd),
        "behavior_change": d.get("behavior_change") is True,
        "equality": d.get("equality", ""),
        # code.extracted
        "home_kind": d.get("home_kind", ""),
        # an existing base method that gained the code its subclasses' overrides had
        "pulled_up": d.get("method") == "pulled-up",
        "sites": sites,
        # code.branches-collapsed
        "pattern": d.get("pattern", ""),
        "proven": d.get("proven"),
        "method": d.get("method", ""),
        "subject": d.get("subject", ""),
        "subject_values": list(d.get("values", [])),
        "statement": d.get("statement", ""),
        "value": d.get("value", ""),
        "returns": d.get("returns", ""),
        "inputs": list(d.get("inputs", [])),
        "before_branches": d.get("before_branches"),
        "after_branches": d.get("after_branches"),
        # code.dead-removed
        "def_kind": d.get("kind", d.get("definition_kind", "")),
        "before_line": d.get("before_line"),
        "before_end": d.get("before_end"),
        "reference_scope": d.get("reference_scope", ""),
        # code.override-removed
        "body_kind": d.get("body_kind", ""),
        "base": d.get("base", ""),
        "base_path": d.get("base_path", ""),
        "base_line": d.get("base_line"),
        "base_provides": d.get("base_provides"),
        # an abstract base whose every concrete subclass overrides the method: no call ran it
        "base_abstract": d.get("base_abstract") is True,
        "base_body_kind": d.get("base_body_kind", ""),
        "members": [],  # set when several dropped overrides of one class are told together
        "owner": "",
        # symbol.moved / symbol.renamed
        "old_qualname": d.get("old_qualname", ""),
        "old_path": d.get("old_path", ""),
        "new_path": d.get("new_path", fd.path),
        "shim": bool(d.get("shim")),
        "in_all": bool(d.get("in_all")),
        "call_sites_updated": d.get("call_sites_updated"),
        "stale_references": list(d.get("stale_references", [])),
    }


def file_facts(fds: list[Finding], moved_out: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Group one file's findings into the facts its description and breakdown item state."""
    facts: dict[str, Any] = {key: [] for key in _FACT_KEYS}
    # Definitions that went to another file: moved, or replaced by a shared (extracted) one.
    facts["moved_out"] = [m for m in moved_out or [] if not m["into"]]
    facts["extracted_out"] = [m for m in moved_out or [] if m["into"]]
    for fd in fds:
        fact = _fact(fd)
        if fact is not None:
            # made_lazy, made_eager, lazy_forbidden (PEP 810) only when there are some
            facts.setdefault(fact[0], []).append(fact[1])
    facts["code"] = _grouped_overrides(facts["code"])
    facts["guards_preserved"] = _counted(facts["guards_preserved"])
    facts["retained"] = mark_touching(facts["retained"], fds)
    facts["unused"].sort(key=lambda u: u["line"] or 0)
    facts["hoisted_merged"] = bool(facts["hoisted"]) and all(
        h["merged_into_existing"] for h in facts["hoisted"]
    )
    facts["hoisted_modules"] = sorted({h["module"] for h in facts["hoisted"]})
    return facts


def _fact(fd: Finding) -> tuple[str, dict[str, Any]] | None:
    """The fact key a finding goes under and what it says there (None: no fact of a file)."""
    k = fd.kind
    if k in _IMPORT_MOVES:
        return k.split(".")[1].replace("-", "_"), _import_fact(fd)
    if k.startswith("loop."):
        return k.split(".")[1].replace("-", "_"), _loop_fact(fd)
    if k.startswith("guard."):
        return _guard_fact(fd)
    if accounted(fd):
        by = list(fd.details.get("accounted_by", []))
        return "behavior_accounted", {"symbol": fd.symbol, "line": fd.line, "by": by}
    if k in ("behavior.unchanged", "behavior.changed"):
        return k.replace(".", "_"), {
            "symbol": fd.symbol,
            "line": fd.line,
            "residual": list(fd.details.get("residual", [])),
            "rewrites": list(fd.details.get("rewrites", [])),
        } | (
            # a behaviour change only where a witness falls in it; else not proven equal
            {"witnessed": fd.details.get("witnessed", True) is not False}
            if k == "behavior.changed"
            else {}
        )
    if k.startswith(("code.", "symbol.")):
        return "code", _code_fact(fd)
    if k in ("cycle.safe", "cycle.unchecked", "cycle.risk"):
        chain = list(fd.details.get("chain", []))
        return k.replace(".", "_"), {"symbol": fd.symbol, "line": fd.line, "chain": chain} | (
            partial_init(fd)
        )
    return _names_fact(fd)


def _import_fact(fd: Finding) -> dict[str, Any]:
    d = fd.details
    return {
        "symbol": fd.symbol,
        "module": d.get("module", ""),
        "from_scope": d.get("from_scope", ""),
        "to_scope": d.get("to_scope", ""),
        "line": fd.line,
        "merged_into_existing": bool(d.get("merged_into_existing", False)),
        "from_context": list(d.get("from_context", [])),
    } | (_lazy_fact(fd) if fd.kind in _LAZY_KINDS else {})


_LAZY_KINDS = ("import.made-lazy", "import.made-eager", "import.lazy-forbidden")


def _lazy_fact(fd: Finding) -> dict[str, Any]:
    d = fd.details
    return {
        # import.made-lazy (PEP 810): how, what still differs, what it defers
        "via": d.get("via", ""),
        "proven": d.get("proven") is not False,
        "from_function": bool(d.get("from_function")),
        "loops_freed": list(d.get("loops_freed", [])),
        "differences": list(d.get("differences", [])),
        "target_module": d.get("target_module", ""),
        "requires_python": d.get("requires_python", ""),
        # import.made-eager: heavy packages it loads at import now
        "heavy_loaded": list(d.get("heavy_loaded", [])),
        # import.lazy-forbidden
        "reason": d.get("reason", ""),
        "statement": d.get("statement", ""),
    }


def _loop_fact(fd: Finding) -> dict[str, Any]:
    d = fd.details
    return {
        "scope": fd.symbol,
        "loop": d.get("loop", ""),
        "before": d.get("before", 0),
        "after": d.get("after", 0),
        "line": fd.line,
    }


def _guard_fact(fd: Finding) -> tuple[str, dict[str, Any]]:
    d = fd.details
    if fd.kind == "guard.dropped" and "reason" in d:
        # An if/try removed from changed code (not a call site's guard): what it was.
        return "guards_removed", {
            "scope": fd.symbol,
            "line": fd.line,
            "guard": d.get("guard", ""),
            "reason": d.get("reason", ""),
            "proof": d.get("proof", ""),
            "caught": list(d.get("caught", [])),
        }
    return "guards_" + fd.kind.split(".")[1], {
        "symbol": fd.symbol,
        "line": fd.line,
        "scope": d.get("scope", ""),
        "before": guard_texts(d.get("before")),
        "after": guard_texts(d.get("after")),
    }


def _names_fact(fd: Finding) -> tuple[str, dict[str, Any]] | None:
    """Name checks and retained lazy imports."""
    if fd.kind == "names.not-checkable":
        stars = [x.get("module", "") for x in fd.details.get("star_imports", [])]
        return "not_checkable", {"symbol": fd.symbol, "line": fd.line, "stars": stars}
    if fd.kind == "lazy-import.retained":
        return "retained", retained_fact(fd)
    if fd.kind == "names.unresolved":
        return "unresolved", {"symbol": fd.symbol, "line": fd.line}
    if fd.kind == "names.unused-import":
        return "unused", {"symbol": fd.symbol, "line": fd.line}
    return None


def _counted(sites: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Call sites with the same name and guards as one entry with a ``count`` (first line kept)."""
    groups: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = {}
    for site in sites:
        key = (site["symbol"], tuple(site["after"]))
        if key in groups:
            groups[key]["count"] += 1
        else:
            groups[key] = {**site, "count": 1}
    return list(groups.values())


def retained_fact(fd: Finding) -> dict[str, Any]:
    d = fd.details
    return {
        "path": fd.path,
        "line": fd.line,
        "symbol": fd.symbol,
        "module": d.get("module", ""),
        "scope": d.get("scope", ""),
        "reason": d.get("reason", "hoistable"),
        "guard": d.get("guard", ""),
        "named_in_description": bool(d.get("named_in_description", False)),
    }


def partial_init(fd: Finding) -> dict[str, Any]:
    """A cycle finding's package still initialising (its ``__init__`` lines), when it has one."""
    pi = fd.details.get("partial_init")
    return {"partial_init": pi} if pi else {}


def evidence(fd: Finding, **extra: Any) -> dict[str, Any]:
    return {"kind": fd.kind, "path": fd.path, "line": fd.line, "symbol": fd.symbol, **extra}
