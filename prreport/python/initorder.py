"""How far a package's ``__init__`` has run when one of its modules first runs.

``from pkg import X`` in a module that ``pkg/__init__.py`` itself imports (directly or through a
chain of imports) runs while ``pkg`` is still initialising: ``X`` exists only if ``__init__``
bound it before the statement that started the chain, else Python raises ``ImportError:
cannot import name 'X' from partially initialized module 'pkg'``. The import order is replayed
as Python runs it: module-level imports depth-first in source order, each module run once.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial

from prreport.python.modules import (
    ImportBinding,
    ModuleIndex,
    is_type_checking,
    module_level_imports,
    parents,
)
from prreport.python.sources import SourceFiles

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


def head_tree(sources: SourceFiles, path: str) -> tuple[ast.Module | None, bool]:
    """(tree or None, fetched?) for a file at head: a changed file's after side or a context file."""
    bundle = sources.bundle
    f = bundle.file(path)
    if f is not None and f.after is not None:
        return sources.tree(path, "after"), True
    if path not in bundle.context_files:
        return None, False
    return sources.tree(path, "head"), True


def head_imports(sources: SourceFiles, path: str, tree: ast.Module) -> list[ImportBinding]:
    """The imports a head file runs when it is imported, listed once per bundle (every walk
    reads them)."""
    imports: list[ImportBinding] = sources.memo(
        path, "head", "module-imports", partial(imports_at_import, tree)
    )
    return imports


def imports_at_import(tree: ast.Module) -> list[ImportBinding]:
    """Module-level imports that run when the module is imported: not those of an ``if __name__
    == "__main__":`` block (a script's, run only as ``python -m``)."""
    scripts = [
        (st.body[0].lineno, st.body[-1].end_lineno or st.body[-1].lineno)
        for st in tree.body
        if isinstance(st, ast.If) and _is_main(st.test)
    ]
    return [b for b in module_level_imports(tree) if not any(a <= b.line <= z for a, z in scripts)]


def _is_main(test: ast.expr) -> bool:
    """``__name__ == "__main__"`` (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    sides = [test.left, test.comparators[0]]
    return (
        isinstance(test.ops[0], ast.Eq)
        and any(isinstance(x, ast.Name) and x.id == "__name__" for x in sides)
        and any(isinstance(x, ast.Constant) and x.value == "__main__" for x in sides)
    )


@dataclass(frozen=True)
class InitWalk:
    """Where ``package``'s ``__init__`` is when ``module`` first runs."""

    package: str
    path: str  # the package's __init__.py ("" for a namespace package)
    chain: tuple[str, ...] = ()  # package ... module, when __init__ imports module
    line: int | None = None  # first line of the __init__ import statement that starts the chain
    statement: str = ""  # that statement
    conditional: bool = False  # some import on the chain runs under if/try/with
    gap: int | None = None  # first __init__ import statement whose imports could not all be read
    missing: frozenset[str] = frozenset()  # paths not fetched yet
    unavailable: frozenset[str] = frozenset()  # first-party modules with no source
    unparseable: frozenset[str] = frozenset()
    truncated: bool = False  # the depth limit stopped the walk
    until: int | None = None  # the walk stopped after this line: every name is bound by then
    # a whole-repository search found no module that imports ``module`` at module level: the
    # __init__ cannot reach it, however far the walk got
    unimported: bool = False
    tree: ast.Module | None = field(default=None, compare=False, repr=False)  # the __init__


@dataclass
class _Walker:
    """Depth-first replay of the module-level imports that run before ``module`` first runs."""

    sources: SourceFiles
    index: ModuleIndex
    module: str
    depth: int
    loaded: set[str]
    missing: set[str] = field(default_factory=set)
    unavailable: set[str] = field(default_factory=set)
    unparseable: set[str] = field(default_factory=set)
    truncated: bool = False

    def gaps(self) -> int:
        return len(self.missing) + len(self.unavailable) + len(self.unparseable) + self.truncated

    def loads(self, b: ImportBinding, importer: str, path: str) -> list[str]:
        """The first-party modules one import statement loads, in the order Python loads them."""
        absolute = self.index.absolute(b, importer, path)
        if absolute is None:
            lost = self.index.unresolved(b, importer, path)
            if lost:
                self.unavailable.add(lost)
            return []
        if not self.index.is_first_party(absolute):
            return []
        out = [*parents(absolute), absolute]
        sub = f"{absolute}.{b.name}"
        if b.name and b.name != "*" and (self.index.path_of(sub) or self.index.runs_nothing(sub)):
            out.append(sub)
        return out

    def visit(self, module: str, hop: int) -> tuple[list[str], bool] | None:
        """(the chain from ``module`` to the walked-for module, conditional?) or None."""
        if module == self.module:
            return [module], False
        if module in self.loaded:
            return None  # in sys.modules already (done or initialising): runs nothing
        path = self.index.path_of(module)
        if path is None:
            if not self.index.runs_nothing(module):
                self.unavailable.add(module)
            return None
        if hop > self.depth:
            self.truncated = True
            return None
        tree, fetched = head_tree(self.sources, path)
        if not fetched:
            self.missing.add(path)
            return None
        if tree is None:
            self.unparseable.add(path)
            return None
        self.loaded.add(module)
        for b in head_imports(self.sources, path, tree):
            for dest in self.loads(b, module, path):
                found = self.visit(dest, hop + 1)
                if found is not None:
                    return [module, *found[0]], found[1] or not b.top_level
        return None


