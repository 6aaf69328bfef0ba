"""Retained lazy imports: function-local imports left in place, and why they are still lazy."""

from __future__ import annotations

import ast
import dataclasses
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from prreport.analyzers import Analyzer, register
from prreport.bundle import PullRequestBundle
from prreport.findings import ContextRequest, Finding
from prreport.python.deps import metadata_files, required_imports
from prreport.python.importgraph import (
    _complete,
    _Exploration,
    as_module_binding,
    explore,
    module_index,
)
from prreport.python.importmoves import scope_index
from prreport.python.modules import ModuleIndex
from prreport.python.scopes import Guard, ImportBinding, ScopeIndex, index
from prreport.python.sources import SourceFiles

# A file named in the PR description: a path or a bare file name (``decode.py``).
_NAMED_FILE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+(?:\.[\w-]+)*\.py)(?![\w/])")
_OPTIONAL = re.compile(r"\b(ImportError|ModuleNotFoundError)\b")
# Backends of async, HTTP, compression and serialisation libraries that are installed by
# choice: lazy unless the project declares them required.
OPTIONAL_BACKENDS = frozenset(
    {
        "trio", "curio", "uvloop", "winloop", "gevent", "eventlet", "tornado", "twisted",
        "brotli", "brotlicffi", "zstandard", "zstd", "lz4", "snappy", "h2", "h3", "socksio",
        "socks", "httptools", "wsproto", "websockets", "orjson", "ujson", "simplejson",
        "rapidjson", "msgpack", "cchardet", "chardet", "charset_normalizer", "idna", "certifi",
        "cryptography", "OpenSSL", "watchfiles", "watchgod", "colorama", "pyperclip", "IPython",
        "ipywidgets", "email_validator", "itsdangerous", "jinja2", "multipart", "uvicorn",
    }
)  # fmt: skip
# Words of a guard that name a platform, a device or a Python build.
_PLATFORM_WORD = re.compile(
    r"(?i)(?:^|_)(npu|cuda|rocm|hip|xpu|mps|hpu|tpu|gpu|device|platform|windows|win32|darwin|"
    r"macos|linux|posix|pypy|cpython|jython)(?:$|_)"
)
_PLATFORM_NAMES = {"WINDOWS", "MACOS", "LINUX", "PY2", "PY3", "PYPY", "WIN", "IS_WIN"}
_CAPABILITY = re.compile(r"^_?(is|has|IS|HAS|supports?|SUPPORTS?)_\w+$")
_AVAILABLE = re.compile(r"^_?is_\w+_available$")  # transformers' is_torch_available(): a package
# Reasons a PR description gives for keeping an import lazy.
_STATED = (
    ("cycle-avoidance", re.compile(r"(?i)\b(import[- ]cycle|cycl\w*|circular)")),
    ("optional-dependency", re.compile(r"(?i)\b(optional|not installed|extras?\b)")),
    ("heavy-dependency", re.compile(r"(?i)\b(heavy|slow to import|import[- ]time|startup)")),
    (
        "platform-guard",
        re.compile(r"(?i)\b(npu|cuda|gpu|rocm|xpu|platform|windows|macos|device|hardware)"),
    ),
)
_NEGATION = re.compile(r"(?i)\b(no|not|without|never)\W+(\w+\W+){0,2}$")


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
    """Imports run when a function is called: one in a class body runs with the module and
    binds a class attribute (``from email.iterators import walk`` makes ``Message.walk``)."""
    return [b for b in ix.imports if not b.at_module_level and b.scope not in ix.classes]


