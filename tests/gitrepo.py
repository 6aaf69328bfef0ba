"""Build real git repositories in temp dirs for tests (commits from file dictionaries)."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path

from prreport.config import Config, GitConfig
from prreport.pipeline import Analysis, analyse, gather
from prreport.sources.git import GitSource

_ENV_BASE = {
    "GIT_AUTHOR_NAME": "Alice Author",
    "GIT_AUTHOR_EMAIL": "alice@example.com",
    "GIT_COMMITTER_NAME": "Carol Committer",
    "GIT_COMMITTER_EMAIL": "carol@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_SYSTEM": os.devnull,
}


class Repo:
    """A scratch git repository with helpers to commit whole file sets."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        self._tick = 0

    def git(self, *args: str, author: str | None = None, date: str | None = None) -> str:
        """Run git in the repository and return stdout."""
        env = dict(os.environ, **_ENV_BASE)
        if author:
            env["GIT_AUTHOR_NAME"] = author
        if date:
            env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
        out = subprocess.run(
            ["git", "-C", str(self.path), *args], check=True, capture_output=True, env=env
        )
        return out.stdout.decode("utf-8", "replace")

    def write(self, files: Mapping[str, str | bytes | None]) -> None:
        """Write (str/bytes) or delete (None) files in the work tree."""
        for rel, content in files.items():
            p = self.path / rel
            if content is None:
                if p.exists():
                    p.unlink()
                continue
            p.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                p.write_bytes(content)
            else:
                p.write_text(content, encoding="utf-8")

    def commit(
        self,
        message: str,
        files: Mapping[str, str | bytes | None] | None = None,
        author: str | None = None,
        date: str | None = None,
    ) -> str:
        """Write files, stage everything, commit, and return the new SHA."""
        if files:
            self.write(files)
        self.git("add", "-A")
        self._tick += 1
        date = date or f"2026-08-{10 + self._tick // 24:02d}T{self._tick % 24:02d}:00:00+00:00"
        self.git("commit", "-q", "--allow-empty", "-m", message, author=author, date=date)
        return self.head()

    def head(self) -> str:
        """SHA of HEAD."""
        return self.git("rev-parse", "HEAD").strip()

    def numstat(self, base: str, head: str) -> dict[str, tuple[int, int]]:
        """``git diff --numstat -M`` as path -> (additions, deletions); binary files as (0, 0)."""
        out = self.git("diff", "--numstat", "-M", "-z", base, head)
        result: dict[str, tuple[int, int]] = {}
        fields = out.split("\0")
        i = 0
        while i < len(fields):
            tok = fields[i]
            if not tok:
                i += 1
                continue
            add, dele, path = tok.split("\t")
            if path == "":
                path = fields[i + 2]
                i += 3
            else:
                i += 1
            result[path] = (0 if add == "-" else int(add), 0 if dele == "-" else int(dele))
        return result


def analyse_commit(
    root: Path,
    base: dict[str, str | None],
    change: dict[str, str | None],
    message: str = "refactor(pkg): tidy up (#7)",
) -> Analysis:
    """Commit ``base`` then ``change`` in a new repository under ``root`` and analyse the PR
    the second commit's subject names, through the real git source and pipeline."""
    repo = Repo(root / "repo")
    repo.commit("init", base)
    repo.commit(message, change)
    number = re.search(r"\(#(\d+)\)\s*$", message)
    cfg = Config()
    src = GitSource(number.group(1) if number else "HEAD", GitConfig(repo=str(repo.path)))
    try:
        return analyse(gather(src, cfg), cfg)
    finally:
        src.close()
