"""A private function that built and returned a list made a generator yielding the same elements.

``def _f(): out = []; out.append(a); ...; return out`` becomes ``def _f(): yield a; ...``, and
every caller consumes the result completely and at once (``list(_f())``). Two facts make that
a refactor, and both must be proven (``list-to-generator``):

1. **Same sequence.** The old body is rewritten into the generator it stands for and compared
   with the new body (the canonical comparison of ``_equiv``, then ``_rewrites.see_through``):
   the local the body ends by returning, bound once, at the top of the body before any use, to
   a list display (``L = [a]`` → ``yield a`` there) and used only by ``L.append(x)`` →
   ``yield x``, ``L.extend([a, b])`` → ``yield a; yield b``, ``return L`` → ``return``; in a
   body without such a local, ``return [a, b]`` → ``yield a; yield b; return`` and
   ``return _g(...)`` of another function proven here → ``yield from _g(...); return`` (inside
   a ``try`` or ``with`` of the body, a display is split only when the elements after the
   first are constants and ``return _g(...)`` not at all: the display was built whole, so an
   exception caught there kept none of it, while the generator has yielded the first ones) (with
   the local, ``return [a]`` dropped what it held, which a generator cannot take back: refused).
   Any other use of the local (read,
   passed, rebound, also by ``except ... as``, ``import ... as``, ``def``, ``class`` or a
   ``match`` capture, used in a nested scope), another kind of ``return`` or a body that can fall
   off its end (returning ``None``, not a list) and nothing is claimed. ``L.insert(0, x)`` just
   before the final ``return L`` puts ``x`` first: ``yield x`` is placed before the first
   statement that yields, which evaluates ``x`` earlier than before; that is only claimed when
   ``x`` cannot act or fail (a ``str`` literal, or an f-string of plain names each bound, at
   the top of the body before that point, only to ``str`` values: literals, f-strings,
   ``"sep".join(...)`` or a call of a module function whose whole body returns one of those),
   nothing from that point on binds those names (``except ... as`` and other binders
   included), and nothing from that point on returns early
   (an early ``return L`` skipped the prepend). When the first statement that yields is
   ``if A: S elif B: T`` with the yields only in ``T``, it is read as ``if A: S`` followed by
   ``if not A and B: T`` (``split-elif``): ``A`` is evaluated again, so it must be
   ``v < K`` (any order operator) with ``v`` a local bound once, before, to ``tuple(...)`` (or a
   parameter rebound so; no ``except ... as v`` or other binder anywhere in the function) and ``K`` a tuple of int literals; ``not (v < K)`` is written
   ``v >= K``. Assumption, stated in the finding: comparing the items of ``v`` with ints does
   nothing and is a total order (numbers, not NaN).
2. **Nobody can tell it is lazy.** The function is private (``_name``, not in a string of any
   module such as ``__all__``), defined once at module level, undecorated, and every reference
   to its name anywhere in the repository (a whole-repository search: ``requests``) consumes
   the call completely and at once: ``list(_f(...))`` / ``tuple(_f(...))`` (builtins the file
   does not rebind), ``yield from _f(...)`` as a statement of another function proven here, or
   ``x = _f(...)`` (also as one branch of ``... if c else ...``) whose next statement to run is
   ``x = list(x)`` (the assignment last in ``if`` bodies is followed by the statement after
   the ``if``: no ``try``, ``with`` or loop in between), ``x`` a plain local of a function (not
   module or class level, not ``global``/``nonlocal``, read by no nested function or lambda:
   while ``list(x)`` runs the body, ``x`` holds the generator, not the old value), and no
   ``try`` or ``with`` of that function encloses the assignment (an exception of the body,
   caught or suppressed there, would leave ``x`` holding the generator instead of its old
   value). ``set``/``sorted``/a ``for`` loop are
   not accepted: they run code (``__hash__``, ``__lt__``, the loop body) between two steps of
   the generator. So every side effect, warning and exception of the body happens at the same
   point of the caller as before, and the caller sees a new list with the same elements.

A caller whose text changed only by wrapping such a call in ``list(...)`` is equal once
``list(_f(...))`` is read as ``_f(...)`` on both sides (``consumed-generator``): on the old side
``_f`` returned a new list nothing else holds, so a copy of it is the same value; on the new
side ``list`` builds that list from the same elements at the same point.

Corner cases ruled out: ``StopIteration`` escaping the old body would become ``RuntimeError``
inside a generator (PEP 479) — that is the one assumption of ``list-to-generator``, stated in
the finding; a ``yield``/``await`` in the old body, ``locals()``/``vars()``/``eval``/``exec``
(they see the local list), ``global``/``nonlocal`` of the local, decorators (a wrapper may
keep the result), a name bound again anywhere in its module, a reference through a string
(``monkeypatch.setattr(m, "_f", ...)``, ``getattr``), an alias (``from m import _f as g``)
or any reference the search could not read: nothing is claimed. A test replacing the function
by ``setattr(m, "_f", lambda ...: [a, b])`` (a new list at every call) is accepted: callers
consume that list as they consumed the old one. Private means nothing outside the repository
calls it (the premise of a leading underscore); the module-level functions called are the ones
the module defines (not replaced at run time), as everywhere in this package. What does move
is the line an exception or a ``warnings.warn(..., stacklevel=2)`` names in the caller (the
``list(x)`` line rather than the call's, in the same function and ``try``): lines are not
behaviour here.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from prreport.bundle import PullRequestBundle
from prreport.equivalence.canonical import module_of
from prreport.equivalence.rewrites import Rewrite, see_through
from prreport.findings import ContextRequest
from prreport.python.definitions import same_tree
from prreport.python.parse import copy_tree
from prreport.python.references import reference_request
from prreport.python.scopes import bound_anywhere, is_string_statement, single_binding
from prreport.python.sources import SourceFiles

_IMPORTS = (ast.Import, ast.ImportFrom)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_YIELDS = (ast.Yield, ast.YieldFrom)
_CONSUMERS = ("list", "tuple")
_FLIP = {ast.Lt: ast.GtE, ast.LtE: ast.Gt, ast.Gt: ast.LtE, ast.GtE: ast.Lt}
_DYNAMIC = frozenset({"locals", "vars", "eval", "exec"})
ASSUME_PEP479 = "no StopIteration escapes the old body, which a generator turns into RuntimeError"
ASSUME_ORDER = "the items of {v} compare with ints as numbers do: no side effect, a total order"

Pair = tuple[ast.FunctionDef, ast.FunctionDef]


@dataclass(frozen=True)
class _Candidate:
    path: str
    before_path: str
    name: str
    old: ast.FunctionDef
    new: ast.FunctionDef
    before: ast.Module
    after: ast.Module


def _own(node: ast.AST) -> Iterator[ast.AST]:
    """Nodes of a function's own scope (nested functions, lambdas and classes not entered)."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, _SCOPES):
            stack.extend(ast.iter_child_nodes(n))


