"""Claims of the PR text, found by pattern (English and Chinese) and answered by the findings.

Each claim is a quote of the sentence that makes it, a status (``supported``, ``contradicted``,
``not-checkable``), the findings that decide it (``evidence``) and ``fact``: what the findings
establish, as data the templates word ("its module-level imports are ...").
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from prreport.findings import Finding
from prreport.report.facts import evidence

_BEHAVIOUR = r"behaviou?ra?l?"
# Claim id -> pattern over the PR title and body, in the spellings refactor PRs use.
CLAIMS: tuple[tuple[str, str], ...] = (
    (
        "no-behavior-change",
        rf"no (functional |{_BEHAVIOUR} |logic |semantic |user[- ]visible )?changes? (in|to) {_BEHAVIOUR}"
        rf"|no (functional|{_BEHAVIOUR}|logic|semantic|user[- ]visible) changes?"
        rf"|{_BEHAVIOUR}[- ]preserving|(does ?n[o']t|should ?n[o']t|won'?t|will not) change (the |any )?{_BEHAVIOUR}"
        r"|\bno-?op\b|行为(不变|无变化|保持不变)|(无|没有|不改变|不影响)(任何)?(功能|行为)(变化|变更|改变)?",
    ),
    (
        "pure-refactor",
        r"\bpure(ly)?( a)? refactor|refactor[- ]only|\bno-op refactor|mechanical (refactor|change)"
        r"|纯(粹的?)?重构",
    ),
    (
        "no-import-cycle",
        r"no (import[- ]|circular[- ])?(cycle|circular[- ]import)s?( risk| reason)?"
        r"|no cycle[- ]avoidance reason|without (an? |any )?(import[- ])?cycles?"
        r"|(does ?n[o']t|won'?t|will not|cannot|can'?t) (create|introduce|cause) (an? |any )?(import[- ]|circular[- ])?(cycle|circular[- ]import)"
        r"|(无|没有|不存在|不会(引入|产生|形成)?)(任何)?(循环(依赖|导入)|导入环)",
    ),
    (
        "imports-only",
        r"imports? (nothing but|only)\b[^.\n]{0,80}"
        r"|only (imports?|depends on)\b[^.\n]{0,80}"
        r"|(只|仅)(依赖|导入|引用)[^。\n]{0,40}",
    ),
    (
        "in-loop-import",
        r"\bimported (inside|in|within) (the |a |each |every )?[`\w\s]{0,40}loops?"
        r"|import (statement )?(ran|runs|is executed|was executed|executes) (once )?(per|for each|on every)"
        r"|once per (matching )?(message|iteration|call|request|item|event)"
        r"|(per|every) (message|iteration)|循环(体)?内(的)?(局部)?导入|每条[^。\n]{0,10}消息",
    ),
    (
        "zero-imports-in-loop",
        r"zero imports?|no imports? (left )?(inside|in) the loops?|no (more )?in-loop imports?"
        r"|循环内零 ?import|循环内(不再|没有)(任何)?(import|导入)",
    ),
    (
        "kept-lazy",
        r"(deliberately|intentionally|purposely|on purpose) (left|kept|stays?) (lazy|local)"
        r"|(left|kept|stays?|remains?) (lazy|local|function[- ]local) (on purpose|deliberately|intentionally)"
        r"|(left|kept) lazy|lazy imports? (are|is) (kept|left)|有意保留|保持(惰性|局部)|保留[^。\n]{0,12}(惰性|局部)导入",
    ),
    (
        "dead-code",
        r"\bdead code\b|\bunreferenced\b|\bnever (called|used|referenced)\b"
        r"|\bunused (private |internal |public |local )?(function|method|class|helper|code|constant|variable|attribute)s?\b"
        r"|\bremov(e|es|ed|ing) (an? |the )?unused (private |internal )?`?\w[\w.]*`?\(\)"
        r"|死代码|(未|没有)被?(引用|使用|调用)",
    ),
    (
        "made-lazy",
        r"\b(make|made|makes|making|turn|turns|turned)\b[^.\n]{0,40}\blazy\b|^\s*lazy(-load| load| import)?\b"
        r"|\bimport(s|ed)? lazily\b|\blazily import|改为(惰性|延迟)导入|懒加载",
    ),
    (
        "moved",
        r"\bmov(e|es|ed|ing)\b[^.\n]{0,60}\b(to|into)\b|\bmov(e|es|ed|ing) `[\w.]+`|移动到|迁移到|挪到",
    ),
    ("renamed", r"\brenam(e|es|ed|ing)\b|重命名|改名"),
    (
        "extracted",
        r"\bextract(s|ed|ing)?\b|\bhoist(s|ed|ing)? [^.\n]{0,40}into (a |the )?mixin|提取|抽取",
    ),
    ("inlined", r"\binlin(e|es|ed|ing)\b(?![- ]code)|内联"),
    ("names-resolve", r"\bF821\b|no undefined names?|未定义(的)?名字"),
)

_AGAINST: dict[str, tuple[str, ...]] = {
    "no-behavior-change": ("behavior.changed", "guard.dropped", "guard.changed"),
    "pure-refactor": ("behavior.changed", "guard.dropped", "guard.changed", "cycle.risk"),
    "no-import-cycle": ("cycle.risk",),
    "zero-imports-in-loop": ("loop.imports-remaining", "loop.imports-added"),
    "names-resolve": ("names.unresolved",),
    "dead-code": ("names.unresolved",),
}


@dataclass(frozen=True)
class _Answer:
    status: str
    evidence: list[Finding]
    fact: dict[str, Any]


def claims_of(title: str, body: str, findings: list[Finding], verdict: str) -> list[dict[str, Any]]:
    """Statements in the PR text, checked against the findings: supported, contradicted or not checkable."""
    text = f"{title}\n\n{body}"
    # A guard proven never to fail (``behavior_change: false``) contradicts no claim.
    findings = [
        fd
        for fd in findings
        if not (fd.kind == "guard.dropped" and fd.details.get("behavior_change") is False)
    ]
    out = []
    for cid, pattern in CLAIMS:
        m = re.search(pattern, text, re.I)
        if not m:
            continue
        quote = claim_sentence(text, m)
        a = _ANSWERS.get(cid, _by_kinds)(cid, quote, findings, verdict)
        out.append(
            {
                "id": cid,
                "quote": quote,
                "status": a.status,
                "evidence": [evidence(fd) for fd in a.evidence[:6]],
                "fact": a.fact,
            }
        )
    return out


def claim_sentence(text: str, match: re.Match[str]) -> str:
    """The sentence of ``text`` containing the match, whitespace collapsed (a quote, never rewritten)."""
    bounds = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n\s*\n|\n\s*[-*+]\s|\n#+\s")
    start = 0
    for b in bounds.finditer(text, 0, match.start()):
        start = b.end()
    nxt = bounds.search(text, match.end())
    sentence = text[start : nxt.start() if nxt else len(text)]
    sentence = re.sub(r"^\s*([-*+]\s+)?(\[[ xX]\]\s+)?", "", sentence)
    return " ".join(sentence.split())


def _of(findings: list[Finding], *kinds: str) -> list[Finding]:
    return [fd for fd in findings if fd.kind in kinds]


def _by_kinds(cid: str, quote: str, findings: list[Finding], verdict: str) -> _Answer:
    """The generic answer: findings against the claim refute it, findings for it support it."""
    against = _of(findings, *_AGAINST.get(cid, ()))
    if against:
        return _Answer("contradicted", against, {"symbols": _symbols(against)})
    support = {
        "no-behavior-change": ("behavior.unchanged",),
        "pure-refactor": ("behavior.unchanged",),
        "zero-imports-in-loop": ("loop.imports-removed",),
    }.get(cid, ())
    if cid in ("pure-refactor", "no-behavior-change") and verdict != "pure-refactor":
        return _Answer("not-checkable", [], {"verdict": verdict})
    found = _of(findings, *support)
    if found:
        return _Answer("supported", found, {"verdict": verdict, "symbols": _symbols(found)})
    # A clean name check leaves no finding, so only a contradiction is checkable.
    return _Answer("not-checkable", [], {})


def _symbols(fds: list[Finding]) -> list[str]:
    """The symbols, a function nested in another one listed left out (its parent says it)."""
    names = list(dict.fromkeys(fd.symbol for fd in fds if fd.symbol))
    return [n for n in names if not any(n.startswith(f"{p}.<locals>.") for p in names)][:6]


def _no_cycle(cid: str, quote: str, findings: list[Finding], verdict: str) -> _Answer:
    risky = _of(findings, "cycle.risk")
    if risky:
        chains = [fd.details.get("chain") or [] for fd in risky]
        return _Answer("contradicted", risky, {"targets": _symbols(risky), "chains": chains})
    unchecked = _of(findings, "cycle.unchecked")
    safe = _of(findings, "cycle.safe")
    if unchecked:
        missing = sorted({str(m) for fd in unchecked for m in fd.details.get("missing") or []})
        return _Answer(
            "not-checkable", unchecked, {"targets": _symbols(unchecked), "missing": missing}
        )
    if safe:
        return _Answer("supported", safe, {"targets": _symbols(safe)})
    return _Answer("not-checkable", [], {})


_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | {"__future__"}
_STDLIB_WORDS = re.compile(r"standard[- ]library|\bstdlib\b|标准库", re.I)


def _allowed_packages(quote: str) -> tuple[bool, set[str]]:
    """What an "imports only ..." claim allows: the standard library and/or named packages."""
    m = re.search(r"(only|nothing but|只|仅)(.*)", quote, re.I)
    rest = m.group(2) if m else quote
    rest = re.split(r"\bat module level\b|\bnothing\b|[,;:]\s*(nothing|no)\b|[，；：]", rest)[0]
    stdlib = bool(_STDLIB_WORDS.search(rest))
    rest = _STDLIB_WORDS.sub(" ", rest)
    words = re.findall(r"`?([A-Za-z_][\w.]*)`?", rest)
    noise = {"the", "and", "or", "imports", "import", "depends", "on", "from", "module", "level"}
    return stdlib, {w.split(".")[0] for w in words if w.lower() not in noise}


def _imports_only(cid: str, quote: str, findings: list[Finding], verdict: str) -> _Answer:
    """ "X imports only the standard library and torch": the target's module-level imports."""
    stdlib, named = _allowed_packages(quote)
    candidates = [
        fd
        for fd in _of(findings, "cycle.safe", "cycle.risk", "cycle.unchecked")
        if isinstance(fd.details.get("target_module_imports"), list)
    ]
    subject = _subject(quote, candidates)
    if subject is None:
        return _Answer("not-checkable", [], {"allowed_stdlib": stdlib, "allowed": sorted(named)})
    imports = [str(m) for m in subject.details["target_module_imports"]]
    first_party = [str(m) for m in subject.details.get("target_imports") or []]
    outside = [
        m
        for m in imports
        if m not in first_party
        and m.split(".")[0] not in named
        and not (stdlib and m.split(".")[0] in _STDLIB)
    ]
    fact = {
        "module": subject.details.get("target_module") or subject.symbol,
        "imports": imports,
        "first_party": first_party,
        "outside": outside + [m for m in first_party if m.split(".")[0] not in named],
        "allowed_stdlib": stdlib,
        "allowed": sorted(named),
        # what the module really imports, as the gist says it: the standard library, and the rest
        "imports_stdlib": any(m.split(".")[0] in _STDLIB for m in imports),
        "imports_other": sorted({m for m in imports if m.split(".")[0] not in _STDLIB}),
    }
    status = "contradicted" if fact["outside"] else "supported"
    return _Answer(status, [subject], fact)


