"""Guards removed from changed code: an ``if``/``try`` whose body now runs unguarded, proven or not."""

from __future__ import annotations

import ast
import bisect
import importlib
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial

from prreport.analyzers import Analyzer, register
from prreport.bundle import FileChange, PullRequestBundle
from prreport.classify import python_module_path
from prreport.equivalence.canonical import _absolute
from prreport.findings import ContextRequest, Finding
from prreport.python.definitions import dump, same_tree
from prreport.python.functions import functions
from prreport.python.parse import parse as parse_quietly
from prreport.python.scopes import (
    COMPOUND_STATEMENTS,
    all_statements,
    is_string_statement,
    single_binding,
    source_lines,
)
from prreport.python.sources import SourceFiles
from prreport.python.stdlib import import_cannot_fail
from prreport.python.versions import (
    PACKAGING,
    declared_min_python,
    fixed_by_version,
    version_test,
)

_IMPORTS = (ast.Import, ast.ImportFrom)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_BLOCKS = ("body", "orelse", "finalbody")
# Compound statements whose every field the aligner compares (header, blocks, handlers): for
# them a whole-tree comparison first would only repeat it (``match`` cases it does not walk).
_WALKED = COMPOUND_STATEMENTS - {
    ast.Match,
    *(getattr(ast, n) for n in ("TryStar",) if hasattr(ast, n)),
}
_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError"}
# Before texts that make the declared lowest Python worth reading.
_VERSION_HINTS = ("version_info", *_IMPORT_ERRORS)
# Standard-library modules never imported to look an attribute up (importing them acts).
_NO_IMPORT = frozenset({"antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo"})


@dataclass(frozen=True)
class _Drop:
    """One guard removed, the statements it guarded kept in place."""

    node: ast.If | ast.Try
    kept: str  # "body" (the condition held / the try succeeded) or "orelse" (the condition failed)
    after_line: int = 0  # where the kept statements start after the change (0: none kept)
    # The after statement that follows the kept ones: the guard's imports must come before it.
    next_after: ast.stmt | None = None


def _stmts(block: Sequence[ast.stmt]) -> list[ast.stmt]:
    """The statements that act: imports (the import analyzers follow them) and string
    statements (docstrings, attribute docstrings: documentation) left out."""
    return [s for s in block if not isinstance(s, _IMPORTS) and not is_string_statement(s)]


def _conjuncts(test: ast.expr) -> list[ast.expr]:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [p for v in test.values for p in _conjuncts(v)]
    return [test]


def _flattened(st: ast.If) -> tuple[list[ast.expr], list[ast.stmt]]:
    """``if a: if b and c: X`` (no ``else`` anywhere) as ([a, b, c], X)."""
    tests, body = _conjuncts(st.test), st.body
    while not st.orelse and len(body) == 1 and isinstance(body[0], ast.If) and not body[0].orelse:
        st = body[0]
        tests, body = tests + _conjuncts(st.test), st.body
    return tests, body


def _header_equal(a: ast.stmt, b: ast.stmt) -> bool:
    """Same statement type and the same fields outside its statement blocks."""
    if type(a) is not type(b):
        return False
    for name in a._fields:
        if name in (*_BLOCKS, "handlers", "cases"):
            continue
        if not same_tree(getattr(a, name), getattr(b, name)):  # type: ignore[arg-type]
            return False
    return True