def _yields(node: ast.AST) -> bool:
    return isinstance(node, _YIELDS) or any(isinstance(n, _YIELDS) for n in _own(node))


def _private(name: str) -> bool:
    return name.startswith("_") and not name.endswith("__")


def _candidates(sources: SourceFiles) -> list[_Candidate]:
    """Module-level private functions changed by the PR that were not generators and now are."""

    def build() -> list[_Candidate]:
        out = []
        for f, before, after in sources.modified():
            added = sources.changed(f).added
            if not added or "yield" not in (f.after or ""):
                continue
            olds = {
                st.name: st
                for st in before.body
                if isinstance(st, ast.FunctionDef) and _private(st.name)
            }
            for st in after.body:
                if not isinstance(st, ast.FunctionDef) or st.name not in olds:
                    continue
                end = st.end_lineno or st.lineno
                if not any(st.lineno <= n <= end for n in added):
                    continue
                old = olds[st.name]
                if old.decorator_list or st.decorator_list:
                    continue
                if (
                    not _yields(st)
                    or _yields(old)
                    or any(isinstance(n, ast.Await) for n in _own(old))
                ):
                    continue
                if (
                    single_binding(before, st.name) is not old
                    or single_binding(after, st.name) is not st
                ):
                    continue
                out.append(_Candidate(f.path, f.before_path, st.name, old, st, before, after))
        return out

    result: list[_Candidate] = sources.memo("", "", "generator-candidates", build)
    return result


