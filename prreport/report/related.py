"""Related PRs, ordered by how closely they belong with this one."""

from __future__ import annotations

from typing import Any

from prreport.bundle import PullRequestBundle, to_jsonable
from prreport.series import RELATION_ORDER


def related_of(bundle: PullRequestBundle) -> list[dict[str, Any]]:
    rank = {r: i for i, r in enumerate(RELATION_ORDER)}
    items = [to_jsonable(r) for r in bundle.related]
    return sorted(items, key=lambda r: (rank.get(r["relation"], len(rank)), r["number"]))
