"""Write ``prreport/data/stdlib_versions.json``: since which Python a standard-library module or
name exists in every later Python, as typeshed records it.

Re-run (network: it ``pip download``s mypy wheels, whose ``typeshed/stdlib`` it reads)::

    python scripts/stdlib_versions.py            # writes prreport/data/stdlib_versions.json

Run it with the newest CPython you have (it reads that interpreter's ``sys.stdlib_module_names``
and standard-library sources) and bump ``_SNAPSHOTS[-1]`` to a recent mypy first.

Sources and rules (precision first: what is written is certain, the rest is left out):

- Modules: the newest typeshed's ``stdlib/VERSIONS`` (``X.Y-`` ranges; a module with an upper
  bound was removed, so it is left out). Only modules of ``sys.stdlib_module_names`` (typeshed
  also stubs ``typing_extensions``), without a leading underscore, that this interpreter
  imports (VERSIONS does not list every submodule; ``this`` and ``antigravity`` act when
  imported and are left out).
- Names: the stubs' module-level bindings, under ``if sys.version_info >= (3, N)`` (added in
  3.N), ``<`` and ``else`` branches (removed later), ``sys.platform`` tests (not on every
  platform: left out). A name must exist with no end in the newest stubs. Typeshed drops the
  guards of Pythons it no longer supports, so an unguarded name is only known to exist in the
  oldest Python that snapshot supported (its floor), and several snapshots are read: the oldest
  (floor 3.5) dates a name by its guard or its floor, later ones only by their guards (an
  unguarded name they add may have been backported to bugfix releases). When snapshots disagree
  the later date wins. Typeshed's own notes "# X is only present in 3.N and later" override the
  binding below them.
- Modules that cannot be imported everywhere: every stub binding under a ``sys.platform`` test
  (``pwd``, ``msvcrt``); module-level imports (read from this interpreter's sources) that
  reach an extension built only when a system library is present (``_OPTIONAL_EXTENSIONS``:
  ``ssl``, ``sqlite3``, ``lzma``...); a module-level ``try`` whose handler raises
  (``multiprocessing.synchronize`` without ``sem_open``). They are left out.
- Names bound only when a module-level import works (in this interpreter's sources: in a
  ``try`` but not in its handlers, ``hashlib.scrypt``; under an ``if`` testing such a name or
  ``hasattr``, ``urllib.request.HTTPSHandler``) are left out; so are names this interpreter's
  modules lack although typeshed dates them earlier (stub-only names such as
  ``builtins.ellipsis``, attributes set later such as ``sys.ps1``).
- Provisional modules (PEP 411) gained names in bugfix releases: their names are dated no
  earlier than the last provisional version (``_PROVISIONAL``).

The file maps ``modules`` to ``"3.N"`` and ``names`` to ``{module: {"3.N": "name name ..."}}``.
"""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import re
import subprocess
import sys
import sysconfig
import tempfile
import warnings
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "prreport" / "data" / "stdlib_versions.json"
# (mypy requirement, the oldest Python 3 minor its typeshed supported): typeshed drops the
# guards of versions it no longer supports, so an unguarded name is dated by that floor.
_SNAPSHOTS = (("mypy==0.790", 5), ("mypy==1.4.1", 7), ("mypy==2.4.1", 10))
# Extension modules CPython builds only when a system library is found (configure.ac's
# PY_STDLIB_MOD checks for OpenSSL, libffi, zlib, bz2, lzma, sqlite3, Tcl/Tk, curses,
# readline, dbm/gdbm, libuuid, libcrypt, libnsl).
_OPTIONAL_EXTENSIONS = frozenset(
    "_ssl _hashlib _ctypes zlib _bz2 _lzma _sqlite3 _tkinter _curses _curses_panel readline "
    "_dbm _gdbm _uuid _crypt nis".split()
)
# PEP 411 provisional modules and their last provisional minor (the docs of 3.6 / 3.7).
_PROVISIONAL = {"asyncio": 5, "typing": 7}
# Modules whose import opens a browser, prints, or starts a GUI: their names stay unverified.
_ACTS_ON_IMPORT = frozenset({"antigravity", "this", "idlelib", "turtle", "turtledemo", "tkinter"})
_ONLY_FROM = re.compile(r"#\s*(\w+) is only present in 3\.(\d+) and later")
_INF = 99


