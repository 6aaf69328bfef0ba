"""Zero-import loops: import statements lexically inside each loop body, before vs after."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from prreport.analyzers import Analyzer, register
from prreport.bundle import PullRequestBundle
from prreport.findings import Finding
from prreport.python.scopeindex import Loop, scope_index
from prreport.python.sources import SourceFiles


def _keyed(loops: Iterable[Loop]) -> dict[tuple[str, str, int], Loop]:
    """Loops keyed by (scope, normalised header, occurrence) so moved lines still match."""
    seen: dict[tuple[str, str], int] = {}
    out = {}
    for lp in loops:
        n = seen.get((lp.scope, lp.header), 0)
        seen[(lp.scope, lp.header)] = n + 1
        out[(lp.scope, lp.header, n)] = lp
    return out


@register
class LoopImportsAnalyzer(Analyzer):
    """Import statements executed per loop iteration.

    before: ``while True:\\n    import json`` · after: ``import json`` above the loop
    → ``loop.imports-removed`` (before 1, after 0).
    """

    name = "loops"

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``loop.imports-removed|remaining|added`` per loop of each changed file."""
        findings = []
        for f in sources.python_files():
            bx = scope_index(sources, f.before_path, "before") if f.before is not None else None
            ax = scope_index(sources, f.path, "after") if f.after is not None else None
            if (f.before is not None and bx is None) or (f.after is not None and ax is None):
                continue
            before = _keyed(bx.loops if bx else ())
            after = _keyed(ax.loops if ax else ())
            file_before = len({n for lp in before.values() for n in lp.import_lines})
            file_after = len({n for lp in after.values() for n in lp.import_lines})
            for key in sorted(set(before) | set(after), key=lambda k: (k[0], k[1], k[2])):
                b, a = before.get(key), after.get(key)
                nb = len(b.import_lines) if b else 0
                na = len(a.import_lines) if a else 0
                if na == 0 and nb == 0:
                    continue
                if na == 0:
                    kind = "loop.imports-removed"
                elif na > nb:
                    kind = "loop.imports-added"
                else:
                    kind = "loop.imports-remaining"
                ref = a or b
                assert ref is not None
                details = {
                    "loop": ref.header,
                    "scope": ref.scope,
                    "before": nb,
                    "after": na,
                    "before_line": b.line if b else None,
                    "after_line": a.line if a else None,
                    "import_lines_before": list(b.import_lines) if b else [],
                    "import_lines_after": list(a.import_lines) if a else [],
                    "file_before": file_before,
                    "file_after": file_after,
                    # At most this many run in one iteration (one branch of an if/elif runs).
                    "per_iteration_before": _per_iteration(sources, f.before_path, "before", b),
                    "per_iteration_after": _per_iteration(sources, f.path, "after", a),
                }
                findings.append(
                    Finding(
                        kind,
                        f.path,
                        ref.line,
                        ref.scope,
                        f"`{ref.header}` in {ref.scope}: {nb} import statement(s) before, {na} after",
                        details,
                    )
                )
        return sorted(findings, key=Finding.sort_key)


def _per_iteration(sources: SourceFiles, path: str, side: str, loop: Loop | None) -> int:
    """The most import statements one iteration of ``loop`` can run: branches of an ``if``,
    the cases of a ``match`` and the handlers of a ``try`` exclude each other; a nested loop's
    imports count once per statement (they may run more often: not "at most")."""
    if loop is None:
        return 0
    if len(loop.import_lines) < 2:
        return len(loop.import_lines)  # nothing to exclude
    tree = sources.tree(path, side)
    if tree is None:
        return len(loop.import_lines)
    # The loops of the file by line, found in one walk (a walk per loop was quadratic).
    node = sources.memo(path, side, "loop-nodes", lambda: _loops_by_line(tree)).get(loop.line)
    if node is None:
        return len(loop.import_lines)
    return _most(node.body)


def _loops_by_line(tree: ast.Module) -> dict[int, ast.For | ast.AsyncFor | ast.While]:
    out: dict[int, ast.For | ast.AsyncFor | ast.While] = {}
    for n in ast.walk(tree):
        if isinstance(n, (ast.For, ast.AsyncFor, ast.While)):
            out.setdefault(n.lineno, n)
    return out


_NONE = -(10**9)  # no path


def _most(stmts: list[ast.stmt]) -> int:
    fall, left = _paths(stmts)
    return max(fall, left, 0)


def _paths(stmts: list[ast.stmt]) -> tuple[int, int]:
    """(most imports on a path that reaches the end of ``stmts``, most on one that leaves
    early by ``continue``/``break``/``return``/``raise``)."""
    fall, left = 0, _NONE
    for st in stmts:
        if fall == _NONE:
            break
        if isinstance(st, (ast.Import, ast.ImportFrom)):
            fall += 1
        elif isinstance(st, (ast.Continue, ast.Break, ast.Return, ast.Raise)):
            fall, left = _NONE, max(left, fall)
        elif isinstance(st, ast.If):
            (bf, bl), (of, ol) = _paths(st.body), _paths(st.orelse)
            left = max(left, fall + max(bl, ol))
            fall = fall + max(bf, of) if max(bf, of) != _NONE else _NONE
        elif isinstance(st, ast.Match):
            cases = [_paths(c.body) for c in st.cases]
            left = max([left, *(fall + c[1] for c in cases)])
            fall += max([0, *(c[0] for c in cases)])
        elif isinstance(st, (ast.Try, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)):
            # Handlers, a nested loop's repeats, ``else`` and ``finally``: counted as written.
            fall += sum(1 for n in ast.walk(st) if isinstance(n, (ast.Import, ast.ImportFrom)))
    return fall, left
