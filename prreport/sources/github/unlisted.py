"""Changed files the PR files listing leaves out (GitHub lists at most 3000), from the git trees.

The PR's diff is the one from the merge base of its base and head to its head (the compare
API names the merge base; its own file list stops at 300). Two recursive tree listings, the
merge base's and the head's, give every blob: a path whose blob or mode differs, or that is on
one side only, is changed, and one that the listing did not name is a file it left out. Their
texts come in the GraphQL batches the other files use (50 a request), at most ``cap`` files;
whatever cannot be read this way (a truncated tree, a failed request, the cap) is counted as
not seen, so the report can say so rather than call an incomplete analysis complete.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from prreport.bundle import FileChange
from prreport.classify import category
from prreport.errors import GitHubError
from prreport.sources._text import decode_text
from prreport.sources.github.api import PullRequestApi
from prreport.sources.github.context import ContextFiles
from prreport.sources.github.files import MAX_TEXT, TreeEntry
from prreport.sources.github.patch import unified_patch

# Files read beyond the listing: with GraphQL two batched requests per 50 files (base and
# head), without it (no token) two REST requests per file.
CAP_GRAPHQL = 1000
CAP_REST = 100
# Categories whose changes can alter what the shipped code does: read first under the cap.
_FIRST = ("source", "build", "config")


@dataclass(frozen=True)
class TreeItem:
    """One entry of a recursive git tree listing: a blob (file, symlink) or a commit (submodule)."""

    type: str
    mode: str
    sha: str
    size: int


@dataclass(frozen=True)
class TreeChange:
    """A path that differs between two trees: ``base`` or ``head`` is None on the missing side."""

    path: str
    status: str  # added | deleted | modified | renamed
    old_path: str | None
    base: TreeItem | None
    head: TreeItem | None

    @property
    def before_path(self) -> str:
        """The path at the base."""
        return self.old_path or self.path


@dataclass(frozen=True)
class UnlistedPlan:
    """What to read beyond the listing, how many changed files will not be seen, and why."""

    merge_base: str = ""
    changes: tuple[TreeChange, ...] = ()
    base_tree: dict[str, TreeEntry] = field(default_factory=dict)
    unseen: int = 0
    notes: tuple[str, ...] = ()

    @property
    def head_paths(self) -> list[str]:
        """The head paths whose texts ``read_unlisted`` will read."""
        return [c.path for c in self.changes if c.head and c.head.type == "blob"]

    @property
    def base_paths(self) -> list[str]:
        """The merge-base paths whose texts ``read_unlisted`` will read."""
        return [c.before_path for c in self.changes if c.base and c.base.type == "blob"]


def read_tree(api: PullRequestApi, sha: str, what: str) -> tuple[dict[str, TreeItem], bool]:
    """The blobs and submodules of the tree of commit ``sha`` (one request), and whether GitHub
    truncated the listing (over 100,000 entries or 7 MB)."""
    with api.calls(what):
        tree = api.repo().get_git_tree(sha, recursive=True)
        items = {
            e.path: TreeItem(e.type, e.mode or "", e.sha, e.size or 0)
            for e in tree.tree
            if e.type in ("blob", "commit")
        }
        return items, bool(tree.raw_data.get("truncated"))


def tree_changes(
    base: dict[str, TreeItem], head: dict[str, TreeItem], named: Iterable[str] = ()
) -> list[TreeChange]:
    """The paths that differ between ``base`` and ``head``, except those in ``named``, sorted;
    a deleted and an added path of the same blob are one rename (as GitHub counts it)."""
    skip = set(named)
    changed: list[TreeChange] = []
    deleted: dict[tuple[str, str], list[str]] = {}
    for path in sorted(set(base) | set(head)):
        if path in skip:
            continue
        b, h = base.get(path), head.get(path)
        if b == h:
            continue
        if h is None:
            assert b is not None
            deleted.setdefault((b.type, b.sha), []).append(path)
        elif b is None:
            changed.append(TreeChange(path, "added", None, None, h))
        else:
            changed.append(TreeChange(path, "modified", None, b, h))
    out: list[TreeChange] = []
    for c in changed:
        assert c.head is not None
        pool = deleted.get((c.head.type, c.head.sha)) if c.status == "added" else None
        if pool:
            old = pool.pop(0)
            out.append(TreeChange(c.path, "renamed", old, base[old], c.head))
        else:
            out.append(c)
    for paths in deleted.values():
        out.extend(TreeChange(p, "deleted", None, base[p], None) for p in paths)
    return sorted(out, key=lambda c: c.path)


def _first(c: TreeChange) -> tuple[bool, bool, str]:
    """Read order under the cap: library code (Python first), build and config, then the rest."""
    return (category(c.path) not in _FIRST, not c.path.endswith(".py"), c.path)


def plan_unlisted(
    api: PullRequestApi,
    listed: list[Any],
    changed: int,
    pr_shas: tuple[str, str],
    head: tuple[dict[str, TreeItem], bool],
    cap: int,
) -> UnlistedPlan:
    """Which files of a PR of ``changed`` files the ``listed`` ones leave out, from the trees of
    the merge base of ``pr_shas`` (base, head) and the ``head`` (its items and whether GitHub
    truncated them): at most ``cap`` to read, the rest not seen. Costs one compare and one
    tree request."""
    expected = changed - len(listed)
    listed_of = f"GitHub listed {len(listed)} of the {changed} changed files"
    head_items, head_truncated = head
    if head_truncated:
        return _unseen(expected, changed, f"{listed_of} and truncated the head tree listing")
    try:
        with api.calls("reading the merge base (compare)"):
            merge_base = api.repo().compare(*pr_shas).merge_base_commit.sha
        base_items, base_truncated = read_tree(api, merge_base, "reading the merge-base tree")
    except GitHubError as exc:
        if "rejected the token" in str(exc) or "rate limit" in str(exc):
            raise
        return _unseen(expected, changed, f"{listed_of}; the git trees could not be read ({exc})")
    if base_truncated:
        return _unseen(expected, changed, f"{listed_of} and truncated the merge-base tree listing")
    named = {f.filename for f in listed} | {f.previous_filename for f in listed}
    found = tree_changes(base_items, head_items, (p for p in named if p))
    chosen = tuple(sorted(found, key=_first)[:cap])
    notes = []
    if len(found) > expected:
        # The listing counts a renamed and edited file once; the trees show its two paths.
        notes.append(
            f"{listed_of}; the git trees show {len(found)} other changed paths where GitHub "
            f"counts {expected} files (a renamed file with edits is a deletion and an addition there)"
        )
    unseen = len(found) - len(chosen) + max(0, expected - len(found))
    read = f"{len(chosen)} more read from the git trees of the merge base and the head"
    if unseen:
        why = (
            f"at most {cap} are read that way"
            if len(found) > len(chosen)
            else "the trees show fewer changes than GitHub counts"
        )
        notes.append(f"{listed_of}, {read}: {unseen} of {changed} were not seen ({why})")
    else:
        notes.append(f"{listed_of}, {read}: all {changed} analysed")
    base_tree = {p: TreeEntry(i.sha, i.size) for p, i in base_items.items() if i.type == "blob"}
    return UnlistedPlan(merge_base, chosen, base_tree, unseen, tuple(notes))


def read_unlisted(
    api: PullRequestApi, context: ContextFiles, plan: UnlistedPlan, texts: dict[str, str | None]
) -> tuple[FileChange, ...]:
    """The planned files with their texts (head texts also kept in ``texts``): the head's from
    what was prefetched, the merge base's in GraphQL batches, REST for what they missed."""
    context.prefetch(plan.base_paths, plan.merge_base, plan.base_tree)
    with api.calls("reading the files the listing leaves out"):
        return tuple(_file_change(context, c, plan.merge_base, texts) for c in plan.changes)


