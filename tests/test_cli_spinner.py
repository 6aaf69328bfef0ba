"""The spinner of a single report: only for a person at a terminal, only after a delay, and
its line cleared before anything else is printed."""

from __future__ import annotations

import io
import time

from prreport.cli.spinner import spinning, wanted


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_slow_report_at_a_terminal_spins_then_clears_its_line():
    out = _Tty()
    with spinning("analysing…", True, out, delay=0.05):
        time.sleep(0.4)
    text = out.getvalue()
    assert "analysing…" in text and text.endswith("\r")
    assert text.rstrip("\r").rsplit("\r", 1)[-1].strip() == ""  # the last thing written is blanks


def test_a_quick_report_prints_nothing():
    out = _Tty()
    with spinning("analysing…", True, out, delay=5.0):
        pass
    assert out.getvalue() == ""


def test_no_spinner_without_a_terminal_in_ci_or_with_quiet(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    assert wanted(False, _Tty())
    assert not wanted(True, _Tty())
    assert not wanted(False, io.StringIO())
    monkeypatch.setenv("CI", "true")
    assert not wanted(False, _Tty())
