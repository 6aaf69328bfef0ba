"""prreport: review reports for refactor pull requests."""

from __future__ import annotations

__version__ = "0.1.0"
