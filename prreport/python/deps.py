"""The dependencies a project declares as required (pyproject.toml, setup.cfg, requirements),
and the backends projects install by choice."""

from __future__ import annotations

import configparser
import posixpath
import re
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from prreport.python.modules import LAYOUT_DIRS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

# Distributions whose import name is not their normalised project name.
_IMPORT_NAMES = {
    "pyzmq": "zmq",
    "pyyaml": "yaml",
    "brotlipy": "brotli",
    "beautifulsoup4": "bs4",
    "pillow": "PIL",
    "scikit_learn": "sklearn",
    "opencv_python": "cv2",
    "python_dateutil": "dateutil",
    "python_multipart": "multipart",
    "attrs": "attr",
    "protobuf": "google",
    "pyjwt": "jwt",
    "msgpack_python": "msgpack",
}
_REQ_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def metadata_files(head_paths: Iterable[str]) -> list[str]:
    """Project metadata files at the repository root or a layout directory (``python/``)."""
    dirs = {"", *LAYOUT_DIRS}
    out = []
    for p in head_paths:
        name = posixpath.basename(p)
        if posixpath.dirname(p) not in dirs:
            continue
        if name in ("pyproject.toml", "setup.cfg") or (
            name.startswith("requirements") and name.endswith(".txt")
        ):
            out.append(p)
    return sorted(out)


def _import_name(requirement: str) -> str | None:
    m = _REQ_NAME.match(requirement)
    if m is None or requirement.lstrip().startswith(("-", "#")):
        return None
    dist = re.sub(r"[-.]+", "_", m.group(1)).lower()
    return _IMPORT_NAMES.get(dist, dist)


def _pyproject(text: str) -> list[str]:
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return []
    reqs = [str(r) for r in data.get("project", {}).get("dependencies", []) or []]
    poetry = data.get("tool", {}).get("poetry", {}).get("dependencies", {}) or {}
    for name, spec in poetry.items():
        if name != "python" and not (isinstance(spec, dict) and spec.get("optional")):
            reqs.append(str(name))
    return reqs


def _setup_cfg(text: str) -> list[str]:
    parser = configparser.ConfigParser()
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    raw = parser.get("options", "install_requires", fallback="")
    return [line for line in raw.splitlines() if line.strip()]


def required_imports(texts: Mapping[str, str]) -> frozenset[str]:
    """Top-level import names of the distributions a project requires (not its extras).

    Only ``requirements.txt`` itself counts among the requirement files: ``requirements-dev``
    and friends list what developers install, not what users get.
    """
    out: set[str] = set()
    for path, text in texts.items():
        name = posixpath.basename(path)
        if name == "pyproject.toml":
            reqs = _pyproject(text)
        elif name == "setup.cfg":
            reqs = _setup_cfg(text)
        elif name == "requirements.txt":
            reqs = text.splitlines()
        else:
            continue
        out.update(n for n in map(_import_name, reqs) if n)
    return frozenset(out)


# Backends of async, HTTP, compression and serialisation libraries that are installed by
# choice: lazy unless the project declares them required.
OPTIONAL_BACKENDS = frozenset(
    {
        "trio", "curio", "uvloop", "winloop", "gevent", "eventlet", "tornado", "twisted",
        "brotli", "brotlicffi", "zstandard", "zstd", "lz4", "snappy", "h2", "h3", "socksio",
        "socks", "httptools", "wsproto", "websockets", "orjson", "ujson", "simplejson",
        "rapidjson", "msgpack", "cchardet", "chardet", "charset_normalizer", "idna", "certifi",
        "cryptography", "OpenSSL", "watchfiles", "watchgod", "colorama", "pyperclip", "IPython",
        "ipywidgets", "email_validator", "itsdangerous", "jinja2", "multipart", "uvicorn",
    }
)  # fmt: skip
