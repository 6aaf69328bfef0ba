"""Copies of a new helper's body: statement runs the change removed from functions that now call
the helper, compared with the body (byte-identical, equal up to local names, or of the same
shape only: "different", with the residual).

A copy counts where its holder still exists and calls the helper, and no longer holds the run;
the holder's whole span is explained with it when the run, replaced by one statement calling
the helper, is its only change.
"""

from __future__ import annotations

import ast
import builtins
import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from prreport.bundle import FileChange
from prreport.equivalence.expansion.normal import OrdinalNames
from prreport.python.definitions import (
    Definition,
    dump,
    file_index,
    residual,
    segment,
    strip_docstring,
)
from prreport.python.parse import copy_tree
from prreport.python.parse import parse as parse_quietly
from prreport.python.sources import SourceFiles
from prreport.textlines import split_lines


def _canon(stmts: Sequence[ast.AST], keep: frozenset[str], erase: bool = False) -> str:
    t = OrdinalNames(keep, erase)
    return "\n".join(dump(t.visit(copy_tree(s))) for s in stmts)


def _statement_lists(node: ast.AST, scope: str) -> Iterator[tuple[str, list[ast.stmt]]]:
    """Every statement list in a tree with the qualname of the function holding it."""
    for field in ("body", "orelse", "finalbody"):
        stmts = getattr(node, field, None)
        if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
            yield scope, stmts
            for st in stmts:
                if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    inner = f"{scope}.{st.name}" if scope else st.name
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        inner = f"{scope}.<locals>.{st.name}"
                    yield from _statement_lists(st, inner)
                else:
                    yield from _statement_lists(st, scope)
    for h in getattr(node, "handlers", []) or []:
        yield from _statement_lists(h, scope)


@dataclass(frozen=True)
class Site:
    """One place a new helper's (or mixin member's) code was copied at before the change."""

    path: str  # after path of the file
    scope: str
    start: int
    end: int
    equality: str
    residual: tuple[str, ...]
    call_lines: tuple[int, ...]
    cls: str = ""
    inherits: bool | None = None
    # Spans of the function/class that held the copy, when it is otherwise unchanged.
    holder_before: tuple[int, int] | None = None
    holder_after: tuple[int, int] | None = None
    shadowed_by: str = ""  # another base the MRO finds the method in first
    # What in a mixin member's body depends on the class it is written in (``super()``,
    # ``__class__``, ``self.__private``): equal text, but not proven to do the same there.
    class_relative: tuple[str, ...] = ()
    # Global names the member's body means other objects by in its new module.
    rebound: tuple[str, ...] = ()


def equality_of(
    a_text: str, b_text: str, a: Sequence[ast.AST], b: Sequence[ast.AST], keep: frozenset[str]
) -> str | None:
    """How alike two pieces of code are: ``byte-identical``, ``modulo-renames`` (of names not
    in ``keep``), ``different`` (alike with constants erased too), or None."""
    if a_text == b_text:
        return "byte-identical"
    if _canon(a, keep) == _canon(b, keep):
        return "modulo-renames"
    if _canon(a, keep, True) == _canon(b, keep, True):
        return "different"
    return None


def _calls(node: ast.AST, name: str) -> list[ast.Call]:
    """Statements-level calls of ``name`` (``name(...)``, ``self.name(...)``) inside node."""
    out: list[ast.Call] = []
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            f = n.func
            if (isinstance(f, ast.Name) and f.id == name) or (
                isinstance(f, ast.Attribute) and f.attr == name
            ):
                out.append(n)
    return out


def module_globals(sources: SourceFiles, path: str, side: str) -> frozenset[str]:
    """Names a file side defines at module level, and the builtins: kept when renaming."""
    defs = file_index(sources, path, side)
    return frozenset({d.name for d in defs.values() if not d.parent} | set(dir(builtins)))


def copy_sites(sources: SourceFiles, new: Definition) -> list[Site]:
    """The statement runs of the before code that equal ``new``'s body (or share its shape),
    each in a function that still exists, calls ``new`` and no longer holds the run."""
    body = strip_docstring(new.node.body)  # type: ignore[attr-defined]
    if not body:
        return []
    f_new_text = sources.text(new.path, "after") or ""
    lines = split_lines(f_new_text, keepends=True)
    body_text = segment(lines, body[0].lineno, body[-1].end_lineno or body[-1].lineno)
    h = _Body(new, body, body_text, module_globals(sources, new.path, "after"))
    sites: list[Site] = []
    for f in sources.python_files():
        tree = sources.tree(f.before_path, "before") if f.before is not None else None
        if tree is None or f.after is None:
            continue
        sites += _file_copies(sources, h, f, tree)
    return sites


@dataclass(frozen=True)
class _Body:
    """The helper whose copies are looked for: its body, as text, and the globals it keeps."""

    new: Definition
    stmts: list[ast.stmt]
    text: str
    keep: frozenset[str]


