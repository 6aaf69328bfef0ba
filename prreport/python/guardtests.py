"""What the guard around an import tests: whether a package is installed (an optional
dependency), or the platform, device, capability or Python build the code runs on."""

from __future__ import annotations

import ast
import re

from prreport.python.walk import Guard

_OPTIONAL = re.compile(r"\b(ImportError|ModuleNotFoundError)\b")


# Words of a guard that name a platform, a device or a Python build.
_PLATFORM_WORD = re.compile(
    r"(?i)(?:^|_)(npu|cuda|rocm|hip|xpu|mps|hpu|tpu|gpu|device|platform|windows|win32|darwin|"
    r"macos|linux|posix|pypy|cpython|jython)(?:$|_)"
)


_PLATFORM_NAMES = {"WINDOWS", "MACOS", "LINUX", "PY2", "PY3", "PYPY", "WIN", "IS_WIN"}


_CAPABILITY = re.compile(r"^_?(is|has|IS|HAS|supports?|SUPPORTS?)_\w+$")


_AVAILABLE = re.compile(r"^_?is_\w+_available$")  # transformers' is_torch_available(): a package


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


def optional_flags(tree: ast.Module | None) -> set[str]:
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


def optional_guard(g: Guard, flags: set[str]) -> bool:
    """``try``/``except ImportError``, or an ``if`` on ``find_spec``, an ``is_x_available()``
    predicate or one of the module's ``flags`` (``optional_flags``)."""
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


def platform_guard(g: Guard) -> bool:
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
