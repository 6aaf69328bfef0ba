"""HTTP plumbing under PyGithub: an on-disk cache with conditional requests, request deadlines, page caps.

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
Every client gets such an adapter, cached or not, for the total deadline of each request.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import requests
from cachecontrol import CacheControlAdapter
from cachecontrol.caches import FileCache
from cachecontrol.heuristics import BaseHeuristic
from github.Requester import HTTPRequestsConnectionClass, HTTPSRequestsConnectionClass, Requester
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ReadTimeoutError


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


# -- deadlines, page caps, the last request ---------------------------------------------------
#
# ``timeout`` bounds each socket read, so a server that trickles one byte a second never
# times out. Every attempt of a request therefore also has a total deadline: a timer that,
# when it fires, shuts the attempt's socket down, which turns the blocked read into an error
# reported as a timeout. The pool classes below tell the timer which socket an attempt uses.

_local = threading.local()
# ``--debug`` shows this logger: one line per request, with what it was for and how it was answered.
REQUEST_LOG = logging.getLogger("prreport.github.requests")


@contextlib.contextmanager
def purpose(what: str) -> Iterator[None]:
    """Requests sent inside the block (in this thread) are for ``what`` (``--debug`` says so)."""
    old = getattr(_local, "purpose", None)
    _local.purpose = what
    try:
        yield
    finally:
        _local.purpose = old


def _log_request(request: requests.PreparedRequest, response: Any, network: bool) -> None:
    """One ``--debug`` line: what the request was for, the request, and how it was answered."""
    if not REQUEST_LOG.isEnabledFor(logging.DEBUG):
        return
    url = urlsplit(request.url or "")
    target = url.path + (f"?{url.query}" if url.query else "")
    cached = getattr(response, "from_cache", False)
    how = "revalidated (304)" if cached and network else "from the cache" if cached else ""
    status = how or str(getattr(response, "status_code", "?"))
    REQUEST_LOG.debug(
        "%s: %s %s -> %s", getattr(_local, "purpose", None) or "?", request.method, target, status
    )


class PageCapReached(Exception):
    """A listing asked for more pages than its cap allows (an endless ``rel="next"`` chain)."""


class NetworkDeadlineReached(Exception):
    """The client's network deadline (``github.deadline``) passed: ``endpoint`` was being read
    and ``spent`` seconds had gone on network waits in all (requests, retries, sleeps)."""

    def __init__(self, endpoint: str, spent: float, total: float, asked: float = 0.0) -> None:
        super().__init__(f"network deadline of {total:g} s passed at {endpoint} ({spent:.0f} s)")
        self.endpoint = endpoint
        self.spent = spent
        self.total = total
        self.asked = asked  # a wait GitHub asked for (Retry-After, a reset) that did not fit


class NetworkBudget:
    """Seconds a client may spend waiting on the network in all, across its requests, their
    retries and backoff, and rate-limit sleeps (they all happen inside ``send``)."""

    def __init__(self, seconds: float) -> None:
        self.total = float(seconds)
        self.spent = 0.0
        self._lock = threading.Lock()
        self._local = threading.local()

    def begin(self) -> None:
        """A request starts in this thread: its time counts from now."""
        self._local.since = time.monotonic()

    def end(self) -> None:
        """The request of this thread is over: its time is spent."""
        since = getattr(self._local, "since", None)
        self._local.since = None
        if since is not None:
            with self._lock:
                self.spent += time.monotonic() - since

    def used(self) -> float:
        """Seconds spent so far, the request in flight in this thread included."""
        since = getattr(self._local, "since", None)
        with self._lock:
            return self.spent + (time.monotonic() - since if since is not None else 0.0)

    def left(self) -> float:
        """Seconds left (the request in flight in this thread counted)."""
        return self.total - self.used()

    def check(self, endpoint: str) -> None:
        """Raise ``NetworkDeadlineReached`` when nothing is left."""
        if self.left() <= 0:
            raise NetworkDeadlineReached(endpoint, self.used(), self.total)


def current_budget() -> NetworkBudget | None:
    """The network budget of the request in flight in this thread (None outside a request)."""
    return getattr(_local, "budget", None)


class _Attempt:
    """The deadline of one request: its timer and the connection of its current attempt."""

    def __init__(self, deadline: float, budget: NetworkBudget | None = None) -> None:
        self.deadline = deadline
        self.budget = budget
        self.expired = False
        self.over_budget = False  # the client's network deadline, not this attempt's, ran out
        self.conn: Any = None
        self.started: float | None = None
        self._timer: threading.Timer | None = None

    def begin(self, conn: Any) -> None:
        """A new attempt on ``conn`` starts: its whole answer is due within the deadline."""
        self.pause()
        self.conn = conn
        self.started = time.monotonic()
        self._arm(self.deadline)

    def resume(self) -> None:
        """The body of the last attempt is read next: what is left of its deadline applies."""
        if self.started is not None:
            self._arm(self.deadline - (time.monotonic() - self.started))

    def pause(self) -> None:
        """Stop the timer (headers are in, or the attempt failed, or the request is over)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _arm(self, seconds: float) -> None:
        self.pause()
        left = self.budget.left() if self.budget is not None else seconds
        if left < seconds:
            seconds, self.over_budget = left, True
        else:
            self.over_budget = False
        if seconds <= 0:
            self._expire()
            return
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def _expire(self) -> None:
        self.expired = True
        sock = getattr(self.conn, "sock", None)
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def timeout_text(self) -> str:
        return f"Read timed out (no complete answer within {self.deadline:g} s)"