class _Aligner:
    """Aligns a before statement list with an after one, allowing only removed guards.

    ``lines``: the before and after source lines; a statement spelled on the same lines, from
    the same columns, is the same statement without comparing trees (most of a file is).
    """

    def __init__(self, module_level: bool, lines: tuple[list[str], list[str]]) -> None:
        # At module level functions are compared one by one elsewhere: a def matches by name.
        self.module_level = module_level
        self.lines = lines
        self.drops: list[_Drop] = []
        self.changed_ok = False

    def _same_text(self, b: ast.stmt, a: ast.stmt) -> bool:
        (b0, b1), (a0, a1) = _span(b), _span(a)
        return (
            b1 - b0 == a1 - a0
            and (b.col_offset, b.end_col_offset) == (a.col_offset, a.end_col_offset)
            and self.lines[0][b0 - 1 : b1] == self.lines[1][a0 - 1 : a1]
        )

    def block(
        self, before: Sequence[ast.stmt], after: Sequence[ast.stmt], changed_ok: bool = False
    ) -> bool:
        """Whether ``after`` is ``before`` with guards removed. ``changed_ok`` (this block
        only, not the blocks inside it): a statement may also be replaced by another of the
        same type, a change that is no dropped guard, when both lists keep their length."""
        b, a = _stmts(before), _stmts(after)
        i = j = 0
        while i < len(b):
            s = b[i]
            if j < len(a) and self.stmt(s, a[j]):
                i, j = i + 1, j + 1
                continue
            self.changed_ok, outer = changed_ok, self.changed_ok
            took = self._unwrap(s, a, j)
            self.changed_ok = outer
            if took is None:
                if not (changed_ok and j < len(a) and type(s) is type(a[j])):
                    return False
                took = 1
            i, j = i + 1, j + took
        return j == len(a)

    def stmt(self, b: ast.stmt, a: ast.stmt) -> bool:
        if self.module_level and isinstance(b, _DEFS) and isinstance(a, _DEFS):
            return b.name == a.name
        if self._same_text(b, a):
            return True
        if type(b) not in _WALKED and same_tree(b, a, _IMPORTS):
            return True  # (the statements below compare a compound statement field by field)
        if isinstance(b, ast.If) and isinstance(a, ast.If) and not b.orelse and not a.orelse:
            weakened = self._weakened(b, a)
            if weakened is not None:
                return weakened
        if not _header_equal(b, a):
            return False
        mark = len(self.drops)
        ok = all(
            self.block(getattr(b, f, None) or [], getattr(a, f, None) or [])
            for f in _BLOCKS
            if hasattr(b, f)
        )
        handlers_b, handlers_a = getattr(b, "handlers", None), getattr(a, "handlers", None)
        if ok and handlers_b is not None:
            ok = len(handlers_b) == len(handlers_a or []) and all(
                same_tree(hb.type, ha.type) and hb.name == ha.name and self.block(hb.body, ha.body)  # type: ignore[arg-type]
                for hb, ha in zip(handlers_b, handlers_a or [], strict=False)
            )
        if not ok:
            del self.drops[mark:]
        return ok

    def _weakened(self, b: ast.If, a: ast.If) -> bool | None:
        """``if a and b: X`` (or nested ``if a: if b: X``) now ``if a: X``: the test ``b`` is
        dropped, the rest kept in order. None when the tests are not such a pair."""
        tests_b, body_b = _flattened(b)
        tests_a, body_a = _flattened(a)
        if len(tests_a) >= len(tests_b) or not tests_a:
            return None
        dropped: list[ast.expr] = []
        k = 0
        for t in tests_b:
            if k < len(tests_a) and same_tree(t, tests_a[k]):
                k += 1
            else:
                dropped.append(t)
        if k != len(tests_a):
            return None
        mark = len(self.drops)
        if not self.block(body_b, body_a):
            del self.drops[mark:]
            return False
        test = dropped[0] if len(dropped) == 1 else ast.BoolOp(ast.And(), dropped)
        guard = ast.copy_location(ast.If(test=test, body=body_b, orelse=[]), b)
        guard.end_lineno = b.end_lineno
        self.drops.append(_Drop(guard, "body", a.lineno))
        return True

    def _unwrap(self, s: ast.stmt, after: list[ast.stmt], j: int) -> int | None:
        """How many after statements the guarded statements of ``s`` became, or None."""
        options: list[tuple[str, list[ast.stmt]]] = []
        if isinstance(s, ast.If):
            options = [("body", s.body)]
            # A branch of an ``elif`` chain removed: the tests after it still guard theirs.
            if not (s.body and len(s.orelse) == 1 and isinstance(s.orelse[0], ast.If)):
                options.append(("orelse", s.orelse))
        elif isinstance(s, ast.Try) and not s.finalbody:
            options = [("body", s.body + s.orelse)]
        for kept, stmts in options:
            inner = _stmts(stmts)
            n = len(inner)
            if (self.changed_ok and not stmts) or j + n > len(after):
                # With other changes around, a statement removed whole is one of them.
                continue
            mark = len(self.drops)
            if self.block(inner, after[j : j + n]):
                at = after[j].lineno if n else 0
                following = after[j + n] if j + n < len(after) else None
                self.drops.append(_Drop(s, kept, at, following))  # type: ignore[arg-type]
                return n
            del self.drops[mark:]
        return None