def _file_copies(sources: SourceFiles, h: _Body, f: FileChange, tree: ast.Module) -> list[Site]:
    """The copies of the helper's body in one file's before version."""
    body = h.stmts
    shape = [type(x) for x in body]
    added = set(sources.changed(f).added)
    before_lines = split_lines(f.before or "", keepends=True)
    after_defs = file_index(sources, f.path, "after")
    holder_calls: dict[str, list[ast.Call]] = {}
    sites: list[Site] = []
    for scope, stmts in _statement_lists(tree, ""):
        i = 0
        while i + len(body) <= len(stmts):
            window = stmts[i : i + len(body)]
            # Cheap shape test first: statement types must line up.
            if [type(x) for x in window] != shape or isinstance(
                window[0], (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
            ):
                i += 1
                continue
            # The holder must still exist and call the helper: cheaper than comparing.
            holder = after_defs.get(scope) if scope else None
            if holder is not None and scope not in holder_calls:
                holder_calls[scope] = _calls(holder.node, h.new.name)
            calls = holder_calls.get(scope, []) if holder is not None else []
            if holder is None or not calls:
                i += 1
                continue
            site = _copy_site(sources, h, f, (scope, window), holder, calls, before_lines, added)
            if site is None:
                i += 1
                continue
            sites.append(site)
            i += len(body)
    return sites


def _copy_site(
    sources: SourceFiles,
    h: _Body,
    f: FileChange,
    run: tuple[str, list[ast.stmt]],
    holder: Definition,
    calls: list[ast.Call],
    before_lines: list[str],
    added: set[int],
) -> Site | None:
    """The statement run ``window`` of function ``scope`` as a copy of the helper's body, or
    None when it is none (another shape, or still in the holder)."""
    scope, window = run
    start, end = window[0].lineno, window[-1].end_lineno or window[-1].lineno
    text = segment(before_lines, start, end)
    eq = equality_of(
        text,
        h.text,
        window,
        h.stmts,
        h.keep | module_globals(sources, f.before_path, "before"),
    )
    if eq is None or _still_there(holder.node, window):
        return None
    call_lines = tuple(
        sorted(
            {
                n
                for c in calls
                for n in range(c.lineno, (c.end_lineno or c.lineno) + 1)
                if n in added
            }
        )
    )
    res = tuple(residual(text, h.text)) if eq == "different" else ()
    wrong = _misbound(h.new.node, h.stmts, window, calls)
    if wrong and eq != "different":
        eq, res = (
            "different",
            tuple(
                f"argument for {p!r} is {got!r}, the copy used {want!r}" for p, got, want in wrong
            ),
        )
    before_holder = file_index(sources, f.before_path, "before").get(scope)
    hb = ha = None
    if before_holder is not None and _only_replaced(
        before_lines, before_holder, (start, end), f.after or "", holder, calls
    ):
        hb, ha = (before_holder.start, before_holder.end), (holder.start, holder.end)
    return Site(f.path, scope, start, end, eq, res, call_lines, holder_before=hb, holder_after=ha)


def _only_replaced(
    before_lines: list[str],
    holder_before: Definition,
    window: tuple[int, int],
    after_text: str,
    holder_after: Definition,
    calls: Sequence[ast.AST],
) -> bool:
    """True when the holder's only change is the copied run replaced by one statement calling the helper."""
    after_lines = split_lines(after_text, keepends=True)
    stmt = _statement_of(holder_after.node, calls[0]) if len(calls) == 1 else None
    if stmt is None:
        return False

    def stub(lines: list[str], start: int, end: int, span: tuple[int, int]) -> str:
        indent = lines[start - 1][: len(lines[start - 1]) - len(lines[start - 1].lstrip())]
        text = (
            lines[span[0] - 1 : start - 1] + [f"{indent}__extracted__()\n"] + lines[end : span[1]]
        )
        return textwrap.dedent("".join(text))

    try:
        a = parse_quietly(stub(before_lines, *window, (holder_before.start, holder_before.end)))
        b = parse_quietly(
            stub(
                after_lines,
                stmt.lineno,
                stmt.end_lineno or stmt.lineno,
                (holder_after.start, holder_after.end),
            )
        )
    except SyntaxError:
        return False
    return dump(a) == dump(b)


def _statement_of(root: ast.AST, call: ast.AST) -> ast.stmt | None:
    """The innermost statement of ``root`` containing ``call``."""
    best = None
    for n in ast.walk(root):
        if isinstance(n, ast.stmt) and n is not root and any(c is call for c in ast.walk(n)):
            if (
                best is None
                or n.lineno >= best.lineno
                and (n.end_lineno or 0) <= (best.end_lineno or 0)
            ):
                best = n
    return best


def _still_there(holder: ast.AST, window: list[ast.stmt]) -> bool:
    """True when the after version of the holder still contains the copied run."""
    want = dump(window)
    n = len(window)
    for _scope, stmts in _statement_lists(holder, ""):
        for i in range(len(stmts) - n + 1):
            if dump(stmts[i : i + n]) == want:
                return True
    return False


def _misbound(
    helper: ast.AST, body: Sequence[ast.stmt], window: Sequence[ast.stmt], calls: Sequence[ast.AST]
) -> list[tuple[str, str, str]]:
    """(parameter, name passed, name the copy used) where a call binds a parameter to the wrong local."""
    used: dict[str, str] = {}
    for h, w in zip(
        (n for s in body for n in ast.walk(s)),
        (n for s in window for n in ast.walk(s)),
        strict=False,
    ):
        if isinstance(h, ast.Name) and isinstance(w, ast.Name):
            used.setdefault(h.id, w.id)
    args = helper.args  # type: ignore[attr-defined]
    params = [p.arg for p in args.posonlyargs + args.args]
    if (
        params
        and params[0] in ("self", "cls")
        and isinstance(getattr(calls[0], "func", None), ast.Attribute)
    ):
        params = params[1:]
    out = []
    call = calls[0]
    assert isinstance(call, ast.Call)
    bound = list(zip(params, call.args, strict=False)) + [
        (k.arg, k.value) for k in call.keywords if k.arg
    ]
    for p, value in bound:
        if isinstance(value, ast.Name) and p in used and used[p] != value.id:
            out.append((p, value.id, used[p]))
    return out
