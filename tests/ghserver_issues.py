"""Digest endpoints for the local GitHub API server: the closed-PR list and issue writes.

``add_digest_routes(server, users)`` teaches a ``tests.ghserver.GitHubServer`` to list a
repository's pulls (``state``, ``sort=updated``, ``direction``; paginated by the server)
and to list, create and edit issues as GitHub does: ``since`` filters on the update
time, PRs appear in the issue list too, bodies over 65,536 characters get 422, and only
the author may edit. ``GET /user`` comes from ``tests.ghserver_comments``.
"""

from __future__ import annotations

import re
from typing import Any

from tests.ghserver import API, GitHubServer, pull_json, search_item, user
from tests.ghserver_comments import add_comment_routes

BODY_LIMIT = 65_536
_R = r"/repos/(?P<o>[^/]+)/(?P<r>[^/]+)"
_NF = (404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})
_CLOCK = ["2026-08-24T06:00:00Z"]


def _updated(p: dict[str, Any]) -> str:
    return str(p.get("updated_at") or p.get("merged_at") or p.get("created_at") or "")


def _norm(ts: str) -> str:
    """Timestamps compare as text once they all end in +00:00."""
    return ts.replace("Z", "+00:00")


def issue_json(full: str, i: dict[str, Any]) -> dict[str, Any]:
    """One (non-PR) issue as the API returns it."""
    n = i["number"]
    return {
        "id": 700000 + n,
        "number": n,
        "title": i["title"],
        "body": i["body"],
        "user": user(i["author"]),
        "state": i.get("state", "open"),
        "labels": [],
        "comments": 0,
        "created_at": i["created_at"],
        "updated_at": i["updated_at"],
        "closed_at": None,
        "url": f"{API}/repos/{full}/issues/{n}",
        "html_url": f"https://github.com/{full}/issues/{n}",
        "repository_url": f"{API}/repos/{full}",
    }


def add_digest_routes(server: GitHubServer, users: dict[str, str]) -> None:
    """Install the pull list and issue list/create/edit routes; ``users`` maps token -> login."""
    add_comment_routes(server, users)

    def who(q: Any) -> str | None:
        return users.get((q.headers.get("Authorization") or "").split(" ", 1)[-1])

    def repo_of(s: GitHubServer, m: re.Match[str]) -> dict[str, Any] | None:
        return s.state.repo(f"{m.group('o')}/{m.group('r')}")

    def list_pulls(s: GitHubServer, q: Any, m: re.Match[str]) -> tuple[int, Any]:
        repo = repo_of(s, m)
        if repo is None:
            return _NF
        state = q.query.get("state", "open")
        items = []
        for n, p in repo["pulls"].items():
            if state != "all" and p.get("state", "closed") != state:
                continue
            pj = pull_json(repo, int(n))
            pj["updated_at"] = _updated(p)
            items.append(pj)
        if q.query.get("sort") == "updated":
            items.sort(
                key=lambda x: (_norm(x["updated_at"]), x["number"]),
                reverse=q.query.get("direction", "desc") == "desc",
            )
        else:
            items.sort(
                key=lambda x: x["number"], reverse=q.query.get("direction", "desc") == "desc"
            )
        return 200, items

    def issues(repo: dict[str, Any]) -> list[dict[str, Any]]:
        return repo.setdefault("issues", [])

    def list_issues(s: GitHubServer, q: Any, m: re.Match[str]) -> tuple[int, Any]:
        repo = repo_of(s, m)
        if repo is None:
            return _NF
        full = repo["full_name"]
        state, since = q.query.get("state", "open"), q.query.get("since")
        items = [issue_json(full, i) for i in issues(repo)]
        for n, p in repo["pulls"].items():  # GitHub lists PRs among issues
            item = search_item(repo, int(n))
            item["updated_at"] = _updated(p)
            items.append(item)
        if state != "all":
            items = [i for i in items if i["state"] == state]
        if since:
            items = [i for i in items if _norm(i["updated_at"]) >= _norm(since)]
        items.sort(key=lambda i: i["number"], reverse=True)
        return 200, items

    def too_long(body: str) -> tuple[int, Any] | None:
        if len(body.encode("utf-16-le")) // 2 > BODY_LIMIT:
            return 422, {
                "message": "Validation Failed",
                "errors": [
                    {
                        "resource": "Issue",
                        "code": "custom",
                        "field": "body",
                        "message": f"body is too long (maximum is {BODY_LIMIT} characters)",
                    }
                ],
            }
        return None

    def create_issue(s: GitHubServer, q: Any, m: re.Match[str]) -> tuple[int, Any]:
        repo = repo_of(s, m)
        login = who(q)
        if repo is None:
            return _NF
        if login is None:
            return 401, {"message": "Bad credentials"}
        body = (q.body or {}).get("body", "")
        refused = too_long(body)
        if refused:
            return refused
        taken = {i["number"] for i in issues(repo)} | {int(n) for n in repo["pulls"]}
        number = max(taken, default=0) + 1
        item = {
            "number": number,
            "title": (q.body or {}).get("title", ""),
            "body": body,
            "author": login,
            "created_at": _CLOCK[0],
            "updated_at": _CLOCK[0],
        }
        issues(repo).append(item)
        return 201, issue_json(repo["full_name"], item)

    def find(
        s: GitHubServer, m: re.Match[str]
    ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        repo = repo_of(s, m)
        if repo is None:
            return None, None
        hit = next((i for i in issues(repo) if str(i["number"]) == m.group("n")), None)
        return repo, hit

    def get_issue(s: GitHubServer, q: Any, m: re.Match[str]) -> tuple[int, Any]:
        repo, item = find(s, m)
        if repo is not None and item is not None:
            return 200, issue_json(repo["full_name"], item)
        if repo is not None and m.group("n") in repo["pulls"]:
            return 200, search_item(repo, int(m.group("n")))
        return _NF

    def edit_issue(s: GitHubServer, q: Any, m: re.Match[str]) -> tuple[int, Any]:
        repo, item = find(s, m)
        if repo is None or item is None:
            return _NF
        if who(q) != item["author"]:
            return 403, {"message": "You must have write access to edit another user's issue"}
        body = (q.body or {}).get("body", item["body"])
        refused = too_long(body)
        if refused:
            return refused
        item["body"] = body
        item["title"] = (q.body or {}).get("title", item["title"])
        item["updated_at"] = "2026-08-25T06:00:00Z"
        return 200, issue_json(repo["full_name"], item)

    server.route("GET", _R + r"/pulls", list_pulls)
    server.route("GET", _R + r"/issues", list_issues)
    server.route("POST", _R + r"/issues", create_issue)
    server.route("GET", _R + r"/issues/(?P<n>\d+)", get_issue)
    server.route("PATCH", _R + r"/issues/(?P<n>\d+)", edit_issue)


def issues_of(server: GitHubServer, full: str) -> list[dict[str, Any]]:
    """The stored (non-PR) issues of a repository."""
    repo = server.state.repo(full)
    assert repo is not None
    return list(repo.get("issues", []))
