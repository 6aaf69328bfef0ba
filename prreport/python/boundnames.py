"""The names a module's top-level code has bound when its statement at a given line runs.

Certainly bound (on every path, not deleted since), maybe bound (under a condition, by a star
import, through ``__getattr__`` or at run time: ``globals()``, ``setattr`` on the module,
``exec``, a function's ``global``), or bound only later. Functions, classes and lambdas keep
what they bind to themselves.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from prreport.python.moduleimports import is_type_checking

# Bound by the import system before the first line of a module runs.
MODULE_DUNDERS = frozenset(
    {
        "__name__",
        "__file__",
        "__path__",
        "__package__",
        "__spec__",
        "__loader__",
        "__doc__",
        "__builtins__",
        "__cached__",
    }
)


# Calls that bind module names at run time when made at module level.
_DYNAMIC = frozenset({"globals", "vars", "locals", "exec"})


def all_bound_at(tree: ast.Module, names: Iterable[str]) -> int | None:
    """Last line of the top-level statement by which every name is certainly bound (None: some
    name never is)."""
    wanted = set(names)
    bound: set[str] = set()
    for st in tree.body:
        bound = (bound | _definite_one(st)) - _deleted(st)
        if wanted and wanted <= bound:
            return st.end_lineno or st.lineno
    return None


@dataclass(frozen=True)
class NameAt:
    """Whether a package has bound a name by the time one of its modules first runs."""

    # "bound" before the chain starts | "finished": __init__ never imports the module, so it
    # ends first | "late": bound only after the chain started | "unknown"
    state: str
    line: int | None = None  # bound: where; late: the first binding after
    statement: str = ""  # the binding statement at ``line``
    # unknown: "conditional" (bound before only under a condition) | "star" | "getattr" |
    # "dynamic" (globals(), setattr on the module, exec, a function's ``global``) | "walk" (an
    # import before could not be followed) | "unread" (no __init__ source) | "unbound" (never
    # bound by __init__: perhaps a submodule not in the tree)
    why: str = ""
    stars: tuple[str, ...] = ()


def name_at(tree: ast.Module, name: str, line: int) -> NameAt:
    """Whether a module has bound ``name`` when its statement starting at ``line`` runs."""
    body = tree.body
    i = next((k for k, st in enumerate(body) if (st.end_lineno or st.lineno) >= line), len(body))
    done = body[:i]
    # a compound statement (try/if) the line is inside: what it ran before may or may not count
    inside = _inner(body[i]) if i < len(body) and body[i].lineno < line else ()
    partly = [st for st in inside if (st.end_lineno or st.lineno) < line]
    if name in _definite(done):
        first = min(_binding_lines(done, name))
        return NameAt("bound", first, statement_at(tree, first))
    seen = _scan([*done, *partly])
    if name in seen.names:
        first = min(_binding_lines([*done, *partly], name))
        return NameAt("unknown", first, statement_at(tree, first), "conditional")
    if seen.stars:
        return NameAt("unknown", why="star", stars=tuple(seen.stars))
    if "__getattr__" in seen.names:
        return NameAt("unknown", why="getattr")
    if seen.dynamic or name in seen.globals:
        return NameAt("unknown", why="dynamic")
    # bound (or maybe bound, by a star import) only later: too late either way
    rest = _scan(body[i:], name)
    later = [n for n in [*rest.lines, *rest.star_lines] if n >= line]
    if not later:
        # never bound here: maybe a submodule the tree lacks (a generated ``_version.py``),
        # which ``from package import`` would import
        return NameAt("unknown", why="unbound")
    return NameAt("late", min(later), statement_at(tree, min(later)))


def statement_at(tree: ast.Module, line: int) -> str:
    """The innermost statement starting at ``line`` as one line of source ("" if none); a
    compound statement by its header (``class ScrapyCommand: ...``)."""
    found = [n for n in ast.walk(tree) if isinstance(n, ast.stmt) and n.lineno == line]
    if not found:
        return ""
    st = found[-1]
    if isinstance(st, ast.ClassDef):
        return f"class {st.name}: ..."
    if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return f"def {st.name}(...): ..."
    text = ast.unparse(st)
    first = text.split("\n", 1)[0]
    return first if first == text else f"{first} ..."


def _inner(st: ast.stmt) -> Iterator[ast.stmt]:
    """The statements of a compound statement's blocks, at any depth, outside functions/classes."""
    blocks = [getattr(st, f, None) or [] for f in ("body", "orelse", "finalbody")]
    blocks += [h.body for h in getattr(st, "handlers", None) or []]
    blocks += [c.body for c in getattr(st, "cases", None) or []]
    for block in blocks if not isinstance(st, _SCOPES) else ():
        for inner in block:
            yield inner
            yield from _inner(inner)


def _target_names(t: ast.expr) -> Iterator[str]:
    if isinstance(t, ast.Name):
        yield t.id
    elif isinstance(t, (ast.Tuple, ast.List)):
        for e in t.elts:
            yield from _target_names(e)
    elif isinstance(t, ast.Starred):
        yield from _target_names(t.value)


