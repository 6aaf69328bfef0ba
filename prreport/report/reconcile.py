"""Findings reconciled before the report reads them: which refactor findings prove equivalence,
a branch merge the behaviour comparison confirms, a behaviour change a proven refactor accounts for.
"""

from __future__ import annotations

from dataclasses import replace

from prreport.findings import Finding

_EQUIVALENT = ("byte-identical", "modulo-renames")


def proves_equivalence(fd: Finding) -> bool:
    """A ``code.*``/``symbol.*`` finding that verified the code it explains does the same thing."""
    proven_guard = fd.kind == "guard.dropped" and fd.details.get("proven") is True
    if not (fd.kind.startswith(("code.", "symbol.")) or proven_guard) or not fd.explains:
        return False
    d = fd.details
    return (
        d.get("behavior_change") is not True
        and d.get("equality", "byte-identical") in _EQUIVALENT
        and d.get("proven", True) is True
        and d.get("call_sites_updated", True) is not False
    )


def confirm_by_behavior(findings: list[Finding]) -> list[Finding]:
    """A branch merge the branch analysis could not prove, in a function the behaviour
    comparison found equal to its old version (through a rewrite the branch analysis does not
    know, e.g. a tuple given to ``startswith``), is proven: ``method: behaviour``."""
    same = {(f.path, f.symbol): f for f in findings if f.kind == "behavior.unchanged"}
    return [
        replace(
            fd,
            details={**fd.details, "proven": True, "method": "behaviour"},
            explains=tuple(sorted({*fd.explains, *same[(fd.path, fd.symbol)].explains})),
        )
        if fd.kind == "code.branches-collapsed"
        and fd.details.get("proven") is False
        and fd.details.get("behavior_change") is not True
        and (fd.path, fd.symbol) in same
        else fd
        for fd in findings
    ]


def account(findings: list[Finding]) -> list[Finding]:
    """Mark ``behavior.changed`` whose residual lines a proven refactor finding explains (``accounted_by``),
    or give it the ``inputs`` a refactor finding that explains them says it answers differently.

    Extracting a helper, merging equal branches or renaming a callee changes the text of the
    functions involved; behavior.py sees a residual, the refactor analyzer proved it equivalent.
    """
    provers: dict[tuple[str, str, int], list[Finding]] = {}
    for fd in findings:
        # A refactor that names the inputs it answers differently explains its lines too.
        if proves_equivalence(fd) or _names_inputs(fd):
            for e in fd.explains:
                provers.setdefault((e[0], e[1], e[2]), []).append(fd)
    sites = _proven_sites(findings)
    out = []
    for fd in findings:
        lines = fd.details.get("residual_lines") if fd.kind == "behavior.changed" else None
        site = sites.get((fd.path, fd.symbol)) if fd.kind == "behavior.changed" else None
        if site is not None:
            # This caller's own expansion is proven equal, whatever the helper's other callers
            # show: the function behaves as before (its residual is that call, expanded).
            accounted = [{"kind": site.kind, "path": site.path, "symbol": site.symbol}]
            fd = replace(fd, details={**fd.details, "accounted_by": accounted})
        elif lines:
            before_path = fd.details.get("before_path") or fd.path
            by: dict[int, Finding] = {}
            for side, n in lines:
                paths = (before_path, fd.path) if side == "-" else (fd.path,)
                hits = [p for path in paths for p in provers.get((path, side, int(n)), [])]
                if not hits:
                    by = {}
                    break
                by.update({id(p): p for p in hits})
            inputs = [i for p in by.values() if _names_inputs(p) for i in p.details["inputs"]]
            if inputs:
                # Still a change, now with exactly the inputs answered differently.
                fd = replace(fd, details={**fd.details, "inputs": inputs})
            elif by:
                keys = sorted({(p.kind, p.path, p.symbol) for p in by.values()})
                accounted = [{"kind": k, "path": p, "symbol": sym} for k, p, sym in keys]
                fd = replace(fd, details={**fd.details, "accounted_by": accounted})
        out.append(fd)
    return out


def _proven_sites(findings: list[Finding]) -> dict[tuple[str, str], Finding]:
    """(path, function) -> the inlining or extraction whose comparison of that call site (the
    caller with the helper's body put at its calls) proved the caller equal to its other
    version, although the finding as a whole is not proven (another site differs)."""
    out: dict[tuple[str, str], Finding] = {}
    for fd in findings:
        if fd.kind not in ("code.inlined", "code.extracted") or proves_equivalence(fd):
            continue
        for site in fd.details.get("sites") or ():
            if site.get("proven") is True and site.get("equality") in _EQUIVALENT:
                out.setdefault((str(site.get("path")), str(site.get("scope"))), fd)
    return out


def _names_inputs(fd: Finding) -> bool:
    """A refactor finding that says which inputs its change answers differently."""
    return (
        fd.kind.startswith("code.")
        and fd.details.get("behavior_change") is True
        and bool(fd.details.get("inputs"))
        and bool(fd.explains)
    )


def accounted(fd: Finding) -> bool:
    """A ``behavior.changed`` a proven refactor finding accounts for (not a change the report stands by)."""
    return fd.kind == "behavior.changed" and bool(fd.details.get("accounted_by"))


def keep_contracts(findings: list[Finding]) -> list[Finding]:
    """A function-local import, in a module a ``contract.implicit`` says must not import a
    package at module level, of that package is no candidate for hoisting: hoisted, it would
    break the contract the same report proposes (reason ``contract``, no follow-up diff)."""
    rules = {
        str(fd.details.get("module_path")): (str(fd.details.get("module")), fd.details["forbidden"])
        for fd in findings
        if fd.kind == "contract.implicit" and fd.details.get("forbidden")
    }
    if not rules:
        return findings
    out = []
    for fd in findings:
        rule = rules.get(fd.path) if fd.kind == "lazy-import.retained" else None
        if rule is not None and fd.details.get("reason") in ("hoistable", "heavy-dependency"):
            module, forbidden = rule
            target = _absolute(str(fd.details.get("module") or ""), module, fd.path)
            if any(target == f or target.startswith(f + ".") for f in forbidden):
                fd = replace(
                    fd,
                    details={
                        **fd.details,
                        "reason": "contract",
                        "contract_module": module,
                        "contract_forbidden": list(forbidden),
                        "followup_diff": "",
                    },
                )
        out.append(fd)
    return out


def _absolute(imported: str, importer: str, path: str) -> str:
    """``imported`` as a dotted name (a relative import read from ``importer``'s package)."""
    level = len(imported) - len(imported.lstrip("."))
    if not level:
        return imported
    package = importer if path.endswith("__init__.py") else importer.rpartition(".")[0]
    base = package.rsplit(".", level - 1)[0] if level > 1 else package
    rest = imported[level:]
    return f"{base}.{rest}" if rest else base
