"""Output files: names derived from the repository and PR/revision, written atomically."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import stat
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

try:
    import fcntl
except ImportError:  # not on Windows: no lock there, the renames stay atomic one by one
    fcntl = None  # type: ignore[assignment]

from prreport.errors import OutputError


def report_stem(
    repo: str, number: int | None, target: str, head_sha: str = "", base_sha: str = ""
) -> str:
    """``owner-name-pr-35980``, ``owner-name-rev-<short sha>`` or ``owner-name-range-<base>-<head>``.

    A revision is named by the commit it resolved to, never by its spelling (``HEAD`` would be
    overwritten by the next commit's report); safe as a file name.
    """
    safe_repo = _safe(repo) or "repo"
    if number is not None:
        return f"{safe_repo}-pr-{number}"
    if ".." in target and base_sha and head_sha:
        return f"{safe_repo}-range-{base_sha[:12]}-{head_sha[:12]}"
    if head_sha:
        return f"{safe_repo}-rev-{head_sha[:12]}"
    return f"{safe_repo}-rev-{_safe(target)[:60] or 'rev'}"


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")


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
    write_all({path: text})


def _temp_file(path: Path, data: bytes) -> str:
    """Write ``data`` to a new temporary file beside ``path`` (flushed to disk); its name."""
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
    except BaseException as exc:
        _unlink(tmp)
        if isinstance(exc, OSError):
            raise OutputError(f"cannot write {path}: {exc.strerror}") from None
        raise
    return tmp


def _unlink(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass


@contextlib.contextmanager
def _locked(directories: list[Path]) -> Iterator[None]:
    """Hold an exclusive ``flock`` on each directory (sorted): two runs writing the same names
    put their files in place one set after the other, never interleaved."""
    fds: list[int] = []
    try:
        for d in sorted(set(directories)):
            if fcntl is None:
                break
            fd = os.open(d, os.O_RDONLY)
            fds.append(fd)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except OSError:
                pass  # a file system without locks (some NFS): the renames stay atomic each
        yield
    finally:
        for fd in reversed(fds):
            os.close(fd)  # closing releases the lock


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait until the renames are done (the main thread only): a run
    cancelled then leaves its whole set or none of it, never part of one."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM)
    previous = {sig: signal.signal(sig, lambda n, _f: caught.append(n)) for sig in held}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for number in dict.fromkeys(caught):
            signal.raise_signal(number)


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


def write_all(outputs: Mapping[Path, str | bytes]) -> None:
    """Write a set of files as one: all are rendered, encoded and written to temporary files
    before the first is put in place, then renamed into place under a lock on their
    directories with SIGINT/SIGTERM held, so readers see one run's set, not a mix of two runs.
    A failure or a signal before that removes the temporary files and replaces nothing."""
    encoded = {path: _encode(path, text) for path, text in outputs.items()}
    for path in encoded:
        _check_target(path)
    temps: dict[Path, str] = {}
    try:
        for path, data in encoded.items():
            temps[path] = _temp_file(path, data)
        with _locked([p.parent for p in temps]), _signals_held():
            for path in list(temps):
                _check_target(path)
                try:
                    os.replace(temps[path], path)
                except OSError as exc:
                    raise OutputError(f"cannot write {path}: {exc.strerror}") from None
                del temps[path]
    except OSError as exc:  # the lock
        raise OutputError(
            f"cannot write to {exc.filename or 'the folder'}: {exc.strerror}"
        ) from None
    finally:
        for tmp in temps.values():
            _unlink(tmp)