def walk_init(
    sources: SourceFiles,
    index: ModuleIndex,
    package: str,
    module: str,
    depth: int,
    names: Iterable[str] = (),
) -> InitWalk:
    """Replay ``package``'s ``__init__`` until it first imports ``module`` (``depth`` hops).

    Once every one of ``names`` is certainly bound, what ``__init__`` imports next cannot
    matter to them: the walk stops there (``until``) instead of reading the rest.
    """
    path = index.path_of(package)
    if path is None:
        return InitWalk(package, "")  # a namespace package: no __init__ to run
    tree, fetched = head_tree(sources, path)
    if not fetched:
        return InitWalk(package, path, missing=frozenset({path}))
    if tree is None:
        return InitWalk(package, path, unparseable=frozenset({path}))
    # The package and the packages above it are in sys.modules before its __init__ runs.
    w = _Walker(sources, index, module, depth, {*parents(package), package})
    gap: int | None = None
    found: tuple[list[str], bool] | None = None
    line: int | None = None
    until = _all_bound_at(tree, names)
    for b in head_imports(sources, path, tree):
        if until is not None and b.stmt_line > until:
            break
        before = w.gaps()
        for dest in w.loads(b, package, path):
            found = w.visit(dest, 1)
            if found is not None:
                break
        if found is not None:
            line = b.stmt_line
            found = (found[0], found[1] or not b.top_level)
            break
        if gap is None and w.gaps() > before:
            gap = b.stmt_line
    chain, conditional = found if found is not None else ([], False)
    return InitWalk(
        package,
        path,
        chain=tuple([package, *chain]) if chain else (),
        line=line,
        statement=_statement_at(tree, line) if line is not None else "",
        conditional=conditional,
        gap=gap,
        missing=frozenset(w.missing),
        unavailable=frozenset(w.unavailable),
        unparseable=frozenset(w.unparseable),
        truncated=w.truncated,
        until=until,
        tree=tree,
    )


def _all_bound_at(tree: ast.Module, names: Iterable[str]) -> int | None:
    """Last line of the top-level statement by which every name is certainly bound (None: some
    name never is)."""
    wanted = set(names)
    bound: set[str] = set()
    for st in tree.body:
        bound = (bound | _definite_one(st)) - _deleted(st)
        if wanted and wanted <= bound:
            return st.end_lineno or st.lineno
    return None


def imported_by_none(sources: SourceFiles, index: ModuleIndex, module: str) -> bool:
    """Whether a whole-repository search proves that no module imports ``module`` at module
    level (False when it cannot tell: no search, or a file it names was not read).

    Every file that imports ``module`` names its last part (``import pkg.leaf``, ``from pkg
    import leaf``, ``from .leaf import x``), and so does an ``__all__`` a star import follows.
    """
    bundle = sources.bundle
    leaf = module.rsplit(".", 1)[-1]
    if bundle.reference_scope != "repository" or leaf not in bundle.references:
        return False
    own = index.path_of(module)
    for path in sorted({hit.rsplit(":", 1)[0] for hit in bundle.references[leaf]} - {own}):
        name = index.module_of(path)
        tree, _fetched = head_tree(sources, path)
        if tree is None or name is None:
            # not read, or a script outside the packages: only a package module counts
            if tree is None and name is not None:
                return False
            continue
        if any(index.target(b, name, path) == module for b in head_imports(sources, path, tree)):
            return False
        if "__all__" in _scan(tree.body).names and leaf in _all_strings(tree):
            return False
    return True


def _all_strings(tree: ast.Module) -> set[str]:
    """String constants of the module's ``__all__`` assignments."""
    out: set[str] = set()
    for st in tree.body:
        targets = st.targets if isinstance(st, ast.Assign) else [getattr(st, "target", None)]
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            out |= {
                n.value
                for n in ast.walk(st)
                if isinstance(n, ast.Constant) and isinstance(n.value, str)
            }
    return out


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


def name_state(walk: InitWalk, name: str) -> NameAt:
    """Whether ``from package import name`` finds ``name`` when the walked module first runs."""
    tree = walk.tree
    if name in MODULE_DUNDERS:
        return NameAt("bound")
    if tree is None:
        return NameAt("unknown", why="unread")
    if walk.line is not None:
        at = name_at(tree, name, walk.line)
        # an earlier statement the walk could not follow may import the module sooner
        if at.state == "bound" and walk.gap is not None and walk.gap < walk.line:
            if name_at(tree, name, walk.gap).state != "bound":
                return NameAt("unknown", at.line, at.statement, "walk")
        return at
    if walk.gap is None or walk.unimported:
        # bound before any import that could run the module, or __init__ never imports it
        if walk.until is None or walk.unimported:
            return NameAt("finished")
        return name_at(tree, name, walk.until + 1)
    at = name_at(tree, name, walk.gap)
    return at if at.state == "bound" else NameAt("unknown", at.line, at.statement, "walk")


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
        return NameAt("bound", first, _statement_at(tree, first))
    seen = _scan([*done, *partly])
    if name in seen.names:
        first = min(_binding_lines([*done, *partly], name))
        return NameAt("unknown", first, _statement_at(tree, first), "conditional")
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
    return NameAt("late", min(later), _statement_at(tree, min(later)))


def _statement_at(tree: ast.Module, line: int) -> str:
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
