"""The GitHub source: one pull request through the REST API (PyGithub), cached on disk.

Requests are kept few: the base text of a file is rebuilt by reverse-applying its complete
patch to the head text (a request only when the patch is missing), counts in the PR object
skip empty comment listings, context files come in one GraphQL request per round, and
every GET goes through an HTTP cache with conditional requests (304s cost no rate limit).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import itertools
import json
import os
import re
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import requests
from github import Github, GithubException
from github.GithubException import (
    BadCredentialsException,
    RateLimitExceededException,
    UnknownObjectException,
)

from prreport.bundle import (
    CheckResult,
    Comment,
    CommitInfo,
    FileChange,
    PullRequestBundle,
    PullRequestMeta,
    RelatedCandidate,
)
from prreport.config import GitHubConfig
from prreport.errors import GitHubError
from prreport.series import SeriesKey, parse_time, referenced_numbers, related_candidates, series_of
from prreport.sources._text import decode_text
from prreport.sources.git import pr_number_of_subject
from prreport.sources.github.client import api_base, new_client, retry_status
from prreport.sources.github.http import cache_namespace, install_cache
from prreport.sources.github.patch import reverse_apply

_PR_NUMBER = re.compile(r"^#?(\d+)$")
_STATUS = {"removed": "deleted", "changed": "modified", "unchanged": "modified"}
_FILES_CAP = 3000  # GitHub lists at most 3000 files of a PR
_COMMITS_CAP = 250  # and at most 250 commits
_MAX_TEXT = 1_048_576  # same limit as the git source: larger files are noted, not analysed
_RELATED_MAX = 12
_SAME_FILES_PATHS = 1  # "same files recently": the most-changed path only (request budget N + 12)
_REFERENCED_MAX = 5
_GRAPHQL_BATCH = 50


def _token() -> str | None:
    return os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN") or None


def _iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.isoformat()


def _reset_text(headers: Any) -> str:
    """When the rate limit resets, from the response headers."""
    value = None
    for k, v in (headers or {}).items():
        if k.lower() == "x-ratelimit-reset":
            value = v
    if value is None or not str(value).isdigit():
        return "at an unknown time"
    reset = datetime.fromtimestamp(int(value), timezone.utc)
    minutes = max(0, round((reset - datetime.now(timezone.utc)).total_seconds() / 60))
    return f"at {reset:%Y-%m-%d %H:%M} UTC (in {minutes} min)"


class _TreeEntry:
    __slots__ = ("sha", "size")

    def __init__(self, sha: str, size: int) -> None:
        self.sha = sha
        self.size = size


class GitHubSource:
    """Build a bundle for ``OWNER/NAME`` PR ``target`` from the GitHub API."""

    def __init__(self, target: str, config: GitHubConfig) -> None:
        m = _PR_NUMBER.match(target.strip())
        if not m:
            raise GitHubError(
                f"the GitHub source needs a PR number, got {target!r}; "
                "for a revision or range use a local clone (--repo PATH)"
            )
        self.number = int(m.group(1))
        self.target_spec = target.strip()
        self.config = config
        self.repo_name = config.repo
        self.api_url = (config.api_url or "https://api.github.com").rstrip("/")
        self._token = _token()
        self._gh: Github | None = None
        self._repo: Any = None
        self._head = ""
        self._tree: dict[str, _TreeEntry] = {}
        self._texts: dict[str, str | None] = {}
        self._notes: list[str] = []
        self._content_dir: Path | None = None
        self._graphql_ok = True

    # -- connection and errors ---------------------------------------------------------

    def _client(self) -> Github:
        if self._gh is not None:
            return self._gh
        scheme = urlsplit(api_base(self.config)).scheme
        self._gh = new_client(self.config, self._token)
        if self.config.cache:
            ns = Path(self.config.cache_dir) / "github" / cache_namespace(self._token, self.api_url)
            try:
                if not install_cache(self._gh.requester, ns / "http", scheme):
                    self._notes.append(
                        "HTTP cache unavailable with this PyGithub version; fetched without it"
                    )
                self._content_dir = ns / "content"
            except OSError as exc:
                raise GitHubError(
                    f"cannot create the cache directory {ns}: {exc.strerror} (set github.cache_dir or use --no-cache)"
                ) from None
        return self._gh

    @contextlib.contextmanager
    def _calls(self, what: str, missing: str | None = None) -> Iterator[None]:
        """Turn PyGithub and network failures into one-line GitHubErrors (``missing``: the 404 text)."""
        where = f"{self.repo_name} PR #{self.number}"
        try:
            yield
        except RateLimitExceededException as exc:
            raise GitHubError(
                f"GitHub API rate limit exhausted while {what} for {where}; it resets {_reset_text(exc.headers)}, "
                f"later than github.max_rate_limit_wait ({self.config.max_rate_limit_wait} s) allows: rerun then"
                + ("" if self._token else ", or set GITHUB_TOKEN for a higher limit")
            ) from None
        except BadCredentialsException:
            raise GitHubError(
                f"GitHub at {self.api_url} rejected the token (401 Bad credentials) while {what}: "
                "set a valid GITHUB_TOKEN or GH_TOKEN"
            ) from None
        except UnknownObjectException:
            raise (GitHubError(missing) if missing else self._not_found(what)) from None
        except GithubException as exc:
            raise self._status_error(exc.status, _message(exc.data), what) from None
        except requests.exceptions.RetryError as exc:
            status = retry_status(exc)
            if status == 403:  # GithubRetry retries a 403 only when it is a rate limit
                raise GitHubError(
                    f"GitHub API rate limit exhausted while {what} for {where} and retries used up "
                    f"(github.retries = {self.config.retries}): rerun after the limit resets"
                ) from None
            raise self._status_error(status, "", what) from None
        except (requests.exceptions.Timeout, requests.exceptions.ConnectionError) as exc:
            if "timed out" in str(exc).lower() or isinstance(exc, requests.exceptions.Timeout):
                raise GitHubError(
                    f"GitHub API at {self.api_url} did not answer within {self.config.timeout} s while {what} "
                    f"(after {self.config.retries} retries): raise github.timeout or try again later"
                ) from None
            raise GitHubError(
                f"cannot reach the GitHub API at {self.api_url} while {what}: check --github-api-url and the network"
            ) from None

    def _status_error(self, status: int | None, message: str, what: str) -> GitHubError:
        detail = f": {message}" if message else ""
        if status == 401:
            return GitHubError(
                f"GitHub at {self.api_url} rejected the token (401{detail}) while {what}: set a valid GITHUB_TOKEN or GH_TOKEN"
            )
        if status == 403:
            return GitHubError(
                f"GitHub refused access (403{detail}) while {what} for {self.repo_name}: "
                "check that the token may read this repository"
            )
        if status == 404:
            return self._not_found(what)
        if status is not None and status >= 500:
            return GitHubError(
                f"GitHub API at {self.api_url} failed with {status} while {what} "
                f"(after {self.config.retries} retries): try again later"
            )
        return GitHubError(
            f"GitHub API answered {status}{detail} while {what} for {self.repo_name} PR #{self.number}"
        )

    def _not_found(self, what: str) -> GitHubError:
        """Say whether the repository or the pull request is missing (one extra request)."""
        try:
            self._repo_obj().private  # noqa: B018 - completes the lazy repository: GET /repos/o/r
        except GithubException as exc:
            if exc.status == 404:
                return GitHubError(
                    f"repository {self.repo_name} not found at {self.api_url} (or the token cannot see it): "
                    "check --github OWNER/NAME and GITHUB_TOKEN"
                )
        except requests.exceptions.RequestException:
            pass
        return GitHubError(
            f"{self.repo_name} has no pull request #{self.number} (404 while {what}): check the number"
        )

    def _repo_obj(self) -> Any:
        if self._repo is None:
            self._repo = self._client().get_repo(self.repo_name)  # lazy: no request
        return self._repo

    # -- contents ------------------------------------------------------------------------

    def _blob(self, sha: str, what: str) -> bytes:
        with self._calls(what):
            blob = self._repo_obj().get_git_blob(sha)
            return base64.b64decode(blob.content or "")

    def _contents_at(self, path: str, ref: str, what: str) -> bytes | None:
        """A file at ``ref`` through the contents API (the blobs API for files over 1 MB)."""
        with self._calls(
            what,
            missing=f"{path} is missing at the base {ref[:12]} of {self.repo_name} PR #{self.number}",
        ):
            try:
                cf = self._repo_obj().get_contents(path, ref=ref)
            except UnknownObjectException:
                self._notes.append(
                    f"{path}: not found at the base {ref[:12]}; its before text is missing"
                )
                return None
            if isinstance(cf, list):
                return None
            if cf.encoding == "none" or (cf.size or 0) > 1_000_000:
                return self._blob(cf.sha, what)
            return cf.decoded_content

    def _file_change(self, f: Any, base_sha: str) -> FileChange:
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
        entry = self._tree.get(path)
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
            if entry is not None and entry.size > _MAX_TEXT:
                # The git source's limit: such a file is noted, not analysed, so not fetched.
                note = f"too large ({entry.size} bytes > {_MAX_TEXT})"
            else:
                data = self._blob(f.sha, what) if (entry is None or entry.size) else b""
                after, binary, note = decode_text(data, _MAX_TEXT)
        if binary:
            return FileChange(path, status, 0, 0, old_path, True, None, None, None)
        if status == "added":
            before = None
        elif status == "deleted":
            if patch is not None:
                before = reverse_apply("", patch, adds, dels)
            if before is None:
                before, binary, note = decode_text(self._blob(f.sha, what), _MAX_TEXT)
        elif after is not None and patch is not None:
            before = reverse_apply(after, patch, adds, dels)
        elif after is not None and f.changes == 0:
            before = after  # a pure rename or copy
        if before is None and status not in ("added",) and not binary and after is not None:
            base_data = self._contents_at(
                old_path or path, base_sha, f"reading {old_path or path} at the base"
            )
            if base_data is not None:
                before, is_bin, why = decode_text(base_data, _MAX_TEXT)
                binary = binary or is_bin
                note = note or why
        if binary:
            return FileChange(path, status, 0, 0, old_path, True, None, None, None)
        self._texts[path] = after
        return FileChange(path, status, adds, dels, old_path, False, patch, before, after, note)

    # -- the bundle ----------------------------------------------------------------------

    def fetch(self) -> PullRequestBundle:
        """Fetch metadata, files, review data, CI, commits and related-PR candidates."""
        repo = self._repo_obj()
        with self._calls("reading the pull request"):
            pr = repo.get_pull(self.number)
            base_sha, head_sha = pr.base.sha, pr.head.sha
            meta = PullRequestMeta(
                repo=self.repo_name,
                number=self.number,
                title=pr.title or "",
                body=pr.body or "",
                author=pr.user.login if pr.user else "",
                base_sha=base_sha,
                head_sha=head_sha,
                target=self.target_spec,
                url=pr.html_url or "",
                state="merged" if pr.merged else (pr.state or "open"),
                labels=tuple(sorted(label.name for label in pr.labels)),
                created_at=_iso(pr.created_at),
                merged_at=_iso(pr.merged_at),
                merged_by=pr.merged_by.login if pr.merged_by else None,
            )
            changed, n_comments, n_review_comments, n_commits = (
                pr.changed_files,
                pr.comments,
                pr.review_comments,
                pr.commits,
            )
        self._head = head_sha
        with self._calls("listing the changed files"):
            listed = list(itertools.islice(pr.get_files(), _FILES_CAP))
        if changed > len(listed):
            self._notes.append(
                f"GitHub lists at most {_FILES_CAP} files of a pull request: {len(listed)} of {changed} analysed"
            )
        with self._calls("reading the head tree"):
            tree = repo.get_git_tree(head_sha, recursive=True)
            for e in tree.tree:
                if e.type == "blob":
                    self._tree[e.path] = _TreeEntry(e.sha, e.size or 0)
            if tree.raw_data.get("truncated"):
                self._notes.append(
                    "GitHub truncated the head tree listing: some modules may not resolve"
                )
        files = [self._file_change(f, base_sha) for f in listed]
        with self._calls("reading reviews"):
            reviews = [
                Comment(
                    "review",
                    r.user.login if r.user else "",
                    r.body or "",
                    _iso(r.submitted_at),
                    r.state,
                    url=r.html_url or "",
                )
                for r in pr.get_reviews()
            ]
        review_comments: list[Comment] = []
        if n_review_comments:
            with self._calls("reading review comments"):
                review_comments = [
                    Comment(
                        "review_comment",
                        c.user.login if c.user else "",
                        c.body or "",
                        _iso(c.created_at),
                        path=c.path,
                        line=c.line or c.original_line,
                        url=c.html_url or "",
                    )
                    for c in pr.get_review_comments()
                ]
        issue_comments: list[Comment] = []
        if n_comments:
            with self._calls("reading comments"):
                issue_comments = [
                    Comment(
                        "issue_comment",
                        c.user.login if c.user else "",
                        c.body or "",
                        _iso(c.created_at),
                        url=c.html_url or "",
                    )
                    for c in pr.get_issue_comments()
                ]
        with self._calls("reading the commits"):
            commits = []
            for c in itertools.islice(pr.get_commits(), _COMMITS_CAP):
                subject, _, body = (c.commit.message or "").partition("\n")
                commits.append(
                    CommitInfo(
                        c.sha,
                        subject,
                        c.commit.author.name if c.commit.author else "",
                        _iso(c.commit.author.date) or "",
                        body.strip(),
                    )
                )
        if n_commits > len(commits):
            self._notes.append(
                f"GitHub lists at most {_COMMITS_CAP} commits of a pull request: {len(commits)} of {n_commits} read"
            )
        checks = self._checks(head_sha)
        related = self._related(meta, files, commits)
        return PullRequestBundle(
            source="github",
            pr=meta,
            files=tuple(files),
            commits=tuple(commits),
            reviews=tuple(reviews),
            review_comments=tuple(review_comments),
            issue_comments=tuple(issue_comments),
            checks=tuple(checks),
            related=tuple(related),
            review_data_available=True,
            head_paths=tuple(self._tree),
            source_notes=tuple(self._notes),
        )

    def _checks(self, head_sha: str) -> list[CheckResult]:
        commit = self._repo_obj().get_commit(head_sha)  # lazy: no request
        out = []
        with self._calls("reading check runs"):
            for run in commit.get_check_runs():
                out.append(CheckResult(run.name, run.status, run.conclusion))
        with self._calls("reading the commit status"):
            for st in commit.get_combined_status().statuses:
                state = st.state
                if state == "pending":
                    out.append(CheckResult(st.context, "in_progress", None))
                else:
                    out.append(
                        CheckResult(
                            st.context, "completed", "failure" if state == "error" else state
                        )
                    )
        return sorted(out, key=lambda c: (c.name, c.status, c.conclusion or ""))

    # -- related PRs -----------------------------------------------------------------------

    def _related(
        self, meta: PullRequestMeta, files: list[FileChange], commits: list[CommitInfo]
    ) -> list[RelatedCandidate]:
        """Series PRs (search), PRs that touched the most-changed files, and referenced PRs."""
        when = (
            parse_time(meta.merged_at) or parse_time(meta.created_at) or datetime.now(timezone.utc)
        )
        window = timedelta(days=self.config.related_window_days)
        lo, hi = when - window, when + window
        others: dict[int, SeriesKey] = {}

        def add(key: SeriesKey) -> None:
            assert key.number is not None
            old = others.get(key.number)
            if old is None:
                others[key.number] = key
            else:
                merged = tuple(sorted(set(old.files) | set(key.files)))
                others[key.number] = SeriesKey(
                    old.number,
                    old.title,
                    old.body or key.body,
                    old.author,
                    old.merged_at or key.merged_at,
                    merged,
                    old.url or key.url,
                )

        series = series_of(meta.title)
        if series:
            query = f'repo:{self.repo_name} is:pr is:merged in:title "{series}" merged:{lo:%Y-%m-%d}..{hi:%Y-%m-%d}'
            for issue in (
                self._soft(
                    "searching for the PR series",
                    lambda: list(itertools.islice(self._client().search_issues(query), 100)),
                )
                or []
            ):
                pr_info = issue.pull_request
                add(
                    SeriesKey(
                        issue.number,
                        issue.title or "",
                        issue.body or "",
                        issue.user.login if issue.user else "",
                        _iso(pr_info.merged_at)
                        if pr_info and pr_info.merged_at
                        else _iso(issue.closed_at),
                        (),
                        issue.html_url or "",
                    )
                )
        ranked = sorted(
            (f for f in files if f.status != "added"),
            key=lambda f: (-(f.additions + f.deletions), f.path),
        )
        for f in ranked[:_SAME_FILES_PATHS]:
            found = (
                self._soft(
                    f"listing recent commits of {f.before_path}",
                    lambda p=f.before_path: list(
                        itertools.islice(
                            self._repo_obj().get_commits(path=p, since=lo, until=hi), 100
                        )
                    ),
                )
                or []
            )
            for c in found:
                subject, _, body = (c.commit.message or "").partition("\n")
                number = pr_number_of_subject(subject)
                if number is None:
                    continue
                title = re.sub(r"\s*\(#\d+\)\s*$", "", subject)
                author = c.commit.author.name if c.commit.author else ""
                add(
                    SeriesKey(
                        number,
                        title,
                        body.strip(),
                        author,
                        _iso(c.commit.author.date) if c.commit.author else None,
                        (f.before_path,),
                        "",
                    )
                )
        text = "\n".join([meta.body] + [f"{c.subject}\n{c.body}" for c in commits])
        wanted = sorted(referenced_numbers(text) - set(others) - {self.number})[:_REFERENCED_MAX]
        for n in wanted:
            issue = self._soft(
                f"reading #{n}", lambda n=n: _completed(self._repo_obj().get_issue(n))
            )
            if issue is None or issue.pull_request is None:
                continue
            merged_at = issue.pull_request.merged_at
            add(
                SeriesKey(
                    n,
                    issue.title or "",
                    issue.body or "",
                    issue.user.login if issue.user else "",
                    _iso(merged_at) if merged_at else None,
                    (),
                    issue.html_url or "",
                )
            )
        this = SeriesKey(
            meta.number,
            meta.title,
            text,
            meta.author,
            meta.merged_at,
            tuple(sorted({f.path for f in files} | {f.old_path for f in files if f.old_path})),
        )
        return related_candidates(
            this, list(others.values()), self.config.related_window_days, _RELATED_MAX
        )

    def _soft(self, what: str, call: Any) -> Any:
        """Related-PR lookups are optional: a failure (other than auth) becomes a source note."""
        try:
            with self._calls(what, missing=f"{what}: not found"):
                return call()
        except GitHubError as exc:
            if "rejected the token" in str(exc):
                raise
            self._notes.append(f"related PRs: {exc}")
            return None

    # -- Source protocol -------------------------------------------------------------------

    def fetch_context(self, paths: Iterable[str]) -> dict[str, str | None]:
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
            elif entry.size > _MAX_TEXT:
                result[p] = None
            else:
                stored = self._stored(p)
                if stored is not None:
                    result[p] = stored[0]
                else:
                    missing.append(p)
        if missing and self._token and self._graphql_ok:
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
                text, _, _ = decode_text(self._blob(self._tree[p].sha, f"reading {p}"), _MAX_TEXT)
                result[p] = text
                self._store(p, text)
        return result

    def _graphql_texts(self, paths: list[str]) -> dict[str, str | None]:
        """Texts of several files at head in one GraphQL request (REST needs one per file)."""
        owner, name = self.repo_name.split("/")
        variables: dict[str, Any] = {"owner": owner, "name": name}
        fields = []
        for i, p in enumerate(paths):
            variables[f"e{i}"] = f"{self._head}:{p}"
            fields.append(
                f"f{i}: object(expression: $e{i}) {{ ... on Blob {{ text isBinary byteSize }} }}"
            )
        decl = "".join(f", $e{i}: String!" for i in range(len(paths)))
        query = (
            f"query($owner: String!, $name: String!{decl}) {{ repository(owner: $owner, name: $name) {{ "
            + " ".join(fields)
            + " } }"
        )
        with self._calls("reading context files"):
            _headers, data = self._client().requester.graphql_query(query, variables)
        repo = (data.get("data") or {}).get("repository") or {}
        out: dict[str, str | None] = {}
        for i, p in enumerate(paths):
            blob = repo.get(f"f{i}")
            text = None if not blob or blob.get("isBinary") else blob.get("text")
            out[p] = text
            self._store(p, text)
        return out

    # Context texts are addressed by (head commit, path), which never change: a plain
    # content store is enough for them (the GraphQL POST cannot go through the HTTP cache).
    def _store_path(self, path: str) -> Path | None:
        if self._content_dir is None:
            return None
        key = hashlib.sha256(f"{self._head}\0{path}".encode()).hexdigest()
        return self._content_dir / key[:2] / f"{key}.json"

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

    def find_references(self, names: Iterable[str]) -> tuple[dict[str, tuple[str, ...]], str]:
        """GitHub cannot grep a commit: search the changed files' head text only."""
        found: dict[str, list[str]] = {n: [] for n in sorted(set(names))}
        patterns = {n: re.compile(rf"(?<![\w]){re.escape(n)}(?![\w])") for n in found}
        for path in sorted(self._texts):
            text = self._texts[path]
            if text is None or not path.endswith(".py"):
                continue
            for lineno, line in enumerate(text.splitlines(), 1):
                for n, pat in patterns.items():
                    if pat.search(line):
                        found[n].append(f"{path}:{lineno}")
        return {n: tuple(v) for n, v in found.items()}, "changed-files"

    def close(self) -> None:
        """Close the HTTP connections."""
        if self._gh is not None:
            self._gh.close()
            self._gh = None


def _completed(obj: Any) -> Any:
    """Complete a lazy PyGithub object now (so errors surface inside the caller's guard)."""
    obj.title  # noqa: B018
    return obj


def _message(data: Any) -> str:
    if isinstance(data, dict):
        return str(data.get("message") or "")
    return ""
