"""The PullRequestBundle: everything analysis needs, from any source, saved as versioned JSON."""

from __future__ import annotations

import dataclasses
import difflib
import gzip
import io
import json
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prreport.errors import BundleError
from prreport.textlines import has_lone_cr

BUNDLE_SCHEMA = "prreport.bundle/1"


@dataclass(frozen=True)
class PullRequestMeta:
    """Pull-request metadata (for a plain revision or range, the head commit's)."""

    repo: str
    number: int | None
    title: str
    body: str
    author: str
    base_sha: str
    head_sha: str
    target: str = ""
    url: str = ""
    state: str = "merged"
    labels: tuple[str, ...] = ()
    created_at: str | None = None
    merged_at: str | None = None
    merged_by: str | None = None


@dataclass(frozen=True)
class FileChange:
    """One changed file: status, counts, patch and the full before/after text when it is text."""

    path: str
    status: str  # added | modified | deleted | renamed | copied
    additions: int
    deletions: int
    old_path: str | None = None
    binary: bool = False
    patch: str | None = None
    before: str | None = None
    after: str | None = None
    # Why before/after text is missing although the file is not binary (non-UTF-8, too large).
    note: str | None = None

    @property
    def before_path(self) -> str:
        """The path of the file in the base revision."""
        return self.old_path or self.path

    @property
    def unread_sides(self) -> tuple[str, ...]:
        """The sides (``"before"``, ``"after"``) the file has by its status but no text of.

        Such a side was not read (not valid text in its encoding, too large, missing): it is
        unknown, never an empty file, so the file looks neither added nor deleted.
        """
        if self.binary:
            return ()
        before = self.status != "added" and self.before is None
        after = self.status != "deleted" and self.after is None
        return (*(("before",) if before else ()), *(("after",) if after else ()))


@dataclass(frozen=True)
class Comment:
    """A review, review comment or issue comment."""

    kind: str  # review | review_comment | issue_comment
    author: str
    body: str
    created_at: str | None = None
    state: str | None = None  # for reviews: APPROVED, CHANGES_REQUESTED, COMMENTED
    path: str | None = None
    line: int | None = None
    url: str = ""


@dataclass(frozen=True)
class CheckResult:
    """A CI check run or commit status at the head commit."""

    name: str
    status: str  # completed | in_progress | queued
    conclusion: str | None  # success | failure | neutral | cancelled | skipped | timed_out | ...


@dataclass(frozen=True)
class CommitInfo:
    """A commit of the pull request."""

    sha: str
    subject: str
    author: str
    date: str
    body: str = ""


@dataclass(frozen=True)
class RelatedCandidate:
    """Another pull request that may belong with this one, and why the source thinks so."""

    number: int
    title: str
    relation: str  # predecessor | same-lines | follow-up | same-series | same-files | referenced | references-this
    evidence: str
    author: str = ""
    merged_at: str | None = None
    url: str = ""
    files: tuple[str, ...] = ()
    # Machine-readable reasons: same-lines, referenced, references-this, same-series, same-files.
    reasons: tuple[str, ...] = ()
    series: str = ""  # conventional-commit "type(scope)" shared with this PR, if any
    shared_files: tuple[str, ...] = ()
    # Files whose lines changed by this PR were last written by that PR (git blame of the base).
    shared_lines: tuple[str, ...] = ()


