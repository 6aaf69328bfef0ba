"""Publishing a rendered report: the one PR comment, kept up to date, and the Actions job summary.

The body helpers are pure (marker, mention neutralising, fitting a size limit); the
``CommentPublisher`` is the PyGithub "publisher" door of the one-door rule.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from prreport.config import GitHubConfig
from prreport.errors import ConfigError, GitHubError, OutputError

COMMENT_LIMIT = 65_536  # GitHub answers 422 "Body is too long" above this many characters
SUMMARY_LIMIT = 1_048_576  # $GITHUB_STEP_SUMMARY: 1 MiB per step
ACTIONS_BOT = "github-actions[bot]"  # who the Actions token comments as (it cannot call GET /user)

_MARKER = "<!-- prreport:report sha256={} -->"
# Only a marker that opens the comment counts: a quoted marker further down is just text.
_MARKER_RE = re.compile(r"\A<!-- prreport:report sha256=([0-9a-f]{64}) -->")
# A marker-looking string inside the report (quoted PR text) is defused so ours stays unique.
_MARKER_TEXT_RE = re.compile(r"<!--(\s*)prreport:", re.IGNORECASE)
# GitHub links ``@user`` and ``@org/team`` when a letter or digit follows the ``@``.
_MENTION_RE = re.compile(r"@(?=[A-Za-z0-9])")
# U+2060 WORD JOINER would also do; U+200D ZERO WIDTH JOINER is invisible and breaks the match.
_ZWJ = "\u200d"
_FENCE_OPEN_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_HEADING_RE = re.compile(r"^ {0,3}(#{1,2})[ \t]+(.*?)[ \t#]*$")

_NOTES = {
    "en": (
        "✂️ This report was cut to fit GitHub's {limit:,}-character limit: "
        "{cut:,} characters left out{sections}. The full report is in {where}."
    ),
    "zh": "✂️ 本报告超出 GitHub {limit:,} 字符上限，已截去 {cut:,} 个字符{sections}。完整报告见{where}。",
}
_SECTIONS_NOTE = {"en": ", from “{first}” on ({names})", "zh": "（自“{first}”起：{names}）"}


# Bumped when the comment built from the same report changes (fitting, neutralising), so
# existing comments are rewritten once; the run-specific pointer line is not hashed.
_BODY_VERSION = "1"


def report_hash(report: str) -> str:
    """SHA-256 of the rendered report (and body format): equal hashes mean no edit is needed."""
    return hashlib.sha256(f"prreport-comment/{_BODY_VERSION}\n{report}".encode()).hexdigest()


def marker(digest: str) -> str:
    """The hidden first line that identifies a prreport comment and the report it shows."""
    return _MARKER.format(digest)


def marker_hash(body: str | None) -> str | None:
    """The report hash of a comment that opens with our marker, else None."""
    m = _MARKER_RE.match(body or "")
    return m.group(1) if m else None


def utf16_len(text: str) -> int:
    """Length as GitHub counts it (UTF-16 code units; never less than Python's ``len``)."""
    return len(text.encode("utf-16-le")) // 2


def utf8_len(text: str) -> int:
    """Size in bytes, as the job-summary limit counts it."""
    return len(text.encode("utf-8"))


@dataclass
class _Fence:
    char: str
    length: int

    def closes(self, line: str) -> bool:
        stripped = line.strip()
        return (
            len(line) - len(line.lstrip(" ")) <= 3
            and len(stripped) >= self.length
            and set(stripped) == {self.char}
        )

    def closing(self) -> str:
        return self.char * self.length


def _fence_opening(line: str) -> _Fence | None:
    m = _FENCE_OPEN_RE.match(line)
    if not m:
        return None
    run, info = m.group(1), m.group(2)
    if run[0] == "`" and "`" in info:
        return None  # not a fence in CommonMark: a backtick fence's info string has no backticks
    return _Fence(run[0], len(run))


def _code_flags(lines: list[str]) -> list[bool]:
    """For each line: is it inside (or delimiting) a top-level fenced code block?"""
    flags = []
    fence: _Fence | None = None
    for line in lines:
        if fence is None:
            fence = _fence_opening(line)
            flags.append(fence is not None)
        else:
            flags.append(True)
            if fence.closes(line):
                fence = None
    return flags


def neutralise_mentions(text: str) -> str:
    """Make every ``@name`` outside fenced code unlinkable (no notification), keeping it readable.

    A zero-width joiner after the ``@`` stays invisible but GitHub's mention filter needs a
    letter or digit right after the ``@``. Code blocks are left alone: GitHub never links
    there and a snippet's ``@decorator`` must stay copyable.
    """
    lines = text.split("\n")
    flags = _code_flags(lines)
    out = [
        ln if code else _MENTION_RE.sub("@" + _ZWJ, ln)
        for ln, code in zip(lines, flags, strict=True)
    ]
    return "\n".join(out)


def defuse_markers(text: str) -> str:
    """Turn marker-looking comments inside the report into something no marker search matches."""
    return _MARKER_TEXT_RE.sub(r"<!--\1prreport-quoted:", text)


@dataclass(frozen=True)
class _Section:
    title: str
    lines: list[str]


def _sections(lines: list[str]) -> list[_Section]:
    """Split Markdown at top-level ``#``/``##`` headings outside code blocks."""
    flags = _code_flags(lines)
    sections = [_Section("", [])]
    for line, code in zip(lines, flags, strict=True):
        m = None if code else _HEADING_RE.match(line)
        if m:
            sections.append(_Section(m.group(2).strip(), []))
        sections[-1].lines.append(line)
    if not sections[0].lines:
        sections.pop(0)
    return sections


def _cut_lines(lines: list[str], budget: int, measure: Callable[[str], int]) -> list[str]:
    """The longest prefix of ``lines`` (preferring a blank-line boundary) that fits, fence closed."""
    flags = _code_flags(lines)
    best: tuple[int, _Fence | None] = (0, None)
    best_blank = 0
    fence: _Fence | None = None
    used = 0
    for i, line in enumerate(lines):
        if fence is None:
            fence = _fence_opening(line) if flags[i] else None
        elif fence.closes(line):
            fence = None
        used += measure(line) + 1
        if used + (measure(fence.closing()) + 1 if fence is not None else 0) > budget:
            break
        best = (i + 1, fence)
        if fence is None and not line.strip():
            best_blank = i + 1
    end, open_fence = best
    # A blank-line boundary keeps paragraphs and tables whole, unless it wastes most of the room.
    if best_blank and measure("\n".join(lines[:best_blank])) * 2 >= measure("\n".join(lines[:end])):
        return lines[:best_blank]
    return lines[:end] + ([open_fence.closing()] if open_fence is not None else [])


def fit(
    text: str,
    limit: int,
    where: str,
    lang: str = "en",
    measure: Callable[[str], int] = utf16_len,
) -> str:
    """Return ``text`` if it fits ``limit``, else a prefix cut at a section boundary plus a note.

    Whole sections are kept while they fit; the first that does not is cut at a block
    boundary when enough room is left (closing any open code fence) and the rest is dropped.
    The final line says how much was cut and where the full report is (``where``).
    """
    if measure(text) <= limit:
        return text
    note_tpl = _NOTES.get(lang, _NOTES["en"])
    sections = _sections(text.rstrip("\n").split("\n"))
    # Room for the note, generously sized so the real note (with names and counts) fits.
    names = [s.title for s in sections if s.title]
    worst_names = ", ".join(names)
    reserve = measure(
        "\n\n---\n\n> "
        + note_tpl.format(
            limit=limit,
            cut=measure(text),
            sections=_SECTIONS_NOTE.get(lang, _SECTIONS_NOTE["en"]).format(
                first=worst_names[:200], names=worst_names[:2000]
            ),
            where=where,
        )
        + "\n"
    )
    budget = limit - reserve
    if budget <= 0:
        raise OutputError(
            f"the truncation note alone exceeds the {limit}-character limit: shorten the pointer {where!r}"
        )
    kept: list[str] = []
    used = 0
    dropped: list[_Section] = []
    for idx, sec in enumerate(sections):
        size = measure("\n".join(sec.lines)) + 1
        if not dropped and used + size <= budget:
            kept.extend(sec.lines)
            used += size
            continue
        if not dropped:
            remaining = budget - used
            # Cut inside this section only when a useful share of the room is left.
            partial = (
                _cut_lines(sec.lines, remaining, measure)
                if remaining >= budget // 8 or not kept
                else []
            )
            if len(partial) > 1 or (partial and not sec.title):
                kept.extend(partial)
            dropped.extend(sections[idx:])
            continue
    body = "\n".join(kept).rstrip("\n")
    titles = [s.title for s in dropped if s.title]
    if titles:
        names_text = ", ".join(f"“{t}”" if lang == "en" else t for t in titles)
        if len(names_text) > 2000:
            names_text = names_text[:1990] + "…"
        sections_text = _SECTIONS_NOTE.get(lang, _SECTIONS_NOTE["en"]).format(
            first=titles[0][:200], names=names_text
        )
    else:
        sections_text = ""
    cut = measure(text) - measure(body)
    note = note_tpl.format(limit=limit, cut=cut, sections=sections_text, where=where)
    return f"{body}\n\n---\n\n> {note}\n"


def comment_body(report: str, where: str, lang: str = "en", limit: int = COMMENT_LIMIT) -> str:
    """The full comment: our marker (with the report's hash), then the safe, fitted report."""
    head = marker(report_hash(report)) + "\n"
    safe = neutralise_mentions(defuse_markers(report))
    return head + fit(safe, limit - utf16_len(head), where, lang)


def append_job_summary(
    report: str, where: str, lang: str = "en", path: str | None = None
) -> Path | None:
    """Append the report to ``$GITHUB_STEP_SUMMARY`` (within its 1 MiB); None outside Actions."""
    target = path if path is not None else os.environ.get("GITHUB_STEP_SUMMARY", "")
    if not target:
        return None
    p = Path(target)
    try:
        existing = p.stat().st_size if p.exists() else 0
        room = SUMMARY_LIMIT - existing - 2
        if room <= 4096:
            return None  # this step's summary is full; the comment and the artifact still have the report
        text = fit(neutralise_mentions(report), room, where, lang, measure=utf8_len)
        with p.open("a", encoding="utf-8", newline="\n") as fh:
            if existing:
                fh.write("\n")
            fh.write(text if text.endswith("\n") else text + "\n")
    except OSError as exc:
        raise OutputError(
            f"cannot append to the job summary {p}: {exc.strerror} (check GITHUB_STEP_SUMMARY)"
        ) from None
    return p


@dataclass(frozen=True)
class PublishResult:
    """What the publisher did: ``created``, ``updated`` or ``unchanged``, and the comment."""

    action: str
    comment_id: int
    url: str
    login: str


class CommentPublisher:
    """Keeps exactly one prreport comment on a PR, written by the token's own user."""

    def __init__(self, repo: str, token: str, config: GitHubConfig) -> None:
        from prreport.sources.github.client import new_client

        if not token:
            raise ConfigError(
                "no GitHub token to post the comment: set GITHUB_TOKEN (or GH_TOKEN), or use --dry-run"
            )
        self.repo_name = repo
        self._gh = new_client(config, token)
        self._repo = self._gh.get_repo(repo, lazy=True)

    def close(self) -> None:
        """Close the HTTP connections."""
        self._gh.close()

    def _fail(self, exc: Exception, doing: str, number: int) -> GitHubError:
        from github import GithubException

        where = f"{self.repo_name}#{number}"
        if isinstance(exc, GithubException):
            status = exc.status
            if status == 401:
                return GitHubError(
                    f"GitHub rejected the token while {doing} on {where} (401): set a valid GITHUB_TOKEN"
                )
            if status == 403:
                return GitHubError(
                    f"GitHub refused {doing} on {where} (403): the token needs 'pull-requests: write' (or is rate limited)"
                )
            if status == 404:
                return GitHubError(
                    f"{where} not found while {doing} (404): check --github OWNER/NAME and the PR number"
                )
            if status == 422:
                return GitHubError(f"GitHub rejected the comment on {where} (422): {exc.data}")
            return GitHubError(f"GitHub failed {doing} on {where} (HTTP {status})")
        return GitHubError(
            f"cannot reach GitHub while {doing} on {where}: {exc} (check --github-api-url)"
        )

    def own_login(self) -> str:
        """The token's user (GET /user), or ``github-actions[bot]`` when that is forbidden."""
        from github import GithubException

        try:
            return str(self._gh.get_user().login)
        except GithubException as exc:
            if exc.status in (403, 404):  # the Actions token may not read /user
                return ACTIONS_BOT
            raise self._fail(exc, "reading the token's user", 0) from None
        except Exception as exc:  # network failures become one-line errors
            raise self._fail(exc, "reading the token's user", 0) from None

    def head_sha(self, number: int) -> str:
        """The PR's current head commit."""
        try:
            return str(self._repo.get_pull(number).head.sha)
        except Exception as exc:
            raise self._fail(exc, "reading the PR", number) from None

    def find(self, number: int, login: str) -> list[tuple[int, str, object]]:
        """Our comments on the PR as ``(id, hash, comment)``, oldest first (marker AND author)."""
        try:
            comments = list(self._repo.get_issue(number).get_comments())
        except Exception as exc:
            raise self._fail(exc, "listing comments", number) from None
        ours = []
        for c in comments:
            digest = marker_hash(c.body)
            if digest and c.user is not None and c.user.login.lower() == login.lower():
                ours.append((int(c.id), digest, c))
        return sorted(ours, key=lambda t: t[0])

    def publish(self, number: int, body: str, expect_head: str | None = None) -> PublishResult:
        """Create the comment, edit ours in place, or do nothing when its report hash is equal."""
        digest = marker_hash(body)
        if digest is None:
            raise ValueError("comment body must start with the prreport marker")
        if expect_head:
            actual = self.head_sha(number)
            if actual != expect_head:
                raise GitHubError(
                    f"{self.repo_name}#{number} head is {actual[:12]}, not {expect_head[:12]}: "
                    "the report is for another commit (re-run on the PR's current head)"
                )
        login = self.own_login()
        ours = self.find(number, login)
        try:
            if not ours:
                created = self._repo.get_issue(number).create_comment(body)
                return PublishResult("created", int(created.id), str(created.html_url or ""), login)
            cid, old, comment = ours[0]
            # Two runs racing may each have created one: keep the oldest, drop the others.
            for _id, _hash, extra in ours[1:]:
                extra.delete()  # type: ignore[attr-defined]
            url = str(getattr(comment, "html_url", "") or "")
            if old == digest:
                return PublishResult("unchanged", cid, url, login)
            comment.edit(body)  # type: ignore[attr-defined]
            return PublishResult("updated", cid, url, login)
        except GitHubError:
            raise
        except Exception as exc:
            raise self._fail(exc, "writing the comment", number) from None


_POINTER = {
    "en": {
        "summary": "the job summary of [the workflow run]({url})",
        "artifact": "the `{name}` artifact of that run",
        "file": "`{path}`",
        "join": " and ",
        "none": "the Markdown file prreport wrote (see --out)",
    },
    "zh": {
        "summary": "[工作流运行]({url}) 的 job summary",
        "artifact": "该运行的 `{name}` 构件（artifact）",
        "file": "`{path}`",
        "join": "以及",
        "none": "prreport 写出的 Markdown 文件（见 --out）",
    },
}


def full_report_pointer(lang: str, run_url: str = "", artifact: str = "", path: str = "") -> str:
    """Where the untruncated report is: the run's job summary, its artifact, or a local file."""
    words = _POINTER.get(lang, _POINTER["en"])
    parts = []
    if run_url:
        parts.append(words["summary"].format(url=run_url))
    if artifact:
        parts.append(words["artifact"].format(name=artifact.replace("`", "")))
    if path and not parts:
        parts.append(words["file"].format(path=path.replace("`", "")))
    return words["join"].join(parts) if parts else words["none"]
