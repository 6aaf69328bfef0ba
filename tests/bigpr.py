"""A 3,003-file pull request for the local GitHub server, generated in code (not on disk).

GitHub lists the first 3000 files of a PR: 2,999 deleted docs pages and an import hoisted in
``pkg/paths.py`` (alone, a proven pure refactor: "Safe to skim"). The three it leaves out are the ones that matter:
``pkg/auth.py`` changes ``return user.is_admin`` to ``return True``, a text file is renamed
unchanged and one is added. ``drift=True`` moves the base branch on after the PR branched (the
base commit changes ``pkg/drift.py``, which the PR never touched): only a diff from the merge
base is the PR's.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

REPO = "big/mono"
NUMBER = 500
PAGES = 2999
AUTH_BEFORE = "def can_edit(user):\n    return user.is_admin\n"
AUTH_AFTER = "def can_edit(user):\n    return True\n"
UNLISTED = ("pkg/auth.py", "assets/added.txt", "zz/new_name.txt")
# The one listed code change: an import hoisted to module level, a proven pure refactor.
PATHS_BEFORE = "def value():\n    import os\n\n    return os.sep\n"
PATHS_AFTER = "import os\n\n\ndef value():\n    return os.sep\n"


def _sha(seed: str) -> str:
    return hashlib.sha1(seed.encode()).hexdigest()


class _Tree:
    def __init__(self, blobs: dict[str, str]) -> None:
        self.blobs = blobs
        self.entries: dict[str, dict[str, Any]] = {}

    def put(self, path: str, text: str) -> str:
        data = text.encode()
        sha = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
        self.blobs[sha] = base64.b64encode(data).decode("ascii")
        self.entries[path] = {
            "path": path,
            "mode": "100644",
            "type": "blob",
            "sha": sha,
            "size": len(data),
        }
        return sha

    def listing(self) -> list[dict[str, Any]]:
        return [self.entries[p] for p in sorted(self.entries)]


def _file(path: str, status: str, sha: str, patch: str | None, adds: int, dels: int) -> dict:
    f: dict[str, Any] = {
        "filename": path,
        "status": status,
        "sha": sha,
        "additions": adds,
        "deletions": dels,
        "changes": adds + dels,
    }
    if patch is not None:
        f["patch"] = patch
    return f


def big_repo(drift: bool = False) -> dict[str, Any]:
    """The repository fixture (the shape of tests/fixtures/github/*.json)."""
    blobs: dict[str, str] = {}
    merge_base, head = _Tree(blobs), _Tree(blobs)
    files = []
    for i in range(1, PAGES + 1):
        # Deleted pages: their base comes from the patch, no request (the test stays quick).
        path = f"docs/page_{i:04d}.txt"
        sha = merge_base.put(path, f"page {i}\n")
        files.append(_file(path, "removed", sha, f"@@ -1 +0,0 @@\n-page {i}", 0, 1))
    merge_base.put("pkg/__init__.py", "")
    head.put("pkg/__init__.py", "")
    merge_base.put("pkg/paths.py", PATHS_BEFORE)
    sha = head.put("pkg/paths.py", PATHS_AFTER)
    patch = (
        "@@ -1,4 +1,5 @@\n-def value():\n-    import os\n+import os\n+\n \n+def value():\n"
        "     return os.sep"
    )
    files.append(_file("pkg/paths.py", "modified", sha, patch, 3, 2))
    # The three files past GitHub's 3000.
    merge_base.put("pkg/auth.py", AUTH_BEFORE)
    sha = head.put("pkg/auth.py", AUTH_AFTER)
    patch = "@@ -1,2 +1,2 @@\n def can_edit(user):\n-    return user.is_admin\n+    return True"
    files.append(_file("pkg/auth.py", "modified", sha, patch, 1, 1))
    sha = head.put("assets/added.txt", "new\n")
    files.append(_file("assets/added.txt", "added", sha, "@@ -0,0 +1 @@\n+new", 1, 0))
    merge_base.put("zz/old_name.txt", "moved unchanged\n")
    sha = head.put("zz/new_name.txt", "moved unchanged\n")
    renamed = _file("zz/new_name.txt", "renamed", sha, None, 0, 0)
    renamed["previous_filename"] = "zz/old_name.txt"
    files.append(renamed)
    # Unchanged files of both trees.
    for t in (merge_base, head):
        t.put("pkg/drift.py", "LEVEL = 1\n")
        t.put("README.md", "# mono\n")
    base_sha, head_sha, mb_sha = _sha("base"), _sha("head"), _sha("merge-base")
    trees = {head_sha: head.listing()}
    merge_bases = {}
    if drift:
        # The base branch moved on: its tip differs from the merge base in a file the PR
        # never touched.
        base = _Tree(blobs)
        base.entries = dict(merge_base.entries)
        base.put("pkg/drift.py", "LEVEL = 2\n")
        trees[base_sha] = base.listing()
        trees[mb_sha] = merge_base.listing()
        merge_bases[f"{base_sha}...{head_sha}"] = mb_sha
    else:
        trees[base_sha] = merge_base.listing()
    commit = {
        "sha": head_sha,
        "message": f"Hoist the os import, drop old pages (#{NUMBER})",
        "author": "Alice Author",
        "login": "alice",
        "date": "2026-07-10T10:00:00+00:00",
        "parents": [base_sha],
        "files": [],
    }
    return {
        "full_name": REPO,
        "default_branch": "main",
        "blobs": blobs,
        "trees": trees,
        "merge_bases": merge_bases,
        "history": [commit],
        "pulls": {
            str(NUMBER): {
                "title": "Hoist the os import, drop old pages",
                "body": "No behaviour change.",
                "author": "alice",
                "base_sha": base_sha,
                "head_sha": head_sha,
                "labels": [],
                "created_at": "2026-07-09T10:00:00+00:00",
                "merged_at": "2026-07-10T10:00:00+00:00",
                "merged_by": "maintainer",
            }
        },
        "pull_files": {str(NUMBER): files},
        "pull_commits": {str(NUMBER): [commit]},
        "reviews": {
            str(NUMBER): [
                {
                    "id": 1,
                    "author": "bob",
                    "body": "LGTM",
                    "state": "APPROVED",
                    "submitted_at": "2026-07-10T09:00:00+00:00",
                }
            ]
        },
        "review_comments": {},
        "issue_comments": {},
        "check_runs": {},
        "statuses": {},
    }
