"""Behaviour-changing mutants of the corpus commits prreport proves pure (issue 30).

A proof of "pure refactor" is sound only if it notices when the code it speaks for does
something else. Each mutant takes one changed Python file of a commit the corpus proves pure,
changes its *after* text by one operator that changes behaviour, at a line the commit added
(``where="added"``) or at an untouched line of a function it changed (``where="function"``),
and rebuilds the bundle consistently (after text, patch, counts). The verdict of a mutant must
never stay ``pure-refactor``: a mutant that survives is a soundness bug.

Operators (each edit is made on the source text at the positions ``ast`` gives, so the rest
of the file is untouched): ``flip-comparison`` (``==``/``!=``, ``<``/``>=``, ``>``/``<=``,
``is``/``is not``, ``in``/``not in``), ``change-constant`` (an int or float + 1, a string
gains a character, ``True``/``False``), ``drop-call`` (a call statement becomes ``pass``),
``reorder-calls`` (two adjacent, different call statements swapped), ``swap-arguments`` (two
adjacent, different positional arguments), ``remove-guard`` (``if t: body`` without ``else``
becomes ``body``) and ``negate-if`` (``if t`` becomes ``if not (t)``).

Mutants skipped by construction, as provably the same program or no program: an edit whose
result does not parse or parses to the same tree; anything in an annotation, a docstring or
another bare string statement, or under ``if TYPE_CHECKING:`` (none of it runs); the type
argument of ``cast(...)``; swapping or reordering two equal expressions. Files the verdict
does not read (docs: ``prreport.classify.category``; tests, unless the commit changed no
Python source and is judged on its test code) are not mutated.

``python -m tests.corpus_mutants ID... [--cap N]`` runs the check on those corpus commits.
"""

from __future__ import annotations

import argparse
import ast
import bisect
import dataclasses
import random
import re
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from prreport.bundle import FileChange, PullRequestBundle, load_bundle
from prreport.classify import category
from prreport.config import Config
from prreport.diffparse import changed_lines
from prreport.findings import Finding
from prreport.pipeline import analyse
from prreport.report.ledger import ledger_of
from tests.mutations import git_patch

BUNDLES = Path(__file__).resolve().parent / "corpus" / "bundles"
OPERATORS = (
    "flip-comparison",
    "change-constant",
    "drop-call",
    "reorder-calls",
    "swap-arguments",
    "remove-guard",
    "negate-if",
)
SEED = 30  # issue 30: the sample of mutants per commit is fixed
CAP = 12  # mutants per commit, by default
PURE = "pure-refactor"
_READ_CATEGORIES = ("source", "build", "config")  # the files the verdict reads (report/ledger.py)
_FLIP = {
    ast.Eq: (r"==", "!="),
    ast.NotEq: (r"!=", "=="),
    ast.Lt: (r"<(?![<=])", ">="),
    ast.GtE: (r">=", "<"),
    ast.Gt: (r"(?<!-)>(?![>=])", "<="),
    ast.LtE: (r"<=", ">"),
    ast.IsNot: (r"\bis\s+not\b", "is"),
    ast.Is: (r"\bis\b", "is not"),
    ast.NotIn: (r"\bnot\s+in\b", "in"),
    ast.In: (r"\bin\b", "not in"),
}
_LINE_END = re.compile(r"\r\n|\r|\n")
_STRING_START = re.compile(r"[rRbBuU]{0,2}('''|\"\"\"|'|\")")

# Mutants still proven pure today (``Mutant.key`` -> why, "equivalent: ..." when the mutant is
# behaviour-preserving by the corpus's definition, tests/corpus/README.md, else "bug: ...", a
# soundness bug reported to the engine's owner). tests/test_mutations_kill.py fails on any
# other survivor, and on one of these that is killed now.
KNOWN_SURVIVORS: dict[str, str] = {
    "black-9ce100ba src/black/__init__.py:80 remove-guard: removed guard `if TYPE_CHECKING:`": (
        "equivalent: the before file imported Executor at module level, unguarded; the mutant"
        " binds it there again to the same object (its other names stay sunk)"
    ),
    "black-9ce100ba src/black/__init__.py:80 negate-if: `if TYPE_CHECKING` -> `if not (...)`": (
        "equivalent: `if not TYPE_CHECKING:` runs its import at import time, as the guard removed"
        " does: the before file imported Executor there, unguarded, the same object"
    ),
    "poetry-0caf55f9 src/poetry/config/source.py:11 remove-guard: removed guard"
    " `if TYPE_CHECKING:`": (
        "equivalent: a type-only import made eager (tomlkit.items, a declared dependency that"
        " imports nothing of poetry: no cycle, no name rebound), which the corpus counts as"
        " behaviour-preserving; prreport reports it as import.added"
    ),
    "poetry-0caf55f9 src/poetry/config/source.py:11 negate-if: `if TYPE_CHECKING` ->"
    " `if not (...)`": (
        "equivalent: as the guard removed, `if not TYPE_CHECKING:` runs the type-only import"
        " (tomlkit.items) at import time"
    ),
}

