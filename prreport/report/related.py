"""Related PRs, ordered by how closely they belong with this one, each saying why.

Beyond what the source found (changed lines, series, shared files, references), a PR that
changed a module this PR now imports from at module level is named as the one that
"introduced what this PR uses". Series members with no other tie are listed on one line
(``brief``); PRs that only share files are capped.
"""

from __future__ import annotations

from typing import Any

from prreport.bundle import PullRequestBundle, to_jsonable
from prreport.findings import Finding
from prreport.series import RELATION_ORDER, parse_time

# Imports that make a module a new module-level dependency of a file of this PR.
_NEW_DEPENDENCY = ("import.hoisted", "import.added", "import.moved")
SAME_FILES_SHOWN = 3


def related_of(
    bundle: PullRequestBundle, findings: list[Finding] | None = None
) -> list[dict[str, Any]]:
    """The related PRs of the bundle, with what this PR uses of theirs, in reading order."""
    rank = {r: i for i, r in enumerate(RELATION_ORDER)}
    used = _used_modules(bundle, findings or [])
    this_time = parse_time(bundle.pr.merged_at)
    items = []
    for cand in bundle.related:
        item = to_jsonable(cand)
        uses = [
            {"module": module, "path": path, "names": names}
            for (module, path), names in used.items()
            if path in cand.files
        ]
        when = parse_time(cand.merged_at)
        later = bool(when and this_time and when > this_time)
        if uses:
            # Before this PR: it made what this PR imports; after: it changed what the hoist relies on.
            key, reason = (
                ("changes_used", "changes-imports") if later else ("provides", "provides-imports")
            )
            item[key] = uses
            item["reasons"] = [reason, *item["reasons"]]
        items.append(item)

    def order(it: dict[str, Any]) -> tuple[float, int]:
        r = float(rank.get(it["relation"], len(rank)))
        if {"same-lines", "provides-imports", "changes-imports"} & set(it["reasons"]):
            r -= 0.5
        return (r, it["number"])

    items.sort(key=order)
    # The direct base: the last PR merged before this one that made what it builds on (the
    # module it now imports from, or the lines it edits).
    bases = [
        it
        for it in items
        if it["relation"] == "predecessor"
        and {"same-lines", "provides-imports"} & set(it["reasons"])
        and parse_time(it.get("merged_at"))
    ]
    if bases:
        max(bases, key=lambda it: (parse_time(it["merged_at"]), it["number"]))["direct_base"] = True
    out, same_files = [], 0
    for it in items:
        only = set(it["reasons"])
        if only == {"same-files"}:
            same_files += 1
            if same_files > SAME_FILES_SHOWN:
                continue
        it["brief"] = only == {"same-series"}
        out.append(it)
    return out


def _used_modules(
    bundle: PullRequestBundle, findings: list[Finding]
) -> dict[tuple[str, str], list[str]]:
    """(module, its file at head) -> names this PR newly imports from it at module level."""
    heads = set(bundle.head_paths) | {f.path for f in bundle.files}
    out: dict[tuple[str, str], list[str]] = {}
    for fd in findings:
        if fd.kind not in _NEW_DEPENDENCY:
            continue
        if fd.kind == "import.moved" and fd.details.get("to_scope") not in (None, "<module>"):
            continue
        module = str(fd.details.get("module") or "")
        path = _module_path(module, heads)
        if path:
            names = out.setdefault((module, path), [])
            name = str(fd.details.get("name") or fd.symbol)
            if name not in names:
                names.append(name)
    return out


def _module_path(module: str, paths: set[str]) -> str | None:
    """The repository file of a dotted module, in any layout (``src/``, ``python/``, flat)."""
    if not module:
        return None
    tail = module.replace(".", "/")
    for suffix in (f"{tail}.py", f"{tail}/__init__.py"):
        hits = sorted(p for p in paths if p == suffix or p.endswith("/" + suffix))
        if hits:
            return min(hits, key=len)
    return None
