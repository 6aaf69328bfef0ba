"""Guard preservation: the guard chain of every call site of a moved import, before vs after."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Set

from prreport.analyzers import Analyzer, register
from prreport.bundle import PullRequestBundle
from prreport.findings import Finding
from prreport.python.callsites import CallSite, call_sites
from prreport.python.importmoves import import_moves
from prreport.python.scopes import MODULE_SCOPE
from prreport.python.sources import SourceFiles


def _within(scope: str, roots: Set[str]) -> bool:
    """True when ``scope`` is one of ``roots`` or nested in one: one set look-up per dotted prefix."""
    if MODULE_SCOPE in roots:
        return True
    parts = scope.split(".")
    return any(".".join(parts[:i]) in roots for i in range(1, len(parts) + 1))


def _by(sites: Iterable[CallSite], key: Callable[[CallSite], str]) -> dict[str, list[CallSite]]:
    """Call sites grouped by ``key``, each group in its original order."""
    out: dict[str, list[CallSite]] = {}
    for c in sites:
        out.setdefault(key(c), []).append(c)
    return out


def _pair(before: list[CallSite], after: list[CallSite]) -> list[tuple[CallSite, CallSite]]:
    """Pair call sites per scope: same call text first (in order), then by order."""
    pairs = []
    b_scopes, a_scopes = _by(before, lambda c: c.scope), _by(after, lambda c: c.scope)
    for scope in sorted(b_scopes.keys() & a_scopes.keys()):
        bs, as_ = b_scopes[scope], a_scopes[scope]
        # Queues of after sites per call text: each before site takes the first free one.
        free = {text: deque(q) for text, q in _by(as_, lambda c: c.text).items()}
        taken: set[int] = set()
        rest_b = []
        for b in bs:
            queue = free.get(b.text)
            if queue:
                a = queue.popleft()
                taken.add(id(a))
                pairs.append((b, a))
            else:
                rest_b.append(b)
        pairs.extend(zip(rest_b, [a for a in as_ if id(a) not in taken], strict=False))
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
            b_names, a_names = _by(all_before, lambda c: c.name), _by(all_after, lambda c: c.name)
            for name, scopes in sorted(names.items()):
                before = [c for c in b_names.get(name, []) if _within(c.scope, scopes)]
                after = [c for c in a_names.get(name, []) if _within(c.scope, scopes)]
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
        callee = a.text.split("(", 1)[0] or name
        findings.append(
            Finding(kind, path, a.line, name, f"{callee}() in {a.scope}: {chain}", details)
        )
    return findings