# -- what the dropped condition was -----------------------------------------------------------


def _truthy_object(module: str, name: str) -> bool:
    """A standard-library class, function or module: true in every boolean context."""
    top = module.split(".")[0]
    if top not in sys.stdlib_module_names or top in _NO_IMPORT:
        return False
    try:
        # Static analysis cannot tell a class from None; the standard library itself can.
        obj = getattr(importlib.import_module(module), name)
    except Exception:  # noqa: BLE001 - an unknown attribute proves nothing
        return False
    kind = type(obj)
    callable_or_module = isinstance(obj, type) or callable(obj) or kind.__name__ == "module"
    return callable_or_module and not hasattr(kind, "__bool__") and not hasattr(kind, "__len__")


class _Truth:
    """Conditions whose value is fixed for every supported interpreter, with the reason."""

    def __init__(self, sources: SourceFiles, bundle: PullRequestBundle) -> None:
        self.sources = sources
        self.bundle = bundle
        self._paths: dict[str, str] | None = None

    def value(self, test: ast.expr, tree: ast.Module, path: str) -> tuple[bool | None, str]:
        """(True/False when fixed, None when not; why). An ``and`` with a part that is always
        false is false, an ``or`` with a part that is always true is true (``x and
        sys.version_info < (3,)``: the Python 2 branch)."""
        if isinstance(test, ast.BoolOp):
            decisive = isinstance(test.op, ast.Or)  # the value of a part that settles it
            for part in test.values:
                fixed, why = self.value(part, tree, path)
                if fixed is decisive:
                    return decisive, f"{ast.unparse(part)} is always {str(decisive).lower()}: {why}"
            return None, ""
        if version_test(test) is not None:
            found = fixed_by_version(test, declared_min_python(self.sources))
            if found is None:
                return None, ""
            return found[0], f"the project requires Python >= {found[1]}"
        name, negate = _named(test)
        if name and self._truthy(name, tree, path, 0):
            return (not negate), f"{name} is always bound to a class, function or module"
        return None, ""

    def imports_succeed(self, body: Sequence[ast.stmt]) -> str:
        """Why every statement of a ``try`` body is an import that cannot fail on any supported
        Python (standard library, not shadowed by a first-party module); "" when not certain."""
        low = declared_min_python(self.sources)
        imported = _imported(body)
        if low is None or not imported:
            return ""
        if self._paths is None:
            self._paths = python_module_paths(self.bundle)
        # A first-party module of that name (at head, or deleted by this PR) is what imported.
        heads = self.bundle.head_paths
        gone = [
            python_module_path(f.before_path, heads or (f.before_path,)) for f in self.bundle.files
        ]
        first_party = {m.split(".")[0] for m in [*self._paths, *gone]}
        parts: list[str] = []
        for module, name in imported:
            why = (
                "" if module.split(".")[0] in first_party else import_cannot_fail(module, name, low)
            )
            if not why:
                return ""
            parts.append(why)
        return "; ".join([*parts, f"the project requires Python >= {'.'.join(map(str, low))}"])

    def _truthy(self, name: str, tree: ast.Module, path: str, depth: int) -> bool:
        st = single_binding(tree, name)
        if isinstance(st, (*_DEFS, ast.ClassDef)):
            return not st.decorator_list
        if not isinstance(st, ast.ImportFrom) or depth > 3:
            return False
        module = python_module_path(path, self.bundle.head_paths or (path,))
        package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
        source = _absolute(st, package)
        original = next(a.name for a in st.names if (a.asname or a.name) == name)
        if _truthy_object(source, original):
            return True
        target = self._path_of(source)
        changed = self.bundle.file(target) if target else None
        # The module as the before code saw it: its before text when this PR changed it too.
        text = (
            changed.before
            if changed is not None
            else (self.sources.text(target, "head") if target else None)
        )
        if target is None or text is None:
            return False
        try:
            return self._truthy(original, parse_quietly(text), target, depth + 1)
        except (SyntaxError, ValueError):
            return False

    def _path_of(self, module: str) -> str | None:
        if self._paths is None:
            self._paths = python_module_paths(self.bundle)
        return self._paths.get(module)


