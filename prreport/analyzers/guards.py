"""Guard preservation: the guard chain of every call site of a moved import, before vs after."""

from __future__ import annotations

from collections.abc import Iterable

from prreport.analyzers import Analyzer, SourceFiles, register
from prreport.analyzers._pyscope import MODULE_SCOPE, CallSite, call_sites
from prreport.analyzers.imports import import_moves
from prreport.bundle import PullRequestBundle
from prreport.findings import Finding


def _within(scope: str, roots: Iterable[str]) -> bool:
    return any(r == MODULE_SCOPE or scope == r or scope.startswith(r + ".") for r in roots)


def _pair(before: list[CallSite], after: list[CallSite]) -> list[tuple[CallSite, CallSite]]:
    """Pair call sites per scope: same call text first (in order), then by order."""
    pairs = []
    for scope in sorted({c.scope for c in before} & {c.scope for c in after}):
        bs = [c for c in before if c.scope == scope]
        as_ = [c for c in after if c.scope == scope]
        for b in list(bs):
            a = next((x for x in as_ if x.text == b.text), None)
            if a is not None:
                pairs.append((b, a))
                bs.remove(b)
                as_.remove(a)
        pairs.extend(zip(bs, as_, strict=False))
    return sorted(pairs, key=lambda p: (p[1].line, p[1].col))


@register
class GuardAnalyzer(Analyzer):
    """Enclosing guards of the call sites of a moved import.

    before: ``if flag:\\n    from x import f\\n    f()`` · after: ``f()`` under ``if flag:``
    → ``guard.preserved``; without the ``if`` → ``guard.dropped``.
    """

    name = "guards"

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``guard.preserved|changed|dropped`` per call site of a hoisted/sunk/moved name."""
        roots: dict[tuple[str, str, str], set[str]] = {}
        for m in import_moves(bundle, sources):
            if m.kind not in ("hoisted", "sunk", "moved") or not m.before or not m.after:
                continue
            if m.before_path is not None:
                continue  # moved across files: the call sites moved with the code
            f = bundle.file(m.path)
            if f is None:
                continue
            scopes = {s for s in (m.before.scope, m.after.scope) if s != MODULE_SCOPE} or {
                MODULE_SCOPE
            }
            roots.setdefault((f.path, f.before_path, m.after.bound), set()).update(scopes)
        by_file: dict[tuple[str, str], dict[str, set[str]]] = {}
        for (path, before_path, name), scopes in roots.items():
            by_file.setdefault((path, before_path), {})[name] = scopes
        findings = []
        for (path, before_path), names in sorted(by_file.items()):
            bt, at = sources.tree(before_path, "before"), sources.tree(path, "after")
            btext, atext = sources.text(before_path, "before"), sources.text(path, "after")
            if bt is None or at is None or btext is None or atext is None:
                continue
            # one walk per file side for all moved names, only through the scopes compared below
            within = set().union(*names.values())
            all_before = call_sites(bt, btext, names, within)
            all_after = call_sites(at, atext, names, within)
            for name, scopes in sorted(names.items()):
                before = [c for c in all_before if c.name == name and _within(c.scope, scopes)]
                after = [c for c in all_after if c.name == name and _within(c.scope, scopes)]
                findings.extend(_compare(path, name, before, after))
        return sorted(findings, key=Finding.sort_key)


def _compare(path: str, name: str, before: list[CallSite], after: list[CallSite]) -> list[Finding]:
    """Guard findings for the paired call sites of one name."""
    findings = []
    for b, a in _pair(before, after):
        bkeys = [g.key() for g in b.context]
        akeys = [g.key() for g in a.context]
        missing = [g.as_dict() for g in b.context if g.key() not in akeys]
        extra = [g.as_dict() for g in a.context if g.key() not in bkeys]
        if bkeys == akeys:
            kind = "guard.preserved"
        elif missing:
            kind = "guard.dropped"
        else:
            kind = "guard.changed"
        details = {
            "scope": a.scope,
            "call": a.text,
            "before": [g.as_dict() for g in b.context],
            "after": [g.as_dict() for g in a.context],
            "before_line": b.line,
            "dropped": missing,
            "added": extra,
        }
        chain = " > ".join(g.text for g in a.context) or "no guard"
        findings.append(
            Finding(kind, path, a.line, name, f"{name}() in {a.scope}: {chain}", details)
        )
    return findings
