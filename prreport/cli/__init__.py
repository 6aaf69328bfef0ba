"""The command line: the ``prreport`` click group and its commands (the only package that prints or exits)."""

import gc

from prreport.cli.main import main

# A command runs once and builds large syntax trees that live until it exits: the cyclic
# collector's default (a pass every 700 allocations, full passes over every tree) costs a
# third of a report's time on a 2 MB PR and frees almost nothing.
gc.set_threshold(100_000, 50, 100)

__all__ = ["main"]
