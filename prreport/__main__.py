"""Allow ``python -m prreport``."""

from __future__ import annotations

from prreport.cli import main

main()