def generator_requests(bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
    """The whole-repository references of every candidate, and the files they are in."""
    names = {c.name for c in _candidates(sources)}
    return reference_request(bundle, names) if names else ContextRequest()


# --- part 2: every reference consumes the call at once -------------------------------------


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
    for n in _own(fn):
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


def _all_consume(tree: ast.Module, name: str, proven: set[str]) -> bool:
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


def _trees_with(
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


# --- part 1: the old body read as the generator it builds ----------------------------------


def _refs(cands: list[_Candidate], path: str) -> Callable[[ast.expr, set[str]], bool]:
    """Whether an expression names one of ``cands`` (canonical spelling) in file ``path``."""
    local = {c.name for c in cands if path in (c.path, c.before_path)}
    dotted = {f"@{module_of(p)}.{c.name}" for c in cands for p in (c.path, c.before_path)}

    def names(node: ast.expr, shadowed: set[str]) -> bool:
        if not isinstance(node, ast.Name):
            return False
        return node.id in dotted or (node.id in local and node.id not in shadowed)

    return names


def _bound_in(fn: ast.AST) -> set[str]:
    """Names a function binds itself (parameters, stores, nested definitions, declarations)."""
    out: set[str] = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif isinstance(n, (*_SCOPES[:2], ast.ClassDef)) and n is not fn:
            out.add(n.name)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            out.update(n.names)
    return out


def _is_list_method(st: ast.stmt, acc: str, method: str, nargs: int) -> ast.Call | None:
    if (
        isinstance(st, ast.Expr)
        and isinstance(st.value, ast.Call)
        and isinstance(st.value.func, ast.Attribute)
        and st.value.func.attr == method
        and isinstance(st.value.func.value, ast.Name)
        and st.value.func.value.id == acc
        and len(st.value.args) == nargs
        and not st.value.keywords
        and not any(isinstance(a, ast.Starred) for a in st.value.args)
    ):
        return st.value
    return None


def _yield(value: ast.expr, from_: bool = False) -> ast.stmt:
    return ast.Expr(ast.YieldFrom(value) if from_ else ast.Yield(value))


class _AsGenerator:
    """Rewrite an old list-building body into the generator it stands for."""

    def __init__(self, acc: str | None, is_ref: Callable[[ast.expr], bool]) -> None:
        self.acc = acc
        self.is_ref = is_ref
        self.guarded = 0  # inside a ``try``/``with`` of the body: an exception may be caught

    def split(self, elts: list[ast.expr]) -> list[ast.stmt] | None:
        """``yield e`` for each element of a display, which was built whole before anything
        saw it: when an element after the first can fail, the generator has already yielded
        the ones before, which a ``try``/``with`` of the body could then keep."""
        if self.guarded and not all(isinstance(e, ast.Constant) for e in elts[1:]):
            return None
        return [_yield(e) for e in elts]

    def block(self, stmts: list[ast.stmt]) -> list[ast.stmt] | None:
        out: list[ast.stmt] = []
        for st in stmts:
            got = self.stmt(st)
            if got is None:
                return None
            out.extend(got)
        return out

    def stmt(self, st: ast.stmt) -> list[ast.stmt] | None:
        acc = self.acc
        if acc is not None:
            call = _is_list_method(st, acc, "append", 1)
            if call is not None:
                return [_yield(call.args[0])]
            call = _is_list_method(st, acc, "extend", 1)
            if call is not None:
                arg = call.args[0]
                if isinstance(arg, ast.List) and not any(
                    isinstance(e, ast.Starred) for e in arg.elts
                ):
                    return self.split(arg.elts)
                return None
        if isinstance(st, ast.Return):
            v = st.value
            if acc is not None and isinstance(v, ast.Name) and v.id == acc:
                return [ast.Return(None)]
            if acc is not None:
                # ``return [x]`` dropped what the local held; a generator cannot take back
                # what it has yielded.
                return None
            if isinstance(v, ast.List) and not any(isinstance(e, ast.Starred) for e in v.elts):
                yields = self.split(v.elts)
                return None if yields is None else [*yields, ast.Return(None)]
            if isinstance(v, ast.Call) and self.is_ref(v.func) and not self.guarded:
                # (in a ``try``/``with``, what ``_g`` yielded before failing would be kept)
                return [_yield(v, from_=True), ast.Return(None)]
            return None  # another value (or None) is not a new list
        if isinstance(st, _SCOPES):
            return [st]
        guard = isinstance(st, _GUARDS)
        self.guarded += guard
        try:
            return self.inner(st)
        finally:
            self.guarded -= guard

    def inner(self, st: ast.stmt) -> list[ast.stmt] | None:
        for field in ("body", "orelse", "finalbody"):
            block = getattr(st, field, None)
            if isinstance(block, list):
                new = self.block(block)
                if new is None:
                    return None
                setattr(st, field, new)
        for holder in [*getattr(st, "handlers", ()), *getattr(st, "cases", ())]:
            new = self.block(holder.body)
            if new is None:
                return None
            holder.body = new
        return [st]


def _binds_without_name(fn: ast.AST, name: str) -> bool:
    """Whether ``fn`` binds ``name`` other than through a ``Name`` node (``except E as name``,
    which also deletes it; ``import m as name``; a nested ``def``/``class``; a ``match``
    capture), which ``_mentions`` cannot see."""
    for n in ast.walk(fn):
        if isinstance(n, ast.ExceptHandler) and n.name == name:
            return True
        if isinstance(n, ast.alias) and (n.asname or n.name.split(".")[0]) == name:
            return True
        if isinstance(n, (*_SCOPES[:2], ast.ClassDef)) and n is not fn and n.name == name:
            return True
        if isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name == name:
            return True
        if isinstance(n, ast.MatchMapping) and n.rest == name:
            return True
    return False


def _mentions(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def _accumulator(body: list[ast.stmt]) -> tuple[str, int] | None:
    """The local the body ends by returning and where, at the top of the body, it is first
    bound to a list display (``out = []``, ``out = [a]``)."""
    last = body[-1]
    if not (isinstance(last, ast.Return) and isinstance(last.value, ast.Name)):
        return None
    name = last.value.id
    for i, st in enumerate(body):
        if (
            isinstance(st, ast.Assign)
            and len(st.targets) == 1
            and isinstance(st.targets[0], ast.Name)
            and st.targets[0].id == name
            and isinstance(st.value, ast.List)
            and not any(isinstance(e, ast.Starred) for e in st.value.elts)
        ):
            return name, i
    return None


def _str_call(call: ast.expr, module: ast.Module, depth: int = 0) -> bool:
    """Whether an expression always makes an exact ``str`` (or fails): literals, f-strings,
    ``"sep".join(...)``, a module function whose body is ``return`` of one of those."""
    if isinstance(call, ast.Constant):
        return isinstance(call.value, str)
    if isinstance(call, ast.JoinedStr):
        return True
    if not isinstance(call, ast.Call):
        return False
    func = call.func
    if isinstance(func, ast.Attribute):
        return (
            func.attr == "join"
            and isinstance(func.value, ast.Constant)
            and isinstance(func.value.value, str)
        )
    if depth or not isinstance(func, ast.Name):
        return False
    target = single_binding(module, func.id)
    if not isinstance(target, ast.FunctionDef) or target.decorator_list:
        return False
    body = [s for s in target.body if not is_string_statement(s)]
    return (
        len(body) == 1
        and isinstance(body[0], ast.Return)
        and body[0].value is not None
        and _str_call(body[0].value, module, depth + 1)
    )


def _str_names(fn: ast.FunctionDef, module: ast.Module, shadowed: set[str]) -> set[str]:
    """Local names every binding of which in ``fn`` is ``name = <str value>`` (``shadowed``:
    the names ``fn`` binds, so a call of one of them is not the module function)."""
    declared = {
        x for n in ast.walk(fn) if isinstance(n, (ast.Global, ast.Nonlocal)) for x in n.names
    }
    stores: dict[str, list[ast.AST]] = {}
    assigns: dict[int, ast.Assign] = {}
    params = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                assigns[id(t)] = n
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            stores.setdefault(n.id, []).append(n)
    out = set()
    for name, nodes in stores.items():
        if name in params or name in declared or _binds_without_name(fn, name):
            continue  # (``except E as name`` binds an exception, then deletes it)
        ok = True
        for n in nodes:
            st = assigns.get(id(n))
            if st is None or not _str_call(st.value, module):
                ok = False
                break
            if isinstance(st.value, ast.Call) and isinstance(st.value.func, ast.Name):
                if st.value.func.id in shadowed:
                    ok = False  # a local of that name, not the module function
                    break
        if ok:
            out.add(name)
    return out


def _inert(x: ast.expr, str_names: set[str]) -> set[str] | None:
    """The names an expression reads when evaluating it cannot act or fail given those names
    are bound (a ``str`` literal, an f-string of plain ``str`` names), else None."""
    if isinstance(x, ast.Constant) and isinstance(x.value, str):
        return set()
    if isinstance(x, ast.Name) and x.id in str_names:
        return {x.id}
    if not isinstance(x, ast.JoinedStr):
        return None
    names: set[str] = set()
    for v in x.values:
        if isinstance(v, ast.Constant) and isinstance(v.value, str):
            continue
        if (
            isinstance(v, ast.FormattedValue)
            and v.conversion == -1
            and v.format_spec is None
            and isinstance(v.value, ast.Name)
            and v.value.id in str_names
        ):
            names.add(v.value.id)
            continue
        return None
    return names


def _assigned_at_top(body: list[ast.stmt], name: str) -> bool:
    return any(
        isinstance(st, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == name for t in st.targets)
        for st in body
    )


def _binds(stmts: list[ast.stmt], names: set[str]) -> bool:
    block = ast.Module(body=stmts, type_ignores=[])
    return any(
        isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) and n.id in names
        for st in stmts
        for n in ast.walk(st)
    ) or any(_binds_without_name(block, name) for name in names)


def _tuple_local(
    fn: ast.FunctionDef, body: list[ast.stmt], upto: int, v: str, tuple_free: bool
) -> bool:
    """``v`` is bound by ``v = tuple(...)`` at the top of ``body`` before ``upto`` and nowhere
    else in ``fn`` (a parameter of that name is rebound so before any test reads it)."""
    if not tuple_free:
        return False
    tops = [
        st
        for st in body[:upto]
        if isinstance(st, ast.Assign)
        and len(st.targets) == 1
        and isinstance(st.targets[0], ast.Name)
        and st.targets[0].id == v
        and isinstance(st.value, ast.Call)
        and isinstance(st.value.func, ast.Name)
        and st.value.func.id == "tuple"
    ]
    stores = [
        n
        for n in ast.walk(fn)
        if isinstance(n, ast.Name) and n.id == v and not isinstance(n.ctx, ast.Load)
    ]
    declared = any(isinstance(n, (ast.Global, ast.Nonlocal)) and v in n.names for n in ast.walk(fn))
    return (
        len(tops) == 1
        and len(stores) == 1
        and stores[0] is tops[0].targets[0]
        and not declared
        and not _binds_without_name(fn, v)  # ``except E as v`` rebinds, then deletes, ``v``
    )


def _split_elif(
    st: ast.stmt, fn: ast.FunctionDef, body: list[ast.stmt], at: int, tuple_free: bool
) -> tuple[list[ast.stmt], Rewrite] | None:
    """``if A: S elif B: T`` (yields only in ``T``) as ``if A: S`` / ``if <not A> and B: T``."""
    if not (
        isinstance(st, ast.If)
        and len(st.orelse) == 1
        and isinstance(st.orelse[0], ast.If)
        and not st.orelse[0].orelse
        and not _yields(st.test)
        and not any(_yields(s) for s in st.body)
    ):
        return None
    test = st.test
    if not (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and type(test.ops[0]) in _FLIP
        and isinstance(test.left, ast.Name)
        and isinstance(test.comparators[0], ast.Tuple)
        and all(
            isinstance(e, ast.Constant) and type(e.value) is int for e in test.comparators[0].elts
        )
        and _tuple_local(fn, body, at, test.left.id, tuple_free)
    ):
        return None
    flipped = ast.Compare(test.left, [_FLIP[type(test.ops[0])]()], test.comparators)
    inner = st.orelse[0]
    second = ast.If(ast.BoolOp(ast.And(), [flipped, inner.test]), inner.body, [])
    first = ast.If(st.test, st.body, [])
    why = Rewrite("split-elif", ast.unparse(second.test), ASSUME_ORDER.format(v=test.left.id))
    return [first, second], why


def _old_as_generator(
    old: ast.FunctionDef,
    module: ast.Module,
    is_ref: Callable[[ast.expr, set[str]], bool],
    tuple_free: bool,
) -> tuple[ast.FunctionDef, list[Rewrite]] | None:
    """The old (canonical) function rewritten as the generator it stands for."""
    fn = copy_tree(old)
    body = list(fn.body)
    if not body or not isinstance(body[-1], ast.Return):
        return None  # it may fall off its end: None is not a list
    if any(isinstance(n, ast.Name) and n.id in _DYNAMIC for n in ast.walk(fn)):
        return None
    shadowed = _bound_in(fn)
    found = _accumulator(body)
    acc = found[0] if found else None
    prepend: ast.expr | None = None
    if found is not None:
        name, at = found
        if (
            any(_mentions(st, name) for st in body[:at])
            or any(
                isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names for n in ast.walk(fn)
            )
            or _binds_without_name(fn, name)
        ):
            return None
        init = body[at]
        assert isinstance(init, ast.Assign) and isinstance(init.value, ast.List)
        body[at : at + 1] = [_yield(e) for e in init.value.elts]  # evaluated where they were
        ins = _is_list_method(body[-2], name, "insert", 2) if len(body) >= 2 else None
        last = body[-1]
        returns_acc = isinstance(last, ast.Return) and isinstance(last.value, ast.Name)
        if (
            ins is not None
            and returns_acc
            and last.value.id == name  # type: ignore[union-attr]
            and isinstance(ins.args[0], ast.Constant)
            and ins.args[0].value == 0
            and type(ins.args[0].value) is int
        ):
            prepend = ins.args[1]
            del body[-2]
    conv = _AsGenerator(acc, lambda e: is_ref(e, shadowed))
    new_body = conv.block(body)
    if new_body is None or (acc is not None and any(_mentions(st, acc) for st in new_body)):
        return None
    rewrites: list[Rewrite] = []
    if prepend is not None:
        names = _inert(prepend, _str_names(fn, module, shadowed))
        if names is None or _mentions(prepend, acc or ""):
            return None
        tail = new_body[:-1]  # the final ``return``
        i = next((k for k, st in enumerate(tail) if _yields(st)), len(tail))
        if i < len(tail):
            split = _split_elif(tail[i], fn, tail, i, tuple_free)
            if split is not None:
                tail[i : i + 1] = split[0]
                rewrites.append(split[1])
                i += 1
        rest = tail[i:]
        if _binds(rest, names) or any(
            isinstance(st, ast.Return) or any(isinstance(n, ast.Return) for n in _own(st))
            for st in rest
        ):
            return None  # an early return skipped the prepended element
        if not all(_assigned_at_top(tail[:i], n) for n in names):
            return None
        new_body = [*tail[:i], _yield(prepend), *rest, new_body[-1]]
    fn.body = _strip_return(new_body)
    return fn, rewrites


def _strip_return(body: list[ast.stmt]) -> list[ast.stmt]:
    """A bare ``return`` ending a body is falling off its end."""
    if body and isinstance(body[-1], ast.Return) and body[-1].value is None and len(body) > 1:
        return body[:-1]
    return body


def _same_generator(
    old_canon: ast.FunctionDef,
    new_canon: ast.FunctionDef,
    cand: _Candidate,
    cands: list[_Candidate],
    low: tuple[int, ...] | None,
) -> list[Rewrite] | None:
    """Part 1 for one candidate (assuming the others hold): the rewrites that made it equal."""
    tuple_free = "tuple" not in bound_anywhere(cand.before)
    got = _old_as_generator(old_canon, cand.before, _refs(cands, cand.path), tuple_free)
    if got is None:
        return None
    gen, rewrites = got
    new = copy_tree(new_canon)
    new.body = _strip_return(list(new.body))
    if same_tree(gen, new, _IMPORTS):
        return rewrites
    more = see_through(gen, new, low)
    return None if more is None else [*rewrites, *more]


# --- the proof over the whole change --------------------------------------------------------


Canon = Callable[[ast.FunctionDef, str, ast.Module, str], ast.AST]


def proven(
    sources: SourceFiles, canon: Canon, low: tuple[int, ...] | None
) -> dict[tuple[str, str], list[Rewrite]]:
    """The candidates proven (both parts), by (after path, name), with their rewrites."""

    def build() -> dict[tuple[str, str], list[Rewrite]]:
        cands = _candidates(sources)
        bundle = sources.bundle
        trees = {c.name: _trees_with(c.name, sources, bundle) for c in cands}
        cands = [c for c in cands if trees[c.name] is not None]
        result: dict[tuple[str, str], list[Rewrite]] = {}
        while cands:
            result = {}
            names = {(c.path, c.name) for c in cands}
            for c in cands:
                old = canon(c.old, c.before_path, c.before, "before")
                new = canon(c.new, c.path, c.after, "after")
                assert isinstance(old, ast.FunctionDef) and isinstance(new, ast.FunctionDef)
                got = _same_generator(old, new, c, cands, low)
                if got is None:
                    continue
                if not all(
                    _all_consume(t, c.name, {n for p, n in names if p == path})
                    for path, t in trees[c.name] or ()
                ):
                    continue
                result[(c.path, c.name)] = got
            kept = [c for c in cands if (c.path, c.name) in result]
            if len(kept) == len(cands):
                break
            cands = kept
        return result

    done: dict[tuple[str, str], list[Rewrite]] = sources.memo("", "", "generators-proven", build)
    return done


def _unwrap(fn: ast.AST, is_ref: Callable[[ast.expr, set[str]], bool], rebinds: bool) -> set[str]:
    """Read ``list(_f(...))`` as ``_f(...)`` in place; the functions read so."""
    shadowed = _bound_in(fn)
    if rebinds or "list" in shadowed:
        return set()
    found: set[str] = set()

    class _Strip(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call) -> ast.AST:
            self.generic_visit(node)
            inner = node.args[0] if len(node.args) == 1 else None
            if (
                isinstance(node.func, ast.Name)
                and node.func.id == "list"
                and not node.keywords
                and isinstance(inner, ast.Call)
                and isinstance(inner.func, ast.Name)
                and is_ref(inner.func, shadowed)
            ):
                found.add(inner.func.id.rsplit(".", 1)[-1])
                return inner
            return node

    _Strip().visit(fn)
    return found


def generator_rewrites(
    sources: SourceFiles,
    path: str,
    qualname: str,
    canon: Canon,
    pair: Callable[[], tuple[ast.AST, ast.AST]],
    low: tuple[int, ...] | None,
) -> list[Rewrite] | None:
    """Last resort of the behaviour comparison: the rewrites that make a changed function equal
    when it is a list builder made a generator, or a caller of one that now wraps it in
    ``list(...)``; None otherwise."""
    if not _candidates(sources):
        return None
    done = proven(sources, canon, low)
    if not done:
        return None
    if (path, qualname) in done:
        return [Rewrite("list-to-generator", qualname, ASSUME_PEP479), *done[(path, qualname)]]
    cands = [c for c in _candidates(sources) if (c.path, c.name) in done]
    is_ref = _refs(cands, path)
    f = next((x for x in sources.bundle.files if x.path == path), None)
    if f is None:
        return None
    before, after = sources.tree(f.before_path, "before"), sources.tree(path, "after")
    if before is None or after is None:
        return None
    a, b = pair()
    na = _unwrap(a, is_ref, "list" in bound_anywhere(before))
    nb = _unwrap(b, is_ref, "list" in bound_anywhere(after))
    if not na and not nb:
        return None
    mine = [Rewrite("consumed-generator", f"list({n}(...))", n) for n in sorted(na | nb)]
    if same_tree(a, b, _IMPORTS):
        return mine
    more = see_through(a, b, low)
    return None if more is None else [*mine, *more]