def _imported(body: Sequence[ast.stmt]) -> list[tuple[str, str | None]]:
    """(module, name or None) per name a block of only absolute imports binds ([] otherwise)."""
    out: list[tuple[str, str | None]] = []
    for st in body:
        if isinstance(st, ast.Import):
            out += [(a.name, None) for a in st.names]
        elif isinstance(st, ast.ImportFrom) and st.module and not st.level:
            if any(a.name == "*" for a in st.names):
                return []
            out += [(st.module, a.name) for a in st.names]
        else:
            return []
    return out


def _named(test: ast.expr) -> tuple[str, bool]:
    """``X``, ``X is not None`` -> (X, False); ``not X``, ``X is None`` -> (X, True)."""
    if isinstance(test, ast.Name):
        return test.id, False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        name, neg = _named(test.operand)
        return name, not neg
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.left, ast.Name)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        if isinstance(test.ops[0], ast.IsNot):
            return test.left.id, False
        if isinstance(test.ops[0], ast.Is):
            return test.left.id, True
    return "", False


def _if_tests(tree: ast.Module) -> frozenset[str]:
    """Names tested by an ``if NAME:`` (or ``not NAME``, ``NAME is None``) anywhere in a module."""
    tested = {_named(st.test)[0] for st in all_statements(tree.body) if isinstance(st, ast.If)}
    return frozenset(tested - {""})


def _caught(node: ast.Try) -> list[str]:
    out = []
    for h in node.handlers:
        if h.type is None:
            out.append("BaseException")
        elif isinstance(h.type, ast.Tuple):
            out += [ast.unparse(e) for e in h.type.elts]
        else:
            out.append(ast.unparse(h.type))
    return out


def _imports_kept(
    block: Sequence[ast.stmt], after: ast.AST, following: ast.stmt | None
) -> list[int] | None:
    """After lines of the unguarded copies of the imports in ``block`` (None when one is missing,
    or comes after ``following``, the statement the guard came before: code there may use it).

    An import merged into another import statement of the same scope (``from contextlib import
    asynccontextmanager, contextmanager``) is kept too; that statement's line is not listed: it
    also imports other names, which the import analyzers account for.
    """
    wanted = [s for s in block if isinstance(s, _IMPORTS)]
    if not wanted:
        return []
    body = after.body if isinstance(after, (ast.Module, *_DEFS)) else []
    limit = following.lineno if following is not None else None
    imports = [s for s in body if isinstance(s, _IMPORTS) and (limit is None or s.lineno < limit)]
    have = {dump(s): s for s in imports}
    bound = {_binding(s, a) for s in imports for a in s.names}
    lines: list[int] = []
    for w in wanted:
        st = have.get(dump(w))
        if st is not None:
            lines += range(st.lineno, (st.end_lineno or st.lineno) + 1)
        elif not all(_binding(w, a) in bound for a in w.names):
            return None
    return lines


def _binding(st: ast.Import | ast.ImportFrom, alias: ast.alias) -> tuple[object, ...]:
    """What one name of an import statement binds, whatever else the statement imports."""
    if isinstance(st, ast.ImportFrom):
        return ("from", st.module, st.level, alias.name, alias.asname)
    return ("import", alias.name, alias.asname)


def _lines(sources: SourceFiles, path: str, side: str) -> list[str]:
    """Source lines of a file side, as its syntax tree numbers them."""
    return source_lines(sources.text(path, side) or "")


