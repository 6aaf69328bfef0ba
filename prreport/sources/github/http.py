"""HTTP plumbing under PyGithub: an on-disk cache with conditional requests, bounded retries.

CacheControl (a well-kept RFC 7234 cache for ``requests``) stores responses in a
``FileCache`` and revalidates stale ones with ``If-None-Match`` / ``If-Modified-Since``;
GitHub answers an unchanged resource with 304, which costs no rate limit.

Where it hooks in: PyGithub 2.10 builds its ``requests.Session`` inside a connection class
(``HTTPRequestsConnectionClass`` / ``HTTPSRequestsConnectionClass``) that the ``Requester``
instantiates from a per-instance attribute and then reuses. The only public hook,
``Requester.injectConnectionClasses``, is process-wide and turns connection reuse off, so it
would leak the cache into every other client (the comment publisher) and open one TCP
connection per request. Instead we give this one requester connection subclasses that mount
a ``CacheControlAdapter`` (carrying PyGithub's retry policy) in place of the plain adapter.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import requests
from cachecontrol import CacheControlAdapter
from cachecontrol.caches import FileCache
from cachecontrol.heuristics import BaseHeuristic
from github.Requester import HTTPRequestsConnectionClass, HTTPSRequestsConnectionClass, Requester


class _NoAuthorizationVary(BaseHeuristic):
    """Drop ``Authorization`` from ``Vary`` before a response is stored.

    CacheControl writes the request's value of every ``Vary`` header into the cache entry,
    and GitHub varies on ``Authorization``: the token would land on disk. The cache
    directory is namespaced by a token fingerprint instead (see ``cache_namespace``).
    """

    def update_headers(self, response: Any) -> dict[str, str]:
        vary = response.headers.get("Vary")
        if not vary:
            return {}
        kept = [v.strip() for v in vary.split(",") if v.strip().lower() != "authorization"]
        return {"Vary": ", ".join(kept)}

    def warning(self, response: Any) -> str | None:
        return None


def cache_namespace(token: str | None, api_url: str) -> str:
    """A directory name per (API host, token) that does not reveal the token."""
    digest = hashlib.sha256(f"prreport-cache\0{api_url}\0{token or ''}".encode()).hexdigest()
    return ("anonymous-" if not token else "token-") + digest[:16]


def _mount(session: requests.Session, scheme: str, adapter: requests.adapters.HTTPAdapter) -> None:
    old = session.adapters.get(scheme)
    session.mount(scheme, adapter)
    if old is not None and old is not adapter:
        old.close()


def _cached_classes(cache_dir: Path) -> tuple[type, type]:
    """Connection classes whose session caches in ``cache_dir``."""
    cache = FileCache(str(cache_dir))

    def adapter(conn: Any) -> CacheControlAdapter:
        return CacheControlAdapter(
            cache=cache,
            heuristic=_NoAuthorizationVary(),
            max_retries=conn.retry,
            pool_connections=conn.pool_size,
            pool_maxsize=conn.pool_size,
        )

    class _CachedHTTP(HTTPRequestsConnectionClass):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.adapter = adapter(self)
            _mount(self.session, "http://", self.adapter)

    class _CachedHTTPS(HTTPSRequestsConnectionClass):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.adapter = adapter(self)
            _mount(self.session, "https://", self.adapter)

    return _CachedHTTP, _CachedHTTPS


def install_cache(requester: Requester, cache_dir: Path, scheme: str) -> bool:
    """Make ``requester`` use the on-disk cache; False if this PyGithub has no such hook."""
    attr = "_Requester__connectionClass"
    if not hasattr(requester, attr):
        return False
    cache_dir.mkdir(parents=True, exist_ok=True)
    http_cls, https_cls = _cached_classes(cache_dir)
    setattr(requester, attr, https_cls if scheme == "https" else http_cls)
    return True