@dataclass
class _Stubs:
    """One typeshed ``stdlib`` tree: where each module's stub is, and its floor."""

    root: Path
    floor: int
    dirs: tuple[str, ...]  # search order below root ("" for the flat VERSIONS layout)
    cache: dict[str, dict[str, list[tuple[int, int]]]] = field(default_factory=dict)

    def path(self, module: str) -> Path | None:
        rel = module.replace(".", "/")
        for d in self.dirs:
            for cand in (f"{rel}.pyi", f"{rel}/__init__.pyi"):
                p = self.root / d / cand if d else self.root / cand
                if p.is_file():
                    return p
        return None

    def names(self, module: str, depth: int = 0) -> dict[str, list[tuple[int, int]]]:
        """name -> the (from, to) minors it is bound in (to exclusive; _INF: no end)."""
        if module in self.cache:
            return self.cache[module]
        self.cache[module] = {}
        p = self.path(module)
        if p is None or depth > 8:
            return {}
        text = p.read_text(encoding="utf-8")
        found: dict[str, list[tuple[int, int]]] = {}
        package = module if p.name == "__init__.pyi" else module.rpartition(".")[0]
        for name, span in self._walk(ast.parse(text).body, (self.floor, _INF), package, depth):
            found.setdefault(name, []).append(span)
        for m in _ONLY_FROM.finditer(text):
            found[m.group(1)] = [(int(m.group(2)), _INF)]
        self.cache[module] = found
        return found

    def _walk(
        self, body: list[ast.stmt], span: tuple[int, int], package: str, depth: int
    ) -> Iterator[tuple[str, tuple[int, int]]]:
        for st in body:
            if isinstance(st, ast.If):
                split = _version_split(st.test)
                if split is None:
                    continue  # sys.platform or another test: not certain everywhere
                yes, no = split
                for block, part in ((st.body, yes), (st.orelse, no)):
                    lo, hi = max(span[0], part[0]), min(span[1], part[1])
                    if lo < hi:
                        yield from self._walk(block, (lo, hi), package, depth)
            elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if not any(ast.unparse(d).endswith("type_check_only") for d in st.decorator_list):
                    yield st.name, span
            elif isinstance(st, (ast.Assign, ast.AnnAssign)):
                targets = st.targets if isinstance(st, ast.Assign) else [st.target]
                for t in targets:
                    if isinstance(t, ast.Name):
                        yield t.id, span
            elif isinstance(st, ast.Import):
                for a in st.names:
                    if a.asname:
                        yield a.asname, span
            elif isinstance(st, ast.ImportFrom):
                source = _absolute(st, package)
                for a in st.names:
                    if a.name == "*":
                        for name, spans in self.names(source, depth + 1).items():
                            if not name.startswith("_"):
                                for lo, hi in spans:
                                    lo, hi = max(span[0], lo), min(span[1], hi)
                                    if lo < hi:
                                        yield name, (lo, hi)
                    elif a.asname:
                        yield a.asname, span


def _absolute(st: ast.ImportFrom, package: str) -> str:
    if not st.level:
        return st.module or ""
    base = package.split(".")
    base = base[: len(base) - (st.level - 1)] if st.level > 1 else base
    return ".".join([*base, *([st.module] if st.module else [])])


