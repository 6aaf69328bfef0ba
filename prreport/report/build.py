"""Build the report model in one pass: bundle + findings -> ReportModel."""

from __future__ import annotations

from collections import Counter
from typing import Any

from prreport.bundle import PullRequestBundle
from prreport.classify import category, module_name
from prreport.config import Config
from prreport.findings import Diagnostic, Finding
from prreport.report.claims import claims_of
from prreport.report.facts import change_type_of, file_facts, file_order, file_symbols, moved_out_of
from prreport.report.model import FileEntry, ReportModel, Summary
from prreport.report.related import related_of
from prreport.report.review import review_facts
from prreport.report.risks import risks_of
from prreport.report.snippets import snippets_of
from prreport.report.summary import action_of, breakdown_of, headline_of, impact_of, key_symbols_of
from prreport.report.verdict import (
    account,
    accounted,
    code_lines,
    confirm_by_behavior,
    explained_lines,
    unknown_reason,
    verdict_of,
)


def build_model(
    bundle: PullRequestBundle,
    findings: list[Finding],
    diagnostics: list[Diagnostic],
    config: Config,
) -> ReportModel:
    """Compute the report model from a bundle and its findings."""
    pr = bundle.pr
    findings = account(confirm_by_behavior(sorted(findings, key=Finding.sort_key)))
    # Findings that speak for the change: a behaviour change a proven refactor accounts for is not one.
    live = [fd for fd in findings if not accounted(fd)]
    moved_out = moved_out_of(findings)
    by_path: dict[str, list[Finding]] = {}
    for fd in findings:
        by_path.setdefault(fd.path, []).append(fd)
    files = sorted(_file_entries(bundle, by_path, moved_out, config), key=file_order)
    changed, explained = explained_lines(bundle, findings)
    code = code_lines(bundle, findings, list(diagnostics))
    verdict = verdict_of(live, code)
    counts = dict(sorted(Counter(fd.kind for fd in findings).items()))
    all_diags = list(diagnostics) + [Diagnostic("source", "", note) for note in bundle.source_notes]
    review = review_facts(bundle)
    risks = risks_of(bundle, live, files, verdict, review, all_diags, code.lines)
    summary = Summary(
        verdict=verdict,
        one_line="",
        recommended_action="",
        changed_lines=changed,
        explained_lines=explained,
        kind_counts=counts,
        headline={
            **headline_of(live, files, verdict),
            "unknown_reason": unknown_reason(verdict, code),
            "failed_analyzers": list(code.failed),
            "unparsed_files": list(code.unparsed),
            "unseen_files": bundle.unseen_files,
            "changed_files": len(bundle.files) + bundle.unseen_files,
            # library files with changed code no finding explains, in diff order
            "unexplained_files": list(dict.fromkeys(path for path, *_ in code.lines)),
        },
        action=action_of(risks, live),
    )
    return ReportModel(
        pr=_pr_fields(bundle),
        summary=summary,
        # The renderer (the one Markdown door) splits ``body`` into the quoted sections.
        motivation={
            "body": pr.body.strip(),
            "source": "description" if pr.body.strip() else "none",
        },
        files=tuple(files),
        findings=tuple(findings),
        key_symbols=key_symbols_of(live),
        snippets=tuple(
            snippets_of(bundle, live, config.report.snippet_max_lines, config.report.max_snippets)
        ),
        review=review,
        risks=tuple(risks),
        impact=impact_of(files, live, verdict),
        related=tuple(related_of(bundle, live)),
        diagnostics=tuple(all_diags),
        source=bundle.source,
        breakdown=breakdown_of(bundle, findings, files, review),
        claims=tuple(claims_of(pr.title, pr.body, live, verdict)),
    )


def _file_entries(
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


def _pr_fields(bundle: PullRequestBundle) -> dict[str, Any]:
    """The PR metadata the report shows (DESIGN §3 names)."""
    pr = bundle.pr
    return {
        "repo": pr.repo,
        "number": pr.number,
        "title": pr.title,
        "author": pr.author,
        "url": pr.url,
        "state": pr.state,
        "created_at": pr.created_at,
        "merged_at": pr.merged_at,
        "merged_by": pr.merged_by,
        "base_sha": pr.base_sha,
        "head_sha": pr.head_sha,
        "labels": list(pr.labels),
        "target": pr.target,
    }
