"""One changed file of a PR as a FileChange: the head text from its blob, the base text from its patch.

The base text is rebuilt by reverse-applying the file's complete patch to the head text;
only when that is impossible does the contents API fetch it at the base commit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from github.GithubException import UnknownObjectException

from prreport.bundle import FileChange
from prreport.sources._text import decode_text
from prreport.sources.github.api import PullRequestApi
from prreport.sources.github.patch import reverse_apply
from prreport.textlines import source_encoding

_STATUS = {"removed": "deleted", "changed": "modified", "unchanged": "modified"}
MAX_TEXT = 1_048_576  # same limit as the git source: larger files are noted, not analysed


class TreeEntry:
    """A blob of the head tree: its SHA and size."""

    __slots__ = ("sha", "size")

    def __init__(self, sha: str, size: int) -> None:
        self.sha = sha
        self.size = size


def file_change(
    api: PullRequestApi,
    f: Any,
    base_sha: str,
    tree: dict[str, TreeEntry],
    texts: dict[str, str | None],
    head_bytes: Callable[[str, str, str], bytes] | None = None,
) -> FileChange:
    """One listed file of the PR (``f``) with its texts; the head text is also kept in ``texts``.

    ``head_bytes(path, blob sha, what)`` reads the head text (default: one blob request).
    """
    # Long: one decision list over GitHub's file states (binary, empty, too large, patched).
    status = _STATUS.get(f.status, f.status)
    path = f.filename
    old_path = f.previous_filename if status in ("renamed", "copied") else None
    patch = f.patch
    if patch is not None and not patch.endswith("\n"):
        patch += "\n"  # as git writes it: the source-neutral form
    before = after = None
    note = None
    binary = False
    adds, dels = f.additions, f.deletions
    entry = tree.get(path)
    what = f"reading {path}"
    if patch is None and f.changes == 0 and status in ("added", "modified", "deleted"):
        # GitHub gives no patch and no line counts for a binary file; an empty file has size 0.
        size = entry.size if entry else (0 if status == "deleted" else 1)
        if size == 0 and status != "deleted":
            return FileChange(
                path, status, 0, 0, old_path, False, None, None if status == "added" else "", ""
            )
        return FileChange(path, status, 0, 0, old_path, True, None, None, None)
    if status != "deleted":
        if entry is not None and entry.size > MAX_TEXT:
            # The git source's limit: such a file is noted, not analysed, so not fetched.
            note = f"too large ({entry.size} bytes > {MAX_TEXT})"
        else:
            read = head_bytes or (lambda _p, sha, w: api.blob(sha, w))
            data = read(path, f.sha, what) if (entry is None or entry.size) else b""
            after, binary, note = decode_text(data, MAX_TEXT)
    if binary:
        return FileChange(path, status, 0, 0, old_path, True, None, None, None)
    if status == "added":
        before = None
    elif status == "deleted":
        if patch is not None:
            before = _patch_text(reverse_apply("", patch, adds, dels))
        if before is None:
            before, binary, note = decode_text(api.blob(f.sha, what), MAX_TEXT)
    elif after is not None and patch is not None:
        before = _patch_text(reverse_apply(after, patch, adds, dels))
    elif after is not None and f.changes == 0:
        before = after  # a pure rename or copy
    if before is None and status not in ("added",) and not binary and after is not None:
        base_data = _contents_at(
            api, old_path or path, base_sha, f"reading {old_path or path} at the base"
        )
        if base_data is not None:
            before, is_bin, why = decode_text(base_data, MAX_TEXT)
            binary = binary or is_bin
            note = note or why
    if binary:
        return FileChange(path, status, 0, 0, old_path, True, None, None, None)
    texts[path] = after
    return FileChange(path, status, adds, dels, old_path, False, patch, before, after, note)


def _patch_text(text: str | None) -> str | None:
    """A text rebuilt from GitHub's patch, or None when the patch may not hold the file's text:
    a file in another encoding (PEP 263) or with bytes GitHub replaced is read from its blob."""
    if text is None or "\ufffd" in text:
        return None
    head = "\n".join(text.split("\n", 2)[:2]).encode("utf-8", "surrogatepass")
    return text if source_encoding(head).startswith("utf-8") else None


def _contents_at(api: PullRequestApi, path: str, ref: str, what: str) -> bytes | None:
    """A file at ``ref`` through the contents API (the blobs API for files over 1 MB)."""
    with api.calls(
        what,
        missing=f"{path} is missing at the base {ref[:12]} of {api.repo_name} PR #{api.number}",
    ):
        try:
            cf = api.repo().get_contents(path, ref=ref)
        except UnknownObjectException:
            api.notes.append(
                f"{path}: not found at the base {ref[:12]}; its before text is missing"
            )
            return None
        if isinstance(cf, list):
            return None
        if cf.encoding == "none" or (cf.size or 0) > 1_000_000:
            return api.blob(cf.sha, what)
        return cf.decoded_content
