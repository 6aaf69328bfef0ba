"""What runs a definition without naming it: Python's protocols (a dunder), the test runner (a
test, a fixture, a hook), the callers of a base method it overrides, a base class whose code was
not read (it may call a hook by name), and callers outside the repository (a shim that only
raises with a message). A text search for the name finds none of them."""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass

from prreport.classify import category
from prreport.python.definitions import Definition, file_index, strip_docstring
from prreport.python.hierarchy import find_in_bases
from prreport.python.importtime import registering_decorator
from prreport.python.sources import SourceFiles

# What runs a dunder with no reference to its name (the data model), spelled as code.
_PROTOCOL = {
    **dict.fromkeys(("__init__", "__new__", "__post_init__"), "C(...)"),
    **dict.fromkeys(("__repr__", "__str__", "__format__", "__hash__", "__bool__", "__len__"), ""),
    "__eq__": "==",
    "__ne__": "!=",
    "__lt__": "<",
    "__le__": "<=",
    "__gt__": ">",
    "__ge__": ">=",
    "__iter__": "for x in obj",
    "__next__": "next(obj)",
    "__contains__": "x in obj",
    "__getitem__": "obj[k]",
    "__setitem__": "obj[k] = v",
    "__delitem__": "del obj[k]",
    **dict.fromkeys(("__getattr__", "__getattribute__"), "obj.name"),
    "__setattr__": "obj.name = v",
    **dict.fromkeys(("__enter__", "__exit__"), "with obj"),
    **dict.fromkeys(("__aenter__", "__aexit__"), "async with obj"),
    "__call__": "obj()",
    "__copy__": "copy.copy(obj)",
    "__deepcopy__": "copy.deepcopy(obj)",
    **dict.fromkeys(("__reduce__", "__reduce_ex__", "__getstate__", "__setstate__"), "pickle"),
    "__init_subclass__": "class Sub(C)",
    "__class_getitem__": "C[T]",
    "__dir__": "dir(obj)",
}


# Files a tool executes and then reads by name: every module-level name is looked up there.
_TOOL_FILES = {"conf.py": "Sphinx (conf.py)", "noxfile.py": "nox (noxfile.py)"}


@dataclass(frozen=True)
class Caller:
    """What runs a removed definition without naming it: ``via`` ``protocol`` (Python, for
    ``what``), ``override`` (callers of the base method ``what``), ``base`` (the base class
    ``what``, whose code was not read: outside the repository or not fetched, may call it),
    ``decorator`` (the decorator ``what`` ran when it was defined, and may have registered it),
    ``tool`` (the tool ``what`` reads the file's names), ``shim``, ``test-runner``."""

    via: str
    what: str


# Module globals the interpreter itself reads: removing one changes what the module does.
_READ_BY_PYTHON = {"__lazy_modules__": "import statements (PEP 810, Python 3.15)"}


def implicit_callers(sources: SourceFiles, d: Definition) -> Caller | None:
    """What may run a definition with no reference to its name in the repository.

    ``__deepcopy__``, ``__eq__``, ``__enter__``, a module's ``__getattr__``: Python's protocols
    call dunder names. A method of a class with a base outside the repository
    (``logging.Handler``, ``ast.NodeVisitor``, a framework's ``Widget``) may be a hook that
    base calls, by name or by a composed name (``"visit_" + kind``): no text search can rule
    that out, so it is not claimed dead. Built-in exceptions call no method of a subclass.
    A method that overrides a base's is reached through the base's callers. A shim whose body
    only raises with a message exists for callers outside the repository: none inside is
    expected.
    """
    deco = registering_decorator(sources, d) if d.kind in ("function", "method", "class") else None
    if deco is not None and not (category(d.path) == "test" and _collected(d)):
        return Caller("decorator", "@" + ast.unparse(deco))
    tool = _TOOL_FILES.get(d.path.rsplit("/", 1)[-1])
    if tool and not d.parent and d.kind != "import":
        return Caller("tool", tool)
    if not d.parent and d.name in _READ_BY_PYTHON:
        return Caller("protocol", _READ_BY_PYTHON[d.name])
    if d.kind not in ("function", "method", "class"):
        return None
    if category(d.path) == "test" and _collected(d):
        return Caller("test-runner", "pytest")
    if d.kind == "class":
        return None
    if d.name.startswith("__") and d.name.endswith("__"):
        return Caller("protocol", _PROTOCOL.get(d.name) or f"{d.name[2:-2]}(obj)")
    shim = _shim(d.node)
    if shim:
        return Caller("shim", shim)
    cls = defining_class(sources, d)
    if cls is None:
        return None
    found = find_in_bases(sources, d.path, "before", cls, d.name)
    if found.base is not None:
        return Caller("override", found.base.qualname)
    outside = [b for b in found.unresolved if not _hook_free(b)]
    return Caller("base", outside[0]) if outside else None


def _shim(fn: ast.AST) -> str:
    """The exception a function only raises, with a message (``raise NotImplementedError(
    "request.DATA was removed, use request.data")``): a shim that tells outside callers an API
    is gone; "" otherwise. (A deprecated function that still works and that nothing in the
    repository calls is dead code like any other.)"""
    body = strip_docstring(getattr(fn, "body", []))
    if (
        len(body) == 1
        and isinstance(body[0], ast.Raise)
        and isinstance(body[0].exc, ast.Call)
        and body[0].exc.args
    ):
        return ast.unparse(body[0].exc.func)
    return ""


_TEST_HOOKS = re.compile(r"(setup|teardown)(_module|_function|_class|_method)?$|pytest_\w+$")


def _collected(d: Definition) -> bool:
    """A test, a test class, a fixture or a hook: the test runner finds it by its name or mark."""
    if d.kind == "class":
        return d.name.startswith("Test")
    if d.parent:
        in_test_class = d.qualname.split(".")[0].startswith("Test")
        return in_test_class and (d.name.startswith("test") or bool(_TEST_HOOKS.match(d.name)))
    decorators = [ast.unparse(x) for x in getattr(d.node, "decorator_list", ())]
    return (
        d.name.startswith("test")
        or bool(_TEST_HOOKS.match(d.name))
        or any("fixture" in x for x in decorators)
    )


def defining_class(sources: SourceFiles, d: Definition) -> Definition | None:
    """The class a removed method was defined in, before the change."""
    if d.kind != "method":
        return None
    cls = file_index(sources, d.path, "before").get(d.parent)
    return cls if cls is not None and cls.kind == "class" else None


def _hook_free(base: str) -> bool:
    """A built-in exception: it calls no method a subclass adds (dunders aside)."""
    obj = getattr(builtins, base.removeprefix("builtins."), None)
    return isinstance(obj, type) and issubclass(obj, BaseException)
