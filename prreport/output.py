"""Output files: names derived from the repository and PR/revision, written atomically."""

from __future__ import annotations

import os
import re
import stat
import tempfile
import time
from pathlib import Path

from prreport.errors import OutputError


def report_stem(repo: str, number: int | None, target: str) -> str:
    """``owner-name-pr-35980`` or ``owner-name-rev-<target>``, safe as a file name."""
    safe_repo = re.sub(r"[^A-Za-z0-9._-]+", "-", repo).strip("-") or "repo"
    if number is not None:
        return f"{safe_repo}-pr-{number}"
    safe_target = re.sub(r"[^A-Za-z0-9._-]+", "-", target).strip("-")[:60] or "rev"
    return f"{safe_repo}-rev-{safe_target}"


# Temporary files: ``.<name>.prreport-<pid>-<random>.tmp`` beside the file they become, so a
# later run can tell a stale one (its process is gone, e.g. after ``kill -9``) and remove it.
_TMP = re.compile(r"^\..+\.prreport-(\d+)-[^.]+\.tmp$")
_STALE_SECONDS = 24 * 3600  # a temp file this old is stale even if its PID was reused
_swept: set[Path] = set()


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def remove_stale_temp_files(directory: Path) -> list[Path]:
    """Remove temporary files a killed prreport run left in ``directory``; returns them."""
    removed = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return []
    now = time.time()
    for entry in entries:
        m = _TMP.match(entry.name)
        if not m or not entry.is_file(follow_symlinks=False):
            continue
        try:
            old = now - entry.stat(follow_symlinks=False).st_mtime > _STALE_SECONDS
            if old or not _alive(int(m.group(1))):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            continue  # gone already, or not ours to remove
    return removed


def _check_target(path: Path) -> None:
    """Refuse to replace anything but a regular file (a symlink, a device, a directory)."""
    try:
        st = path.lstat()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        kind = (
            "a symbolic link"
            if stat.S_ISLNK(st.st_mode)
            else "a directory"
            if stat.S_ISDIR(st.st_mode)
            else "a device or other special file"
        )
        raise OutputError(
            f"refusing to write {path}: it is {kind}, not a regular file (choose another path)"
        )


def write_atomic(path: Path, text: str | bytes) -> None:
    """Write via a temporary file in the same directory and rename, so a crash leaves no half file.

    The file gets the permissions of a newly created file (0666 less the umask); an existing
    path must be a regular file; stale temporary files of killed runs are removed first.
    """
    data = _encode(path, text)
    _check_target(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.parent not in _swept:
            _swept.add(path.parent)
            remove_stale_temp_files(path.parent)
        fd, tmp = tempfile.mkstemp(
            prefix=f".{path.name}.prreport-{os.getpid()}-", suffix=".tmp", dir=path.parent
        )
    except OSError as exc:
        raise OutputError(
            f"cannot write to {path.parent}: {exc.strerror} (use --out DIR)"
        ) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), 0o666 & ~_umask())
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


def _encode(path: Path, text: str | bytes) -> bytes:
    if isinstance(text, bytes):
        return text
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise OutputError(
            f"cannot write {path}: the text holds a character UTF-8 cannot encode "
            f"({text[exc.start]!r} at offset {exc.start})"
        ) from None


def write_all(outputs: dict[Path, str]) -> None:
    """Write several files: all are rendered and encoded before the first write, each atomically."""
    encoded = {path: _encode(path, text) for path, text in outputs.items()}
    for path in encoded:
        _check_target(path)
    for path, data in encoded.items():
        write_atomic(path, data)
