"""What a function body amounts to, as the override and dead-code rules read it: a placeholder
(``pass``, ``...``, a docstring, ``raise NotImplementedError``, ``return super().m(...)``), a
raise of a fixed exception, a returned literal, or an implementation; and what callers may pass
it (its signature without annotations)."""

from __future__ import annotations

import ast

from prreport.python.definitions import dump, strip_docstring


def placeholder_kind(fn: ast.AST) -> str | None:
    """``pass``/``ellipsis``/``docstring``/``not-implemented``/``super-call`` for placeholder bodies."""
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    body = strip_docstring(fn.body)
    if not body:
        return "docstring"
    if len(body) != 1:
        return None
    st = body[0]
    if isinstance(st, ast.Pass):
        return "pass"
    if (
        isinstance(st, ast.Expr)
        and isinstance(st.value, ast.Constant)
        and st.value.value is Ellipsis
    ):
        return "ellipsis"
    if isinstance(st, ast.Raise) and st.exc is not None:
        exc = st.exc.func if isinstance(st.exc, ast.Call) else st.exc
        if isinstance(exc, ast.Name) and exc.id == "NotImplementedError":
            return "not-implemented"
    value = st.value if isinstance(st, (ast.Return, ast.Expr)) else None
    if isinstance(value, ast.Await):
        value = value.value
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == fn.name
        and isinstance(value.func.value, ast.Call)
        and isinstance(value.func.value.func, ast.Name)
        and value.func.value.func.id == "super"
        and not value.func.value.args
        and _forwards_params(fn, value)
    ):
        return "super-call"
    return None


def _forwards_params(fn: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call) -> bool:
    """True when ``call`` passes the function's own parameters through unchanged."""
    a = fn.args
    params = [p.arg for p in (a.posonlyargs + a.args)][1:]  # drop self/cls
    pos = [
        x.id if isinstance(x, ast.Name) else None
        for x in call.args
        if not isinstance(x, ast.Starred)
    ]
    star = [
        x.value.id
        for x in call.args
        if isinstance(x, ast.Starred) and isinstance(x.value, ast.Name)
    ]
    kw = {
        k.arg: (k.value.id if isinstance(k.value, ast.Name) else None)
        for k in call.keywords
        if k.arg
    }
    dstar = [k.value.id for k in call.keywords if k.arg is None and isinstance(k.value, ast.Name)]
    passed = pos + [v for v in kw.values()]
    if any(p is None for p in passed) or any(k != v for k, v in kw.items()):
        return False
    if (
        pos != params[: len(pos)]
        or set(params[len(pos) :]) - set(kw)
        or set(kw) - set(params) - {p.arg for p in a.kwonlyargs}
    ):
        return False
    if {p.arg for p in a.kwonlyargs} - set(kw):
        return False
    return star == ([a.vararg.arg] if a.vararg else []) and dstar == (
        [a.kwarg.arg] if a.kwarg else []
    )


def body_kind(fn: ast.AST) -> str:
    """A placeholder kind (``pass``, ``ellipsis``, ``docstring``, ``not-implemented``,
    ``super-call``), ``raise`` (a fixed exception), ``constant`` (returns a literal), or
    ``implementation``."""
    kind = placeholder_kind(fn)
    if kind is not None:
        return kind
    body = strip_docstring(getattr(fn, "body", []))
    st = body[0] if len(body) == 1 else None
    if isinstance(st, ast.Raise) and st.exc is not None and st.cause is None:
        exc = st.exc
        call = exc if isinstance(exc, ast.Call) else None
        name = call.func if call is not None else exc
        args = [*call.args, *(k.value for k in call.keywords)] if call is not None else []
        if isinstance(name, (ast.Name, ast.Attribute)) and all(_literal(x) for x in args):
            return "raise"
    if isinstance(st, ast.Return) and (st.value is None or _literal(st.value)):
        return "constant"
    return "implementation"


def _literal(node: ast.expr) -> bool:
    """A literal, or a tuple/list/set/dict of literals (a new list each call is still equal)."""
    return all(
        isinstance(n, (ast.Constant, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Load))
        for n in ast.walk(node)
    )


def raised(fn: ast.AST) -> str:
    """Dump of what a one-``raise`` body raises: the class and its arguments (no call = no args)."""
    st = strip_docstring(getattr(fn, "body", []))[0]
    assert isinstance(st, ast.Raise) and st.exc is not None
    exc = st.exc
    if isinstance(exc, ast.Call):
        return dump(exc.func) + "|" + dump(exc.args) + "|" + dump(exc.keywords)
    return dump(exc) + "||"


def signature(fn: ast.AST) -> str:
    """Parameter names, kinds and defaults (annotations left out): what callers may pass."""
    a = getattr(fn, "args", None)
    if not isinstance(a, ast.arguments):
        return ""
    names = [
        [p.arg for p in a.posonlyargs],
        [p.arg for p in a.args],
        a.vararg.arg if a.vararg else "",
        [p.arg for p in a.kwonlyargs],
        a.kwarg.arg if a.kwarg else "",
    ]
    return repr(names) + dump(a.defaults) + dump([d for d in a.kw_defaults if d is not None])


def is_abstract(fn: ast.AST) -> bool:
    """Decorated ``@abstractmethod`` (or ``@abc.abstractmethod``)."""
    decos = getattr(fn, "decorator_list", [])
    return any(
        (isinstance(d, ast.Name) and d.id == "abstractmethod")
        or (isinstance(d, ast.Attribute) and d.attr == "abstractmethod")
        for d in decos
    )
