"""The Jinja door: where templates live, the environment and its filters (wording stays in templates)."""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
import jinja2.bccache

from prreport.render.escape import md_code, md_fence, md_quote, md_text, md_url


def templates_dir() -> Path:
    """Templates shipped in the wheel (``prreport/templates``) or, in a checkout, ``templates/``."""
    here = Path(__file__).resolve().parent.parent
    packaged = here / "templates"
    if packaged.is_dir():
        return packaged
    return here.parent / "templates"


# Options that change what a template compiles to: part of the bytecode cache's file names.
_COMPILE_OPTIONS: dict[str, Any] = {
    "autoescape": False,
    "keep_trailing_newline": True,
    "trim_blocks": True,
    "lstrip_blocks": True,
}


def bytecode_dir() -> Path:
    """Where compiled templates are kept between runs: ``$XDG_CACHE_HOME/prreport/templates``
    (default ``~/.cache/prreport/templates``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "prreport" / "templates"


class _BytecodeCache(jinja2.FileSystemBytecodeCache):
    """Compiled templates on disk (a process compiling every template costs more than its
    analysis of a small PR); a directory that cannot be read or written only means compiling."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        """Load the template's code, or leave the bucket empty (then it compiles)."""
        try:
            super().load_bytecode(bucket)
        except (OSError, EOFError, ValueError, TypeError, pickle.UnpicklingError):
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        """Store the template's code when the directory allows it."""
        try:
            os.makedirs(self.directory, mode=0o700, exist_ok=True)
            super().dump_bytecode(bucket)
        except OSError:
            pass


def _bytecode_cache() -> _BytecodeCache:
    # Jinja checks each template's source checksum, not its own version or our options.
    tag = hashlib.sha1(repr((jinja2.__version__, sorted(_COMPILE_OPTIONS.items()))).encode())
    return _BytecodeCache(str(bytecode_dir()), f"{tag.hexdigest()[:12]}-%s.cache")


@functools.cache
def environment() -> jinja2.Environment:
    """The Jinja environment (one per process: it keeps the compiled templates): StrictUndefined,
    no autoescape (Markdown), our filters."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        bytecode_cache=_bytecode_cache(),
        **_COMPILE_OPTIONS,
    )
    # Every PR-supplied string reaches Markdown through one of these (prreport.render.escape).
    env.filters["md"] = md_text
    env.filters["code"] = md_code
    env.filters["fence"] = md_fence
    env.filters["quote"] = md_quote
    env.filters["url"] = md_url
    env.filters["shortscope"] = _shortscope
    env.filters["when"] = _when
    env.filters["shortpath"] = _shortpath
    env.globals["loc"] = _loc
    env.globals["line_url"] = _line_url
    env.globals["link"] = _link
    return env


def _shortscope(value: Any) -> str:
    """``A.f.<locals>.g`` -> ``f.g``: the last two parts of a qualname, for prose."""
    parts = [p for p in str(value or "").split(".") if p != "<locals>"]
    return ".".join(parts[-2:])


def _when(value: Any) -> str:
    """ISO timestamp -> ``YYYY-MM-DD HH:MM`` (as the exemplar prints it); other text unchanged."""
    text = "" if value is None else str(value)
    m = re.match(r"(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})", text)
    return f"{m.group(1)} {m.group(2)}" if m else md_text(text)


def _shortpath(value: Any) -> str:
    """Last two components of a path (``mooncake/conn.py``), for dense evidence lists."""
    return "/".join(str(value or "").split("/")[-2:])


def _loc(path: Any, line: Any = None) -> str:
    """``path:line`` as inline code."""
    return md_code(f"{path}:{line}" if line else f"{path}")


_PR_URL_RE = re.compile(r"^(https?://[^/\s]+/[^/\s]+/[^/\s]+)/pull/\d+$")


def _line_url(pr: Any, path: Any, line: Any = None, end: Any = None) -> str:
    """A link to ``path`` (and its lines) at the head commit on GitHub, or ``""`` when unknown."""
    m = _PR_URL_RE.match(str(pr.get("url") or ""))
    repo = str(pr.get("repo") or "")
    base = m.group(1) if m else (f"https://github.com/{repo}" if repo.count("/") == 1 else "")
    sha = str(pr.get("head_sha") or "")
    if not base or not re.fullmatch(r"[0-9a-f]{7,40}", sha) or not path:
        return ""
    url = f"{base}/blob/{sha}/{quote(str(path), safe='/')}"
    if isinstance(line, int) and line > 0:
        url += f"#L{line}" + (f"-L{end}" if isinstance(end, int) and end > line else "")
    return md_url(url)


def _link(text: Any, url: Any) -> str:
    """``[text](url)`` when there is a URL (``text`` is Markdown already), else ``text``."""
    return f"[{text}]({url})" if url else str(text)
