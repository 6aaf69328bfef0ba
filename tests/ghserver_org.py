"""Organisation endpoints for the local GitHub API server: an owner's repository listing.

``add_org_routes(server, listing)`` answers ``GET /orgs/{org}/repos`` (paginated by the
server) from ``listing``: owner -> repository records (``full_name``, ``archived``, ``fork``,
``pushed_at``). An owner not in it is a 404, as GitHub answers for an unknown organisation;
``GET /users/{user}/repos`` serves the same records for owners listed as users.
"""

from __future__ import annotations

import re
from typing import Any

from tests.ghserver import GitHubServer, user

_NF = (404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})


def _repo_record(r: dict[str, Any]) -> dict[str, Any]:
    owner, name = r["full_name"].split("/")
    return {
        "id": abs(hash(r["full_name"])) % 10**8,
        "name": name,
        "full_name": r["full_name"],
        "owner": user(owner),
        "private": False,
        "url": f"{{api}}/repos/{r['full_name']}",
        "html_url": f"https://github.com/{r['full_name']}",
        "archived": bool(r.get("archived")),
        "fork": bool(r.get("fork")),
        "pushed_at": r.get("pushed_at"),
        "default_branch": "main",
    }


def add_org_routes(
    server: GitHubServer, orgs: dict[str, list[dict[str, Any]]], users: tuple[str, ...] = ()
) -> None:
    """Install the owner listings (organisations in ``orgs``; the owners in ``users`` as users)."""

    def listing(kind: str) -> Any:
        def handler(s: GitHubServer, q: Any, m: re.Match[str]) -> tuple[int, Any]:
            owner = m.group("o")
            if owner not in orgs or (kind == "orgs") == (owner in users):
                return _NF
            return 200, [_repo_record(r) for r in orgs[owner]]

        return handler

    def get_user(s: GitHubServer, q: Any, m: re.Match[str]) -> tuple[int, Any]:
        return (200, user(m.group("o"))) if m.group("o") in users else _NF

    server.route("GET", r"/users/(?P<o>[^/]+)", get_user)
    server.route("GET", r"/orgs/(?P<o>[^/]+)/repos", listing("orgs"))
    server.route("GET", r"/users/(?P<o>[^/]+)/repos", listing("users"))
