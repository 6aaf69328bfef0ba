"""Part 2 of ``list-to-generator``: every reference to the function consumes its call at once.

Accepted: ``list(_f(...))`` / ``tuple(_f(...))`` (builtins the file does not rebind), ``yield
from _f(...)`` as a statement of another function proven here, and ``x = _f(...)`` followed, as
the next statement to run, by ``x = list(x)``, ``x`` a plain local read by no nested scope and no
``try`` or ``with`` of the function around it. A string naming the function (other than a test's
``setattr(m, "_f", lambda ...: [a, b])``) or any other reference: not proven. The conditions are
in the docstring of ``prreport.equivalence.generators``.
"""

from __future__ import annotations

import ast
import re

from prreport.bundle import PullRequestBundle
from prreport.equivalence.generators.bindings import own
from prreport.python.scopes import bound_anywhere, is_string_statement
from prreport.python.sources import SourceFiles

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_CONSUMERS = ("list", "tuple")


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    out: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            out[id(child)] = node
    return out


def _block_of(stmt: ast.stmt, parents: dict[int, ast.AST]) -> tuple[ast.AST, list[ast.stmt]] | None:
    parent = parents.get(id(stmt))
    if parent is None:
        return None
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and any(s is stmt for s in block):
            return parent, block
    return None


def _consumer_of(node: ast.AST, names: frozenset[str]) -> str | None:
    """The name ``x`` when ``node`` is ``x = list(x)`` / ``x = tuple(x)``."""
    if (
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id in names
        and len(node.value.args) == 1
        and not node.value.keywords
        and isinstance(node.value.args[0], ast.Name)
        and node.value.args[0].id == node.targets[0].id
    ):
        return node.targets[0].id
    return None


def _plain_local(assign: ast.Assign, name: str, parents: dict[int, ast.AST]) -> bool:
    """Whether ``name`` is a local of the function holding ``assign`` that nothing but that
    function reads: not module or class level, not ``global``/``nonlocal``, not read by a nested
    function, lambda or generator expression (the call might run one while the generator is
    still the value)."""
    fn = parents.get(id(assign))
    while fn is not None and not isinstance(fn, (*_SCOPES, ast.Module)):
        fn = parents.get(id(fn))
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    for n in own(fn):
        if isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names:
            return False
        if isinstance(n, (*_SCOPES, ast.GeneratorExp)) and any(
            isinstance(m, ast.Name) and m.id == name for m in ast.walk(n)
        ):
            return False
    return True


_GUARDS = (ast.Try, getattr(ast, "TryStar", ast.Try), ast.With, ast.AsyncWith)


def _guarded(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """Whether a ``try`` or ``with`` of the function holding ``node`` encloses it: an exception
    raised there can be caught (or suppressed) and the function go on, seeing what was bound."""
    up = parents.get(id(node))
    while up is not None and not isinstance(up, (*_SCOPES, ast.Module)):
        if isinstance(up, _GUARDS):
            return True
        up = parents.get(id(up))
    return False


def _consumed(
    call: ast.Call,
    parents: dict[int, ast.AST],
    consumers: frozenset[str],
    proven: set[str],
    tree: ast.Module,
) -> bool:
    """Whether the value of ``call`` is consumed completely, at once, where it is made."""
    parent = parents.get(id(call))
    if (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Name)
        and parent.func.id in consumers
        and len(parent.args) == 1
        and parent.args[0] is call
        and not parent.keywords
    ):
        return True
    if isinstance(parent, ast.YieldFrom) and isinstance(parents.get(id(parent)), ast.Expr):
        fn = parents.get(id(parents[id(parent)]))
        while fn is not None and not isinstance(fn, _SCOPES):
            fn = parents.get(id(fn))
        return (
            isinstance(fn, ast.FunctionDef)
            and fn.name in proven
            and any(fn is st for st in tree.body)  # ``proven``: this file's proven functions
        )
    value: ast.AST = call
    if isinstance(parent, ast.IfExp) and parent.test is not call:
        value, parent = parent, parents.get(id(parent))
    if not (
        isinstance(parent, ast.Assign)
        and parent.value is value
        and len(parent.targets) == 1
        and isinstance(parent.targets[0], ast.Name)
    ):
        return False
    target = parent.targets[0].id
    if not _plain_local(parent, target, parents) or _guarded(parent, parents):
        return False
    stmt: ast.stmt = parent
    while True:
        where = _block_of(stmt, parents)
        if where is None:
            return False
        owner, block = where
        i = next(k for k, s in enumerate(block) if s is stmt)
        if i + 1 < len(block):
            return _consumer_of(block[i + 1], consumers) == target
        if not isinstance(owner, ast.If):
            return False  # the end of a loop, try, with or function body: something else runs
        stmt = owner


