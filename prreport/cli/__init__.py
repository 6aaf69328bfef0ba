"""The command line: the ``prreport`` click group and its commands (the only package that prints or exits)."""

from prreport.cli.main import main

__all__ = ["main"]
