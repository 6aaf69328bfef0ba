"""PR comment endpoints for the local GitHub API server: ``GET /user`` and issue-comment writes.

``add_comment_routes(server, users)`` teaches a ``tests.ghserver.GitHubServer`` who each
token belongs to and lets it create, edit and delete issue comments the way GitHub does:
422 for a body over 65,536 characters, 403 when editing someone else's comment, and 403
on ``GET /user`` for an Actions-style token (whose comments are by ``github-actions[bot]``).
"""

from __future__ import annotations

import re
from typing import Any

from tests.ghserver import API, GitHubServer, user

ACTIONS_BOT = "github-actions[bot]"
BODY_LIMIT = 65_536
_R = r"/repos/(?P<o>[^/]+)/(?P<r>[^/]+)"
_NF = (404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})


def comment_json(full: str, number: str, c: dict[str, Any]) -> dict[str, Any]:
    """One issue comment as the API returns it."""
    return {
        "id": c["id"],
        "body": c["body"],
        "user": user(c["author"]),
        "created_at": c.get("created_at", "2026-08-20T10:00:00Z"),
        "updated_at": c.get("updated_at", c.get("created_at", "2026-08-20T10:00:00Z")),
        "url": f"{API}/repos/{full}/issues/comments/{c['id']}",
        "html_url": f"https://github.com/{full}/pull/{number}#issuecomment-{c['id']}",
        "issue_url": f"{API}/repos/{full}/issues/{number}",
        "author_association": "NONE",
    }


def add_comment_routes(
    server: GitHubServer, users: dict[str, str], actions_tokens: frozenset[str] = frozenset()
) -> None:
    """Install ``GET /user`` and issue-comment POST/PATCH/DELETE; ``users`` maps token -> login."""

    def who(auth: str) -> str | None:
        token = auth.split(" ", 1)[-1] if auth else ""
        if token in actions_tokens:
            return ACTIONS_BOT
        return users.get(token)

    def get_user(s: GitHubServer, q: Any, m: re.Match[str]) -> tuple[int, Any]:
        token = (q.headers.get("Authorization") or "").split(" ", 1)[-1]
        if token in actions_tokens:
            return 403, {"message": "Resource not accessible by integration"}
        login = users.get(token)
        return (200, user(login)) if login else (401, {"message": "Bad credentials"})

    def create(s: GitHubServer, q: Any, m: re.Match[str]) -> tuple[int, Any]:
        repo = s.state.repo(f"{m.group('o')}/{m.group('r')}")
        n = m.group("n")
        login = who(q.headers.get("Authorization") or "")
        if repo is None or n not in repo["pulls"]:
            return _NF
        if login is None:
            return 401, {"message": "Bad credentials"}
        body = (q.body or {}).get("body", "")
        if len(body) > BODY_LIMIT:
            return 422, {
                "message": "Validation Failed",
                "errors": [
                    {
                        "resource": "IssueComment",
                        "code": "custom",
                        "field": "body",
                        "message": f"body is too long (maximum is {BODY_LIMIT} characters)",
                    }
                ],
            }
        c = {"id": s.state.new_id(), "author": login, "body": body}
        repo["issue_comments"].setdefault(n, []).append(c)
        return 201, comment_json(repo["full_name"], n, c)

    def find(
        s: GitHubServer, m: re.Match[str]
    ) -> tuple[dict[str, Any] | None, str, dict[str, Any] | None]:
        repo = s.state.repo(f"{m.group('o')}/{m.group('r')}")
        if repo is None:
            return None, "", None
        for n, comments in repo["issue_comments"].items():
            for c in comments:
                if str(c.get("id")) == m.group("id"):
                    return repo, n, c
        return repo, "", None

    def edit(s: GitHubServer, q: Any, m: re.Match[str]) -> tuple[int, Any]:
        repo, n, c = find(s, m)
        if repo is None or c is None:
            return _NF
        if who(q.headers.get("Authorization") or "") != c["author"]:
            return 403, {"message": "You must have write access to edit another user's comment"}
        body = (q.body or {}).get("body", "")
        if len(body) > BODY_LIMIT:
            return 422, {"message": "Validation Failed"}
        c["body"] = body
        c["updated_at"] = "2026-08-21T10:00:00Z"
        return 200, comment_json(repo["full_name"], n, c)

    def delete(s: GitHubServer, q: Any, m: re.Match[str]) -> tuple[int, Any]:
        repo, n, c = find(s, m)
        if repo is None or c is None:
            return _NF
        if who(q.headers.get("Authorization") or "") != c["author"]:
            return 403, {"message": "Forbidden"}
        repo["issue_comments"][n].remove(c)
        return 204, None

    server.route("GET", r"/user", get_user)
    server.route("POST", _R + r"/issues/(?P<n>\d+)/comments", create)
    server.route("PATCH", _R + r"/issues/comments/(?P<id>\d+)", edit)
    server.route("DELETE", _R + r"/issues/comments/(?P<id>\d+)", delete)


def comments_on(server: GitHubServer, full: str, number: int) -> list[dict[str, Any]]:
    """The stored comments of a PR (author, body, id), in creation order."""
    repo = server.state.repo(full)
    assert repo is not None
    return list(repo["issue_comments"].get(str(number), []))


def writes(server: GitHubServer) -> list[str]:
    """The recorded write requests (``METHOD path``)."""
    return [
        f"{r.method} {r.path}"
        for r in server.requests
        if r.method in ("POST", "PATCH", "PUT", "DELETE")
    ]
