"""The local git source: a PR number, revision or range of a local (possibly bare) clone.

Only plumbing commands that read objects are used, so the work tree is never touched;
blobs come through one long-running ``git cat-file --batch`` process.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta

from prreport.bundle import (
    CommitInfo,
    FileChange,
    PullRequestBundle,
    PullRequestMeta,
    RelatedCandidate,
)
from prreport.config import GitConfig
from prreport.diffparse import changed_lines
from prreport.errors import SourceError
from prreport.series import SeriesKey, parse_time, related_candidates
from prreport.sources._text import decode_text
from prreport.sources.gitrepo import (
    GitRepo,
    LogEntry,
    find_pr_commit,
    git_log,
    repo_name,
    title_and_body,
)
from prreport.textlines import split_lines

_SYMLINK = "120000"  # git's mode of a symbolic link
_PR_NUMBER = re.compile(r"^#?([0-9]{1,10})$")
_STATUS = {
    "A": "added",
    "D": "deleted",
    "M": "modified",
    "R": "renamed",
    "C": "copied",
    "T": "modified",
}


@dataclass(frozen=True)
class _Target:
    number: int | None
    base: str
    head: str
    commit: str | None  # the squash/merge commit, when the target is a PR or a single commit
    spec: str


def _web_url(git: GitRepo) -> str:
    url = (git.run(["config", "--get", "remote.origin.url"], check=False) or "").strip()
    m = re.search(r"github\.com[:/]([^/]+)/([^/]+?)(?:\.git)?/?$", url)
    return f"https://github.com/{m.group(1)}/{m.group(2)}" if m else ""


# Blame at most this many files and line ranges per file: the predecessor shows early.
_BLAME_MAX_FILES = 30
_BLAME_MAX_RANGES = 40
_BLAME_HEADER = re.compile(r"(?m)^([0-9a-f]{40}) \d+ \d+")


def _ranges(numbers: list[int]) -> list[tuple[int, int]]:
    """Runs of consecutive line numbers: ``[3, 4, 5, 9]`` -> ``[(3, 5), (9, 9)]``."""
    out: list[tuple[int, int]] = []
    for n in numbers:
        if out and n == out[-1][1] + 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


class GitSource:
    """Build a bundle from a local git repository."""

    def __init__(self, target: str, config: GitConfig) -> None:
        self.config = config
        self.git = GitRepo(config.repo)
        self.target_spec = target
        self._target: _Target | None = None
        self._entry: LogEntry | None = None

    # -- target resolution --------------------------------------------------------------

    def _resolve_target(self) -> _Target:
        spec = self.target_spec.strip()
        m = _PR_NUMBER.match(spec)
        if m:
            number = int(m.group(1))
            entry = find_pr_commit(self.git, number)
            if entry is None:
                raise SourceError(
                    f"no commit on HEAD of {self.git.path} has a subject ending in '(#{number})' or "
                    f"starting with 'Merge pull request #{number}'; point --repo at the clone that has it, "
                    f"or use --github OWNER/NAME"
                )
            self._entry = entry
            base = self.git.first_parent(entry.sha, entry.parents)
            return _Target(number, base, entry.sha, entry.sha, spec)
        if ".." in spec and "..." not in spec:
            left, right = spec.split("..", 1)
            ends = []
            for part in (left or "HEAD", right or "HEAD"):
                resolved = self.git.resolve(part)
                if resolved is None:
                    raise SourceError(f"unknown revision '{part}' in {self.git.path}")
                ends.append(resolved)
            return _Target(None, ends[0], ends[1], None, spec)
        sha = self.git.resolve(spec)
        if sha is None:
            raise SourceError(
                f"unknown revision '{spec}' in {self.git.path} (give a PR number, a revision or A..B)"
            )
        entries = git_log(self.git, ["-1", sha])
        self._entry = entries[0] if entries else None
        parents = self._entry.parents if self._entry else ()
        first = self.git.first_parent(sha, parents)
        return _Target(self._entry.pr_number if self._entry else None, first, sha, sha, spec)

    # -- files --------------------------------------------------------------------------

    def _changed_files(self, base: str, head: str) -> list[FileChange]:
        raw = self.git.run(
            ["diff-tree", "-r", "-M", "-z", "--raw", "--numstat", base, head], binary=True
        )
        entries, befores, numstats, links = _raw_entries(raw)
        patches = self._patches(base, head, len(entries))
        files = []
        for idx, (path, old_path, status, new_sha) in enumerate(entries):
            add_s, del_s = numstats[idx] if idx < len(numstats) else ("0", "0")
            binary = add_s == "-"
            before = after = None
            note = None
            zero = "0" * 40
            if idx in links:
                # A link's blob is its target's path, not Python: never parsed as the file.
                target = self.git.blob(new_sha) if new_sha != zero else None
                shown = target.decode("utf-8", "replace") if target else ""
                binary = True
                note = f"a symbolic link{f' to {shown}' if shown else ''}, not a file of text"
            if not binary:
                texts: list[str | None] = []
                for sha in (befores[idx], new_sha):
                    if sha == zero:  # the missing side of an added or deleted file
                        texts.append(None)
                        continue
                    data = self.git.blob(sha)
                    if data is None:
                        texts.append(None)
                        note = "blob missing from the repository"
                        continue
                    text, is_bin, why = decode_text(data, self.config.max_file_bytes)
                    binary = binary or is_bin
                    note = note or why
                    texts.append(text)
                before, after = texts
                if binary:
                    before = after = None
            files.append(
                FileChange(
                    path=path,
                    old_path=old_path,
                    status=status,
                    additions=0 if binary else int(add_s),
                    deletions=0 if binary else int(del_s),
                    binary=binary,
                    patch=None if binary else patches.get(idx),
                    before=before,
                    after=after,
                    note=note,
                )
            )
        return files

    def _patches(self, base: str, head: str, count: int) -> dict[int, str]:
        """Per-file unified diffs, split from one ``git diff-tree -p`` run (same order as --raw)."""
        out = self.git.run(
            ["diff-tree", "-r", "-M", "-p", "--no-color", "--no-ext-diff", base, head], binary=True
        )
        chunks = re.split(rb"(?m)^(?=diff --git )", out)
        chunks = [c for c in chunks if c.startswith(b"diff --git ")]
        if len(chunks) != count:
            return {}
        result = {}
        for idx, chunk in enumerate(chunks):
            text = chunk.decode("utf-8", "replace")
            body = text.split("\n@@", 1)
            result[idx] = "@@" + body[1] if len(body) == 2 else ""
        return result

    # -- bundle -------------------------------------------------------------------------

    def fetch(self) -> PullRequestBundle:
        """Resolve the target and read metadata, changed files and commits."""
        target = self._resolve_target()
        self._target = target
        entry = self._entry
        repo = repo_name(self.git)
        files = self._changed_files(target.base, target.head)
        title, body, author, merged_at, merged_by = self.target_spec, "", "", None, None
        commits: list[CommitInfo] = []
        if entry is not None:
            title, body = title_and_body(entry)
            author = entry.author
            merged_at = entry.date
            if len(entry.parents) > 1:
                merged_by = entry.committer
                branch = git_log(self.git, [f"{entry.parents[0]}..{entry.parents[1]}"])
                if branch:
                    author = branch[-1].author
                commits = [CommitInfo(c.sha, c.subject, c.author, c.date, c.body) for c in branch]
            else:
                commits = [
                    CommitInfo(entry.sha, entry.subject, entry.author, entry.date, entry.body)
                ]
        else:
            rng = git_log(self.git, [f"{target.base}..{target.head}"])
            commits = [CommitInfo(c.sha, c.subject, c.author, c.date, c.body) for c in rng]
            if rng:
                title = f"{target.spec}: {len(rng)} commit{'s' if len(rng) != 1 else ''}"
                body = "\n".join(f"- {c.subject}" for c in reversed(rng))
                author = rng[0].author
                merged_at = rng[0].date
        web = _web_url(self.git)
        url = (
            f"{web}/pull/{target.number}"
            if web and target.number
            else (f"{web}/commit/{target.head}" if web else "")
        )
        pr = PullRequestMeta(
            repo=repo,
            number=target.number,
            title=title,
            body=body,
            author=author,
            base_sha=target.base,
            head_sha=target.head,
            target=target.spec,
            url=url,
            state="merged" if target.number else "commit",
            merged_at=merged_at,
            merged_by=merged_by,
        )
        head_paths = tuple(
            p
            for p in (
                self.git.run(["ls-tree", "-r", "--name-only", "-z", target.head]) or ""
            ).split("\0")
            if p
        )
        related = self._related(pr, files)
        return PullRequestBundle(
            source="git",
            pr=pr,
            files=tuple(files),
            commits=tuple(commits),
            related=tuple(related),
            review_data_available=False,
            head_paths=head_paths,
            # Files the report shows but no analyzer reads as text, said once each.
            source_notes=tuple(
                f"{f.path} is {f.note}: not analysed as Python"
                for f in files
                if f.binary and f.note and f.note.startswith("a symbolic link")
            ),
        )

    def _related(self, pr: PullRequestMeta, files: list[FileChange]) -> list[RelatedCandidate]:
        """Other ``(#N)`` commits on HEAD that belong with this PR (lines, series, files, references)."""
        entries = [e for e in git_log(self.git, ["HEAD"]) if e.pr_number is not None]
        if not entries:
            return []
        touched = {f.path for f in files} | {f.old_path for f in files if f.old_path}
        files_of = self._files_in_window(pr.merged_at) if touched else {}
        by_sha = {e.sha: e.pr_number for e in entries if e.pr_number is not None}
        same_lines: dict[int, list[str]] = {}
        for path, shas in self._blame_changed_lines(files).items():
            for sha in shas:
                number = by_sha.get(sha)
                if number is not None and path not in same_lines.setdefault(number, []):
                    same_lines[number].append(path)
        return related_candidates(
            this=SeriesKey(
                pr.number, pr.title, pr.body, pr.author, pr.merged_at, tuple(sorted(touched))
            ),
            others=[
                SeriesKey(
                    e.pr_number, *title_and_body(e), e.author, e.date, files_of.get(e.sha, ())
                )
                for e in entries
                if e.pr_number is not None and e.sha != self._target_commit()
            ],
            window_days=self.config.related_window_days,
            limit=self.config.related_max,
            same_lines={n: tuple(p) for n, p in same_lines.items()},
        )

    def _files_in_window(self, merged_at: str | None) -> dict[str, tuple[str, ...]]:
        """Every file each commit merged near this PR touched (the report matches modules to them)."""
        args = ["log", "--format=%x1e%H", "--name-only", "--no-renames"]
        when = parse_time(merged_at)
        if when is not None:
            span = timedelta(days=self.config.related_window_days)
            args += [f"--since={(when - span).isoformat()}", f"--until={(when + span).isoformat()}"]
        out = self.git.run([*args, "HEAD"], check=False) or ""
        files_of: dict[str, tuple[str, ...]] = {}
        for rec in out.split("\x1e"):
            lines = [x for x in split_lines(rec.strip()) if x]
            if lines:
                files_of[lines[0]] = tuple(lines[1:])
        return files_of

    def _blame_changed_lines(self, files: list[FileChange]) -> dict[str, set[str]]:
        """Commits that last wrote the base lines this PR removes or rewrites, per file (``git blame``)."""
        base = self._target.base if self._target else None
        out: dict[str, set[str]] = {}
        if not base:
            return out
        for f in files[:_BLAME_MAX_FILES]:
            if f.status not in ("modified", "renamed") or not f.patch or f.binary:
                continue
            ranges = _ranges(sorted(changed_lines(f.patch).removed))[:_BLAME_MAX_RANGES]
            if not ranges:
                continue
            args = ["blame", "--porcelain", *(f"-L{a},{b}" for a, b in ranges), base, "--"]
            text = self.git.run([*args, f.old_path or f.path], check=False) or ""
            shas = set(_BLAME_HEADER.findall(text))
            if shas:
                out[f.path] = shas
        return out

    def _target_commit(self) -> str | None:
        return self._target.commit if self._target else None

    def fetch_context(self, paths: Iterable[str]) -> dict[str, str | None]:
        """Read files at head through the blob reader."""
        head = self._target.head if self._target else "HEAD"
        result: dict[str, str | None] = {}
        for p in paths:
            data = self.git.blob(f"{head}:{p}")
            text = None
            if data is not None:
                text, _, _ = decode_text(data, self.config.max_file_bytes)
            result[p] = text
        return result

    def find_references(self, names: Iterable[str]) -> tuple[dict[str, tuple[str, ...]], str]:
        """Whole-word ``git grep`` over the head tree (no checkout) for Python files."""
        names = sorted(set(names))
        head = self._target.head if self._target else "HEAD"
        found: dict[str, list[str]] = {n: [] for n in names}
        for start in range(0, len(names), 200):
            batch = names[start : start + 200]
            args = ["grep", "-n", "-w", "-I", "--full-name", "-F"]
            for n in batch:
                args += ["-e", n]
            out = self.git.run([*args, head, "--", "*.py"], check=False) or ""
            for line in split_lines(out):
                # "<rev>:<path>:<line>:<text>"
                parts = line.split(":", 3)
                if len(parts) < 4:
                    continue
                loc = f"{parts[1]}:{parts[2]}"
                text = parts[3]
                for n in batch:
                    if re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", text):
                        found[n].append(loc)
        return {n: tuple(v) for n, v in found.items()}, "repository"

    def close(self) -> None:
        """Stop the blob reader."""
        self.git.close()


def _raw_entries(
    raw: bytes,
) -> tuple[list[tuple[str, str | None, str, str]], list[str], list[tuple[str, str]], set[int]]:
    """``diff-tree -z --raw --numstat`` taken apart: (path, old path, status, after blob) per
    file, the before blobs, the numstat counts, and which entries are symbolic links."""
    fields = raw.split(b"\0")
    entries: list[tuple[str, str | None, str, str]] = []  # (path, old_path, status, after blob)
    links: set[int] = set()  # entries with a symbolic link on either side (mode 120000)
    befores: list[str] = []
    numstats: list[tuple[str, str]] = []
    i = 0
    while i < len(fields):
        tok = fields[i]
        if tok.startswith(b":"):
            meta = tok[1:].decode().split()
            status = meta[4][0]
            old_sha, new_sha = meta[2], meta[3]
            if _SYMLINK in (meta[0], meta[1]):
                links.add(len(entries))
            if status in "RC":
                old_path = fields[i + 1].decode("utf-8", "replace")
                path = fields[i + 2].decode("utf-8", "replace")
                i += 3
            else:
                path = fields[i + 1].decode("utf-8", "replace")
                old_path = None
                i += 2
            entries.append((path, old_path, _STATUS.get(status, "modified"), new_sha))
            befores.append(old_sha)
        elif tok:
            # numstat: "add\tdel\tpath" or "add\tdel\t" followed by old and new path fields
            parts = tok.decode("utf-8", "replace").split("\t")
            if len(parts) == 3 and parts[2] == "":
                i += 3
            else:
                i += 1
            numstats.append((parts[0], parts[1]))
        else:
            i += 1
    return entries, befores, numstats, links