def _fresh_list_patch(const: ast.Constant, parents: dict[int, ast.AST]) -> bool:
    """``setattr(m, "_f", lambda ...: [a, b])`` (``monkeypatch.setattr`` too): the function
    replaced by another that returns a new list at every call, which callers consume as before."""
    call = parents.get(id(const))
    if not (
        isinstance(call, ast.Call)
        and len(call.args) == 3
        and call.args[1] is const
        and not any(k.arg is None for k in call.keywords)
    ):
        return False
    func, repl = call.func, call.args[2]
    named = (isinstance(func, ast.Name) and func.id == "setattr") or (
        isinstance(func, ast.Attribute) and func.attr == "setattr"
    )
    return (
        named
        and isinstance(repl, ast.Lambda)
        and isinstance(repl.body, ast.List)
        and not any(isinstance(e, ast.Starred) for e in repl.body.elts)
    )


def _string_mentions(tree: ast.Module, name: str, parents: dict[int, ast.AST]) -> bool:
    """Whether a string (not a documentation statement) of ``tree`` names the function, other
    than to replace it by a function returning a new list (``_fresh_list_patch``)."""
    word = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
    docs = {
        id(st.value)
        for st in ast.walk(tree)
        if isinstance(st, ast.Expr) and is_string_statement(st)
    }
    return any(
        isinstance(n, ast.Constant)
        and isinstance(n.value, str)
        and id(n) not in docs
        and word.search(n.value) is not None
        and not (n.value == name and _fresh_list_patch(n, parents))
        for n in ast.walk(tree)
    )


def all_consume(tree: ast.Module, name: str, proven: set[str]) -> bool:
    """Whether every reference to ``name`` in ``tree`` consumes its call at once (``proven``:
    the module-level functions of this file taken as proven, whose ``yield from`` consumes)."""
    parents = _parents(tree)
    if _string_mentions(tree, name, parents):
        return False
    consumers = frozenset(_CONSUMERS) - bound_anywhere(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.alias):
            if node.name.rsplit(".", 1)[-1] == name and node.asname not in (None, name):
                return False
            continue
        if isinstance(node, ast.Name):
            hit = node.id == name
        elif isinstance(node, ast.Attribute):
            hit = node.attr == name
        else:
            continue
        if not hit:
            continue
        if not isinstance(node.ctx, ast.Load):
            return False
        call = parents.get(id(node))
        if not (isinstance(call, ast.Call) and call.func is node):
            return False
        if not _consumed(call, parents, consumers, proven, tree):
            return False
    return True


def trees_with(
    name: str, sources: SourceFiles, bundle: PullRequestBundle
) -> list[tuple[str, ast.Module]] | None:
    """Every Python file of the repository that mentions ``name`` (after the change), parsed;
    None when the repository was not searched or a file could not be read."""
    if bundle.reference_scope != "repository" or name not in bundle.references:
        return None
    changed = {f.path for f in bundle.files}
    paths = {hit.rsplit(":", 1)[0] for hit in bundle.references[name]}
    paths |= {
        f.path
        for f in bundle.files
        if f.path.endswith(".py") and f.after is not None and name in f.after
    }
    out = []
    for p in sorted(paths):
        if not p.endswith(".py"):
            continue  # the search reads Python files only; a stub or a text file runs nothing
        if p not in changed and bundle.context_files.get(p) is None:
            return None
        tree = sources.tree(p, "head")
        if tree is None:
            return None
        out.append((p, tree))
    return out