@dataclass(frozen=True)
class PullRequestBundle:
    """Everything analysis needs; produced by a source, consumed by the analyzers."""

    source: str  # git | github | bundle
    pr: PullRequestMeta
    files: tuple[FileChange, ...]
    commits: tuple[CommitInfo, ...] = ()
    reviews: tuple[Comment, ...] = ()
    review_comments: tuple[Comment, ...] = ()
    issue_comments: tuple[Comment, ...] = ()
    checks: tuple[CheckResult, ...] = ()
    related: tuple[RelatedCandidate, ...] = ()
    # False for sources that cannot see reviews and CI (a local git repository).
    review_data_available: bool = False
    # Paths of every file at head (so analyzers can resolve modules to files).
    head_paths: tuple[str, ...] = ()
    # Extra files at head that analyzers asked for (path -> text, None if absent/unreadable).
    context_files: dict[str, str | None] = field(default_factory=dict)
    # Whole-repository reference search results: name -> ("path:line", ...).
    references: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # How far ``references`` reached: "repository" or "changed-files".
    reference_scope: str = "changed-files"
    # Problems the source met but could work around (capped listings, unreadable files).
    source_notes: tuple[str, ...] = ()
    # Changed files the source could not see (GitHub lists at most 3000 files of a PR and the
    # rest could not be read): the analysis is incomplete while this is not 0.
    unseen_files: int = 0
    schema: str = BUNDLE_SCHEMA

    def file(self, path: str) -> FileChange | None:
        """Return the changed file at ``path`` (after path), if any."""
        for f in self.files:
            if f.path == path:
                return f
        return None


def analysable(bundle: PullRequestBundle) -> PullRequestBundle:
    """The bundle analyzers see: a file with an unread side has no text on either side.

    Its read side alone would make every definition of the file look added or removed; without
    text the file is not analysed (and the verdict is unknown). ``bundle`` itself when every
    side was read.
    """
    if not any(f.unread_sides for f in bundle.files):
        return bundle
    files = tuple(
        dataclasses.replace(
            f,
            before=None,
            after=None,
            note=f.note or f"{' and '.join(f.unread_sides)} text missing",
        )
        if f.unread_sides
        else f
        for f in bundle.files
    )
    return dataclasses.replace(bundle, files=files)


def python_line_ends(bundle: PullRequestBundle) -> PullRequestBundle:
    """Python files with old-Mac line ends (a ``\\r`` alone) as Python numbers their lines.

    ``compile()`` reads such a file, but git sees one line where Python sees many, so its patch
    names no line Python knows. Their texts get ``\\n`` line ends (Python's numbering kept) and a
    patch made from them, with its counts; context files at head get ``\\n`` line ends too.
    ``bundle`` itself when no file has a lone ``\\r``.
    """
    files = tuple(_lf_file(f) for f in bundle.files)
    context = {
        p: _lf(t) if p.endswith(".py") and t is not None and has_lone_cr(t) else t
        for p, t in bundle.context_files.items()
    }
    same_files = all(a is b for a, b in zip(files, bundle.files, strict=True))
    if same_files and all(context[p] is t for p, t in bundle.context_files.items()):
        return bundle
    return dataclasses.replace(bundle, files=files, context_files=context)


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _lf_file(f: FileChange) -> FileChange:
    sides = (f.before, f.after)
    if f.binary or not f.path.endswith(".py") or not any(t and has_lone_cr(t) for t in sides):
        return f
    before = _lf(f.before) if f.before is not None else None
    after = _lf(f.after) if f.after is not None else None
    old = (before or "").split("\n")
    new = (after or "").split("\n")
    for lines, text in ((old, before), (new, after)):
        if not text or text.endswith("\n"):
            lines.pop()  # a final line end ends the last line, it starts no new one
    if (f.before is None and f.status != "added") or (f.after is None and f.status != "deleted"):
        return dataclasses.replace(f, before=before, after=after)  # an unread side: no patch
    diff = list(difflib.unified_diff(old, new, lineterm="", n=3))[2:]  # without ---/+++
    return dataclasses.replace(
        f,
        before=before,
        after=after,
        patch="\n".join(diff),
        additions=sum(1 for ln in diff if ln.startswith("+")),
        deletions=sum(1 for ln in diff if ln.startswith("-")),
    )


# --- JSON (de)serialisation -------------------------------------------------------------


