"""Git plumbing: read-only commands on one repository, its blobs, its log, and the PR a commit subject names."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from prreport.errors import SourceError

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


_SQUASH = re.compile(r"\(#(\d+)\)\s*$")


_MERGE = re.compile(r"^Merge pull request #(\d+)\b")


def pr_number_of_subject(subject: str) -> int | None:
    """The PR number a squash-merge or merge-commit subject names, if any."""
    m = _SQUASH.search(subject) or _MERGE.match(subject)
    return int(m.group(1)) if m else None


class _BlobReader:
    """One ``git cat-file --batch`` process answering blob requests."""

    def __init__(self, git: GitRepo) -> None:
        self._proc = subprocess.Popen(
            git.base_cmd + ["cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )

    def read(self, spec: str) -> bytes | None:
        """Return the object's bytes, or None if git does not have it."""
        assert self._proc.stdin and self._proc.stdout
        self._proc.stdin.write(spec.encode("utf-8") + b"\n")
        self._proc.stdin.flush()
        header = self._proc.stdout.readline().decode("utf-8", "replace").split()
        if len(header) < 3 or header[-1] == "missing" or header[1] == "missing":
            return None
        size = int(header[2])
        data = self._proc.stdout.read(size)
        self._proc.stdout.read(1)  # the newline after the content
        return data

    def close(self) -> None:
        """Stop the process."""
        if self._proc.poll() is None:
            assert self._proc.stdin
            self._proc.stdin.close()
            self._proc.wait(timeout=10)


class GitRepo:
    """Thin wrapper over read-only git commands for one repository."""

    def __init__(self, path: str) -> None:
        self.path = str(Path(path).resolve())
        if not Path(self.path).exists():
            raise SourceError(f"repository path {path} does not exist (use --repo PATH)")
        self.base_cmd = ["git", "-C", self.path, "-c", "core.quotepath=off"]
        try:
            out = self.run(["rev-parse", "--git-dir"], check=False)
        except FileNotFoundError:
            raise SourceError("git is not installed or not on PATH") from None
        if out is None:
            raise SourceError(
                f"{self.path} is not a git repository (use --repo PATH to point at a clone)"
            )
        self._blobs: _BlobReader | None = None

    def run(self, args: Sequence[str], check: bool = True, binary: bool = False):  # type: ignore[no-untyped-def]
        """Run a git command and return its stdout (None on failure when check is False)."""
        env = dict(os.environ, GIT_TERMINAL_PROMPT="0", LC_ALL="C")
        proc = subprocess.run(self.base_cmd + list(args), capture_output=True, env=env)
        if proc.returncode != 0:
            if check:
                msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
                raise SourceError(
                    f"git {args[0]} failed in {self.path}: {msg[-1] if msg else 'unknown error'}"
                )
            return None
        return proc.stdout if binary else proc.stdout.decode("utf-8", "replace")

    def blob(self, spec: str) -> bytes | None:
        """Read an object through the shared ``cat-file --batch`` process."""
        if self._blobs is None:
            self._blobs = _BlobReader(self)
        return self._blobs.read(spec)

    def resolve(self, rev: str) -> str | None:
        """Return the full SHA of a commit-ish, or None."""
        out = self.run(
            ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"],
            check=False,
        )
        return out.strip() if out else None

    def first_parent(self, sha: str, parents: Sequence[str]) -> str:
        """The commit to diff ``sha`` against: its first parent, or the empty tree for a root
        commit. A commit whose parents a shallow clone cut off is an error, not a root: diffed
        against the empty tree, every file would read as added."""
        if parents:
            return parents[0]
        if self._is_shallow_boundary(sha):
            raise SourceError(
                f"the parent of {sha[:12]} is not in this shallow clone ({self.path}): fetch at "
                "least one more commit (git fetch --deepen=1), or set fetch-depth: 2 (or 0) on "
                "actions/checkout"
            )
        return EMPTY_TREE

    def _is_shallow_boundary(self, sha: str) -> bool:
        out = self.run(["rev-parse", "--is-shallow-repository"], check=False)
        if not out or out.strip() != "true":
            return False
        shallow = self.run(["rev-parse", "--git-path", "shallow"], check=False)
        if not shallow:
            return True  # shallow, but the boundary list is unreadable: do not guess "root"
        path = Path(shallow.strip())
        if not path.is_absolute():
            path = Path(self.path) / path
        try:
            return sha in path.read_text(encoding="ascii", errors="replace").split()
        except OSError:
            return True

    def close(self) -> None:
        """Stop helper processes."""
        if self._blobs is not None:
            self._blobs.close()
            self._blobs = None


def repo_name(git: GitRepo) -> str:
    """OWNER/NAME from the origin remote, else the directory name."""
    url = (git.run(["config", "--get", "remote.origin.url"], check=False) or "").strip()
    m = (
        re.search(r"[:/]([^/:]+)/([^/]+?)(?:\.git)?/?$", url)
        if ("://" in url or "@" in url)
        else None
    )
    if m:
        return f"{m.group(1)}/{m.group(2)}"
    name = Path(git.path).name
    return name[:-4] if name.endswith(".git") else name


_LOG_FORMAT = "%H%x00%P%x00%s%x00%an%x00%cI%x00%cn%x00%b%x1e"


@dataclass(frozen=True)
class LogEntry:
    """One commit of ``git log`` with the fields prreport reads."""

    sha: str
    parents: tuple[str, ...]
    subject: str
    author: str
    date: str
    committer: str
    body: str

    @property
    def pr_number(self) -> int | None:
        """The PR this squash/merge commit closes, if its subject says so."""
        return pr_number_of_subject(self.subject)


def git_log(git: GitRepo, args: Sequence[str]) -> list[LogEntry]:
    """Parse ``git log`` output into entries."""
    out = git.run(["log", f"--format={_LOG_FORMAT}", *args], check=False) or ""
    entries = []
    for rec in out.split("\x1e"):
        rec = rec.lstrip("\n")
        if not rec:
            continue
        parts = rec.split("\x00")
        if len(parts) < 7:
            continue
        sha, parents, subject, author, date, committer, body = parts[:7]
        entries.append(
            LogEntry(sha, tuple(parents.split()), subject, author, date, committer, body.strip())
        )
    return entries


def find_pr_commit(git: GitRepo, number: int) -> LogEntry | None:
    """The newest commit on HEAD whose subject ends in ``(#N)`` or is ``Merge pull request #N``."""
    pattern = rf"(\(#{number}\)\s*$|^Merge pull request #{number}([^0-9]|$))"
    for entry in git_log(git, ["-E", f"--grep={pattern}", "HEAD"]):
        if entry.pr_number == number:
            return entry
    return None


def title_and_body(entry: LogEntry) -> tuple[str, str]:
    """The PR title and description a squash or merge commit carries."""
    if _MERGE.match(entry.subject):
        lines = entry.body.splitlines()
        title = lines[0].strip() if lines else entry.subject
        return title, "\n".join(lines[1:]).strip()
    title = _SQUASH.sub("", entry.subject).rstrip()
    return title, entry.body
