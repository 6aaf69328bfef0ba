"""Files at the PR head that analyzers ask for: from memory, a content store, GraphQL, or REST per file."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from prreport.errors import GitHubError
from prreport.sources._text import decode_text
from prreport.sources.github.api import PullRequestApi
from prreport.sources.github.files import MAX_TEXT, TreeEntry

_GRAPHQL_BATCH = 50


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

    def fetch(self, paths: Iterable[str]) -> dict[str, str | None]:
        """Files at head: changed files from memory, others in one GraphQL request (or per-file REST)."""
        result: dict[str, str | None] = {}
        missing: list[str] = []
        for p in sorted(set(paths)):
            entry = self._tree.get(p)
            if p in self._texts:
                result[p] = self._texts[p]
            elif entry is None:
                result[p] = None  # not in the head tree: no request
            elif entry.size == 0:
                result[p] = ""
            elif entry.size > MAX_TEXT:
                result[p] = None
            else:
                stored = self._stored(p)
                if stored is not None:
                    result[p] = stored[0]
                else:
                    missing.append(p)
        if missing and self._api.token and self._graphql_ok:
            try:
                for start in range(0, len(missing), _GRAPHQL_BATCH):
                    batch = missing[start : start + _GRAPHQL_BATCH]
                    result.update(self._graphql_texts(batch))
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
                self._store(p, text)
        return result

    def _graphql_texts(self, paths: list[str]) -> dict[str, str | None]:
        """Texts of several files at head in one GraphQL request (REST needs one per file)."""
        owner, name = self._api.repo_name.split("/")
        variables: dict[str, Any] = {"owner": owner, "name": name}
        fields = []
        for i, p in enumerate(paths):
            variables[f"e{i}"] = f"{self.head}:{p}"
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
        with self._api.calls("reading context files"):
            _headers, data = self._api.client().requester.graphql_query(query, variables)
            repo = (data.get("data") or {}).get("repository") or {}
            for i, p in enumerate(paths):
                blob = repo.get(f"f{i}")
                text = None if not blob or blob.get("isBinary") else blob.get("text")
                if text is not None and not isinstance(text, str):
                    raise TypeError(f"the text of {p} is a {type(text).__name__}")
                out[p] = text
        for p, text in out.items():
            self._store(p, text)
        return out

    # Context texts are addressed by (head commit, path), which never change: a plain
    # content store is enough for them (the GraphQL POST cannot go through the HTTP cache).
    def _store_path(self, path: str) -> Path | None:
        if self._api.content_dir is None:
            return None
        key = hashlib.sha256(f"{self.head}\0{path}".encode()).hexdigest()
        return self._api.content_dir / key[:2] / f"{key}.json"

    def _stored(self, path: str) -> tuple[str | None] | None:
        p = self._store_path(path)
        if p is None or not p.is_file():
            return None
        try:
            return (json.loads(p.read_text(encoding="utf-8"))["text"],)
        except (OSError, ValueError, KeyError):
            return None

    def _store(self, path: str, text: str | None) -> None:
        p = self._store_path(path)
        if p is None:
            return
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            tmp = p.with_suffix(".tmp")
            tmp.write_text(json.dumps({"path": path, "text": text}), encoding="utf-8")
            os.replace(tmp, p)
        except OSError:
            pass  # the store only saves requests