def to_jsonable(value: Any) -> Any:
    """Turn dataclasses, tuples and dicts into plain JSON values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    return value


def _from_jsonable(typ: Any, value: Any, where: str) -> Any:
    origin = typing.get_origin(typ)
    args = typing.get_args(typ)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _from_jsonable(inner[0], value, where)
    if dataclasses.is_dataclass(typ):
        if not isinstance(value, dict):
            raise BundleError(f"{where}: expected an object")
        hints = typing.get_type_hints(typ)
        kwargs = {}
        for f in dataclasses.fields(typ):
            if f.name in value:
                kwargs[f.name] = _from_jsonable(hints[f.name], value[f.name], f"{where}.{f.name}")
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise BundleError(f"{where}: missing field '{f.name}'")
        return typ(**kwargs)  # type: ignore[operator]  # typ is a dataclass class here
    if origin is tuple:
        if not isinstance(value, list):
            raise BundleError(f"{where}: expected a list")
        item = args[0]
        return tuple(_from_jsonable(item, v, f"{where}[{i}]") for i, v in enumerate(value))
    if origin is dict:
        if not isinstance(value, dict):
            raise BundleError(f"{where}: expected an object")
        return {k: _from_jsonable(args[1], v, f"{where}.{k}") for k, v in value.items()}
    if typ in (str, int, bool):
        if not isinstance(value, typ) or (typ is int and isinstance(value, bool)):
            raise BundleError(f"{where}: expected {typ.__name__}, got {type(value).__name__}")
        if typ is int and not -_INT_LIMIT < value < _INT_LIMIT:
            raise BundleError(f"{where}: integer out of range ({len(str(abs(value)))} digits)")
        if typ is str and not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise BundleError(
                    f"{where}: lone surrogate {value[exc.start]!r} at offset {exc.start} (not text)"
                ) from None
        return value
    return value


_INT_LIMIT = 2**63
# A bundle's JSON text at most (decompressed): larger files are refused, not read into memory.
MAX_BUNDLE_BYTES = 512 * 1024 * 1024


def bundle_to_json(bundle: PullRequestBundle) -> str:
    """Serialise a bundle to deterministic JSON text."""
    return json.dumps(to_jsonable(bundle), ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def bundle_from_json(text: str, origin: str = "bundle") -> PullRequestBundle:
    """Parse a bundle from JSON text, checking its schema version."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BundleError(
            f"{origin}: not a prreport bundle (invalid JSON: {exc.msg} at line {exc.lineno})"
        ) from None
    except RecursionError:
        raise BundleError(f"{origin}: not a prreport bundle (JSON nested too deeply)") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise BundleError(f"{origin}: not a prreport bundle (invalid JSON: {exc})") from None
    if not isinstance(data, dict) or "schema" not in data:
        raise BundleError(f"{origin}: not a prreport bundle (no 'schema' field)")
    if data["schema"] != BUNDLE_SCHEMA:
        raise BundleError(
            f"{origin}: bundle schema {data['schema']!r} is not supported (this prreport reads {BUNDLE_SCHEMA!r})"
        )
    return _from_jsonable(PullRequestBundle, data, origin)


def bundle_file_bytes(bundle: PullRequestBundle, path: str | Path) -> bytes:
    """The bytes of a bundle file: JSON, gzip-compressed (reproducibly) when ``path`` ends in ``.gz``."""
    data = bundle_to_json(bundle).encode("utf-8")
    return gzip.compress(data, mtime=0) if str(path).endswith(".gz") else data


def load_bundle(path: str | Path) -> PullRequestBundle:
    """Read a bundle saved with ``--save-bundle`` (plain or gzip-compressed JSON)."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            raw = fh.read(MAX_BUNDLE_BYTES + 1)
        if raw[:2] == b"\x1f\x8b":
            with gzip.GzipFile(fileobj=io.BytesIO(raw)) as gz:
                raw = gz.read(MAX_BUNDLE_BYTES + 1)
        if len(raw) > MAX_BUNDLE_BYTES:
            raise BundleError(
                f"bundle file {p} is larger than {MAX_BUNDLE_BYTES // 1024 // 1024} MiB of JSON"
            )
        text = raw.decode("utf-8-sig")  # as json.load would: a byte-order mark is no text
    except FileNotFoundError:
        raise BundleError(f"bundle file {p} does not exist") from None
    except (OSError, EOFError, UnicodeDecodeError, gzip.BadGzipFile) as exc:
        raise BundleError(f"bundle file {p} cannot be read ({exc})") from None
    return bundle_from_json(text, origin=str(p))
