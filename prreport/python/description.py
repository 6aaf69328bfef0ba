"""What the PR description says about the code: the Python files it names, whether it names an
import, and the reasons it gives for keeping an import lazy."""

from __future__ import annotations

import posixpath
import re

from prreport.bundle import PullRequestBundle
from prreport.python.scopeindex import ImportBinding

# A file named in the PR description: a path or a bare file name (``decode.py``).
_NAMED_FILE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+(?:\.[\w-]+)*\.py)(?![\w/])")


def named_files(bundle: PullRequestBundle) -> list[str]:
    """Head paths of the ``.py`` files the PR description names (paths or bare file names)."""
    body = bundle.pr.body or ""
    heads = [p for p in bundle.head_paths if p.endswith(".py")]
    changed_dirs = [posixpath.dirname(f.path) for f in bundle.files]
    out: set[str] = set()
    for token in sorted(set(_NAMED_FILE.findall(body))):
        token = token.lstrip("./")
        if token in bundle.head_paths:
            out.add(token)
            continue
        hits = [p for p in heads if p == token or p.endswith("/" + token)]
        if len(hits) > 1:
            # a bare name matching several files: prefer those nearest the changed files
            def near(p: str) -> int:
                d = posixpath.dirname(p).split("/")
                return max((_common(d, c.split("/")) for c in changed_dirs), default=0)

            best = max(near(p) for p in hits)
            hits = [p for p in hits if near(p) == best]
        out.update(hits)
    return sorted(out)


def _common(a: list[str], b: list[str]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


# Reasons a PR description gives for keeping an import lazy.
_STATED = (
    ("cycle-avoidance", re.compile(r"(?i)\b(import[- ]cycle|cycl\w*|circular)")),
    ("optional-dependency", re.compile(r"(?i)\b(optional|not installed|extras?\b)")),
    ("heavy-dependency", re.compile(r"(?i)\b(heavy|slow to import|import[- ]time|startup)")),
    (
        "platform-guard",
        re.compile(r"(?i)\b(npu|cuda|gpu|rocm|xpu|platform|windows|macos|device|hardware)"),
    ),
)


_NEGATION = re.compile(r"(?i)\b(no|not|without|never)\W+(\w+\W+){0,2}$")


def _words(b: ImportBinding, target: str | None) -> set[str]:
    mod = b.module.lstrip(".")
    return {b.bound, b.name or "", mod, mod.rsplit(".", 1)[-1], target or ""} - {""}


def named_in(body: str, b: ImportBinding) -> bool:
    """Whether the PR text names the import (its bound name, its module or the module's leaf)."""
    return any(re.search(rf"(?<![\w.]){re.escape(w)}(?![\w])", body) for w in _words(b, None))


def stated_reasons(
    body: str, lazies: list[tuple[ImportBinding, str]]
) -> dict[str, tuple[str, str]]:
    """Module -> (reason, quoted line) for the lazy imports the PR text explains.

    Each reason word in a line goes to the nearest import mentioned before it on that line
    (else the first one after it); a negated word (``no cycle``) says nothing.
    """
    out: dict[str, tuple[str, str]] = {}
    for line in body.splitlines():
        mentions: list[tuple[int, str]] = []
        for b, module in lazies:
            for w in _words(b, module):
                for m in re.finditer(rf"(?<![\w.]){re.escape(w)}(?![\w])", line):
                    mentions.append((m.start(), module))
        if not mentions:
            continue
        mentions.sort()
        for reason, pattern in _STATED:
            for m in pattern.finditer(line):
                if _NEGATION.search(line[: m.start()]):
                    continue
                before = [mod for pos, mod in mentions if pos < m.start()]
                after = [mod for pos, mod in mentions if pos > m.start()]
                module = before[-1] if before else after[0]
                out.setdefault(module, (reason, line.strip().lstrip("-* ").strip()))
    return out
