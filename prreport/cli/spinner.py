"""A spinner on stderr while a single report is made, for a person at a terminal: shown only
after a second (a quick report prints nothing extra), never in CI logs, with ``-q`` or when
stderr is not a terminal; the line is cleared before anything else is printed."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

_FRAMES = "|/-\\"
_DELAY = 1.0  # seconds before the spinner shows
_STEP = 0.1


def wanted(quiet: bool, stream: TextIO | None = None) -> bool:
    """A person is watching: stderr is a terminal, not CI, not ``-q``."""
    stream = stream or sys.stderr
    ci = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
    return not quiet and not ci and stream.isatty()


@contextmanager
def spinning(
    label: str, on: bool, stream: TextIO | None = None, delay: float = _DELAY
) -> Iterator[None]:
    """Show ``label`` with a turning bar on ``stream`` while the block runs (when ``on``)."""
    if not on:
        yield
        return
    out = stream or sys.stderr
    done = threading.Event()
    shown = threading.Event()

    def run() -> None:
        if done.wait(delay):
            return
        i = 0
        while not done.is_set():
            out.write(f"\r{_FRAMES[i % len(_FRAMES)]} {label}")
            out.flush()
            shown.set()
            i += 1
            done.wait(_STEP)

    worker = threading.Thread(target=run, name="prreport-spinner", daemon=True)
    worker.start()
    try:
        yield
    finally:
        done.set()
        worker.join()
        if shown.is_set():
            out.write("\r" + " " * (len(label) + 2) + "\r")
            out.flush()
