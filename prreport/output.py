"""Output files: names derived from the repository and PR/revision, written atomically."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from prreport.errors import OutputError


def report_stem(repo: str, number: int | None, target: str) -> str:
    """``owner-name-pr-35980`` or ``owner-name-rev-<target>``, safe as a file name."""
    safe_repo = re.sub(r"[^A-Za-z0-9._-]+", "-", repo).strip("-") or "repo"
    if number is not None:
        return f"{safe_repo}-pr-{number}"
    safe_target = re.sub(r"[^A-Za-z0-9._-]+", "-", target).strip("-")[:60] or "rev"
    return f"{safe_repo}-rev-{safe_target}"


def write_atomic(path: Path, text: str | bytes) -> None:
    """Write via a temporary file in the same directory and rename, so a crash leaves no half file."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise OutputError(
            f"cannot write to {path.parent}: {exc.strerror} (use --out DIR)"
        ) from None
    try:
        data = text.encode("utf-8") if isinstance(text, str) else text
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise OutputError(f"cannot write {path}: {exc.strerror}") from None
        raise


def write_all(outputs: dict[Path, str]) -> None:
    """Write several files; all texts are rendered before the first write, each write is atomic."""
    for path, text in outputs.items():
        write_atomic(path, text)
