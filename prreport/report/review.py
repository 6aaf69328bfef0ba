"""Review data: comments classified, the substantive ones to quote, and CI at head."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from prreport.bundle import Comment, PullRequestBundle, to_jsonable

# Bot commands and CI re-run requests: process, not discussion.
_PROCESS = re.compile(
    r"^\s*(/[\w-]+|@\w[\w-]*bot\b|(re)?test this please|retest|rerun|/retest|ok to test)", re.I
)
_APPROVAL = re.compile(r"^\s*(lgtm|looks good( to me)?|approved?|ship it|\+1|👍)[\s.!]*$", re.I)
_HIGHLIGHT_CHARS = 400


# prreport's own report comments open with a hidden marker (see publish.py): not review data.
_OWN_REPORT = re.compile(r"^\s*<!-- prreport:")


def classify_comment(c: Comment) -> str:
    body = c.body.strip()
    if not body:
        return "empty"
    if _OWN_REPORT.match(body):
        return "prreport"
    if _PROCESS.match(body) and len(body.splitlines()) <= 2:
        return "process"
    if _APPROVAL.match(body):
        return "approval"
    if c.author.endswith("[bot]") or c.author.endswith("-bot"):
        return "bot"
    return "substantive"


def review_facts(bundle: PullRequestBundle) -> dict[str, Any]:
    """Counts, classified comments, the substantive ones to quote, and CI at head."""
    comments = [*bundle.reviews, *bundle.review_comments, *bundle.issue_comments]
    classified = [(c, classify_comment(c)) for c in comments]
    highlights = []
    for c, cls in classified:
        if cls in ("empty", "prreport"):
            continue
        body = c.body.strip()
        highlights.append(
            {
                "kind": c.kind,
                "author": c.author,
                "class": cls,
                "state": c.state,
                "path": c.path,
                "line": c.line,
                "url": c.url,
                "body": body[:_HIGHLIGHT_CHARS],
                "truncated": len(body) > _HIGHLIGHT_CHARS,
            }
        )
    checks = [to_jsonable(c) for c in bundle.checks]
    failing = sorted(
        c.name
        for c in bundle.checks
        if c.conclusion in ("failure", "timed_out", "cancelled", "action_required")
    )
    pending = sorted(c.name for c in bundle.checks if c.status != "completed")
    passing = sorted(c.name for c in bundle.checks if c.conclusion == "success")
    states = Counter(c.state for c in bundle.reviews if c.state)
    merged = bundle.pr.state == "merged" or bool(bundle.pr.merged_at)
    return {
        "available": bundle.review_data_available,
        "review_comments_count": len(bundle.review_comments),
        "issue_comments_count": sum(
            1 for c in bundle.issue_comments if not _OWN_REPORT.match(c.body)
        ),
        "reviews_count": len(bundle.reviews),
        "review_states": dict(sorted(states.items())),
        "class_counts": dict(sorted(Counter(cls for _c, cls in classified).items())),
        "highlights": highlights,
        "ci": checks,
        "ci_summary": {
            "total": len(checks),
            "passing": passing,
            "failing": failing,
            "pending": pending,
        },
        "merged": merged,
        "merged_with_failures": merged and bool(failing),
        "self_merged": bool(
            merged and bundle.pr.merged_by and bundle.pr.merged_by == bundle.pr.author
        ),
    }
