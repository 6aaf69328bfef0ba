"""Snippets of real commits (tests/corpus/): the diff of a renamed function starts with the line
it replaced, so a reader sees the old name next to the new one (psf/requests aa1461b6 renamed
``HTTPAdapter._get_connection`` to ``get_connection_with_tls_context``)."""

from __future__ import annotations

from prreport.bundle import load_bundle
from prreport.config import Config
from prreport.pipeline import analyse
from tests.test_corpus import CORPUS


def test_a_renamed_definition_snippet_shows_the_old_def_line_before_the_new():
    a = analyse(load_bundle(CORPUS / "bundles" / "requests-aa1461b6.json.gz"), Config())
    [snip] = [s for s in a.model.snippets if "get_connection_with_tls_context" in s["diff"]]
    rows = snip["diff"].splitlines()
    old = rows.index("-def _get_connection(self, request, verify, proxies=None, cert=None):")
    new = rows.index(
        "+def get_connection_with_tls_context(self, request, verify, proxies=None, cert=None):"
    )
    assert old == 0 and old < new
    # the old def line and the three comment lines the docstring replaced, nothing else
    assert [r[0] for r in rows[:new]] == ["-"] * 4
    assert rows[1] == "-    # Replace the existing get_connection without breaking things and"
