"""The GitHub source: one pull request through the REST API (PyGithub), cached on disk.

Requests are kept few: the base text of a file is rebuilt by reverse-applying its complete
patch to the head text (a request only when the patch is missing), the head texts come in one
GraphQL request with the context files the analyzers will likely ask for first, counts in the
PR object skip empty comment listings, further context files come in one GraphQL request per
round, and every GET goes through an HTTP cache with conditional requests (304s cost no rate
limit). Files past the 3000 that GitHub lists are read from the git trees (``unlisted``) only
when the PR has more.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from prreport.bundle import CheckResult, Comment, CommitInfo, PullRequestBundle, PullRequestMeta
from prreport.config import GitHubConfig
from prreport.errors import GitHubError
from prreport.sources.github.api import PullRequestApi, iso_time
from prreport.sources.github.context import ContextFiles, likely_context
from prreport.sources.github.files import TreeEntry, file_change
from prreport.sources.github.related import related_prs
from prreport.sources.github.unlisted import (
    CAP_GRAPHQL,
    CAP_REST,
    TreeItem,
    UnlistedPlan,
    plan_unlisted,
    read_tree,
    read_unlisted,
)
from prreport.textlines import split_lines

_PR_NUMBER = re.compile(r"^#?([0-9]{1,10})$")
_FILES_CAP = 3000  # GitHub lists at most 3000 files of a PR
_COMMITS_CAP = 250  # and at most 250 commits
# Caps of our own on the other listings, so a server that keeps paging cannot hang a run.
_COMMENTS_CAP = 3000
_CHECKS_CAP = 1000


def _file_fields(f: Any) -> object:
    """Every field of a listed file the source reads (a malformed one fails here): an answer
    that is a JSON object, not a list, gives items without a file name."""
    if not isinstance(f.filename, str) or not isinstance(f.status, str):
        raise TypeError(f"a listed file has no file name or status ({f.filename!r}, {f.status!r})")
    return (
        f.filename,
        f.status,
        f.previous_filename,
        f.patch,
        f.sha,
        f.additions,
        f.deletions,
        f.changes,
    )


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
        self._api = PullRequestApi(config, self.number)
        self.api_url = self._api.api_url
        self._tree: dict[str, TreeEntry] = {}
        self._texts: dict[str, str | None] = {}
        self._notes = self._api.notes
        self._context = ContextFiles(self._api, self._tree, self._texts)

    # -- the bundle ----------------------------------------------------------------------

    def fetch(self) -> PullRequestBundle:
        """Fetch metadata, files, review data, CI, commits and related-PR candidates."""
        repo = self._api.repo()
        pr, meta, (changed, n_comments, n_review_comments, n_commits) = self._pull_request(repo)
        self._context.head = meta.head_sha
        listed = self._api.listing(
            pr.get_files(), "listing the changed files", _FILES_CAP, touch=_file_fields
        )
        if changed and not listed:
            raise GitHubError(
                f"GitHub API at {self.api_url} listed none of the {changed} changed files of "
                f"{self.repo_name} PR #{self.number} (GET .../pulls/{self.number}/files): try again later"
            )
        head = self._read_tree(meta.head_sha)
        plan = UnlistedPlan()
        if changed > len(listed):
            # GitHub lists at most 3000 files: the rest come from the git trees (only then).
            cap = CAP_GRAPHQL if self._api.token else CAP_REST
            plan = plan_unlisted(
                self._api, listed, changed, (meta.base_sha, meta.head_sha), head, cap
            )
            self._notes.extend(plan.notes)
        # One GraphQL request: the head texts of the changed files and the files their
        # imports point at (the cycle walk's first reads), instead of a blob request per file.
        patches = {f.filename: f.patch for f in listed}
        self._context.prefetch(
            [*patches, *plan.head_paths, *likely_context(patches, self._tree, meta.body)]
        )
        with self._api.calls("reading the changed files"):
            files = [
                file_change(
                    self._api, f, meta.base_sha, self._tree, self._texts, self._context.head_bytes
                )
                for f in listed
            ]
        if plan.changes:
            files.extend(read_unlisted(self._api, self._context, plan, self._texts))
        reviews, review_comments, issue_comments = self._review_data(
            pr, n_review_comments, n_comments
        )
        commits = self._commits(pr, n_commits)
        checks = self._checks(meta.head_sha)
        related = related_prs(self._api, meta, files, commits)
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
            unseen_files=plan.unseen,
        )

    def _pull_request(self, repo: Any) -> tuple[Any, PullRequestMeta, tuple[int, int, int, int]]:
        """The PR object, its metadata, and its counts: changed files, comments, review comments, commits."""
        with self._api.calls("reading the pull request"):
            pr = repo.get_pull(self.number)
            meta = PullRequestMeta(
                repo=self.repo_name,
                number=self.number,
                title=pr.title or "",
                body=pr.body or "",
                author=pr.user.login if pr.user else "",
                base_sha=pr.base.sha,
                head_sha=pr.head.sha,
                target=self.target_spec,
                url=pr.html_url or "",
                state="merged" if pr.merged else (pr.state or "open"),
                labels=tuple(sorted(label.name for label in pr.labels)),
                created_at=iso_time(pr.created_at),
                merged_at=iso_time(pr.merged_at),
                merged_by=pr.merged_by.login if pr.merged_by else None,
            )
            counts = (pr.changed_files, pr.comments, pr.review_comments, pr.commits)
        return pr, meta, counts

    def _read_tree(self, head_sha: str) -> tuple[dict[str, TreeItem], bool]:
        """List the head tree's blobs (paths and sizes) in one request; its items and whether
        GitHub truncated them."""
        items, truncated = read_tree(self._api, head_sha, "reading the head tree")
        for path, e in items.items():
            if e.type == "blob":
                self._tree[path] = TreeEntry(e.sha, e.size)
        if truncated:
            self._notes.append(
                "GitHub truncated the head tree listing: some modules may not resolve"
            )
        return items, truncated

    def _review_data(
        self, pr: Any, n_review_comments: int, n_comments: int
    ) -> tuple[list[Comment], list[Comment], list[Comment]]:
        """Reviews, review comments and issue comments (an empty listing costs no request)."""
        with self._api.calls("reading reviews"):
            reviews = [
                Comment(
                    "review",
                    r.user.login if r.user else "",
                    r.body or "",
                    iso_time(r.submitted_at),
                    r.state,
                    url=r.html_url or "",
                )
                for r in self._api.listing(pr.get_reviews(), "reading reviews", _COMMENTS_CAP)
            ]
        review_comments: list[Comment] = []
        if n_review_comments:
            with self._api.calls("reading review comments"):
                review_comments = [
                    Comment(
                        "review_comment",
                        c.user.login if c.user else "",
                        c.body or "",
                        iso_time(c.created_at),
                        path=c.path,
                        line=c.line or c.original_line,
                        url=c.html_url or "",
                    )
                    for c in self._api.listing(
                        pr.get_review_comments(), "reading review comments", _COMMENTS_CAP
                    )
                ]
        issue_comments: list[Comment] = []
        if n_comments:
            with self._api.calls("reading comments"):
                issue_comments = [
                    Comment(
                        "issue_comment",
                        c.user.login if c.user else "",
                        c.body or "",
                        iso_time(c.created_at),
                        url=c.html_url or "",
                    )
                    for c in self._api.listing(
                        pr.get_issue_comments(), "reading comments", _COMMENTS_CAP
                    )
                ]
        return reviews, review_comments, issue_comments

    def _commits(self, pr: Any, n_commits: int) -> list[CommitInfo]:
        """The PR's commits (GitHub lists at most 250: a note says when some are missing)."""
        with self._api.calls("reading the commits"):
            commits = []
            for c in self._api.listing(pr.get_commits(), "reading the commits", _COMMITS_CAP):
                subject, _, body = (c.commit.message or "").partition("\n")
                commits.append(
                    CommitInfo(
                        c.sha,
                        subject,
                        c.commit.author.name if c.commit.author else "",
                        iso_time(c.commit.author.date) or "",
                        body.strip(),
                    )
                )
        if n_commits > len(commits):
            self._notes.append(
                f"GitHub lists at most {_COMMITS_CAP} commits of a pull request: {len(commits)} of {n_commits} read"
            )
        return commits

    def _checks(self, head_sha: str) -> list[CheckResult]:
        commit = self._api.repo().get_commit(head_sha)  # lazy: no request
        out = []
        with self._api.calls("reading check runs"):
            for run in self._api.listing(
                commit.get_check_runs(), "reading check runs", _CHECKS_CAP
            ):
                out.append(CheckResult(run.name, run.status, run.conclusion))
        with self._api.calls("reading the commit status"):
            for st in commit.get_combined_status().statuses[:_CHECKS_CAP]:
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

    # -- Source protocol -------------------------------------------------------------------

    def fetch_context(self, paths: Iterable[str]) -> dict[str, str | None]:
        """Files at head: changed files from memory, others in one GraphQL request (or per-file REST)."""
        return self._context.fetch(paths)

    def find_references(self, names: Iterable[str]) -> tuple[dict[str, tuple[str, ...]], str]:
        """GitHub cannot grep a commit: search the changed files' head text only."""
        found: dict[str, list[str]] = {n: [] for n in sorted(set(names))}
        patterns = {n: re.compile(rf"(?<![\w]){re.escape(n)}(?![\w])") for n in found}
        for path in sorted(self._texts):
            text = self._texts[path]
            if text is None or not path.endswith(".py"):
                continue
            for lineno, line in enumerate(split_lines(text), 1):
                for n, pat in patterns.items():
                    if pat.search(line):
                        found[n].append(f"{path}:{lineno}")
        return {n: tuple(v) for n, v in found.items()}, "changed-files"

    def close(self) -> None:
        """Close the HTTP connections."""
        self._api.close()
