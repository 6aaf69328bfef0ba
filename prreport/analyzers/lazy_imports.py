"""Retained lazy imports: function-local imports left in place, and why they are still lazy."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from typing import Any

from prreport.analyzers import Analyzer, SourceFiles, register
from prreport.analyzers._hoist import hoist_diff, parse_for_hoist
from prreport.analyzers._pyscope import ImportBinding, PathIndex, ScopeIndex, index
from prreport.analyzers.imports import scope_index
from prreport.bundle import PullRequestBundle
from prreport.findings import ContextRequest, Finding

# A file named in the PR description: a path or a bare file name (``decode.py``).
_NAMED_FILE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+(?:\.[\w-]+)*\.py)(?![\w/])")
_PLATFORM = re.compile(
    r"npu|cuda|rocm|hip|xpu|mps|device|platform|\bis_\w+|_is_\w+|isinstance|\bos\.name\b", re.I
)
_OPTIONAL = re.compile(r"\b(ImportError|ModuleNotFoundError)\b")
HEAVY_MODULES = frozenset(
    {
        "torch", "tensorflow", "triton", "jax", "transformers", "vllm", "deepspeed", "scipy",
        "pandas", "matplotlib", "sklearn", "cv2", "numba", "cupy", "flash_attn", "onnxruntime",
        "tensorrt", "xformers", "apex", "sympy", "datasets", "accelerate", "sentencepiece",
    }
)  # fmt: skip


def named_files(bundle: PullRequestBundle) -> list[str]:
    """Head paths of the ``.py`` files the PR description names (paths or bare file names)."""
    body = bundle.pr.body or ""
    heads = [p for p in bundle.head_paths if p.endswith(".py")]
    changed_dirs = [posixpath.dirname(f.path) for f in bundle.files]
    out: set[str] = set()
    for token in sorted(set(_NAMED_FILE.findall(body))):
        token = token.lstrip("./")
        if token in bundle.head_paths:
            out.add(token)
            continue
        hits = [p for p in heads if p == token or p.endswith("/" + token)]
        if len(hits) > 1:
            # a bare name matching several files: prefer those nearest the changed files
            def near(p: str) -> int:
                d = posixpath.dirname(p).split("/")
                return max((_common(d, c.split("/")) for c in changed_dirs), default=0)

            best = max(near(p) for p in hits)
            hits = [p for p in hits if near(p) == best]
        out.update(hits)
    return sorted(out)


def _common(a: list[str], b: list[str]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _scanned(bundle: PullRequestBundle, sources: SourceFiles) -> list[tuple[str, bool]]:
    """(path, is_changed) of the files whose lazy imports are reported."""
    changed = [(f.path, True) for f in sources.python_files() if f.after is not None]
    paths = {p for p, _ in changed}
    named = [
        (p, False) for p in named_files(bundle) if p not in paths and bundle.context_files.get(p)
    ]
    return sorted(changed + named)


def _head_index(sources: SourceFiles, path: str) -> ScopeIndex | None:
    if sources.bundle.file(path) is not None:
        return scope_index(sources, path, "after")

    def build() -> ScopeIndex | None:
        tree = sources.tree(path, "head")
        text = sources.text(path, "head")
        return None if tree is None or text is None else index(tree, text)

    return sources.memo(path, "head", "pyscope", build)


def _lazy(ix: ScopeIndex) -> list[ImportBinding]:
    return [b for b in ix.imports if not b.at_module_level]


def _imports_back(target: str, importer: str, sources: SourceFiles, paths: PathIndex) -> bool:
    """True when the target module imports the importer at module level (a real cycle)."""
    tx = _head_index(sources, target)
    if tx is None:
        return False
    for b in tx.imports:
        if (
            b.at_module_level
            and not b.type_checking
            and paths.binding_target(b, target) == importer
        ):
            return True
    return False


def reason_for(
    b: ImportBinding, path: str, sources: SourceFiles, paths: PathIndex
) -> tuple[str, str, str]:
    """(reason, guard text, evidence) for keeping ``b`` lazy."""
    if b.type_checking:
        return ("type-checking", "TYPE_CHECKING", "under TYPE_CHECKING")
    for g in reversed(b.context):
        if g.kind in ("try", "except") and _OPTIONAL.search(g.text):
            return ("optional-dependency", g.text, "try/except ImportError")
    for g in reversed(b.context):
        if g.kind == "except":
            return ("cycle-avoidance", g.text, "inside an except handler")
    for g in reversed(b.context):
        if g.kind in ("if", "else") and _PLATFORM.search(g.text):
            return ("platform-guard", g.text, "under a platform/device/type check")
    target = paths.binding_target(b, path)
    if target is not None and _imports_back(target, path, sources, paths):
        return ("cycle-avoidance", "", f"{target} imports {path} at module level")
    if b.module.lstrip(".").split(".")[0] in HEAVY_MODULES and not b.level:
        return ("heavy-dependency", "", f"{b.module.split('.')[0]} is a heavy dependency")
    return ("hoistable", "", "")


def _path_index(sources: SourceFiles) -> PathIndex:
    return sources.memo("", "head", "path-index", lambda: PathIndex(sources.bundle.head_paths))


def _named_in(body: str, b: ImportBinding) -> bool:
    words = {b.bound, b.name or "", b.module.lstrip(".")} - {""}
    return any(re.search(rf"(?<![\w.]){re.escape(w)}(?![\w])", body) for w in words)


@register
class LazyImportsAnalyzer(Analyzer):
    """Function-local imports kept lazy, with the reason (or ``hoistable`` and a follow-up diff).

    after: ``except ValueError:\\n    from m import X`` → ``lazy-import.retained``
    (reason ``cycle-avoidance``).
    """

    name = "lazy-imports"

    def requests(self, bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
        """Files named in the PR description, and the first-party targets of their lazy imports."""
        changed = {f.path for f in bundle.files}
        wanted = {p for p in named_files(bundle) if p not in changed}
        paths = _path_index(sources)
        for path, _ in _scanned(bundle, sources):
            ix = _head_index(sources, path)
            for b in _lazy(ix) if ix else ():
                target = paths.binding_target(b, path)
                if target is not None and target not in changed:
                    wanted.add(target)
        return ContextRequest(files=frozenset(wanted))

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``lazy-import.retained`` per function-local import in scanned files."""
        paths = _path_index(sources)
        body = bundle.pr.body or ""
        findings = []
        budget = self.config.max_followups  # each codemod re-prints a whole file: keep it bounded
        for path, is_changed in _scanned(bundle, sources):
            ix = _head_index(sources, path)
            if ix is None:
                continue
            before_keys: set[tuple[Any, ...]] | None = None
            if is_changed:
                f = bundle.file(path)
                bx = (
                    scope_index(sources, f.before_path, "before")
                    if f and f.before is not None
                    else None
                )
                # only imports that were already lazy before count as "retained"
                before_keys = {(b.key, b.scope) for b in bx.imports} if bx else set()
            text = sources.text(path, "after" if is_changed else "head") or ""
            diffs: dict[int, str] = {}
            wrapper: list[Any] = []  # the libcst parse of ``text``, made on first use only
            for b in _lazy(ix):
                if before_keys is not None and (b.key, b.scope) not in before_keys:
                    continue
                reason, guard, evidence = reason_for(b, path, sources, paths)
                target = paths.binding_target(b, path)
                back = target is not None and _imports_back(target, path, sources, paths)
                followup = ""
                skipped = False
                if reason == "hoistable" and b.stmt_line not in diffs and budget <= 0:
                    skipped = True
                elif reason == "hoistable":
                    if b.stmt_line not in diffs:
                        budget -= 1
                        if not wrapper:
                            wrapper.append(parse_for_hoist(text))
                        diffs[b.stmt_line] = (
                            hoist_diff(path, text, b.stmt_line, wrapper[0]) if wrapper[0] else ""
                        )
                    followup = diffs[b.stmt_line]
                details = {
                    "module": b.module,
                    "name": b.name,
                    "alias": b.alias,
                    "scope": b.scope,
                    "reason": reason,
                    "guard": guard,
                    "evidence": evidence,
                    "context": [g.as_dict() for g in b.context],
                    "target_path": target,
                    "target_imports_importer": back,
                    "named_in_description": _named_in(body, b),
                    "changed_file": is_changed,
                    "followup_diff": followup,
                }
                if skipped:
                    details["followup_skipped"] = True  # over analysis.max_followups
                findings.append(
                    Finding(
                        "lazy-import.retained",
                        path,
                        b.line,
                        b.bound,
                        f"{b.bound} stays imported inside {b.scope} ({reason})",
                        details,
                    )
                )
        return sorted(findings, key=Finding.sort_key)
