"""The idiom rules (``prreport.equivalence.idioms``): spellings of one computation the language
makes equal, each rewritten into one form before the versions are compared."""

from __future__ import annotations

from prreport.equivalence.rules.spec import Rule, edit

_MODULE = "prreport.equivalence.idioms"
_PROVES = "Both versions are the same code once each idiom is written in its one form."
_BUILTINS = "The builtins named are the builtins (the file does not bind them)."

_SUPPRESS_BEFORE = """import os


def clean(path):
    try:
        os.remove(path)
    except (OSError,):
        pass
    return path
"""
_SUPPRESS_AFTER = """import contextlib
import os


def clean(path):
    with contextlib.suppress(OSError):
        os.remove(path)
    return path
"""

_ANY_BEFORE = """def has_errors(results):
    for result in results:
        if result.failed():
            return True
    return False
"""
_ANY_AFTER = """def has_errors(results):
    return any(result.failed() for result in results)
"""

_FILL_BEFORE = """def names(users):
    out = []
    for user in users:
        if user.active:
            out.append(user.name.lower())
    return out
"""
_FILL_AFTER = """def names(users):
    return [user.name.lower() for user in users if user.active]
"""

_ALIAS_BEFORE = """import socket


def fetch(conn):
    try:
        return conn.read()
    except (socket.error, IOError):
        raise RuntimeError()
"""
_ALIAS_AFTER = """def fetch(conn):
    try:
        return conn.read()
    except OSError:
        raise RuntimeError
"""

IDIOM_RULES: tuple[Rule, ...] = (
    Rule(
        "idiom-suppress",
        _MODULE,
        _PROVES + " Here: `try`/`except E: pass` written as `contextlib.suppress(E)`.",
        "No exception group is raised in the body (`suppress` splits one on Python >= 3.12).",
        before=_SUPPRESS_BEFORE,
        after=_SUPPRESS_AFTER,
        near_miss=edit(_SUPPRESS_AFTER, "suppress(OSError)", "suppress(FileNotFoundError)"),
        kind="idiom",
    ),
    Rule(
        "idiom-any",
        _MODULE,
        _PROVES + " Here: a loop returning on the first match written as `any()`.",
        _BUILTINS,
        before=_ANY_BEFORE,
        after=_ANY_AFTER,
        near_miss=edit(_ANY_AFTER, "return any(", "return all("),
        kind="idiom",
    ),
    Rule(
        "idiom-accumulator",
        _MODULE,
        _PROVES + " Here: a new list filled by one loop written as its comprehension.",
        _BUILTINS + " The loop variable is read nowhere else in the function.",
        before=_FILL_BEFORE,
        after=_FILL_AFTER,
        near_miss=edit(_FILL_AFTER, "if user.active]", "if not user.active]"),
        kind="idiom",
    ),
    Rule(
        "idiom-exception-alias",
        _MODULE,
        _PROVES + " Here: `socket.error` and `IOError` spelled `OSError`, a class raised bare.",
        _BUILTINS,
        before=_ALIAS_BEFORE,
        after=_ALIAS_AFTER,
        near_miss=edit(_ALIAS_AFTER, "except OSError:", "except ConnectionError:"),
        kind="idiom",
    ),
)
