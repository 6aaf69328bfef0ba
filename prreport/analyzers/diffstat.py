"""Diff statistics: renames, binary files and files whose text could not be read."""

from __future__ import annotations

from collections.abc import Iterable

from prreport.analyzers import Analyzer, register
from prreport.bundle import PullRequestBundle
from prreport.findings import Finding
from prreport.python.sources import SourceFiles


@register
class DiffStatAnalyzer(Analyzer):
    """Per-file facts from the diff itself.

    before: ``a/old.py`` · after: ``b/new.py`` (same content) → ``file.renamed``.
    """

    name = "diffstat"

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``file.renamed``, ``file.binary`` and ``file.unreadable`` findings."""
        for f in bundle.files:
            if f.status == "renamed" and f.old_path:
                yield Finding(
                    "file.renamed",
                    f.path,
                    None,
                    "",
                    f"{f.old_path} renamed to {f.path} (+{f.additions}/-{f.deletions})",
                    {"old_path": f.old_path, "additions": f.additions, "deletions": f.deletions},
                )
            if f.binary:
                yield Finding(
                    "file.binary",
                    f.path,
                    None,
                    "",
                    f"{f.path} is binary; not analysed",
                    {"status": f.status},
                )
            elif f.note:
                yield Finding(
                    "file.unreadable",
                    f.path,
                    None,
                    "",
                    f"{f.path}: {f.note}; not analysed",
                    {"reason": f.note},
                )
