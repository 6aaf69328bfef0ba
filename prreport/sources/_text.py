"""File bytes to text with the same rules for every source (binary, size limit, encoding)."""

from __future__ import annotations

from prreport.textlines import source_encoding


def decode_text(data: bytes, limit: int) -> tuple[str | None, bool, str | None]:
    """Return (text, is_binary, note): NUL in the first 8 KB means binary; a note says why no text.

    Text is decoded as Python reads source: in the encoding a PEP 263 coding declaration (or a
    byte-order mark) names, else UTF-8; bytes invalid in that encoding leave the file unread.
    """
    if b"\0" in data[:8000]:
        return None, True, None
    if len(data) > limit:
        return None, False, f"too large ({len(data)} bytes > {limit})"
    encoding = source_encoding(data)
    try:
        return data.decode(encoding), False, None
    except UnicodeDecodeError:
        if encoding in ("utf-8", "utf-8-sig"):
            return None, False, "not UTF-8 text"
        return None, False, f"not {encoding} text (the encoding its coding declaration names)"