def _version_split(test: ast.expr) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """``sys.version_info >= (3, N)`` -> ((N, inf), (0, N)); ``<`` the other way round."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left = test.left.value if isinstance(test.left, ast.Subscript) else test.left
    right = test.comparators[0]
    if ast.unparse(left) != "sys.version_info" or not isinstance(right, ast.Tuple):
        return None
    try:
        version = tuple(ast.literal_eval(right))
    except ValueError:
        return None
    if not version or version[0] != 3 or len(version) > 2 and any(version[2:]):
        return None
    n = version[1] if len(version) > 1 else 0  # ``(3,)``: every Python 3
    if isinstance(test.ops[0], ast.GtE):
        return (n, _INF), (0, n)
    if isinstance(test.ops[0], ast.Lt):
        return (0, n), (n, _INF)
    return None


def _since(spans: list[tuple[int, int]]) -> int | None:
    """The minor from which the spans cover every later version, or None (removed)."""
    start = None
    for lo, hi in sorted(spans, key=lambda s: -s[1]):
        if start is None:
            if hi != _INF:
                return None
            start = lo
        elif hi >= start:
            start = min(start, lo)
    return start


def _versions(root: Path) -> dict[str, tuple[int, int]]:
    """VERSIONS: module -> (first minor, last minor or _INF)."""
    out: dict[str, tuple[int, int]] = {}
    for line in (root / "VERSIONS").read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if not line:
            continue
        module, rng = (x.strip() for x in line.split(":"))
        lo, _, hi = rng.partition("-")
        out[module] = (int(lo.split(".")[1]), int(hi.split(".")[1]) if hi else _INF)
    return out


def _module_range(module: str, versions: dict[str, tuple[int, int]]) -> tuple[int, int] | None:
    parts = module.split(".")
    for i in range(len(parts), 0, -1):
        rng = versions.get(".".join(parts[:i]))
        if rng is not None:
            return rng
    return None


def _all_modules(stubs: _Stubs) -> list[str]:
    out = []
    for p in stubs.root.rglob("*.pyi"):
        rel = p.relative_to(stubs.root).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        if parts:
            out.append(".".join(parts))
    return sorted(out)


def _source(module: str) -> Path | None:
    base = Path(sysconfig.get_paths()["stdlib"]) / module.replace(".", "/")
    for cand in (base.with_suffix(".py"), base / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def _needs_optional(module: str, seen: set[str]) -> bool:
    """Whether importing ``module`` unconditionally imports an optional extension module."""
    if module in seen:
        return False
    seen.add(module)
    parts = module.split(".")
    if parts[0] in _OPTIONAL_EXTENSIONS:
        return True
    if len(parts) > 1 and _needs_optional(".".join(parts[:-1]), seen):
        return True
    src = _source(module)
    if src is None:
        return False
    package = module if src.name == "__init__.py" else module.rpartition(".")[0]
    for st in ast.parse(src.read_bytes()).body:  # only statements every import runs
        if isinstance(st, ast.Import):
            targets = [a.name for a in st.names]
        elif isinstance(st, ast.ImportFrom):
            base = _absolute(st, package)
            targets = [base, *(f"{base}.{a.name}" for a in st.names if a.name != "*")]
        else:
            continue
        if any(_needs_optional(t, seen) for t in targets if t):
            return True
    return False


def _bound(stmts: Sequence[ast.stmt]) -> set[str]:
    """Names the statements bind (anywhere inside them, functions' bodies aside)."""
    out: set[str] = set()
    for st in stmts:
        for node in [st, *_children(st)]:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                out |= {(a.asname or a.name).split(".")[0] for a in node.names}
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                out.add(node.id)
    return out


def _children(st: ast.AST) -> Iterator[ast.AST]:
    for node in ast.iter_child_nodes(st):
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            yield from _children(node)


def _only_when_an_import_works(module: str) -> set[str] | None:
    """Names this interpreter's source of ``module`` binds only when a module-level import works:
    in a ``try`` that imports (``hashlib.scrypt`` exists when OpenSSL has it), unless every
    handler binds it too (``collections.deque``), or under an ``if`` testing a name such a ``try``
    binds or ``hasattr`` (``urllib.request.HTTPSHandler``). None when a failed ``try``
    fails the whole import (``multiprocessing.synchronize`` without ``sem_open``)."""
    src = _source(module)
    if src is None:
        return set()
    body = ast.parse(src.read_bytes()).body
    tries = [st for st in body if isinstance(st, ast.Try) and not _builtin_imports(st.body)]
    if any(h.body and isinstance(h.body[-1], ast.Raise) for st in tries for h in st.handlers):
        return None
    tried = _bound(tries)
    conditional: set[str] = set()
    for t in tries:
        success = _bound(t.body + t.orelse)
        for h in t.handlers:
            success &= _bound(h.body)
        conditional |= _bound(t.body + t.orelse) - success
    for st in body:
        if isinstance(st, ast.If) and _feature_test(st.test, tried):
            conditional |= _bound([st]) - (_bound(st.body) & _bound(st.orelse))
    others = [st for st in body if not isinstance(st, (ast.Try, ast.If))]
    return conditional - _bound(others)


def _feature_test(test: ast.expr, tried: set[str]) -> bool:
    """A test of whether an import worked (a name a ``try`` binds) or of ``hasattr``."""
    names = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
    return bool(names & (tried | {"hasattr"}))


def _builtin_imports(stmts: list[ast.stmt]) -> bool:
    """Only imports of modules built into this interpreter (``_codecs``, ``_collections``)."""
    return all(
        isinstance(st, ast.Import)
        and all(a.name in sys.builtin_module_names for a in st.names)
        or isinstance(st, ast.ImportFrom)
        and not st.level
        and st.module in sys.builtin_module_names
        for st in stmts
    )


def _runtime_has(module: str) -> Callable[[str], bool] | None:
    """Whether ``module`` has a name in this interpreter (None: it cannot import it, or
    importing it acts)."""
    if module.split(".")[0] in _ACTS_ON_IMPORT:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            mod = importlib.import_module(module)
        except Exception:  # noqa: BLE001 - not importable here
            return None
    subs = {m.name for m in pkgutil.iter_modules(getattr(mod, "__path__", []))}
    return lambda name: name in subs or hasattr(mod, name)


def _extract(requirement: str, work: Path) -> Path:
    dest = work / requirement.replace("==", "-")
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:"]
        + [requirement, "-d", str(dest)],
        check=True,
    )
    [wheel] = dest.glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        z.extractall(dest, [n for n in z.namelist() if "/typeshed/stdlib/" in n])
    return dest / "mypy" / "typeshed" / "stdlib"


