"""Where a name occurs: whole-word hits in a text, the lines where it is code, the docstring
lines that are prose, the files a repository search found it in, and the search request that
asks for it (the context an analysis needs read before it can say "nothing else uses it")."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from functools import lru_cache, partial

from prreport.bundle import PullRequestBundle
from prreport.findings import ContextRequest
from prreport.python.definitions import Definition
from prreport.python.scopes import is_string_statement
from prreport.python.sources import SourceFiles
from prreport.textlines import split_lines

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def word_hits(text: str | None, name: str) -> list[int]:
    """Lines of ``text`` where ``name`` occurs as a whole word outside comments."""
    if not text:
        return []
    if _WORD.fullmatch(name):
        return list(_word_lines(text).get(name, ()))
    pat = re.compile(rf"(?<![\w]){re.escape(name)}(?![\w])")
    return [
        i for i, code in enumerate(_code_rows(text), 1) if code is not None and pat.search(code)
    ]


_WORD = re.compile(r"\w+")


@lru_cache(maxsize=128)
def _code_rows(text: str) -> tuple[str | None, ...]:
    """Each line without its trailing comment (None for a comment line); a line with quotes is
    kept whole (a ``#`` may sit in a string)."""
    out: list[str | None] = []
    for line in split_lines(text):
        if line.lstrip().startswith("#"):
            out.append(None)
        elif "#" in line and "'" not in line and '"' not in line:
            out.append(line.split("#", 1)[0])
        else:
            out.append(line)
    return tuple(out)


@lru_cache(maxsize=128)
def _word_lines(text: str) -> dict[str, tuple[int, ...]]:
    """Word -> the lines it occurs on as a whole word outside comments (one pass per text: a
    large PR asks for hundreds of names)."""
    out: dict[str, list[int]] = {}
    for i, code in enumerate(_code_rows(text), 1):
        for w in set(_WORD.findall(code or "")):
            out.setdefault(w, []).append(i)
    return {k: tuple(v) for k, v in out.items()}


# Context files fetched to read the text of reference hits (keeps huge greps bounded).
_MAX_HIT_FILES = 40


def reference_request(bundle: PullRequestBundle, names: set[str]) -> ContextRequest:
    """Search the repository for ``names``, then fetch (a bounded number of) the files they occur in."""
    changed = {f.path for f in bundle.files}
    files = sorted(
        {hit.rsplit(":", 1)[0] for n in names for hit in bundle.references.get(n, ())} - changed
    )[:_MAX_HIT_FILES]
    return ContextRequest(files=frozenset(files), references=frozenset(names))


def code_lines(sources: SourceFiles, path: str, name: str) -> frozenset[int] | None:
    """Lines of a file at head where ``name`` is code (a name, attribute, import or definition),
    or None when the file's syntax tree is not at hand (memoised)."""
    return sources.memo(
        path, "head", f"code-lines:{name}", partial(_code_lines, sources, path, name)
    )


def _code_lines(sources: SourceFiles, path: str, name: str) -> frozenset[int] | None:
    tree = sources.tree(path, "head")
    if tree is None:
        return None
    out: set[int] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id == name:
            out.add(n.lineno)
        elif isinstance(n, ast.Attribute) and n.attr == name:
            out.add(n.end_lineno or n.lineno)
        elif isinstance(n, ast.alias) and name in (n.name.split(".")[-1], n.asname):
            out.add(n.lineno)
        elif isinstance(n, _DEFS) and n.name == name:
            out.add(n.lineno)
        elif isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names:
            out.add(n.lineno)
    return frozenset(out)


def docstring_lines(sources: SourceFiles, path: str, side: str) -> frozenset[int]:
    """Lines of the module, class and function docstrings of a file side: prose, not code."""

    def build() -> frozenset[int]:
        tree = sources.tree(path, side)
        lines: set[int] = set()
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                first = node.body[0] if node.body else None
                if first is not None and is_string_statement(first):
                    lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
        return frozenset(lines)

    result: frozenset[int] = sources.memo(path, side, "docstring-lines", build)
    return result


def references_before(
    bundle: PullRequestBundle, sources: SourceFiles, d: Definition
) -> list[tuple[str, int]]:
    """Where ``d.name`` occurred before the change, outside ``d`` itself, as (before path, line).

    Files the PR did not change are the same before and after, so the repository search at
    head answers for them; changed files are searched in their before text. Comment lines and
    other definitions of the same name are not references. A test that used it (even one the
    PR removed with it) is a reference: rewritten tests cannot be told from removed ones here.
    """
    changed = {f.path for f in bundle.files} | {f.before_path for f in bundle.files}
    out: list[tuple[str, int]] = []
    searched = bundle.reference_scope == "repository"
    for hit in bundle.references.get(d.name, ()) if searched else ():
        path, _, line = hit.rpartition(":")
        if path in changed or not line.isdigit():
            continue
        text = sources.text(path, "head")
        rows: list[str] = sources.memo(path, "head", "lines", partial(split_lines, text or ""))
        row = rows[int(line) - 1] if 0 < int(line) <= len(rows) else None
        if row is not None and (row.lstrip().startswith("#") or _definition_line(row, d.name)):
            continue
        if int(line) in docstring_lines(sources, path, "head"):
            continue
        out.append((path, int(line)))
    for f in bundle.files:
        if f.before is None or not f.before_path.endswith(".py"):
            continue
        rows = sources.memo(f.before_path, "before", "lines", partial(split_lines, f.before))
        for n in word_hits(f.before, d.name):
            if f.before_path == d.path and d.start <= n <= d.end:
                continue
            if _definition_line(rows[n - 1], d.name):
                continue
            if n in docstring_lines(sources, f.before_path, "before"):
                continue
            if f.before_path == d.path and n in setup_lines(
                f.before, d, sources.changed(f).removed
            ):
                continue
            out.append((f.before_path, n))
    return out


def _definition_line(text: str, name: str) -> bool:
    return bool(re.match(rf"\s*(async\s+def|def|class)\s+{re.escape(name)}\b", text))


def setup_lines(text: str | None, d: Definition, removed: Iterable[int]) -> list[int]:
    """Removed lines right after a removed constant that only configure it (``NAME.attr = ...``)."""
    if d.kind not in ("constant", "import") or not text:
        return []
    rows = split_lines(text)
    gone = set(removed)
    setup = re.compile(rf"\s*{re.escape(d.name)}\.\w+\s*=")
    out: list[int] = []
    n = d.end + 1
    while n in gone and n <= len(rows):
        row = rows[n - 1]
        if setup.match(row):
            out.append(n)
        elif row.strip() and not row.startswith((" ", "\t", "]", ")", "}")):
            break
        elif out:
            out.append(n)
        n += 1
    return out


def searched_trees(
    bundle: PullRequestBundle, sources: SourceFiles, names: Iterable[str]
) -> list[tuple[str, str, ast.Module]] | None:
    """Both sides of the changed Python files and, at head, every other file the search found
    the names in; None when one of them could not be read."""
    changed = {f.path for f in bundle.files} | {f.before_path for f in bundle.files}
    out: list[tuple[str, str, ast.Module]] = []
    python = {f.path for f in sources.python_files()}
    for f in bundle.files:
        if f.path.endswith(".py") and f.path not in python:
            return None  # a changed Python file that does not parse
    for f in sources.python_files():
        for path, side, text in ((f.before_path, "before", f.before), (f.path, "after", f.after)):
            tree = sources.tree(path, side) if text is not None else None
            if tree is not None:
                out.append((path, side, tree))
    hits = {h.rsplit(":", 1)[0] for n in names for h in bundle.references.get(n, ())}
    for path in sorted(hits - changed):
        if not path.endswith(".py"):
            continue
        tree = sources.tree(path, "head")
        if tree is None:
            return None
        out.append((path, "head", tree))
    return out