def _subject(quote: str, candidates: list[Finding]) -> Finding | None:
    """The cycle finding whose target the quote names (file path or dotted module), else the only one."""
    targets: dict[str, Finding] = {}
    for fd in candidates:
        targets.setdefault(str(fd.details.get("target_module") or fd.symbol), fd)
    for module, fd in targets.items():
        path = str(fd.details.get("target_path") or "")
        tail = module.rsplit(".", 1)[-1]
        stem = path.rsplit("/", 1)[-1].removesuffix(".py")
        if re.search(rf"\b{re.escape(tail)}\b|\b{re.escape(stem)}\.py\b", quote):
            return fd
    return next(iter(targets.values())) if len(targets) == 1 else None


def _in_loop(cid: str, quote: str, findings: list[Finding], verdict: str) -> _Answer:
    """ "X was imported inside the loop": the loops that imported before the change."""
    loops = [fd for fd in _of(findings, "loop.imports-removed") if fd.details.get("before")]
    if not loops:
        return _Answer("not-checkable", [], {})
    fact = {
        "loops": [
            {
                "scope": fd.symbol,
                "loop": fd.details.get("loop"),
                "before": fd.details.get("before"),
                "after": fd.details.get("after"),
                # At most this many ran in one iteration (exclusive branches).
                "per_iteration": fd.details.get("per_iteration_before", fd.details.get("before")),
            }
            for fd in loops
        ]
    }
    return _Answer("supported", loops, fact)