def _deadline_pool(base: type[HTTPConnectionPool]) -> type[HTTPConnectionPool]:
    class _Pool(base):  # type: ignore[valid-type,misc]
        def _make_request(self, conn: Any, method: str, url: str, *args: Any, **kw: Any) -> Any:
            attempt: _Attempt | None = getattr(_local, "attempt", None)
            if attempt is None:
                return super()._make_request(conn, method, url, *args, **kw)
            if attempt.budget is not None:
                attempt.budget.check(last_request())  # a retry after the deadline: none
            attempt.begin(conn)
            try:
                return super()._make_request(conn, method, url, *args, **kw)
            except Exception:
                if attempt.expired and attempt.over_budget and attempt.budget is not None:
                    b = attempt.budget
                    raise NetworkDeadlineReached(last_request(), b.used(), b.total) from None
                if attempt.expired:
                    # A timeout to urllib3: retried like one, reported like one.
                    raise ReadTimeoutError(self, url, attempt.timeout_text()) from None
                raise
            finally:
                attempt.pause()

    return _Pool


_POOLS = {"http": _deadline_pool(HTTPConnectionPool), "https": _deadline_pool(HTTPSConnectionPool)}


class _DeadlineMixin:
    """Adapter behaviour: a total deadline per request, page caps, the last request remembered."""

    deadline: float = 60.0
    budget: NetworkBudget | None = None

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)  # type: ignore[misc]
        self.poolmanager.pool_classes_by_scheme = dict(_POOLS)  # type: ignore[attr-defined]

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> Any:
        _local.last = f"{request.method} {urlsplit(request.url or '').path}"
        cap: _PageCap | None = getattr(_local, "pages", None)
        if cap is not None:
            cap.used += 1
            if cap.used > cap.limit:
                raise PageCapReached(f"more than {cap.limit} pages")
        budget = self.budget
        if budget is not None:
            budget.check(_local.last)
            budget.begin()
        attempt = _Attempt(self.deadline, budget)
        _local.attempt, _local.budget = attempt, budget
        try:
            response = super().send(request, *args, **kwargs)  # type: ignore[misc]
            attempt.resume()
            try:
                response.content  # noqa: B018 - the body is read under the deadline
            except Exception:
                if attempt.expired:
                    raise self._expired(attempt, request) from None
                raise
            if attempt.expired:
                raise self._expired(attempt, request)
            _log_request(request, response, attempt.started is not None)
            return response
        finally:
            attempt.pause()
            _local.attempt = _local.budget = None
            if budget is not None:
                budget.end()

    def _expired(self, attempt: _Attempt, request: requests.PreparedRequest) -> Exception:
        b = attempt.budget
        if attempt.over_budget and b is not None:
            return NetworkDeadlineReached(str(_local.last), b.used(), b.total)
        return requests.exceptions.ReadTimeout(attempt.timeout_text(), request=request)


class _DeadlineAdapter(_DeadlineMixin, requests.adapters.HTTPAdapter):
    pass


class _DeadlineCacheAdapter(_DeadlineMixin, CacheControlAdapter):
    pass


class _PageCap:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0


@contextlib.contextmanager
def page_cap(limit: int) -> Iterator[None]:
    """At most ``limit`` requests (pages) inside the block, in this thread: then ``PageCapReached``."""
    old = getattr(_local, "pages", None)
    _local.pages = _PageCap(limit)
    try:
        yield
    finally:
        _local.pages = old


def last_request() -> str:
    """``METHOD /path`` of the last request this thread sent (``""`` before any)."""
    return str(getattr(_local, "last", ""))


def _connection_classes(
    cache_dir: Path | None, deadline: float, budget: NetworkBudget | None = None
) -> tuple[type, type]:
    """Connection classes whose session has the deadline adapter (caching in ``cache_dir``)."""
    cache = FileCache(str(cache_dir)) if cache_dir is not None else None

    def adapter(conn: Any) -> requests.adapters.HTTPAdapter:
        pool = {"pool_connections": conn.pool_size, "pool_maxsize": conn.pool_size}
        made: _DeadlineMixin
        if cache is None:
            made = _DeadlineAdapter(max_retries=conn.retry, **pool)
        else:
            made = _DeadlineCacheAdapter(
                cache=cache, heuristic=_NoAuthorizationVary(), max_retries=conn.retry, **pool
            )
        made.deadline = deadline
        made.budget = budget
        return made  # type: ignore[return-value]

    class _HTTP(HTTPRequestsConnectionClass):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.adapter = adapter(self)
            _mount(self.session, "http://", self.adapter)

    class _HTTPS(HTTPSRequestsConnectionClass):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.adapter = adapter(self)
            _mount(self.session, "https://", self.adapter)

    return _HTTP, _HTTPS


def install_transport(
    requester: Requester,
    scheme: str,
    deadline: float,
    cache_dir: Path | None = None,
    budget: NetworkBudget | None = None,
) -> bool:
    """Give ``requester`` the deadline adapter (with the on-disk cache in ``cache_dir``, every
    request drawing on ``budget``); False without a hook."""
    attr = "_Requester__connectionClass"
    if not hasattr(requester, attr):
        return False
    if cache_dir is not None:
        cache_dir.mkdir(parents=True, exist_ok=True)
    http_cls, https_cls = _connection_classes(cache_dir, deadline, budget)
    setattr(requester, attr, https_cls if scheme == "https" else http_cls)
    return True