Edit = tuple[int, int, str]  # (start, end, replacement): character offsets in the after text
# A candidate edit: (the lines it changes the meaning of, its edits, what it did)
_Cand = tuple[tuple[int, ...], tuple[Edit, ...], str]


@dataclass(frozen=True)
class Mutant:
    """One behaviour-changing edit of one file's after text."""

    case: str  # corpus id
    path: str
    line: int  # the line of the after text (before the edit) that the edit is on
    operator: str
    where: str  # "added": a line the PR added | "function": an untouched line of a changed def
    edits: tuple[Edit, ...]
    summary: str  # what it did, e.g. "`a == b` -> `a != b`"

    @property
    def key(self) -> str:
        """What names it in ``KNOWN_SURVIVORS``: ``case path:line operator: summary``."""
        return f"{self.case} {self.path}:{self.line} {self.operator}: {self.summary}"

    def apply(self, text: str) -> str:
        """The after text with the edits made."""
        for start, end, new in sorted(self.edits, reverse=True):
            text = text[:start] + new + text[end:]
        return text


@dataclass(frozen=True)
class Outcome:
    """The verdict on one mutant and, for a survivor, what proved its line."""

    mutant: Mutant
    verdict: str
    seconds: float
    proved_by: tuple[str, ...] = ()  # "kind symbol [rewrite kinds]" of the findings explaining it

    @property
    def killed(self) -> bool:
        """The mutant is not called a pure refactor."""
        return self.verdict != PURE


class _Text:
    """A source text with ``ast`` positions (line, UTF-8 column) turned into character offsets."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in _LINE_END.finditer(text)]

    def line(self, n: int) -> str:
        """Line ``n`` (1-based) without its end."""
        end = self.starts[n] if n < len(self.starts) else len(self.text)
        return _LINE_END.sub("", self.text[self.starts[n - 1] : end])

    def offset(self, lineno: int, col: int) -> int:
        """The character offset of a byte column of a line."""
        prefix = self.line(lineno).encode("utf-8")[:col].decode("utf-8", "replace")
        return self.starts[lineno - 1] + len(prefix)

    def span(self, node: ast.AST) -> tuple[int, int]:
        """The character offsets of a node's text."""
        n: ast.expr = node  # type: ignore[assignment]  # every node with a position
        assert n.end_lineno is not None and n.end_col_offset is not None
        return self.offset(n.lineno, n.col_offset), self.offset(n.end_lineno, n.end_col_offset)

    def segment(self, node: ast.AST) -> str:
        """A node's text."""
        start, end = self.span(node)
        return self.text[start:end]

    def alone(self, stmt: ast.stmt) -> bool:
        """The statement has its lines to itself (no ``;``, no one-line ``if x: stmt``)."""
        start, end = self.span(stmt)
        last = stmt.end_lineno or stmt.lineno
        head = self.text[self.starts[stmt.lineno - 1] : start]
        tail = self.text[end : self.starts[last] if last < len(self.starts) else len(self.text)]
        return not head.strip() and (not tail.strip() or tail.strip().startswith("#"))

    def lineno(self, offset: int) -> int:
        """The line (1-based) an offset is on."""
        return bisect.bisect_right(self.starts, offset)


@dataclass(frozen=True)
class _Site:
    """A node and where it stands: the qualified names of the defs around it (``C.m.``)."""

    node: ast.AST
    defs: tuple[str, ...]
    scope: str  # the qualified name of the scope it is in (``C.m.``, ``""``: the module)


def _type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING"
    )


def _runtime_children(node: ast.AST) -> Iterator[ast.AST]:
    """The children of a node that run: no annotations, docstrings or ``TYPE_CHECKING`` bodies."""
    for name, value in ast.iter_fields(node):
        if name in ("annotation", "returns", "type_comment"):
            continue
        if isinstance(node, ast.If) and name == "body" and _type_checking(node):
            continue
        if isinstance(node, ast.Call) and name == "args" and _called(node) == "cast":
            value = value[1:]  # cast(T, x): the type is not looked at
        for child in value if isinstance(value, list) else [value]:
            if not isinstance(child, ast.AST):
                continue
            if isinstance(child, ast.Expr) and isinstance(child.value, ast.Constant):
                if isinstance(child.value.value, str):
                    continue  # a docstring or another bare string statement
            if isinstance(node, ast.JoinedStr) and isinstance(child, ast.Constant):
                continue  # f-string text: no positions of its own before Python 3.12
            yield child


