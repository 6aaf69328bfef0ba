"""Misbehaving-server routes for the local GitHub API server (issue #13 items 8-10).

Each helper overrides one endpoint of a ``tests.ghserver.GitHubServer``: an endless
``rel="next"`` chain, a body trickled byte by byte, or a malformed answer (truncated JSON,
HTML with 200, ``null``, wrong types, invalid dates, a redirect to another host).
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.ghserver import GitHubServer, Raw, _Req


def endless_pages(server: GitHubServer, pattern: str, item: Any = None, key: str = "") -> None:
    """``GET pattern`` answers page after page, each linking to a next one, forever.

    Pages are empty when ``item`` is None, else hold 100 copies of it (inside ``{key: [...]}``
    when ``key`` is given, as the check-runs endpoint wraps its list).
    """

    def handler(s: GitHubServer, q: _Req, m: re.Match[str]) -> tuple[int, Any]:
        page = int(q.query.get("page", "1"))
        items = [] if item is None else [dict(item, id=page * 1000 + i) for i in range(100)]
        body: Any = {"total_count": 10**9, key: items} if key else items
        nxt = f"{s.url}{q.path}?per_page=100&page={page + 1}"
        return 200, Raw(json.dumps(body).encode(), headers={"Link": f'<{nxt}>; rel="next"'})

    server.route("GET", pattern, handler)


def trickled(server: GitHubServer, pattern: str, body: bytes, seconds_per_byte: float) -> None:
    """``GET pattern`` sends a valid ``body`` one byte at a time."""

    def handler(s: GitHubServer, q: _Req, m: re.Match[str]) -> tuple[int, Any]:
        return 200, Raw(body, trickle=seconds_per_byte)

    server.route("GET", pattern, handler)


def malformed(
    server: GitHubServer,
    pattern: str,
    body: bytes,
    content_type: str = "application/json; charset=utf-8",
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> None:
    """``GET pattern`` answers ``body`` as it is."""

    def handler(s: GitHubServer, q: _Req, m: re.Match[str]) -> tuple[int, Any]:
        return status, Raw(body, content_type=content_type, headers=dict(headers or {}))

    server.route("GET", pattern, handler)