def _kept_lazy(cid: str, quote: str, findings: list[Finding], verdict: str) -> _Answer:
    """ "Deliberately left lazy": the retained lazy imports the description names, with their reasons."""
    named = [
        fd for fd in _of(findings, "lazy-import.retained") if fd.details.get("named_in_description")
    ]
    if not named:
        return _Answer("not-checkable", [], {})
    fact = {
        "imports": [
            {
                "name": fd.symbol,
                "scope": fd.details.get("scope"),
                "reason": fd.details.get("reason"),
                "guard": fd.details.get("guard"),
            }
            for fd in named
        ]
    }
    return _Answer("supported", named, fact)


def _dead(cid: str, quote: str, findings: list[Finding], verdict: str) -> _Answer:
    """ "Remove dead code": removals proven unreferenced, or a name the removal left unresolved."""
    unresolved = _of(findings, "names.unresolved")
    if unresolved:
        return _Answer("contradicted", unresolved, {"symbols": _symbols(unresolved)})
    dead = _of(findings, "code.dead-removed")
    if not dead:
        return _Answer("not-checkable", [], {})
    proven = [fd for fd in dead if fd.details.get("proven") is not False]
    if not proven:
        return _Answer("not-checkable", dead, {"symbols": _symbols(dead), "unproven": True})
    return _Answer("supported", proven, {"symbols": _symbols(proven)})


