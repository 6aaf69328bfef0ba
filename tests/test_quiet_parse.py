"""Analysing code is not running it: the warnings Python gives while compiling the analysed
code (requests' models.py has ``\\*`` in a non-raw docstring: a DeprecationWarning, a
SyntaxWarning from Python 3.12 on) must not reach the user's terminal as if prreport warned."""

from __future__ import annotations

import warnings

from prreport.bundle import load_bundle
from prreport.config import Config
from prreport.pipeline import analyse
from tests.test_corpus import CORPUS


def test_compiling_the_analysed_code_warns_nothing():
    bundle = load_bundle(CORPUS / "bundles" / "requests-327512f5.json.gz")
    models = bundle.file("requests/models.py")
    assert models is not None and models.before is not None and "\\*" in models.before
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        analysis = analyse(bundle, Config())
    assert analysis.findings
    escapes = [w for w in seen if "invalid escape sequence" in str(w.message)]
    assert escapes == [], [f"{w.filename}:{w.lineno} {w.message}" for w in escapes]
