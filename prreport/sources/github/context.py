"""Files at the PR head that analyzers ask for: from memory, a content store, GraphQL, or REST per file.

Texts at another commit (the merge base, for files the PR listing leaves out) go the same way.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from prreport.errors import GitHubError
from prreport.sources._text import decode_text
from prreport.sources.github.api import PullRequestApi
from prreport.sources.github.files import MAX_TEXT, TreeEntry

_GRAPHQL_BATCH = 50
_LIKELY_CAP = 100  # files prefetched for the cycle walk beyond the changed ones
# An import on a line of a patch (added, removed or context): ``from X import``, ``import X``.
_IMPORT_LINE = re.compile(
    r"^[ +-]\s*(?:from\s+(\.*[\w.]*)\s+import\b|import\s+([\w.]+(?:\s*,\s*[\w.]+)*))"
)

# A file named in the PR description: a path or a bare file name (``decode.py``).
_NAMED_FILE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+(?:\.[\w-]+)*\.py)(?![\w/])")


def likely_context(
    patches: dict[str, str | None], tree: Iterable[str], body: str = ""
) -> list[str]:
    """Files the analyzers will likely read first: the modules the changed files' patches
    import (resolved as paths in the head tree, any layout), the ``.py`` files the PR text
    names, and their packages' ``__init__.py``. A guess from text, fetched ahead in the same
    request as the head texts."""
    by_tail: dict[str, list[str]] = {}
    for p in tree:
        if p.endswith(".py"):
            by_tail.setdefault(posixpath.basename(p), []).append(p)
            if p.endswith("/__init__.py"):
                by_tail.setdefault(posixpath.basename(posixpath.dirname(p)) + "/", []).append(p)
    modules: set[str] = set()
    for path, patch in sorted(patches.items()):
        if not path.endswith(".py") or not patch:
            continue
        for line in patch.splitlines():
            m = _IMPORT_LINE.match(line)
            if m is None:
                continue
            if m.group(1) is not None:
                name = m.group(1)
                level = len(name) - len(name.lstrip("."))
                rel = name[level:].replace(".", "/")
                if level:
                    base = posixpath.dirname(path)
                    for _ in range(level - 1):
                        base = posixpath.dirname(base)
                    rel = posixpath.join(base, rel) if rel else base
                modules.add(rel)
            else:
                modules.update(n.strip().replace(".", "/") for n in m.group(2).split(","))
    found: set[str] = set()
    for token in _NAMED_FILE.findall(body):
        token = token.lstrip("./")
        for p in by_tail.get(posixpath.basename(token), []):
            if p == token or p.endswith("/" + token):
                found.add(p)
    for rel in sorted(modules):
        if not rel:
            continue
        leaf = posixpath.basename(rel)
        for p in by_tail.get(leaf + ".py", []) + by_tail.get(leaf + "/", []):
            stem = p.removesuffix("/__init__.py").removesuffix(".py")
            if stem == rel or stem.endswith("/" + rel):
                found.add(p)
    out = set(found)
    for p in found:  # the packages Python runs first
        d = posixpath.dirname(p)
        while d:
            init = f"{d}/__init__.py"
            if init in out or any(x == init for x in by_tail.get(posixpath.basename(d) + "/", [])):
                out.add(init)
            d = posixpath.dirname(d)
    return sorted(out - set(patches))[:_LIKELY_CAP]


class ContextFiles:
    """Head texts of one PR: the changed files' (``texts``) and others from the head ``tree``."""

    def __init__(
        self, api: PullRequestApi, tree: dict[str, TreeEntry], texts: dict[str, str | None]
    ) -> None:
        self._api = api
        self._tree = tree
        self._texts = texts
        self.head = ""  # the head commit, set once the PR is read
        self._graphql_ok = True
        # Texts fetched ahead (``prefetch``): (commit, path) -> (text, byte size); None text: binary.
        self._pre: dict[tuple[str, str], tuple[str | None, int]] = {}

    def prefetch(
        self,
        paths: Iterable[str],
        commit: str | None = None,
        tree: dict[str, TreeEntry] | None = None,
    ) -> None:
        """Fetch the texts of ``paths`` at ``commit`` (default: head, whose ``tree`` is known) in
        as few GraphQL requests as possible (one for up to 50 files), ahead of need: the changed
        files' head texts and the files a cycle walk will likely ask for come in the same
        request. Without GraphQL nothing is fetched here."""
        commit = commit or self.head
        tree = self._tree if tree is None else tree
        wanted = []
        for p in sorted(set(paths)):
            entry = tree.get(p)
            if entry is None or not 0 < entry.size <= MAX_TEXT or (commit, p) in self._pre:
                continue
            stored = self._stored(p, commit)
            if stored is not None:
                self._pre[(commit, p)] = stored
            else:
                wanted.append(p)
        if not wanted or not self._api.token or not self._graphql_ok:
            return
        try:
            for start in range(0, len(wanted), _GRAPHQL_BATCH):
                self._graphql_texts(
                    wanted[start : start + _GRAPHQL_BATCH],
                    commit,
                    "reading the changed files and the context files they likely need",
                )
        except GitHubError as exc:
            if "rejected the token" in str(exc) or "rate limit" in str(exc):
                raise
            self._graphql_ok = False  # fetched one by one (REST) when needed

    def prefetched(self, path: str, commit: str | None = None) -> tuple[str | None, int] | None:
        """(text, byte size) of ``path`` at ``commit`` (default: head) fetched ahead, if it was."""
        return self._pre.get((commit or self.head, path))

    def head_bytes(self, path: str, sha: str, what: str) -> bytes:
        """The bytes of a file at head (see ``bytes_at``)."""
        return self.bytes_at(path, sha, what)

    def bytes_at(self, path: str, sha: str, what: str, commit: str | None = None) -> bytes:
        """The bytes of blob ``sha`` at ``path`` in ``commit`` (default: head): from ``prefetch``
        when its text is faithful (valid UTF-8, the size GitHub reports), else one REST blob request."""
        got = self._pre.get((commit or self.head, path))
        if got is not None and got[0] is not None:
            data = got[0].encode("utf-8", "surrogatepass")
            if got[1] == len(data):
                return data
        return self._api.blob(sha, what)

    def fetch(self, paths: Iterable[str]) -> dict[str, str | None]:
        """Files at head: changed files from memory, others in one GraphQL request (or per-file REST)."""
        result: dict[str, str | None] = {}
        missing: list[str] = []
        for p in sorted(set(paths)):
            entry = self._tree.get(p)
            if p in self._texts:
                result[p] = self._texts[p]
            elif (self.head, p) in self._pre:
                result[p] = self._pre[(self.head, p)][0]
            elif entry is None:
                result[p] = None  # not in the head tree: no request
            elif entry.size == 0:
                result[p] = ""
            elif entry.size > MAX_TEXT:
                result[p] = None
            else:
                stored = self._stored(p, self.head)
                if stored is not None:
                    result[p] = stored[0]
                else:
                    missing.append(p)
        if missing and self._api.token and self._graphql_ok:
            try:
                for start in range(0, len(missing), _GRAPHQL_BATCH):
                    batch = missing[start : start + _GRAPHQL_BATCH]
                    result.update(
                        self._graphql_texts(batch, self.head, "reading the context files asked for")
                    )
                missing = []
            except GitHubError as exc:
                if "rejected the token" in str(exc) or "rate limit" in str(exc):
                    raise
                # Some servers or tokens have no GraphQL: fall back to one REST request per file.
                self._graphql_ok = False
        if missing:
            for p in missing:
                if p in result:
                    continue
                text, _, _ = decode_text(
                    self._api.blob(self._tree[p].sha, f"reading {p}"), MAX_TEXT
                )
                result[p] = text
                self._store(p, self.head, text)
        return result

    def _graphql_texts(
        self, paths: list[str], commit: str, what: str = "reading context files"
    ) -> dict[str, str | None]:
        """Texts of several files at ``commit`` in one GraphQL request (REST needs one per file)."""
        owner, name = self._api.repo_name.split("/")
        variables: dict[str, Any] = {"owner": owner, "name": name}
        fields = []
        for i, p in enumerate(paths):
            variables[f"e{i}"] = f"{commit}:{p}"
            fields.append(
                f"f{i}: object(expression: $e{i}) {{ ... on Blob {{ text isBinary byteSize }} }}"
            )
        decl = "".join(f", $e{i}: String!" for i in range(len(paths)))
        query = (
            f"query($owner: String!, $name: String!{decl}) {{ repository(owner: $owner, name: $name) {{ "
            + " ".join(fields)
            + " } }"
        )
        out: dict[str, str | None] = {}
        with self._api.calls(what):
            _headers, data = self._api.client().requester.graphql_query(query, variables)
            repo = (data.get("data") or {}).get("repository") or {}
            for i, p in enumerate(paths):
                blob = repo.get(f"f{i}")
                text = None if not blob or blob.get("isBinary") else blob.get("text")
                if text is not None and not isinstance(text, str):
                    raise TypeError(f"the text of {p} is a {type(text).__name__}")
                out[p] = text
                size = int(blob.get("byteSize") or 0) if blob else -1
                if blob:
                    self._pre[(commit, p)] = (text, size)
                self._store(p, commit, text, size)
        return out

    # Texts are addressed by (commit, path), which never change: a plain content store is
    # enough for them (the GraphQL POST cannot go through the HTTP cache).
    def _store_path(self, path: str, commit: str) -> Path | None:
        if self._api.content_dir is None:
            return None
        key = hashlib.sha256(f"{commit}\0{path}".encode()).hexdigest()
        return self._api.content_dir / key[:2] / f"{key}.json"

    def _stored(self, path: str, commit: str) -> tuple[str | None, int] | None:
        """(text, byte size at GitHub or -1) of a stored file."""
        p = self._store_path(path, commit)
        if p is None or not p.is_file():
            return None
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
            return (data["text"], int(data.get("size", -1)))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _store(self, path: str, commit: str, text: str | None, size: int = -1) -> None:
        p = self._store_path(path, commit)
        if p is None:
            return
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            tmp = p.with_suffix(".tmp")
            tmp.write_text(json.dumps({"path": path, "text": text, "size": size}), encoding="utf-8")
            os.replace(tmp, p)
        except OSError:
            pass  # the store only saves requests