def _unseen(unseen: int, changed: int, why: str) -> UnlistedPlan:
    return UnlistedPlan(
        unseen=unseen, notes=(f"{why}: {unseen} of {changed} changed files were not seen",)
    )


def _file_change(
    context: ContextFiles, c: TreeChange, merge_base: str, texts: dict[str, str | None]
) -> FileChange:
    """One unlisted change with its texts and a patch written from them."""
    if any(i is not None and i.type != "blob" for i in (c.base, c.head)):
        return FileChange(c.path, c.status, 0, 0, c.old_path, True, note="a submodule")
    after = before = None
    binary = False
    note = None
    if c.head is not None:
        after, binary, note = _text(context, c.path, c.head, None)
    if c.base is not None and not binary:
        before, binary, why = _text(context, c.before_path, c.base, merge_base)
        note = note or why
    if binary:
        return FileChange(c.path, c.status, 0, 0, c.old_path, True)
    if (c.head is not None and after is None) or (c.base is not None and before is None):
        return FileChange(c.path, c.status, 0, 0, c.old_path, False, None, before, after, note)
    patch, additions, deletions = unified_patch(before or "", after or "")
    texts[c.path] = after
    return FileChange(
        c.path, c.status, additions, deletions, c.old_path, False, patch, before, after
    )


def _text(
    context: ContextFiles, path: str, item: TreeItem, commit: str | None
) -> tuple[str | None, bool, str | None]:
    """(text, binary, note) of a blob: prefetched, else one REST request; none over the limit."""
    if item.size > MAX_TEXT:
        return None, False, f"too large ({item.size} bytes > {MAX_TEXT})"
    if item.size == 0:
        return "", False, None
    got = context.prefetched(path, commit)
    if got is not None and got[0] is None and got[1] >= 0:
        return None, True, None  # GraphQL said binary: no need to fetch it
    return decode_text(context.bytes_at(path, item.sha, f"reading {path}", commit), MAX_TEXT)
