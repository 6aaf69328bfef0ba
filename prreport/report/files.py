"""The changed files as the report lists them: one entry per file (module, category, change type,
the symbols it touches, its facts), the order they are listed in, and which kinds name symbols."""

from __future__ import annotations

from typing import Any

from prreport.bundle import PullRequestBundle
from prreport.classify import category, module_name
from prreport.config import Config
from prreport.findings import Finding
from prreport.report.facts import file_facts
from prreport.report.model import FileEntry
from prreport.report.reconcile import accounted

# Kinds that only describe context (safety evidence) and never make a change "logic".
_CONTEXT_KINDS = {
    "behavior.unchanged",
    "cycle.safe",
    "contract.implicit",
    "guard.preserved",
    "lazy-import.retained",
    "names.unused-import",
}


def change_type_of(cat: str, fds: list[Finding], status: str, moved_out: bool = False) -> str:
    """What kind of change a file has: its category outside source, else rename, logic, refactor..."""
    if cat in ("test", "docs", "ci", "build", "config", "data", "dev", "stubs"):
        return cat
    kinds = {fd.kind for fd in fds}
    if status == "renamed" and not kinds - {"file.renamed"}:
        return "rename"
    if "behavior.changed" in kinds or any(fd.details.get("behavior_change") is True for fd in fds):
        return "logic"
    if moved_out:
        return "refactor"
    moving = kinds - _CONTEXT_KINDS
    if moving and all(k.startswith(("import.", "loop.", "guard.")) for k in moving):
        return "dependency-wiring"
    if kinds & {"behavior.unchanged"} or any(k.startswith(("code.", "symbol.")) for k in kinds):
        return "refactor"
    return "change"


def file_order(f: FileEntry) -> tuple[int, int, str]:
    """Source files with findings first, then other source, then the rest by category."""
    cat_rank = ("source", "test", "stubs", "config", "build", "ci", "dev", "docs", "data")
    rank = cat_rank.index(f.category) if f.category in cat_rank else len(cat_rank)
    return (rank, 0 if f.finding_kinds else 1, f.path)


# Kinds whose symbol the diff did not necessarily touch: a call site whose guards merely stayed,
# an import left in place, a pre-existing unused or star-imported name.
_UNTOUCHED_KINDS = (
    "guard.preserved",
    "lazy-import.retained",
    "names.unused-import",
    "names.not-checkable",
)


def file_symbols(fds: list[Finding]) -> tuple[str, ...]:
    """Symbols the diff touches in a file (qualnames), most telling first, without duplicates."""
    order = {kind: i for i, kind in enumerate(SYMBOL_PRIORITY)}
    ranked = sorted(
        (order.get(fd.kind, len(order)), fd.symbol)
        for fd in fds
        if fd.symbol
        and not fd.kind.startswith(("file.", "cycle.", "contract."))
        and fd.kind not in _UNTOUCHED_KINDS
    )
    seen: dict[str, None] = {}
    for _rank, sym in ranked:
        seen.setdefault(sym, None)
    return tuple(seen)


SYMBOL_PRIORITY = (
    "import.hoisted",
    "import.sunk",
    "import.moved",
    "import.made-lazy",
    "import.made-eager",
    "loop.imports-removed",
    "loop.imports-remaining",
    "loop.imports-added",
    "code.extracted",
    "code.dead-removed",
    "code.branches-collapsed",
    "code.override-removed",
    "symbol.moved",
    "symbol.renamed",
    "behavior.changed",
    "guard.dropped",
    "guard.changed",
    "import.added",
    "import.removed",
    "names.unresolved",
)


def names_of(findings: list[Finding], kind: str) -> list[str]:
    """The symbols of the findings of one kind, sorted."""
    return sorted({fd.symbol for fd in findings if fd.kind == kind and fd.symbol})


def file_entries(
    bundle: PullRequestBundle,
    by_path: dict[str, list[Finding]],
    moved_out: dict[str, list[dict[str, Any]]],
    config: Config,
) -> list[FileEntry]:
    """One entry per changed file: module, category, change type, symbols and facts."""
    files = []
    for f in bundle.files:
        fds = by_path.get(f.path, [])
        cat = category(f.path)
        files.append(
            FileEntry(
                path=f.path,
                old_path=f.old_path,
                status=f.status,
                additions=f.additions,
                deletions=f.deletions,
                module=module_name(f.path, config.modules, bundle.head_paths),
                category=cat,
                change_type=change_type_of(
                    cat,
                    [fd for fd in fds if not accounted(fd)],
                    f.status,
                    bool(moved_out.get(f.path)),
                ),
                symbols=file_symbols(fds),
                binary=f.binary,
                finding_kinds=tuple(sorted({fd.kind for fd in fds})),
                facts=file_facts(fds, moved_out.get(f.path, [])),
            )
        )
    return files