def _dotted(node: ast.expr) -> str:
    """``a.b.c`` for a Name/Attribute chain (a call's function), else ""."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _guard_expr(g: Guard) -> ast.expr | None:
    if isinstance(g.node, ast.expr):
        return g.node
    try:
        return ast.parse(g.text.removeprefix("not ").strip(), mode="eval").body
    except SyntaxError:
        return None


def _names_in(expr: ast.expr) -> list[str]:
    """Dotted names and called names of a guard, leaving out ``isinstance(...)`` checks."""
    out: list[str] = []

    def walk(node: ast.AST) -> None:
        if isinstance(node, ast.Call) and _dotted(node.func) in ("isinstance", "issubclass"):
            return
        if isinstance(node, (ast.Name, ast.Attribute)):
            name = _dotted(node)
            if name:
                out.append(name)
                return
        for child in ast.iter_child_nodes(node):
            walk(child)

    walk(expr)
    return out


def _optional_flags(tree: ast.Module | None) -> set[str]:
    """Module-level names that record whether a package is importable (``find_spec``, a
    flag set in ``try: import x`` / ``except ImportError``)."""
    out: set[str] = set()
    for st in tree.body if tree is not None else ():
        if isinstance(st, ast.Assign) and "find_spec" in ast.dump(st.value):
            out.update(t.id for t in st.targets if isinstance(t, ast.Name))
        elif isinstance(st, ast.Try) and any(
            _OPTIONAL.search(ast.dump(h.type)) for h in st.handlers if h.type is not None
        ):
            for part in (st.body, *(h.body for h in st.handlers)):
                for sub in part:
                    if isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Constant):
                        out.update(t.id for t in sub.targets if isinstance(t, ast.Name))
    return out


def _optional_guard(g: Guard, flags: set[str]) -> bool:
    if g.kind in ("try", "except") and _OPTIONAL.search(g.text):
        return True
    if g.kind not in ("if", "else"):
        return False
    expr = _guard_expr(g)
    names = _names_in(expr) if expr is not None else []
    return any(
        n.rsplit(".", 1)[-1] == "find_spec" or _AVAILABLE.match(n.rsplit(".", 1)[-1]) or n in flags
        for n in names
    )


def _platform_guard(g: Guard) -> bool:
    """``sys.platform``, ``os.name``, ``platform.*()``, ``sys.version_info``, capability
    predicates (``is_npu()``, ``torch.cuda.is_available()``, ``hasattr(...)``), device words;
    not ``isinstance`` checks."""
    if g.kind not in ("if", "else"):
        return False
    expr = _guard_expr(g)
    for name in _names_in(expr) if expr is not None else []:
        parts = name.split(".")
        if name in ("sys.platform", "os.name", "sys.version_info", "sys.implementation"):
            return True
        if parts[0] == "platform" or name == "hasattr" or parts[-1] == "is_available":
            return True
        if parts[-1] in _PLATFORM_NAMES or _CAPABILITY.match(parts[-1]):
            return True
        if any(_PLATFORM_WORD.search(p) for p in parts):
            return True
    return False


@dataclass(frozen=True)
class _Context:
    """What deciding a reason reads besides the import itself."""

    sources: SourceFiles
    index: ModuleIndex
    depth: int
    heavy: frozenset[str]
    required: frozenset[str]
    stated: dict[str, tuple[str, str]]  # module -> (reason, quote) from the PR text


def _walk(b: ImportBinding, path: str, cx: _Context) -> tuple[str | None, _Exploration | None]:
    """(first-party target, the cycle walk a hoist of it would take) or (None, None)."""
    importer = cx.index.module_of(path)
    mb = as_module_binding(b)
    target = cx.index.target(mb, importer, path)
    if target is None or importer is None or target == importer:
        return target, None
    return target, explore(cx.sources, cx.index, importer, target, cx.depth)


def reason_for(b: ImportBinding, path: str, cx: _Context) -> tuple[str, str, str, dict[str, Any]]:
    """(reason, guard text, evidence, extra details) for keeping ``b`` lazy."""
    top = b.module.lstrip(".").split(".")[0]
    flags = cx.sources.memo(
        path, "head", "optional-flags", lambda: _optional_flags(cx.sources.tree(path, "head"))
    )
    target, ex = _walk(b, path, cx)
    extra: dict[str, Any] = {"target_module": target or ""}
    if ex is not None:
        extra |= {
            "cycle_chain": ex.chain,
            "cycle_checked": _complete(ex),
            "unavailable": sorted(ex.unavailable | ex.missing | ex.unparseable),
        }
    if b.type_checking:
        return ("type-checking", "TYPE_CHECKING", "under TYPE_CHECKING", extra)
    for g in reversed(b.context):
        if _optional_guard(g, flags):
            return ("optional-dependency", g.text, "importable only if installed", extra)
    if not b.level and target is None and top in OPTIONAL_BACKENDS and top not in cx.required:
        return ("optional-dependency", "", f"{top} is an optional backend, not required", extra)
    if ex is not None and ex.chain:
        handler = next((g.text for g in reversed(b.context) if g.kind == "except"), "")
        return ("cycle-avoidance", handler, " -> ".join(ex.chain), extra)
    for g in reversed(b.context):
        if g.kind == "except":
            return ("cycle-avoidance", g.text, "inside an except handler", extra)
    for g in reversed(b.context):
        if _platform_guard(g):
            return ("platform-guard", g.text, "under a platform/device/capability check", extra)
    if not b.level and target is None and top in cx.heavy:
        return ("heavy-dependency", "", f"{top} is a heavy dependency", extra)
    heavy = sorted(ex.external & cx.heavy) if ex is not None else []
    if heavy:
        return ("heavy-dependency", "", f"{target} imports {', '.join(heavy)}", extra)
    stated = cx.stated.get(target or b.module)
    if stated:
        return (stated[0], "", f"the PR description: {stated[1]}", extra)
    if ex is not None and not _complete(ex):
        return ("unverified", "", "whether hoisting it closes an import cycle is unknown", extra)
    return ("hoistable", "", "", extra)


def _words(b: ImportBinding, target: str | None) -> set[str]:
    mod = b.module.lstrip(".")
    return {b.bound, b.name or "", mod, mod.rsplit(".", 1)[-1], target or ""} - {""}


def _named_in(body: str, b: ImportBinding) -> bool:
    return any(re.search(rf"(?<![\w.]){re.escape(w)}(?![\w])", body) for w in _words(b, None))


def stated_reasons(
    body: str, lazies: list[tuple[ImportBinding, str]]
) -> dict[str, tuple[str, str]]:
    """Module -> (reason, quoted line) for the lazy imports the PR text explains.

    Each reason word in a line goes to the nearest import mentioned before it on that line
    (else the first one after it); a negated word (``no cycle``) says nothing.
    """
    out: dict[str, tuple[str, str]] = {}
    for line in body.splitlines():
        mentions: list[tuple[int, str]] = []
        for b, module in lazies:
            for w in _words(b, module):
                for m in re.finditer(rf"(?<![\w.]){re.escape(w)}(?![\w])", line):
                    mentions.append((m.start(), module))
        if not mentions:
            continue
        mentions.sort()
        for reason, pattern in _STATED:
            for m in pattern.finditer(line):
                if _NEGATION.search(line[: m.start()]):
                    continue
                before = [mod for pos, mod in mentions if pos < m.start()]
                after = [mod for pos, mod in mentions if pos > m.start()]
                module = before[-1] if before else after[0]
                out.setdefault(module, (reason, line.strip().lstrip("-* ").strip()))
    return out


def _followup(path: str, text: str, line: int, parsed: list[Any], tree: ast.Module | None) -> str:
    """The codemod diff hoisting the import at ``line``; ``parsed`` keeps the file prepared once
    for all its codemods. The codemod module (and libcst, for the shapes not edited on the text) is imported
    only here: for a follow-up the report shows."""
    from prreport.codemods.hoist import hoist_diff, parse_for_hoist

    if not parsed:
        parsed.append(parse_for_hoist(text, tree))
    return hoist_diff(path, text, line, parsed[0]) if parsed[0] else ""


@register
class LazyImportsAnalyzer(Analyzer):
    """Function-local imports kept lazy, with the reason (or ``hoistable`` and a follow-up diff).

    after: ``except ValueError:\\n    from m import X`` → ``lazy-import.retained``
    (reason ``cycle-avoidance``).
    """

    name = "lazy-imports"

    def _retained(
        self, bundle: PullRequestBundle, sources: SourceFiles
    ) -> list[tuple[str, bool, list[ImportBinding]]]:
        """(path, is_changed, lazy imports already lazy before) per scanned file."""
        out = []
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
            kept = [b for b in _lazy(ix) if before_keys is None or (b.key, b.scope) in before_keys]
            out.append((path, is_changed, kept))
        return out

    def _context(self, bundle: PullRequestBundle, sources: SourceFiles) -> _Context:
        texts = {p: t for p in metadata_files(bundle.head_paths) if (t := sources.text(p, "head"))}
        return _Context(
            sources,
            module_index(sources, self.config.first_party),
            max(1, self.config.cycle_depth),
            frozenset(self.config.heavy_packages),
            required_imports(texts),
            {},
        )

    def requests(self, bundle: PullRequestBundle, sources: SourceFiles) -> ContextRequest:
        """Files named in the PR description, project metadata when an optional backend is
        imported lazily, and the files the cycle walk of each lazy import needs next."""
        changed = {f.path for f in bundle.files}
        wanted = {p for p in named_files(bundle) if p not in changed}
        cx = self._context(bundle, sources)
        for path, _changed, kept in self._retained(bundle, sources):
            for b in kept:
                if b.module.lstrip(".").split(".")[0] in OPTIONAL_BACKENDS:
                    wanted.update(metadata_files(bundle.head_paths))
                _target, ex = _walk(b, path, cx)
                if ex is not None:
                    wanted |= ex.missing
        return ContextRequest(files=frozenset(wanted - changed))

    def analyze(self, bundle: PullRequestBundle, sources: SourceFiles) -> Iterable[Finding]:
        """Emit ``lazy-import.retained`` per function-local import in scanned files."""
        body = bundle.pr.body or ""
        findings = []
        budget = self.config.max_followups  # each codemod diffs a whole file: keep it bounded
        cx = self._context(bundle, sources)
        retained = self._retained(bundle, sources)
        lazies = [(b, _walk(b, p, cx)[0] or b.module) for p, _c, kept in retained for b in kept]
        cx = dataclasses.replace(cx, stated=stated_reasons(body, lazies))
        for path, is_changed, kept in retained:
            side = "after" if is_changed else "head"
            text = sources.text(path, side) or ""
            diffs: dict[int, str] = {}
            wrapper: list[Any] = []  # ``text`` prepared for codemods, on first use only
            for b in kept:
                reason, guard, evidence, extra = reason_for(b, path, cx)
                target = (
                    cx.index.path_of(extra["target_module"]) if extra["target_module"] else None
                )
                chain = extra.get("cycle_chain") or []
                back = len(chain) == 3  # the target itself imports the importer back
                followup = ""
                skipped = False
                if reason == "hoistable" and b.stmt_line not in diffs and budget <= 0:
                    skipped = True
                elif reason == "hoistable":
                    if b.stmt_line not in diffs:
                        budget -= 1
                        diffs[b.stmt_line] = _followup(
                            path, text, b.stmt_line, wrapper, sources.tree(path, side)
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
                    **extra,
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
