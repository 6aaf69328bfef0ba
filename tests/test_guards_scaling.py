"""guards: pairing call sites and scope tests give what the quadratic original gave.

(The time they take is measured by benchmarks/bench_analysis.py --scaling, not by a timed test.)
"""

from __future__ import annotations

from prreport.analyzers.guards import _pair, _within
from prreport.python.callsites import CallSite


def _sites(n: int, scopes: int) -> list[CallSite]:
    return [CallSite("f", i, 4, f"mod.C{i % scopes}.run", (), f"f({i % 7})") for i in range(n)]


def _old_pair(before: list[CallSite], after: list[CallSite]) -> list[tuple[CallSite, CallSite]]:
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


def test_pairing_is_the_same_as_the_quadratic_original():
    before = _sites(300, 5)
    after = list(reversed(_sites(280, 6)))
    assert _pair(before, after) == _old_pair(before, after)


def test_within_matches_prefixes_only():
    assert _within("a.b.c", {"a.b"})
    assert _within("a.b", {"a.b"})
    assert not _within("a.bc", {"a.b"})
    assert _within("x", {"<module>"})
