"""A real local GitHub REST API server for tests, serving fixture repositories.

``GitHubServer`` is a threaded ``http.server`` on 127.0.0.1 (free port). It answers the
endpoints PyGithub calls from an in-memory ``GitHubState`` loaded from the JSON files in
``tests/fixtures/github/``: absolute URLs and ``Link`` pagination point at the server
itself, every GET carries an ETag (``If-None-Match`` gives 304), rate-limit headers are
kept, and faults (401, 403 rate limit, 403, 500, slow answers) can be injected. Every
request is recorded so tests can assert a request budget.

Extending it (PR comments, digest issues): add a route with ``server.route(method,
regex, handler)``; a handler gets ``(server, request, match)`` and returns
``(status, json_value)``; mutate ``server.state`` for writes.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import re
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures" / "github"
FILES_LISTED = 3000  # GitHub's PR files listing stops here
API = "{api}"  # placeholder the fixtures may use for the server's own base URL


@dataclass
class GitHubState:
    """Repositories served by the fake API, keyed by ``owner/name`` (see fixtures/github/*.json)."""

    repos: dict[str, dict[str, Any]] = field(default_factory=dict)
    next_id: int = 9000

    @classmethod
    def load(cls, directory: Path = FIXTURES) -> GitHubState:
        """Load every ``*.json`` repository fixture in ``directory``."""
        state = cls()
        for path in sorted(directory.glob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            state.repos[data["full_name"]] = data
        return state

    def repo(self, full_name: str) -> dict[str, Any] | None:
        """The repository fixture, or None."""
        return self.repos.get(full_name)

    def new_id(self) -> int:
        """A fresh object id for created objects."""
        self.next_id += 1
        return self.next_id


@dataclass
class Fault:
    """An injected failure: ``kind`` is 401, 403, rate-limit, secondary-rate-limit, 500 or slow.

    More kinds (malformed bodies, endless pagination, trickled bodies) live in
    ``tests/ghserver_faults.py``.
    """

    kind: str
    match: str = ""  # only requests whose path contains this
    times: int | None = None  # None = every matching request
    delay: float = 0.0  # for slow


@dataclass
class Raw:
    """A handler's answer sent as these bytes exactly (no JSON, no pagination, no ETag).

    ``trickle`` sends the body one byte every ``trickle`` seconds, as a slow or hostile
    server may; ``headers`` are added to the answer (e.g. ``Location``, ``Link``).
    """

    data: bytes
    content_type: str = "application/json; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    trickle: float = 0.0


@dataclass(frozen=True)
class Request:
    """A request the server answered."""

    method: str
    path: str
    status: int
    authorization: str


@dataclass
class _Req:
    method: str
    path: str
    query: dict[str, str]
    headers: Any
    body: Any


Handler = Callable[["GitHubServer", _Req, "re.Match[str]"], tuple[int, Any]]


class GitHubServer:
    """The fake GitHub API; use as a context manager or call start()/stop()."""

    def __init__(self, state: GitHubState | None = None, token: str | None = None) -> None:
        self.state = state or GitHubState.load()
        self.token = token
        self.max_age = 60  # GitHub sends "private, max-age=60, s-maxage=60"
        self.rate_limit = 5000
        self.rate_remaining = 5000
        self.rate_reset = int(time.time()) + 3600
        self.faults: list[Fault] = []
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._routes: list[tuple[str, re.Pattern[str], Handler]] = []
        for method, pattern, handler in _ROUTES:
            self.route(method, pattern, handler)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    # -- lifecycle ----------------------------------------------------------------------

    @property
    def url(self) -> str:
        """Base URL, e.g. ``http://127.0.0.1:PORT``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> GitHubServer:
        """Serve in a background thread."""
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> GitHubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- configuration --------------------------------------------------------------------

    def route(self, method: str, pattern: str, handler: Handler) -> None:
        """Add an endpoint; routes added later are tried first, so tests can override built-ins."""
        self._routes.insert(0, (method, re.compile(pattern + r"$"), handler))

    def inject(
        self, kind: str, match: str = "", times: int | None = None, delay: float = 0.0
    ) -> None:
        """Make matching requests fail (or answer slowly)."""
        self.faults.append(Fault(kind, match, times, delay))

    def reset_counts(self) -> None:
        """Forget the recorded requests."""
        with self._lock:
            self.requests.clear()

    @property
    def count(self) -> int:
        """Requests answered so far."""
        return len(self.requests)

    @property
    def not_modified(self) -> int:
        """Requests answered 304."""
        return sum(1 for r in self.requests if r.status == 304)

    def paths(self) -> list[str]:
        """The recorded request paths (for failure messages)."""
        return [f"{r.method} {r.path} {r.status}" for r in self.requests]

    # -- request handling -----------------------------------------------------------------

    def _fault_for(self, path: str) -> Fault | None:
        with self._lock:
            for f in self.faults:
                if f.match in path and (f.times is None or f.times > 0):
                    if f.times is not None:
                        f.times -= 1
                    return f
        return None

    def handle(self, h: BaseHTTPRequestHandler, method: str) -> None:
        """Answer one request (called from the handler thread)."""
        parsed = urllib.parse.urlsplit(h.path)
        path = urllib.parse.unquote(parsed.path)
        query = dict(urllib.parse.parse_qsl(parsed.query))
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        auth = h.headers.get("Authorization", "")
        status, payload, headers = self._answer(method, path, query, h.headers, body, auth)
        data = b""
        if isinstance(payload, Raw):
            self._send_raw(h, method, status, payload, auth)
            return
        if payload is not None and status != 304:
            text = json.dumps(payload, sort_keys=True).replace(API, self.url)
            data = text.encode("utf-8")
        with self._lock:
            self.requests.append(Request(method, h.path, status, auth))
        h.send_response(status)
        for k, v in headers.items():
            h.send_header(k, v)
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        if data:
            h.wfile.write(data)

    def _send_raw(
        self, h: BaseHTTPRequestHandler, method: str, status: int, raw: Raw, auth: str
    ) -> None:
        with self._lock:
            self.requests.append(Request(method, h.path, status, auth))
        h.send_response(status)
        h.send_header("Content-Type", raw.content_type)
        for k, v in dict(self._rate_headers(), **raw.headers).items():
            h.send_header(k, v)
        h.send_header("Content-Length", str(len(raw.data)))
        h.end_headers()
        if not raw.trickle:
            h.wfile.write(raw.data)
            return
        h.wfile.flush()
        try:
            for i in range(len(raw.data)):
                h.wfile.write(raw.data[i : i + 1])
                h.wfile.flush()
                time.sleep(raw.trickle)
        except OSError:
            pass  # the client gave up

    def _rate_headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.rate_limit),
            "X-RateLimit-Remaining": str(self.rate_remaining),
            "X-RateLimit-Reset": str(self.rate_reset),
            "X-RateLimit-Used": str(self.rate_limit - self.rate_remaining),
            "X-RateLimit-Resource": "core",
        }

    def _answer(
        self, method: str, path: str, query: dict[str, str], headers: Any, body: Any, auth: str
    ) -> tuple[int, Any, dict[str, str]]:
        base = {"Content-Type": "application/json; charset=utf-8"}
        fault = self._fault_for(path)
        if fault and fault.kind == "slow":
            time.sleep(fault.delay)
        elif fault and fault.kind == "401":
            return (
                401,
                {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"},
                base,
            )
        elif fault and fault.kind == "rate-limit":
            hdrs = dict(base, **self._rate_headers())
            hdrs["X-RateLimit-Remaining"] = "0"
            msg = "API rate limit exceeded for user ID 1. If you reach out to GitHub Support for help, please include the request ID."
            return (
                403,
                {"message": msg, "documentation_url": "https://docs.github.com/rest/rate-limit"},
                hdrs,
            )
        elif fault and fault.kind == "secondary-rate-limit":
            # ``delay`` sets the Retry-After seconds (default: an hour, as GitHub may ask).
            hdrs = dict(base, **{"Retry-After": str(int(fault.delay or 3600))})
            return (
                403,
                {
                    "message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
                },
                hdrs,
            )
        elif fault and fault.kind == "403":
            return 403, {"message": "Resource not accessible by integration"}, base
        elif fault and fault.kind == "500":
            return 500, {"message": "Server Error"}, base
        if self.token is not None and auth not in (f"token {self.token}", f"Bearer {self.token}"):
            return 401, {"message": "Bad credentials"}, base
        req = _Req(method, path, query, headers, body)
        for m, pattern, handler in self._routes:
            match = pattern.match(path)
            if m == method and match:
                status, payload = handler(self, req, match)
                if isinstance(payload, Raw):
                    return status, payload, base
                break
        else:
            status, payload = (
                404,
                {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"},
            )
        if status >= 400:
            return status, payload, base
        out = dict(base, **self._rate_headers())
        if method == "GET":
            payload, link = self._paginate(path, query, payload)
            if link:
                out["Link"] = link
            etag = (
                '"'
                + hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:32]
                + '"'
            )
            out["ETag"] = etag
            out["Cache-Control"] = f"private, max-age={self.max_age}, s-maxage={self.max_age}"
            out["Vary"] = "Accept, Authorization, Cookie, X-GitHub-OTP"
            if headers.get("If-None-Match") == etag:
                return 304, None, out
        with self._lock:
            self.rate_remaining = max(0, self.rate_remaining - 1)
        out.update(self._rate_headers())
        return status, payload, out

    def _paginate(self, path: str, query: dict[str, str], payload: Any) -> tuple[Any, str]:
        """Cut list answers (or the list inside a search/check-runs answer) into pages."""
        key = None
        items = payload
        if isinstance(payload, dict):
            key = next(
                (k for k in ("items", "check_runs") if isinstance(payload.get(k), list)), None
            )
            if key is None:
                return payload, ""
            items = payload[key]
        if not isinstance(items, list):
            return payload, ""
        per_page = min(int(query.get("per_page", 30)), 100)
        page = int(query.get("page", 1))
        last = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page : page * per_page]
        links = []

        def url_for(p: int) -> str:
            q = dict(query, page=str(p))
            return f"{self.url}{urllib.parse.quote(path)}?{urllib.parse.urlencode(q)}"

        if page < last:
            links.append(f'<{url_for(page + 1)}>; rel="next"')
            links.append(f'<{url_for(last)}>; rel="last"')
        if page > 1:
            links.append(f'<{url_for(1)}>; rel="first"')
            links.append(f'<{url_for(page - 1)}>; rel="prev"')
        if key is None:
            return chunk, ", ".join(links)
        out = dict(payload)
        out[key] = chunk
        return out, ", ".join(links)


def _make_handler(server: GitHubServer) -> type[BaseHTTPRequestHandler]:
    class _H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body in one send: separate small writes on a kept-alive connection
        # meet the client's delayed ACK and cost ~40 ms per request.
        wbufsize = 1 << 16

        def do_GET(self) -> None:  # noqa: N802
            server.handle(self, "GET")

        def do_POST(self) -> None:  # noqa: N802
            server.handle(self, "POST")

        def do_PATCH(self) -> None:  # noqa: N802
            server.handle(self, "PATCH")

        def do_DELETE(self) -> None:  # noqa: N802
            server.handle(self, "DELETE")

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

    return _H


# --- API object shapes -------------------------------------------------------------------


def user(login: str | None) -> dict[str, Any] | None:
    """A user object."""
    if not login:
        return None
    return {
        "login": login,
        "id": abs(hash(login)) % 100000,
        "type": "Bot" if login.endswith("[bot]") else "User",
        "url": f"{API}/users/{login}",
        "html_url": f"https://github.com/{login}",
    }


def _repo_url(full: str) -> str:
    return f"{API}/repos/{full}"


def repo_json(repo: dict[str, Any]) -> dict[str, Any]:
    """``GET /repos/{o}/{r}``."""
    full = repo["full_name"]
    owner, name = full.split("/")
    return {
        "id": 1,
        "full_name": full,
        "name": name,
        "owner": user(owner),
        "private": False,
        "url": _repo_url(full),
        "html_url": f"https://github.com/{full}",
        "default_branch": repo.get("default_branch", "main"),
    }


def pull_json(repo: dict[str, Any], number: int) -> dict[str, Any]:
    """``GET /repos/{o}/{r}/pulls/{n}`` from the compact fixture record."""
    full = repo["full_name"]
    p = repo["pulls"][str(number)]
    url = f"{_repo_url(full)}/pulls/{number}"
    key = str(number)
    return {
        "id": number,
        "number": number,
        "url": url,
        "html_url": f"https://github.com/{full}/pull/{number}",
        "issue_url": f"{_repo_url(full)}/issues/{number}",
        "title": p["title"],
        "body": p["body"],
        "user": user(p["author"]),
        "labels": [
            {"name": n, "url": f"{_repo_url(full)}/labels/{n}"} for n in p.get("labels", [])
        ],
        "state": p.get("state", "closed"),
        "merged": bool(p.get("merged_at")),
        "merged_at": p.get("merged_at"),
        "merged_by": user(p.get("merged_by")),
        "created_at": p.get("created_at"),
        "closed_at": p.get("merged_at"),
        "base": {"sha": p["base_sha"], "ref": "main", "repo": repo_json(repo)},
        "head": {"sha": p["head_sha"], "ref": f"pr-{number}", "repo": repo_json(repo)},
        "changed_files": len(repo["pull_files"].get(key, [])),
        "additions": sum(f["additions"] for f in repo["pull_files"].get(key, [])),
        "deletions": sum(f["deletions"] for f in repo["pull_files"].get(key, [])),
        "commits": len(repo["pull_commits"].get(key, [])),
        "comments": len(repo["issue_comments"].get(key, [])),
        "review_comments": len(repo["review_comments"].get(key, [])),
    }


def commit_json(repo: dict[str, Any], c: dict[str, Any]) -> dict[str, Any]:
    """A commit as listed by ``/commits`` and ``/pulls/{n}/commits``."""
    full = repo["full_name"]
    person = {
        "name": c["author"],
        "email": f"{c['author'].replace(' ', '.').lower()}@example.com",
        "date": c["date"],
    }
    return {
        "sha": c["sha"],
        "url": f"{_repo_url(full)}/commits/{c['sha']}",
        "html_url": f"https://github.com/{full}/commit/{c['sha']}",
        "commit": {
            "message": c["message"],
            "author": person,
            "committer": person,
            "url": f"{_repo_url(full)}/git/commits/{c['sha']}",
        },
        "author": user(c.get("login")),
        "committer": user(c.get("login")),
        "parents": [
            {"sha": s, "url": f"{_repo_url(full)}/commits/{s}"} for s in c.get("parents", [])
        ],
    }


def _blob_bytes(repo: dict[str, Any], sha: str) -> bytes | None:
    b64 = repo["blobs"].get(sha)
    return None if b64 is None else base64.b64decode(b64)


def _tree_entry(repo: dict[str, Any], ref: str, path: str) -> dict[str, Any] | None:
    entries = repo["trees"].get(ref, [])
    # An index per tree, kept beside it (rebuilt when the tree list is replaced or changes
    # length): large generated trees are looked up thousands of times.
    index = repo.setdefault("_tree_index", {})
    cache = index.get(ref)
    if cache is None or cache[0] is not entries or cache[1] != len(entries):
        cache = index[ref] = (entries, len(entries), {e["path"]: e for e in entries})
    return cache[2].get(path)


# --- routes ----------------------------------------------------------------------------


def _repo_or_404(server: GitHubServer, m: re.Match[str]) -> dict[str, Any] | None:
    return server.state.repo(f"{m.group('o')}/{m.group('r')}")


_NF = (404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})
_R = r"/repos/(?P<o>[^/]+)/(?P<r>[^/]+)"


def _get_repo(s: GitHubServer, q: _Req, m: re.Match[str]) -> tuple[int, Any]:
    repo = _repo_or_404(s, m)
    return (200, repo_json(repo)) if repo else _NF


def _get_pull(s: GitHubServer, q: _Req, m: re.Match[str]) -> tuple[int, Any]:
    repo = _repo_or_404(s, m)
    if not repo or m.group("n") not in repo["pulls"]:
        return _NF
    return 200, pull_json(repo, int(m.group("n")))


def _pull_list(kind: str) -> Handler:
    def handler(s: GitHubServer, q: _Req, m: re.Match[str]) -> tuple[int, Any]:
        repo = _repo_or_404(s, m)
        n = m.group("n")
        if not repo or (n not in repo["pulls"]):
            return _NF
        full = repo["full_name"]
        items = repo[kind].get(n, [])
        # GitHub lists at most 3000 files of a PR (``changed_files`` still counts them all).
        items = copy.deepcopy(items[:FILES_LISTED] if kind == "pull_files" else items)
        if kind == "pull_files":
            for f in items:
                f["blob_url"] = f"https://github.com/{full}/blob/{f['sha']}/{f['filename']}"
                f["raw_url"] = f"https://github.com/{full}/raw/{f['sha']}/{f['filename']}"
                f["contents_url"] = f"{_repo_url(full)}/contents/{f['filename']}"
            return 200, items
        if kind == "pull_commits":
            return 200, [commit_json(repo, c) for c in items]
        for i, c in enumerate(items):
            c.setdefault("id", int(n) * 1000 + i + (500 if kind == "review_comments" else 0))
            c["user"] = user(c.pop("author", None)) if "author" in c else c.get("user")
            c["url"] = (
                f"{_repo_url(full)}/{'issues' if kind == 'issue_comments' else 'pulls'}/comments/{c['id']}"
            )
            c["html_url"] = f"https://github.com/{full}/pull/{n}#{kind}-{c['id']}"
            c.setdefault("issue_url", f"{_repo_url(full)}/issues/{n}")
            c.setdefault("pull_request_url", f"{_repo_url(full)}/pulls/{n}")
        return 200, items

    return handler


def _get_issue(s: GitHubServer, q: _Req, m: re.Match[str]) -> tuple[int, Any]:
    repo = _repo_or_404(s, m)
    n = m.group("n")
    if not repo or n not in repo["pulls"]:
        return _NF
    return 200, search_item(repo, int(n))


def search_item(repo: dict[str, Any], number: int) -> dict[str, Any]:
    """A PR as an issue (search results, ``GET /issues/{n}``)."""
    p = pull_json(repo, number)
    return {
        "id": number,
        "number": number,
        "title": p["title"],
        "body": p["body"],
        "user": p["user"],
        "state": p["state"],
        "closed_at": p["closed_at"],
        "created_at": p["created_at"],
        "url": p["issue_url"],
        "html_url": p["html_url"],
        "labels": p["labels"],
        "repository_url": _repo_url(repo["full_name"]),
        "pull_request": {"url": p["url"], "html_url": p["html_url"], "merged_at": p["merged_at"]},
    }


def _check_runs(s: GitHubServer, q: _Req, m: re.Match[str]) -> tuple[int, Any]:
    repo = _repo_or_404(s, m)
    if not repo:
        return _NF
    runs = copy.deepcopy(repo.get("check_runs", {}).get(m.group("sha"), []))
    for i, r in enumerate(runs):
        r.setdefault("id", i + 1)
        r["head_sha"] = m.group("sha")
        r["url"] = f"{_repo_url(repo['full_name'])}/check-runs/{r['id']}"
    return 200, {"total_count": len(runs), "check_runs": runs}


def _status(s: GitHubServer, q: _Req, m: re.Match[str]) -> tuple[int, Any]:
    repo = _repo_or_404(s, m)
    if not repo:
        return _NF
    statuses = repo.get("statuses", {}).get(m.group("sha"), [])
    states = {x["state"] for x in statuses}
    state = (
        "failure"
        if states & {"failure", "error"}
        else ("pending" if "pending" in states or not states else "success")
    )
    return 200, {
        "state": state,
        "sha": m.group("sha"),
        "total_count": len(statuses),
        "statuses": statuses,
        "url": f"{_repo_url(repo['full_name'])}/commits/{m.group('sha')}/status",
    }


def _tree(s: GitHubServer, q: _Req, m: re.Match[str]) -> tuple[int, Any]:
    repo = _repo_or_404(s, m)
    if not repo or m.group("sha") not in repo["trees"]:
        return _NF
    full = repo["full_name"]
    entries = [
        dict(e, url=f"{_repo_url(full)}/git/blobs/{e['sha']}")
        for e in repo["trees"][m.group("sha")]
    ]
    if q.query.get("recursive") in (None, "", "0", "false"):
        entries = [e for e in entries if "/" not in e["path"]]
    # ``truncated_trees``: trees GitHub cuts short (over 100,000 entries or 7 MB).
    truncated = m.group("sha") in repo.get("truncated_trees", [])
    return 200, {
        "sha": m.group("sha"),
        "url": f"{_repo_url(full)}/git/trees/{m.group('sha')}",
        "tree": entries[: len(entries) // 2] if truncated else entries,
        "truncated": truncated,
    }


def _compare(s: GitHubServer, q: _Req, m: re.Match[str]) -> tuple[int, Any]:
    """``GET /compare/{base}...{head}``: the merge base (``merge_bases["base...head"]``, else
    the base itself); like GitHub's, its file list would stop at 300, so none is served."""
    repo = _repo_or_404(s, m)
    if not repo or m.group("head") not in repo["trees"]:
        return _NF
    full = repo["full_name"]
    base, head = m.group("base"), m.group("head")
    merge_base = repo.get("merge_bases", {}).get(f"{base}...{head}", base)

    def commit(sha: str) -> dict[str, Any]:
        return {"sha": sha, "url": f"{_repo_url(full)}/commits/{sha}"}

    return 200, {
        "url": f"{_repo_url(full)}/compare/{base}...{head}",
        "status": "ahead" if merge_base == base else "diverged",
        "base_commit": commit(base),
        "merge_base_commit": commit(merge_base),
        "ahead_by": 1,
        "behind_by": 0 if merge_base == base else 1,
        "total_commits": 1,
        "commits": [],
        "files": [],
    }


def _contents(s: GitHubServer, q: _Req, m: re.Match[str]) -> tuple[int, Any]:
    repo = _repo_or_404(s, m)
    if not repo:
        return _NF
    ref = q.query.get("ref") or repo["history"][0]["sha"]
    entry = _tree_entry(repo, ref, m.group("path"))
    data = _blob_bytes(repo, entry["sha"]) if entry else None
    if entry is None or data is None:
        return _NF
    full = repo["full_name"]
    big = len(data) > 1_048_576  # GitHub: over 1 MB, "encoding": "none" and no content
    return 200, {
        "type": "file",
        "name": entry["path"].rsplit("/", 1)[-1],
        "path": entry["path"],
        "sha": entry["sha"],
        "size": len(data),
        "encoding": "none" if big else "base64",
        "content": "" if big else base64.b64encode(data).decode("ascii"),
        "url": f"{_repo_url(full)}/contents/{entry['path']}?ref={ref}",
        "git_url": f"{_repo_url(full)}/git/blobs/{entry['sha']}",
        "html_url": f"https://github.com/{full}/blob/{ref}/{entry['path']}",
        "download_url": None,
    }


def _blob(s: GitHubServer, q: _Req, m: re.Match[str]) -> tuple[int, Any]:
    repo = _repo_or_404(s, m)
    data = _blob_bytes(repo, m.group("sha")) if repo else None
    if repo is None or data is None:
        return _NF
    return 200, {
        "sha": m.group("sha"),
        "size": len(data),
        "encoding": "base64",
        "content": base64.b64encode(data).decode("ascii"),
        "url": f"{_repo_url(repo['full_name'])}/git/blobs/{m.group('sha')}",
    }


def _commits(s: GitHubServer, q: _Req, m: re.Match[str]) -> tuple[int, Any]:
    repo = _repo_or_404(s, m)
    if not repo:
        return _NF
    path, since, until = q.query.get("path"), q.query.get("since"), q.query.get("until")
    out = []
    for c in repo["history"]:  # newest first, the default branch
        if path and path not in c.get("files", []):
            continue
        if since and c["date"] < since.replace("Z", "+00:00"):
            continue
        if until and c["date"] > until.replace("Z", "+00:00"):
            continue
        out.append(commit_json(repo, c))
    return 200, out


_QUALIFIER = re.compile(r'(\w+):("[^"]*"|\S+)|"([^"]*)"|(\S+)')


def _search_issues(s: GitHubServer, q: _Req, m: re.Match[str]) -> tuple[int, Any]:
    """A small subset of GitHub issue search: repo:, is:pr, is:merged, author:, merged:A..B, in:title, words."""
    qualifiers: dict[str, list[str]] = {}
    words: list[str] = []
    for qual, qval, phrase, word in _QUALIFIER.findall(q.query.get("q", "")):
        if qual:
            qualifiers.setdefault(qual.lower(), []).append(qval.strip('"'))
        else:
            words.append((phrase or word).lower())
    repos = qualifiers.get("repo", list(s.state.repos))
    items = []
    for full in repos:
        repo = s.state.repo(full)
        if not repo:
            continue
        for n, p in repo["pulls"].items():
            if "author" in qualifiers and p["author"] not in qualifiers["author"]:
                continue
            if "merged" in qualifiers.get("is", []) and not p.get("merged_at"):
                continue
            if "merged" in qualifiers:
                lo, _, hi = qualifiers["merged"][0].partition("..")
                day = (p.get("merged_at") or "")[:10]
                if not p.get("merged_at") or (lo and day < lo) or (hi and day > hi):
                    continue
            hay = (
                p["title"].lower()
                if "title" in qualifiers.get("in", [])
                else (p["title"] + "\n" + p["body"]).lower()
            )
            if any(w not in hay for w in words):
                continue
            items.append(search_item(repo, int(n)))
    items.sort(key=lambda i: i["number"], reverse=True)
    return 200, {"total_count": len(items), "incomplete_results": False, "items": items}


_GQL_FIELD = re.compile(r"(\w+): object\(expression: \$(\w+)\)")
_GQL_REPO = re.compile(r"repository\(owner: \$owner, name: \$name\)")


def _graphql(s: GitHubServer, q: _Req, m: re.Match[str]) -> tuple[int, Any]:
    """The one GraphQL shape prreport sends: blobs by ``"<commit>:<path>"`` expressions."""
    query = (q.body or {}).get("query", "")
    variables = (q.body or {}).get("variables", {})
    if not _GQL_REPO.search(query):
        return 200, {"errors": [{"message": "unsupported query in the test server"}]}
    repo = s.state.repo(f"{variables.get('owner')}/{variables.get('name')}")
    if repo is None:
        return 200, {
            "data": {"repository": None},
            "errors": [{"type": "NOT_FOUND", "message": "Could not resolve to a Repository"}],
        }
    out: dict[str, Any] = {}
    for alias, var in _GQL_FIELD.findall(query):
        ref, _, path = str(variables.get(var, "")).partition(":")
        entry = _tree_entry(repo, ref, path)
        data = _blob_bytes(repo, entry["sha"]) if entry else None
        if data is None:
            out[alias] = None
            continue
        binary = b"\0" in data[:8000]
        out[alias] = {
            "text": None if binary else data.decode("utf-8", "replace"),
            "isBinary": binary,
            "byteSize": len(data),
        }
    return 200, {"data": {"repository": out}}


_ROUTES: list[tuple[str, str, Handler]] = [
    ("POST", r"/graphql", _graphql),
    ("GET", _R, _get_repo),
    ("GET", _R + r"/pulls/(?P<n>\d+)", _get_pull),
    ("GET", _R + r"/pulls/(?P<n>\d+)/files", _pull_list("pull_files")),
    ("GET", _R + r"/pulls/(?P<n>\d+)/commits", _pull_list("pull_commits")),
    ("GET", _R + r"/pulls/(?P<n>\d+)/reviews", _pull_list("reviews")),
    ("GET", _R + r"/pulls/(?P<n>\d+)/comments", _pull_list("review_comments")),
    ("GET", _R + r"/issues/(?P<n>\d+)/comments", _pull_list("issue_comments")),
    ("GET", _R + r"/issues/(?P<n>\d+)", _get_issue),
    ("GET", _R + r"/commits/(?P<sha>[0-9a-f]+)/check-runs", _check_runs),
    ("GET", _R + r"/commits/(?P<sha>[0-9a-f]+)/status", _status),
    ("GET", _R + r"/commits", _commits),
    ("GET", _R + r"/git/trees/(?P<sha>[0-9a-f]+)", _tree),
    ("GET", _R + r"/compare/(?P<base>[0-9a-f]+)\.\.\.(?P<head>[0-9a-f]+)", _compare),
    ("GET", _R + r"/git/blobs/(?P<sha>[0-9a-f]+)", _blob),
    ("GET", _R + r"/contents/(?P<path>.+)", _contents),
    ("GET", r"/search/issues", _search_issues),
]
