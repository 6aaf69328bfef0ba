"""Guards removed from changed code: an ``if``/``try`` whose body now runs unguarded, proven or
not (the alignment is ``equivalence.unguard``; why a guard never mattered, ``equivalence.guards``)."""

from __future__ import annotations

import ast
import bisect
from collections.abc import Iterable
from functools import partial

from prreport.analyzers import Analyzer, register
from prreport.bundle import FileChange, PullRequestBundle
from prreport.classify import python_module_path
from prreport.equivalence.canonical import _absolute
from prreport.equivalence.guards import IMPORT_ERRORS, Truth, caught, if_tests, python_module_paths
from prreport.equivalence.unguard import Aligner, Drop, header_equal, imports_kept, span
from prreport.findings import ContextRequest, Finding
from prreport.python.definitions import same_tree
from prreport.python.functions import functions
from prreport.python.scopes import source_lines
from prreport.python.sources import SourceFiles
from prreport.python.versions import PACKAGING

_IMPORTS = (ast.Import, ast.ImportFrom)
# Before texts that make the declared lowest Python worth reading.
_VERSION_HINTS = ("version_info", *IMPORT_ERRORS)


def _lines(sources: SourceFiles, path: str, side: str) -> list[str]:
    """Source lines of a file side, as its syntax tree numbers them."""
    return source_lines(sources.text(path, side) or "")


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
            tested = sources.memo(f.before_path, "before", "if-tests", partial(if_tests, tree))
            for st in imported:
                if any((a.asname or a.name) in tested for a in st.names):
                    target = paths.get(_absolute(st, package))
                    if target and bundle.file(target) is None:
                        files.add(target)
        return ContextRequest(files=frozenset(files))

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``guard.dropped`` per removed guard of a function (or module) otherwise unchanged."""
        truth = Truth(sources, bundle)
        findings: list[Finding] = []
        for f, before, after in sources.modified():
            findings.extend(self._file(f, sources, truth, before, after))
        return sorted(findings, key=Finding.sort_key)

    def _file(
        self,
        f: FileChange,
        sources: SourceFiles,
        truth: Truth,
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
            if not header_equal(fa, fb) or same_tree(fa.args, fb.args) is False:
                continue
            pairs.append((b.qualname, fa, fb, (a.start, a.end), (b.start, b.end)))
        for qual, fa, fb, span_b, span_a in pairs:
            aligner = Aligner(module_level=False, lines=texts)
            whole = aligner.block(fa.body, fb.body)  # type: ignore[attr-defined]
            if not whole:
                # Other statements changed too: the guards dropped around the rest still are.
                aligner = Aligner(module_level=False, lines=texts)
                if not aligner.block(fa.body, fb.body, changed_ok=True):  # type: ignore[attr-defined]
                    continue
            if aligner.drops:
                found = self._findings(f, qual, aligner.drops, truth, before, fb, removed, added)
                if whole and all(fd.details["proven"] for fd in found):
                    # The dropped guards are the function's only change: they explain it whole.
                    found = [_with_span(fd, span_b, span_a, removed, added, f) for fd in found]
                out += found
        aligner = Aligner(module_level=True, lines=texts)
        if aligner.block(before.body, after.body) and aligner.drops:
            out += self._findings(
                f, "<module>", aligner.drops, truth, before, after, removed, added
            )
        return out

    def _findings(
        self,
        f: FileChange,
        scope: str,
        drops: list[Drop],
        truth: Truth,
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
            kept_imports = imports_kept(kept_block, after, d.next_after)
            if kept_imports is None and any(isinstance(s, _IMPORTS) for s in node.body):
                continue  # its imports moved: guards.py follows their call sites
            details: dict[str, object] = {
                "scope": scope,
                "before_line": node.lineno,
                "before_end": node.end_lineno,
                "before_path": f.before_path,
            }
            if isinstance(node, ast.If):
                proven, reason = _if_proof(d, node, truth, tree, f.before_path, details)
                proven = proven and kept_imports is not None
                if not proven:
                    reason = "condition-no-longer-checked"
            else:
                proven, reason = _try_proof(node, truth, details)
                lazy = _lazy_names(after, kept_imports or ())
                if lazy and reason == "dependency-now-required":
                    # PEP 810: a lazy import fails at the first use of its name, not here.
                    details["lazy_names"] = lazy
            out.append(
                _finding(f, scope, d, details, (proven, reason), kept_imports, (removed, added))
            )
        return out


def _lazy_names(tree: ast.AST, lines: Iterable[int]) -> list[str]:
    """Names bound by the ``lazy`` imports on ``lines`` of ``tree``."""
    wanted = set(lines)
    return sorted(
        a.asname or a.name.split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, (ast.Import, ast.ImportFrom))
        and getattr(n, "is_lazy", False)
        and n.lineno in wanted
        for a in n.names
    )


def _if_proof(
    d: Drop, node: ast.If, truth: Truth, tree: ast.Module, path: str, details: dict[str, object]
) -> tuple[bool, str]:
    """Whether the removed ``if`` always took the branch it kept, and the reason it names
    (its guard, the branch kept and the proof go into ``details``)."""
    fixed, why = truth.value(node.test, tree, path)
    held = d.kept == "body"
    details.update(
        guard=f"if {ast.unparse(node.test)}",
        kept="body" if held else "else",
        always=None if fixed is None else ("true" if fixed else "false"),
        proof=why if fixed is held else "",
    )
    return fixed is held, "condition-always-" + ("true" if held else "false")


def _try_proof(node: ast.Try, truth: Truth, details: dict[str, object]) -> tuple[bool, str]:
    """Whether the removed ``try`` could never fail, and the reason it names (what it caught
    and the proof go into ``details``)."""
    types = caught(node)
    imports = any(isinstance(s, _IMPORTS) for s in node.body)
    fallback = imports and set(types) <= IMPORT_ERRORS
    # The fallback never ran when no import of the try could fail (its imports are
    # kept unguarded: a try whose imports went elsewhere was skipped above).
    why = truth.imports_succeed(node.body) if fallback else ""
    details.update(guard="try", kept="body", caught=types, proof=why)
    if why:
        return True, "import-cannot-fail"
    return False, "dependency-now-required" if fallback else "exception-now-propagates"


def _finding(
    f: FileChange,
    scope: str,
    d: Drop,
    details: dict[str, object],
    verdict: tuple[bool, str],
    kept_imports: list[int] | None,
    changed: tuple[set[int], set[int]],
) -> Finding:
    """``guard.dropped`` for one removed guard (``verdict``: proven, and the reason)."""
    node, (proven, reason), (removed, added) = d.node, verdict, changed
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
    lines = [n for n in range(*span(node)) if n in removed] + [node.end_lineno or 0]
    exp = [(f.before_path, "-", n) for n in sorted(set(lines)) if n in removed]
    if proven:
        exp += [(f.path, "+", n) for n in kept_imports or () if n in added]
    return Finding(
        "guard.dropped",
        f.path,
        d.after_line or node.lineno,
        scope,
        f"{scope}: {details['guard']} removed ({reason})",
        details,
        tuple(exp),
    )


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
