"""Sources turn a target (PR number, revision, saved bundle) into a PullRequestBundle."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from prreport.bundle import PullRequestBundle


class Source(Protocol):
    """What the pipeline needs from a source."""

    def fetch(self) -> PullRequestBundle:
        """Return the bundle for the target (metadata, changed files, review data)."""
        ...

    def fetch_context(self, paths: Iterable[str]) -> dict[str, str | None]:
        """Return the text of files at head that analyzers asked for (None when absent)."""
        ...

    def find_references(self, names: Iterable[str]) -> tuple[dict[str, tuple[str, ...]], str]:
        """Return ``name -> ("path:line", ...)`` for whole-word uses at head, and the scope searched."""
        ...

    def close(self) -> None:
        """Release processes or connections."""
        ...
