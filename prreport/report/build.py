"""Build the report model in one pass: bundle + findings -> ReportModel."""

from __future__ import annotations

from collections import Counter
from typing import Any

from prreport.bundle import PullRequestBundle
from prreport.config import Config
from prreport.findings import Diagnostic, Finding
from prreport.report.claims import claims_of
from prreport.report.facts import moved_out_of
from prreport.report.files import file_entries, file_order
from prreport.report.ledger import ledger_of
from prreport.report.lines import review_lines
from prreport.report.model import ReportModel, Summary
from prreport.report.publicapi import public_api_of
from prreport.report.reconcile import account, accounted, confirm_by_behavior, keep_contracts
from prreport.report.related import related_of
from prreport.report.review import review_facts
from prreport.report.risks import risks_of
from prreport.report.snippets import snippets_of
from prreport.report.summary import action_of, breakdown_of, headline_of, impact_of, key_symbols_of
from prreport.report.verdict import (
    left_edits,
    mark_witnessed,
    unknown_reason,
    verdict_of,
    witnesses_of,
)

# How many witnesses and left-over edits the summary names (the JSON counts them all).
_MAX_WITNESSES = 10
_MAX_LEFT_EDITS = 10


def build_model(
    bundle: PullRequestBundle,
    findings: list[Finding],
    diagnostics: list[Diagnostic],
    config: Config,
) -> ReportModel:
    """Compute the report model from a bundle and its findings."""
    pr = bundle.pr
    findings = keep_contracts(account(confirm_by_behavior(sorted(findings, key=Finding.sort_key))))
    # Findings that speak for the change: a behaviour change a proven refactor accounts for is not one.
    live = [fd for fd in findings if not accounted(fd)]
    # Every changed line and what explains it, once (read by the verdict, counts, risks, snippets).
    ledger = ledger_of(bundle, findings, diagnostics)
    # The edits that change behaviour (a comparison none falls in says "not proven").
    witnessed = witnesses_of(live, ledger)
    # Every changed line placed once, folded or left (indexes into ``findings``: marking keeps order).
    line_ledger, diff = review_lines(ledger, findings, witnessed)
    findings = _marked(findings, witnessed)
    live = [fd for fd in findings if not accounted(fd)]
    files = _files(bundle, findings, config)
    edits = left_edits(ledger)
    verdict = verdict_of(live, ledger, witnessed)
    pure = verdict == "pure-refactor"
    counts = dict(sorted(Counter(fd.kind for fd in findings).items()))
    all_diags = list(diagnostics) + [Diagnostic("source", "", note) for note in bundle.source_notes]
    review = review_facts(bundle)
    risks = risks_of(bundle, live, files, verdict, review, all_diags, ledger.unexplained)
    summary = Summary(
        verdict=verdict,
        one_line="",
        recommended_action="",
        changed_lines=ledger.changed_count,
        explained_lines=ledger.explained_count,
        kind_counts=counts,
        headline={
            **headline_of(live, files, verdict),
            "unknown_reason": unknown_reason(verdict, ledger),
            "tests_only": pure and not ledger.source_changed and not ledger.layout_only,
            "layout_only": pure and ledger.layout_only,  # only comments and layout changed
            "failed_analyzers": list(ledger.failed),
            "unparsed_files": list(ledger.unparsed),
            "unseen_files": bundle.unseen_files,
            "changed_files": len(bundle.files) + bundle.unseen_files,
            # library files with changed code no finding explains, in diff order
            "unexplained_files": list(dict.fromkeys(ln.path for ln in ledger.unexplained)),
            # what the verdict rests on: the edits that change behaviour, and what is left
            "witnesses": witnessed[:_MAX_WITNESSES],
            "witness_count": len(witnessed),
            "left_lines": ledger.changed_count - ledger.explained_count,
            "left_edits": edits[:_MAX_LEFT_EDITS],
            "left_edit_count": len(edits),
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
            snippets_of(ledger, live, config.report.snippet_max_lines, config.report.max_snippets)
        ),
        review=review,
        risks=tuple(risks),
        impact=impact_of(files, live, verdict),
        related=tuple(related_of(bundle, live)),
        diagnostics=tuple(all_diags),
        source=bundle.source,
        breakdown=breakdown_of(bundle, findings, files, review),
        claims=tuple(claims_of(pr.title, pr.body, live, verdict)),
        public_api=public_api_of(live, config.analysis.disabled, files, config.analysis.public_api),
        ledger=line_ledger,
        diff=diff,
    )


def _marked(findings: list[Finding], witnessed: list[dict[str, Any]]) -> list[Finding]:
    """The findings with ``details.witnessed`` set; each reads only the witnesses of its own
    file (a scan of all of them per finding was quadratic)."""
    seen_in: dict[str, list[dict[str, Any]]] = {}
    for w in witnessed:
        seen_in.setdefault(str(w["path"]), []).append(w)
    return [mark_witnessed(fd, seen_in.get(fd.path, [])) for fd in findings]


def _files(bundle: PullRequestBundle, findings: list[Finding], config: Config) -> list[Any]:
    """The changed files as the report shows them, in the report's order."""
    moved_out = moved_out_of(findings)
    by_path: dict[str, list[Finding]] = {}
    for fd in findings:
        by_path.setdefault(fd.path, []).append(fd)
    return sorted(file_entries(bundle, by_path, moved_out, config), key=file_order)


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