def _import_names(st: ast.Import | ast.ImportFrom) -> Iterator[str]:
    for a in st.names:
        if a.name == "*":
            continue
        yield a.asname or (a.name.split(".")[0] if isinstance(st, ast.Import) else a.name)


_TRY: tuple[type[ast.Try], ...] = (ast.Try, ast.TryStar) if hasattr(ast, "TryStar") else (ast.Try,)


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _definite(stmts: Iterable[ast.stmt]) -> set[str]:
    """Names certainly bound (and not deleted) once ``stmts`` ran at module level."""
    out: set[str] = set()
    for st in stmts:
        out |= _definite_one(st)
        out -= _deleted(st)
    return out


def _definite_one(st: ast.stmt) -> set[str]:
    if isinstance(st, ast.Assign):
        return {n for t in st.targets for n in _target_names(t)}
    if isinstance(st, (ast.AnnAssign, ast.AugAssign)):
        bound = isinstance(st, ast.AugAssign) or st.value is not None
        return set(_target_names(st.target)) if bound else set()
    if isinstance(st, (ast.Import, ast.ImportFrom)):
        return set(_import_names(st))
    if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {st.name}
    if isinstance(st, ast.If):
        if is_type_checking(st.test):
            return _definite(st.orelse)
        return _definite(st.body) & _definite(st.orelse)
    if isinstance(st, _TRY):
        ways = [_definite([*st.body, *st.orelse])]
        ways += [_definite(h.body) for h in st.handlers if not _raises(h.body)]
        return set.intersection(*ways) | _definite(st.finalbody)
    if isinstance(st, (ast.With, ast.AsyncWith)):
        names = {
            n for item in st.items if item.optional_vars for n in _target_names(item.optional_vars)
        }
        return names | _definite(st.body)
    return set()


def _raises(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], ast.Raise)


def _deleted(st: ast.stmt) -> set[str]:
    return _scan([st]).deleted


def _binding_lines(stmts: Iterable[ast.stmt], name: str) -> list[int]:
    """Lines of the statements in ``stmts`` (at any depth, outside functions) that bind ``name``."""
    return _scan(stmts, name).lines


@dataclass
class _Seen:
    """What a run of module-level statements may bind, outside functions, classes and lambdas."""

    names: set[str] = field(default_factory=set)
    deleted: set[str] = field(default_factory=set)
    stars: list[str] = field(default_factory=list)  # modules star-imported
    star_lines: list[int] = field(default_factory=list)
    dynamic: bool = False  # globals(), vars(), exec(), setattr on the module
    globals: set[str] = field(default_factory=set)  # declared ``global`` in a function
    lines: list[int] = field(default_factory=list)  # statements binding the tracked name


# Scopes of their own: what they bind stays inside (a comprehension's target, a lambda's args).
_OWN_SCOPE = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _scan(stmts: Iterable[ast.stmt], track: str = "") -> _Seen:
    seen = _Seen()
    for st in stmts:
        for node, line in _module_scope(st, st.lineno):
            bound = _bound_by(node)
            seen.names.update(bound)
            if track in bound:
                seen.lines.append(line)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Del):
                seen.deleted.add(node.id)
            elif isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
                seen.stars.append("." * node.level + (node.module or ""))
                seen.star_lines.append(line)
            elif isinstance(node, _SCOPES):
                seen.globals.update(
                    n for g in ast.walk(node) if isinstance(g, ast.Global) for n in g.names
                )
            elif isinstance(node, ast.Call):
                seen.dynamic |= _binds_dynamically(node)
    return seen


def _module_scope(node: ast.AST, line: int) -> Iterator[tuple[ast.AST, int]]:
    """The nodes that run in the module's own scope, each with the line of its statement."""
    if isinstance(node, ast.stmt):
        line = node.lineno
    yield node, line
    if isinstance(node, _OWN_SCOPE):
        return
    inner = node.decorator_list if isinstance(node, _SCOPES) else ast.iter_child_nodes(node)
    for child in inner:
        yield from _module_scope(child, line)


def _bound_by(node: ast.AST) -> list[str]:
    """The module names one node binds."""
    if isinstance(node, ast.Name):
        return [node.id] if isinstance(node.ctx, ast.Store) else []
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return list(_import_names(node))
    if isinstance(node, (*_SCOPES, ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
        return [node.name] if node.name else []
    if isinstance(node, ast.MatchMapping):
        return [node.rest] if node.rest else []
    return []


def _binds_dynamically(call: ast.Call) -> bool:
    """``globals()``, ``vars()``, ``exec(...)``, ``setattr(sys.modules[__name__], ...)``."""
    f = call.func
    if isinstance(f, ast.Name) and f.id in _DYNAMIC:
        return True
    if isinstance(f, ast.Name) and f.id == "setattr" and call.args:
        target = ast.unparse(call.args[0])
        return "sys.modules" in target or "__name__" in target
    return False


def may_bind(stmts: Iterable[ast.stmt]) -> set[str]:
    """Every module name a run of module-level statements may bind (at any depth, outside
    functions, classes and lambdas)."""
    return _scan(stmts).names
