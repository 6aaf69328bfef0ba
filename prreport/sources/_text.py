"""File bytes to text with the same rules for every source (binary, size limit, UTF-8)."""

from __future__ import annotations

from prreport.textlines import decode_source


def decode_text(data: bytes, limit: int) -> tuple[str | None, bool, str | None]:
    """Return (text, is_binary, note): NUL in the first 8 KB means binary; a note says why no text."""
    if b"\0" in data[:8000]:
        return None, True, None
    if len(data) > limit:
        return None, False, f"too large ({len(data)} bytes > {limit})"
    try:
        return decode_source(data), False, None
    except UnicodeDecodeError:
        return None, False, "not UTF-8 text"