def _called(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _sites(tree: ast.AST) -> Iterator[_Site]:
    stack: list[_Site] = [_Site(tree, (), "")]
    while stack:
        site = stack.pop()
        yield site
        node, defs, scope = site.node, site.defs, site.scope
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            scope = f"{scope}{node.name}."
            if not isinstance(node, ast.ClassDef):
                defs = (*defs, scope)
        stack.extend(_Site(c, defs, scope) for c in reversed(list(_runtime_children(node))))


def _changed_defs(text: str | None, lines: set[int]) -> set[str]:
    """The qualified names of the defs (functions, methods) of a text that hold one of ``lines``."""
    if text is None or not lines:
        return set()
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return set()
    out = set()
    for site in _sites(tree):
        n = site.node
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(n.lineno <= x <= (n.end_lineno or n.lineno) for x in lines):
                out.add(f"{site.scope}{n.name}.")
    return out


def _flip(src: _Text, node: ast.Compare) -> Iterator[_Cand]:
    left: ast.expr = node.left
    for op, right in zip(node.ops, node.comparators, strict=True):
        pattern, new = _FLIP[type(op)]
        start, end = src.span(left)[1], src.span(right)[0]
        hits = list(re.finditer(pattern, src.text[start:end]))
        if len(hits) == 1:
            h = hits[0]
            at = start + h.start()
            yield (src.lineno(at),), ((at, start + h.end(), new),), f"`{h[0]}` -> `{new}`"
        left = right


def _constant(src: _Text, node: ast.Constant) -> Iterator[_Cand]:
    start, end = src.span(node)
    text, v = src.text[start:end], node.value
    if isinstance(v, bool):
        new = "False" if v else "True"
        if text == str(v):
            yield (node.lineno,), ((start, end, new),), f"`{text}` -> `{new}`"
    elif isinstance(v, (int, float)):
        try:
            ok = ast.literal_eval(text) == v
        except (ValueError, SyntaxError):
            ok = False
        if ok:
            new = repr(v + 1)
            yield (node.lineno,), ((start, end, new),), f"`{text}` -> `{new}`"
    elif isinstance(v, (str, bytes)):
        m = _STRING_START.match(text)
        if m:
            at = start + m.end()
            yield (
                (node.lineno,),
                ((at, at, "µ" if isinstance(v, str) else "X"),),
                "a string +1 char",
            )


def _call_stmt(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.Expr):
        return False
    v = stmt.value.value if isinstance(stmt.value, ast.Await) else stmt.value
    return isinstance(v, ast.Call)


def _bodies(node: ast.AST) -> Iterator[list[ast.stmt]]:
    for name in ("body", "orelse", "finalbody"):
        body = getattr(node, name, None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            if not (isinstance(node, ast.If) and name == "body" and _type_checking(node)):
                yield body
    for h in getattr(node, "handlers", []) or []:
        yield h.body
    for c in getattr(node, "cases", []) or []:
        yield c.body


def _statements(
    src: _Text, node: ast.AST
) -> Iterator[tuple[tuple[int, ...], tuple[Edit, ...], str, str]]:
    """drop-call and reorder-calls over the bodies a node holds: (line, edits, summary, op)."""
    for body in _bodies(node):
        calls = [s for s in body if _call_stmt(s) and src.alone(s)]
        for s in calls:
            start, end = src.span(s)
            yield (s.lineno,), ((start, end, "pass"),), f"dropped `{_short(src, s)}`", "drop-call"
        for a, b in zip(body, body[1:], strict=False):
            if a in calls and b in calls and ast.dump(a) != ast.dump(b):
                (sa, ea), (sb, eb) = src.span(a), src.span(b)
                ta, tb = src.text[sa:ea], src.text[sb:eb]
                edits = ((sa, ea, tb), (sb, eb, ta))
                yield (
                    (a.lineno, b.lineno),
                    edits,
                    f"swapped `{_short(src, a)}`, `{_short(src, b)}`",
                    "reorder",
                )


def _short(src: _Text, node: ast.AST) -> str:
    text = " ".join(src.segment(node).split())
    return text if len(text) <= 60 else text[:57] + "..."


def _swap(src: _Text, node: ast.Call) -> Iterator[_Cand]:
    for a, b in zip(node.args, node.args[1:], strict=False):
        if isinstance(a, ast.Starred) or isinstance(b, ast.Starred):
            continue
        if ast.dump(a) == ast.dump(b):
            continue  # the same expression twice: swapping them is the same call
        (sa, ea), (sb, eb) = src.span(a), src.span(b)
        summary = f"swapped `{_short(src, a)}`, `{_short(src, b)}` in `{_called(node)}(...)`"
        yield (a.lineno, b.lineno), ((sa, ea, src.text[sb:eb]), (sb, eb, src.text[sa:ea])), summary


def _unguard(src: _Text, node: ast.If) -> Iterator[_Cand]:
    start = src.span(node)[0]
    if node.orelse or not src.text.startswith("if", start):
        return
    first = node.body[0]
    body_start = src.span(first)[0]
    summary = f"removed guard `if {_short(src, node.test)}:`"
    if first.lineno == node.lineno:
        yield (node.lineno,), ((start, body_start, ""),), summary
        return
    indent = src.line(node.lineno)[: node.col_offset]
    inner = src.line(first.lineno)[: first.col_offset]
    if not inner.startswith(indent) or set(inner) - {" "} or len(inner) <= len(indent):
        return
    if any(
        isinstance(n, ast.Constant) and n.lineno != n.end_lineno for n in ast.walk(node)
    ):  # dedenting a multi-line string would change it too
        return
    cut = len(inner) - len(indent)
    edits: list[Edit] = [(src.starts[node.lineno - 1], src.starts[first.lineno - 1], "")]
    for n in range(first.lineno, (node.end_lineno or node.lineno) + 1):
        row = src.line(n)
        if row.strip() and not row.startswith(inner):
            return
        if row.strip():
            edits.append((src.starts[n - 1], src.starts[n - 1] + cut, ""))
    yield (node.lineno,), tuple(edits), summary


def _negate(src: _Text, node: ast.If) -> Iterator[_Cand]:
    start, end = src.span(node.test)
    yield (
        (node.test.lineno,),
        ((start, start, "not ("), (end, end, ")")),
        f"`if {_short(src, node.test)}` -> `if not (...)`",
    )


def _candidates(
    src: _Text, site: _Site
) -> Iterator[tuple[str, tuple[int, ...], tuple[Edit, ...], str]]:
    node = site.node
    if isinstance(node, ast.Compare):
        yield from (("flip-comparison", *c) for c in _flip(src, node))
    if isinstance(node, ast.Constant):
        yield from (("change-constant", *c) for c in _constant(src, node))
    if isinstance(node, ast.Call):
        yield from (("swap-arguments", *c) for c in _swap(src, node))
    if isinstance(node, ast.If):
        yield from (("remove-guard", *c) for c in _unguard(src, node))
        yield from (("negate-if", *c) for c in _negate(src, node))
    for lines, edits, summary, op in _statements(src, node):
        yield ("drop-call" if op == "drop-call" else "reorder-calls"), lines, edits, summary


def file_mutants(case: str, change: FileChange, tests: bool = False) -> list[Mutant]:
    """Every mutant of one changed file's after text (in source order); of a test file only
    with ``tests`` (the PR changed test code only: the verdict is judged on it)."""
    if not change.path.endswith(".py") or change.after is None:
        return []
    if category(change.path) not in (*_READ_CATEGORIES, *(("test",) if tests else ())):
        return []
    try:
        tree = ast.parse(change.after)
    except SyntaxError:
        return []
    diff = changed_lines(change.patch)
    added = set(diff.added)
    # the defs the PR changed: a line added to them, or one removed from them
    changed = _changed_defs(change.after, added) | _changed_defs(change.before, set(diff.removed))
    src, original = _Text(change.after), ast.dump(tree)
    out: dict[tuple[Edit, ...], Mutant] = {}
    for site in _sites(tree):
        changed_def = any(q in changed for q in site.defs)
        for op, lines, edits, summary in _candidates(src, site):
            where = "added" if added & set(lines) else "function" if changed_def else ""
            if not where or edits in out:
                continue
            m = Mutant(case, change.path, lines[0], op, where, edits, summary)
            try:
                mutated = ast.dump(ast.parse(m.apply(change.after)))
            except (SyntaxError, ValueError):
                continue
            if mutated != original:
                out[edits] = m
    return sorted(out.values(), key=lambda m: (m.line, m.operator, m.edits))


def mutants(case: str, bundle: PullRequestBundle) -> list[Mutant]:
    """Every mutant of a commit (file by file)."""
    py = [f.path for f in bundle.files if f.path.endswith(".py")]
    tests = not any(category(p) == "source" for p in py)
    return [m for f in bundle.files for m in file_mutants(case, f, tests)]


def sample(all_mutants: Sequence[Mutant], cap: int, seed: int = SEED) -> list[Mutant]:
    """At most ``cap`` mutants, deterministically, spread over operators and both ``where``s."""
    if cap <= 0 or len(all_mutants) <= cap:
        return list(all_mutants)
    rnd = random.Random(f"{seed}:{all_mutants[0].case}")
    groups = []
    for op in OPERATORS:
        for where in ("added", "function"):
            g = [m for m in all_mutants if m.operator == op and m.where == where]
            rnd.shuffle(g)
            groups.append(g)
    picked: list[Mutant] = []
    while len(picked) < cap:
        for g in groups:
            if g and len(picked) < cap:
                picked.append(g.pop())
    return picked


def mutated_bundle(bundle: PullRequestBundle, mutant: Mutant) -> PullRequestBundle:
    """The bundle with one file's after text mutated: the patch and counts made again to match."""
    change = bundle.file(mutant.path)
    assert change is not None and change.after is not None
    after = mutant.apply(change.after)
    patch = git_patch(change.before or "", after)
    rows = patch.split("\n")
    new = dataclasses.replace(
        change,
        after=after,
        patch=patch,
        additions=sum(r.startswith("+") for r in rows),
        deletions=sum(r.startswith("-") for r in rows),
    )
    files = tuple(new if f.path == mutant.path else f for f in bundle.files)
    context = dict(bundle.context_files)
    if mutant.path in context:
        context[mutant.path] = after
    return dataclasses.replace(bundle, files=files, context_files=context)


def _mutated_line(mutant: Mutant, after: str) -> int:
    """The line of the edit in the mutated text (the text before its first edit is the same)."""
    return _Text(after).lineno(min(e[0] for e in mutant.edits))


def rewrites(fd: Finding) -> set[str]:
    """The kinds of the rewrites in a finding's details and in those of its sites."""
    details = fd.details or {}
    parts = [details, *(s for s in details.get("sites", []) or [] if isinstance(s, dict))]
    return {
        r["kind"]
        for part in parts
        for r in part.get("rewrites", []) or []
        if isinstance(r, dict) and "kind" in r
    }


def run(bundle: PullRequestBundle, mutant: Mutant, config: Config | None = None) -> Outcome:
    """Analyse one mutant; for a survivor, the findings that explain its line."""
    mutated = mutated_bundle(bundle, mutant)
    t0 = time.perf_counter()
    analysis = analyse(mutated, config or Config())
    seconds = time.perf_counter() - t0
    verdict = analysis.model.summary.verdict
    if verdict != PURE:
        return Outcome(mutant, verdict, seconds)
    change = mutated.file(mutant.path)
    assert change is not None and change.after is not None
    line = _mutated_line(mutant, change.after)
    ledger = ledger_of(analysis.bundle, analysis.model.findings, analysis.diagnostics)
    lf = ledger.file(mutant.path)
    near = [ln for ln in (lf.lines if lf else ()) if ln.side == "+"]
    near.sort(key=lambda ln: abs(ln.line - line))
    proved = []
    for ln in near[:1]:
        for fd in (*ln.explained_by, *ln.unchanged_in):
            kinds = sorted(rewrites(fd))
            proved.append(f"{fd.kind} {fd.symbol}" + (f" [{', '.join(kinds)}]" if kinds else ""))
    return Outcome(mutant, verdict, seconds, tuple(proved))


def verdict(case: str) -> str:
    """The verdict on a corpus commit itself."""
    return analyse(load_bundle(BUNDLES / f"{case}.json.gz"), Config()).model.summary.verdict


def check_case(case: str, cap: int = CAP, seed: int = SEED) -> list[Outcome]:
    """The sampled mutants of one corpus commit and their verdicts."""
    bundle = load_bundle(BUNDLES / f"{case}.json.gz")
    return [run(bundle, m) for m in sample(mutants(case, bundle), cap, seed)]


def main(argv: list[str] | None = None) -> int:
    """Run the mutation check on the given corpus commits and print every outcome."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ids", nargs="+")
    ap.add_argument("--cap", type=int, default=CAP, help="mutants per commit (0: all)")
    args = ap.parse_args(argv)
    survivors = 0
    for case in args.ids:
        for o in check_case(case, args.cap):
            m = o.mutant
            mark = "killed " if o.killed else "SURVIVED"
            print(f"{mark} {case} {m.path}:{m.line} {m.operator} ({m.where}) {m.summary}")
            if not o.killed:
                survivors += 1
                print(f"         proved by: {'; '.join(o.proved_by) or '-'}")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
