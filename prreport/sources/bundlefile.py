"""A bundle saved earlier with ``--save-bundle``: analysis without the repository or network."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from prreport.bundle import PullRequestBundle, load_bundle


class BundleSource:
    """Serve a saved bundle; context and references come only from what it carries."""

    def __init__(self, path: str) -> None:
        self._bundle = load_bundle(path)

    def fetch(self) -> PullRequestBundle:
        """Return the saved bundle, marked as coming from a bundle file."""
        return dataclasses.replace(self._bundle, source=self._bundle.source)

    def fetch_context(self, paths: Iterable[str]) -> dict[str, str | None]:
        """Files not saved in the bundle are reported absent."""
        return {p: self._bundle.context_files.get(p) for p in paths}

    def find_references(self, names: Iterable[str]) -> tuple[dict[str, tuple[str, ...]], str]:
        """Only references saved in the bundle: a name never searched stays unknown, not "none found"."""
        saved = self._bundle.references
        return {n: saved[n] for n in names if n in saved}, self._bundle.reference_scope

    def close(self) -> None:
        """Nothing to release."""