def _date(module: str, name: str, snapshots: list[_Stubs]) -> int | None:
    """The minor since which ``module.name`` exists: the oldest snapshot's date (a guard, or its
    floor), or a later snapshot's guard (a later snapshot's floor could be a backport); when they
    disagree the later date wins (typeshed corrected itself)."""
    oldest, *later = snapshots
    dates = [_since(oldest.names(module).get(name, []))]
    for stubs in later:
        since = _since(stubs.names(module).get(name, []))
        dates.append(since if since is not None and since > stubs.floor else None)
    known = [d for d in dates if d is not None]
    return max(known) if known else None


def _importable_everywhere(module: str, stubs: _Stubs) -> bool:
    """Not platform-specific (every public binding under ``sys.platform``), not needing an
    optional extension module."""
    stub = stubs.path(module)
    if stub is None:
        return False
    public = [s for n, s in stubs.names(module).items() if not n.startswith("_")]
    if not any(_since(s) is not None for s in public) and "sys.platform" in stub.read_text(
        encoding="utf-8"
    ):
        return False  # pwd, msvcrt, winreg
    return not _needs_optional(module, set())


def build(work: Path) -> dict[str, object]:
    """The data file's content, from the snapshots downloaded into ``work``."""
    snapshots = []
    for requirement, floor in _SNAPSHOTS:
        root = _extract(requirement, work)
        # Old typeshed: stdlib/{2and3,3,3.7,...}/*.pyi; since 2021: stdlib/*.pyi and VERSIONS.
        old = sorted(d.name for d in root.iterdir() if d.name.startswith("3."))
        layout = ("",) if (root / "VERSIONS").is_file() else ("3", "2and3", *old)
        snapshots.append(_Stubs(root, floor, layout))
    newest = snapshots[-1]
    versions = _versions(newest.root)
    modules: dict[str, str] = {}
    names: dict[str, dict[str, list[str]]] = {}
    for module in _all_modules(newest):
        rng = _module_range(module, versions)
        top = module.split(".")[0]
        if rng is None or rng[1] != _INF or top not in sys.stdlib_module_names:
            continue
        if any(p.startswith("_") for p in module.split(".")):
            continue
        if not _importable_everywhere(module, newest):
            continue
        first = rng[0]
        here = _runtime_has(module)
        if here is None and first <= sys.version_info[1]:
            continue
        conditional = _only_when_an_import_works(module)
        if conditional is None:
            continue
        modules[module] = f"3.{first}"
        for name, spans in newest.names(module).items():
            if name.startswith("_") or _since(spans) is None or name in conditional:
                continue  # private, platform-specific, removed later, or build-dependent
            since = _date(module, name, snapshots)
            if since is None:
                continue
            if since <= sys.version_info[1] and not (here and here(name)):
                continue  # a stub-only name (builtins.ellipsis) or one set later (sys.ps1)
            since = max(since, first, _PROVISIONAL.get(top, 0))
            key = f"3.{since}" if since > first else ""
            names.setdefault(module, {}).setdefault(key, []).append(name)
    return {
        "about": "Generated by scripts/stdlib_versions.py from typeshed (mypy wheels "
        + ", ".join(r for r, _ in _SNAPSHOTS)
        + "); do not edit. names: {module: {since: names}}, '' = since the module.",
        "modules": dict(sorted(modules.items())),
        "names": {
            m: {v: " ".join(sorted(ns)) for v, ns in sorted(by.items())}
            for m, by in sorted(names.items())
        },
    }


def main() -> None:
    """Download the snapshots into a temporary folder and write ``OUT``."""
    with tempfile.TemporaryDirectory() as tmp:
        data = build(Path(tmp))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(data, indent=0, sort_keys=False) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(data['modules'])} modules")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
