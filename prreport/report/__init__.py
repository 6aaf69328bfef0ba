"""The report: from a bundle and its findings to the language-neutral ReportModel the renderers read.

``build`` (``build.build_model``) runs it in one pass: findings reconciled with each other (``reconcile``),
then the line ledger (``ledger``: every changed line, its kind and what explains it, computed
once; ``formatting`` tells formatting-only lines) that the verdict (``verdict``, with the
witnesses of a behaviour change ``witness`` reads from left-over lines: their tokens by
``linetokens``, which lines by ``hunklines``), the risks
(``risks``, with ``lazyrisks``) and the snippets (``snippets``, with
their block ranges ``blocks`` and before/after hunks ``snippet_diff``) read; the files
(``files``, ``facts``), the summary facts (``summary``), claims of the PR text (``claims``),
review facts (``review``), related PRs (``related``) and the Public API section (``publicapi``)
make up the rest of ``model``; the review view (``lines``) places every changed line once, folded
by what explains it or left to review.
"""
