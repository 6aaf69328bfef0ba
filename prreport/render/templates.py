"""The Jinja door: where templates live, the environment and its filters (wording stays in templates)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import jinja2


def templates_dir() -> Path:
    """Templates shipped in the wheel (``prreport/templates``) or, in a checkout, ``templates/``."""
    here = Path(__file__).resolve().parent.parent
    packaged = here / "templates"
    if packaged.is_dir():
        return packaged
    return here.parent / "templates"


def _md_escape(value: Any) -> str:
    """Neutralise Markdown-active characters in PR-supplied inline text."""
    text = "" if value is None else str(value)
    for ch in ("\\", "`", "*", "_", "[", "]", "<", ">", "|", "#"):
        text = text.replace(ch, "\\" + ch)
    return text.replace("\n", " ")


def _code(value: Any) -> str:
    """Inline code span that survives backticks inside the value."""
    text = "" if value is None else str(value)
    _fence = "`"
    while _fence in text:
        _fence += "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{_fence}{pad}{text}{pad}{_fence}"


def _fence(value: Any, lang: str = "") -> str:
    """Fenced code block whose _fence is longer than any backtick run inside."""
    text = "" if value is None else str(value)
    _fence = "```"
    while _fence in text:
        _fence += "`"
    return f"{_fence}{lang}\n{text.rstrip()}\n{_fence}"


def _quote(value: Any) -> str:
    """Block-_quote PR text line by line (it stays Markdown, but cannot break out of the _quote)."""
    text = "" if value is None else str(value).strip()
    return "\n".join("> " + line if line else ">" for line in text.splitlines())


def environment() -> jinja2.Environment:
    """The Jinja environment: StrictUndefined, no autoescape (Markdown), our filters."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["md"] = _md_escape
    env.filters["code"] = _code
    env.filters["fence"] = _fence
    env.filters["quote"] = _quote
    env.filters["shortscope"] = _shortscope
    env.filters["when"] = _when
    env.filters["shortpath"] = _shortpath
    env.globals["loc"] = _loc
    return env


def _shortscope(value: Any) -> str:
    """``A.f.<locals>.g`` -> ``f.g``: the last two parts of a qualname, for prose."""
    parts = [p for p in str(value or "").split(".") if p != "<locals>"]
    return ".".join(parts[-2:])


def _when(value: Any) -> str:
    """ISO timestamp -> ``YYYY-MM-DD HH:MM`` (as the exemplar prints it); other text unchanged."""
    text = "" if value is None else str(value)
    m = re.match(r"(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})", text)
    return f"{m.group(1)} {m.group(2)}" if m else text


def _shortpath(value: Any) -> str:
    """Last two components of a path (``mooncake/conn.py``), for dense evidence lists."""
    return "/".join(str(value or "").split("/")[-2:])


def _loc(path: Any, line: Any = None) -> str:
    """``path:line`` as inline code."""
    return _code(f"{path}:{line}" if line else f"{path}")