def _made_lazy(cid: str, quote: str, findings: list[Finding], verdict: str) -> _Answer:
    """ "Make X import lazy": imports moved into the functions that use them, or made
    ``lazy`` (PEP 810); an import hoisted to module level instead contradicts it."""
    lazy = _of(findings, "import.sunk", "import.made-lazy")
    if lazy:
        return _Answer("supported", lazy, {"symbols": _symbols(lazy)})
    eager = _of(findings, "import.hoisted")
    if eager:
        return _Answer("contradicted", eager, {"symbols": _symbols(eager)})
    return _Answer("not-checkable", [], {})


_REFACTOR_KIND = {
    "moved": ("symbol.moved",),
    "renamed": ("symbol.renamed", "file.renamed"),
    "extracted": ("code.extracted",),
    "inlined": ("code.inlined",),
}


def _refactor(cid: str, quote: str, findings: list[Finding], verdict: str) -> _Answer:
    """ "Move/rename/extract/inline X": the refactor findings, refuted when one is not equivalent."""
    found = _of(findings, *_REFACTOR_KIND[cid]) or _named_in(
        quote, _of(findings, *(k for kinds in _REFACTOR_KIND.values() for k in kinds))
    )
    if not found:
        return _Answer("not-checkable", [], {})
    # A finding that did not prove its sites equal (an extraction found edited: "different",
    # ``proven: false``) answers "done, but not equivalent", never "proven equivalent".
    broken = [
        fd
        for fd in found
        if fd.details.get("behavior_change") is True
        or fd.details.get("verified") is False
        or fd.details.get("call_sites_updated") is False
        or fd.details.get("proven") is False
        or fd.details.get("equality") == "different"
    ]
    if broken:
        return _Answer("contradicted", broken, {"symbols": _symbols(broken), "as": _done(broken)})
    return _Answer("supported", found, {"symbols": _symbols(found), "as": _done(found)})


def _done(fds: list[Finding]) -> list[str]:
    """What the findings say was done (a "move" claim may be answered by a rename)."""
    return sorted({cid for fd in fds for cid, kinds in _REFACTOR_KIND.items() if fd.kind in kinds})


def _named_in(quote: str, fds: list[Finding]) -> list[Finding]:
    """Refactor findings of another kind than claimed whose definition the quote names by its
    old or new name ("Move _get_connection to get_connection_with_tls_context" is a rename)."""
    out = []
    for fd in fds:
        names = {fd.symbol, str(fd.details.get("old_qualname") or "")}
        shorts = {n.rsplit(".", 1)[-1] for n in names if n}
        if any(re.search(rf"(?<![\w.]){re.escape(n)}(?!\w)", quote) for n in shorts):
            out.append(fd)
    return out


_Answerer = Callable[[str, str, list[Finding], str], _Answer]
_ANSWERS: dict[str, _Answerer] = {
    "no-import-cycle": _no_cycle,
    "imports-only": _imports_only,
    "in-loop-import": _in_loop,
    "kept-lazy": _kept_lazy,
    "dead-code": _dead,
    "made-lazy": _made_lazy,
    **dict.fromkeys(_REFACTOR_KIND, _refactor),
}