def _span(node: ast.stmt) -> tuple[int, int]:
    start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return start, node.end_lineno or node.lineno


@register
class GuardDropAnalyzer(Analyzer):
    """A guard removed from changed code, its statements kept (``if``/``else``, ``try``/``except``).

    before: ``if AsyncExitStack:\\n    run()\\nelse:\\n    old()`` · after: ``run()`` →
    ``guard.dropped`` (proven harmless when the condition could never be false, or when the
    ``try`` of an ``except ImportError`` fallback imports only standard-library names that exist
    on every Python the project supports: ``import-cannot-fail``).
    """

    name = "guard-drops"

    def requests(self, bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
        """Packaging files (declared Python) and modules names in ``if NAME:`` tests come from."""
        files: set[str] = set()
        heads = set(bundle.head_paths)
        paths = python_module_paths(bundle)
        for f in sources.python_files():
            tree = sources.tree(f.before_path, "before") if f.before is not None else None
            if tree is None:
                continue
            if any(hint in (f.before or "") for hint in _VERSION_HINTS):
                files |= {p for p in PACKAGING if p in heads and bundle.file(p) is None}
            module = python_module_path(f.before_path, bundle.head_paths or (f.before_path,))
            package = module if f.before_path.endswith("__init__.py") else module.rpartition(".")[0]
            imported = [st for st in tree.body if isinstance(st, ast.ImportFrom)]
            if not imported:
                continue
            tested = sources.memo(f.before_path, "before", "if-tests", partial(_if_tests, tree))
            for st in imported:
                if any((a.asname or a.name) in tested for a in st.names):
                    target = paths.get(_absolute(st, package))
                    if target and bundle.file(target) is None:
                        files.add(target)
        return ContextRequest(files=frozenset(files))

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``guard.dropped`` per removed guard of a function (or module) otherwise unchanged."""
        truth = _Truth(sources, bundle)
        findings: list[Finding] = []
        for f, before, after in sources.modified():
            findings.extend(self._file(f, sources, truth, before, after))
        return sorted(findings, key=Finding.sort_key)

    def _file(
        self,
        f: FileChange,
        sources: SourceFiles,
        truth: _Truth,
        before: ast.Module,
        after: ast.Module,
    ) -> list[Finding]:
        changed = sources.changed(f)
        removed, added = set(changed.removed), set(changed.added)
        if not removed:
            return []
        old = sources.memo(f.before_path, "before", "functions", lambda: functions(before))
        new = sources.memo(f.path, "after", "functions", lambda: functions(after))
        texts = (_lines(sources, f.before_path, "before"), _lines(sources, f.path, "after"))
        out: list[Finding] = []
        pairs: list[tuple[str, ast.AST, ast.AST, tuple[int, int], tuple[int, int]]] = []
        lines = sorted(removed)
        for key in sorted(old.functions.keys() & new.functions.keys()):
            a, b = old.functions[key], new.functions[key]
            at = bisect.bisect_left(lines, a.start)
            if at == len(lines) or lines[at] > a.end:
                continue  # no removed line inside the function
            fa, fb = a.node, b.node
            if not _header_equal(fa, fb) or same_tree(fa.args, fb.args) is False:
                continue
            pairs.append((b.qualname, fa, fb, (a.start, a.end), (b.start, b.end)))
        for qual, fa, fb, span_b, span_a in pairs:
            aligner = _Aligner(module_level=False, lines=texts)
            whole = aligner.block(fa.body, fb.body)  # type: ignore[attr-defined]
            if not whole:
                # Other statements changed too: the guards dropped around the rest still are.
                aligner = _Aligner(module_level=False, lines=texts)
                if not aligner.block(fa.body, fb.body, changed_ok=True):  # type: ignore[attr-defined]
                    continue
            if aligner.drops:
                found = self._findings(f, qual, aligner.drops, truth, before, fb, removed, added)
                if whole and all(fd.details["proven"] for fd in found):
                    # The dropped guards are the function's only change: they explain it whole.
                    found = [_with_span(fd, span_b, span_a, removed, added, f) for fd in found]
                out += found
        aligner = _Aligner(module_level=True, lines=texts)
        if aligner.block(before.body, after.body) and aligner.drops:
            out += self._findings(
                f, "<module>", aligner.drops, truth, before, after, removed, added
            )
        return out

    def _findings(
        self,
        f: FileChange,
        scope: str,
        drops: list[_Drop],
        truth: _Truth,
        tree: ast.Module,
        after: ast.AST,
        removed: set[int],
        added: set[int],
    ) -> list[Finding]:
        out = []
        for d in drops:
            node = d.node
            kept_block = node.body if d.kept == "body" else node.orelse
            # Imports the guard held must now be made unguarded in the same scope.
            kept_imports = _imports_kept(kept_block, after, d.next_after)
            if kept_imports is None and any(isinstance(s, _IMPORTS) for s in node.body):
                continue  # its imports moved: guards.py follows their call sites
            details: dict[str, object] = {
                "scope": scope,
                "before_line": node.lineno,
                "before_end": node.end_lineno,
                "before_path": f.before_path,
            }
            if isinstance(node, ast.If):
                fixed, why = truth.value(node.test, tree, f.before_path)
                held = d.kept == "body"
                details.update(
                    guard=f"if {ast.unparse(node.test)}",
                    kept="body" if held else "else",
                    always=None if fixed is None else ("true" if fixed else "false"),
                    proof=why if fixed is held else "",
                )
                proven = fixed is held and kept_imports is not None
                if proven:
                    reason = "condition-always-" + ("true" if held else "false")
                else:
                    reason = "condition-no-longer-checked"
            else:
                caught = _caught(node)
                imports = any(isinstance(s, _IMPORTS) for s in node.body)
                fallback = imports and set(caught) <= _IMPORT_ERRORS
                # The fallback never ran when no import of the try could fail (its imports are
                # kept unguarded: a try whose imports went elsewhere was skipped above).
                why = truth.imports_succeed(node.body) if fallback else ""
                details.update(guard="try", kept="body", caught=caught, proof=why)
                proven = bool(why)
                if proven:
                    reason = "import-cannot-fail"
                elif fallback:
                    reason = "dependency-now-required"
                else:
                    reason = "exception-now-propagates"
            details["reason"] = reason
            # The guard chain the risk evidence prints: this guard before, none after.
            details["before"] = [
                {
                    "kind": "if" if isinstance(node, ast.If) else "try",
                    "text": str(details["guard"]),
                    "line": node.lineno,
                }
            ]
            details["after"] = []
            details["proven"] = proven
            details["behavior_change"] = not proven
            if d.after_line:
                details["after_line"] = d.after_line
            lines = [n for n in range(*_span(node)) if n in removed] + [node.end_lineno or 0]
            exp = [(f.before_path, "-", n) for n in sorted(set(lines)) if n in removed]
            if proven:
                exp += [(f.path, "+", n) for n in kept_imports or () if n in added]
            out.append(
                Finding(
                    "guard.dropped",
                    f.path,
                    d.after_line or node.lineno,
                    scope,
                    f"{scope}: {details['guard']} removed ({reason})",
                    details,
                    tuple(exp),
                )
            )
        return out


def _with_span(
    fd: Finding,
    span_b: tuple[int, int],
    span_a: tuple[int, int],
    removed: set[int],
    added: set[int],
    f: FileChange,
) -> Finding:
    """A function whose only change is its dropped guards: the proven finding explains it whole."""
    if not fd.details.get("proven"):
        return fd
    exp = {(f.before_path, "-", n) for n in range(span_b[0], span_b[1] + 1) if n in removed}
    exp |= {(f.path, "+", n) for n in range(span_a[0], span_a[1] + 1) if n in added}
    return Finding(fd.kind, fd.path, fd.line, fd.symbol, fd.message, fd.details, tuple(sorted(exp)))


def python_module_paths(bundle: PullRequestBundle) -> dict[str, str]:
    """Dotted module -> path of every Python file at head."""
    heads = bundle.head_paths
    return {python_module_path(p, heads): p for p in heads if p.endswith(".py")}
