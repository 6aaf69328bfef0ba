"""The settings file: which one is read (like ruff and black find theirs) and its TOML table.

The first of ``--config FILE``, ``$PRREPORT_CONFIG``, and then, in the directory of ``--repo``
(else the current directory) and each parent up to the repository's root (the directory with
``.git``), ``.prreport.toml`` or the ``[tool.prreport]`` table of ``pyproject.toml``; the
closest directory wins. A ``config.toml`` belongs to whatever else lives there: read only when
named.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from prreport.errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

CONFIG_ENV = "PRREPORT_CONFIG"
MAX_CONFIG_BYTES = 1 << 20


def read_toml(path: Path) -> dict[str, Any]:
    """The TOML table of ``path``; any way it can be unreadable is one ConfigError naming it."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            what = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise ConfigError(f"{path}: {what}; a settings file is a TOML file")
        if info.st_size > MAX_CONFIG_BYTES:
            raise ConfigError(
                f"{path}: {info.st_size} bytes; a settings file is at most {MAX_CONFIG_BYTES} bytes"
            )
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        # A byte-order mark (Windows editors write one) is not part of the TOML text.
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path}: not UTF-8 text (byte {exc.start}); TOML files must be UTF-8"
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid TOML (nested too deeply)") from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None


def find_config(
    path: str | os.PathLike[str] | None,
    env: Mapping[str, str],
    cwd: Path | None = None,
    start: Path | None = None,
) -> tuple[dict[str, Any], str]:
    """The settings table and where it came from: ``--config``, ``$PRREPORT_CONFIG``, then
    ``.prreport.toml`` or ``[tool.prreport]`` in ``pyproject.toml`` of ``start`` (``--repo``,
    else ``cwd``) or a parent up to the repository root (``({}, "")`` if none)."""
    if path is not None:
        return read_toml(Path(path)), str(path)
    if env.get(CONFIG_ENV):
        named = env[CONFIG_ENV]
        return read_toml(Path(named)), f"{named} (${CONFIG_ENV})"
    cwd = Path.cwd() if cwd is None else cwd
    here = cwd if start is None else (start if start.is_absolute() else cwd / start)
    for folder in _search_dirs(here):
        found = _settings_in(folder, "" if folder == cwd else f"{folder}{os.sep}")
        if found is not None:
            return found
    return {}, ""


def _search_dirs(start: Path) -> Iterator[Path]:
    """``start`` and its parents up to the repository root (the first with ``.git``); only
    ``start`` when no parent is a repository's root (a file above it belongs to no project)."""
    folders = [start, *start.resolve().parents] if start.is_dir() else []
    for i, folder in enumerate(folders):
        if (folder / ".git").exists():
            yield from folders[: i + 1]
            return
    yield from folders[:1]


def _settings_in(folder: Path, shown: str) -> tuple[dict[str, Any], str] | None:
    """The settings of one directory: its ``.prreport.toml``, else ``[tool.prreport]``."""
    own = folder / ".prreport.toml"
    if own.exists():
        return read_toml(own), f"{shown}.prreport.toml"
    pyproject = folder / "pyproject.toml"
    if pyproject.is_file():
        tool = read_toml(pyproject).get("tool")
        table = tool.get("prreport") if isinstance(tool, dict) else None
        if table is not None:
            if not isinstance(table, dict):
                raise ConfigError(f"{shown}pyproject.toml: 'tool.prreport' must be a table")
            return table, f"{shown}pyproject.toml [tool.prreport]"
    return None
