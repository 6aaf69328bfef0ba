"""Refactoring shapes taken from real commits (tests/corpus), each as a small before/after repo:
extraction and inlining proven by expanding the helper's calls, with a look-alike that must not be."""

from __future__ import annotations

from pathlib import Path

from prreport.pipeline import Analysis
from tests.gitrepo import analyse_commit


def _analyse(tmp_path: Path, base: dict[str, str | None], pr: dict[str, str | None]) -> Analysis:
    return analyse_commit(tmp_path, {"pkg/__init__.py": "", **base}, pr)


def _one(a: Analysis, kind: str):
    found = [f for f in a.findings if f.kind == kind]
    assert len(found) == 1, [(f.kind, f.symbol) for f in a.findings]
    return found[0]


def _live_changes(a: Analysis) -> list[str]:
    return [
        f.symbol
        for f in a.model.findings
        if f.kind == "behavior.changed" and not f.details.get("accounted_by")
    ]


# -- extracted: a block repeated in several methods becomes a staticmethod of the base class
# (fastapi 30b270be): the copies said ``self.auto_error`` and ``else: return None``.

_KEY_CHECK = """\
        if not api_key:
            if self.auto_error:
                raise HTTPException(status_code=403, detail="Not authenticated")
            else:
                return None
        return api_key
"""


def _api_key_module(body_of: dict[str, str], base: str) -> str:
    out = ["from pkg.errors import HTTPException\n\n\n", base]
    for cls, source in (("Query", "query_params"), ("Header", "headers"), ("Cookie", "cookies")):
        out.append(
            f"\n\nclass APIKey{cls}(APIKeyBase):\n"
            "    def __init__(self, name, auto_error=True):\n"
            "        self.name = name\n"
            "        self.auto_error = auto_error\n\n"
            "    async def __call__(self, request):\n"
            f"        api_key = request.{source}.get(self.name)\n" + body_of[cls]
        )
    return "".join(out)


_BASE_EMPTY = "class APIKeyBase:\n    pass\n"
_BASE_HELPER = """\
class APIKeyBase:
    @staticmethod
    def check_api_key(api_key, auto_error):
        if not api_key:
            if auto_error:
                raise HTTPException(status_code=403, detail="Not authenticated")
            return None
        return api_key
"""
_CALL = "        return self.check_api_key(api_key, self.auto_error)\n"
_ERRORS = {
    "pkg/errors.py": "class HTTPException(Exception):\n    def __init__(self, status_code, detail):\n        self.detail = detail\n"
}


def test_block_repeated_in_three_methods_extracted_to_base_staticmethod(tmp_path: Path):
    before = _api_key_module(dict.fromkeys(("Query", "Header", "Cookie"), _KEY_CHECK), _BASE_EMPTY)
    after = _api_key_module(dict.fromkeys(("Query", "Header", "Cookie"), _CALL), _BASE_HELPER)
    a = _analyse(tmp_path, {**_ERRORS, "pkg/api_key.py": before}, {"pkg/api_key.py": after})
    fd = _one(a, "code.extracted")
    assert fd.symbol == "APIKeyBase.check_api_key"
    assert fd.details["proven"] is True and fd.details["equality"] == "modulo-renames"
    assert {s["scope"] for s in fd.details["sites"]} == {
        "APIKeyQuery.__call__",
        "APIKeyHeader.__call__",
        "APIKeyCookie.__call__",
    }
    assert _live_changes(a) == []
    assert a.model.summary.verdict == "pure-refactor"


def test_extraction_where_one_copy_differed_is_not_pure(tmp_path: Path):
    odd = _KEY_CHECK.replace("return None", "return ''")
    before = _api_key_module(
        {"Query": _KEY_CHECK, "Header": odd, "Cookie": _KEY_CHECK}, _BASE_EMPTY
    )
    after = _api_key_module(dict.fromkeys(("Query", "Header", "Cookie"), _CALL), _BASE_HELPER)
    a = _analyse(tmp_path, {**_ERRORS, "pkg/api_key.py": before}, {"pkg/api_key.py": after})
    fd = _one(a, "code.extracted")
    assert fd.details["proven"] is False and fd.details["equality"] == "different"
    bad = [s for s in fd.details["sites"] if not s["proven"]]
    assert [s["scope"] for s in bad] == ["APIKeyHeader.__call__"]
    assert "APIKeyHeader.__call__" in _live_changes(a)
    assert a.model.summary.verdict != "pure-refactor"


# -- extracted: the tail of a method (with the nested class and function it uses) becomes a new
# method called from the same place (poetry 3e7cf6bb).

_SOLVER_BEFORE = '''\
class Solver:
    def __init__(self, solution, provider):
        self._solution = solution
        self._provider = provider

    def choose(self):
        """Pick the next dependency, or None when done."""
        unsatisfied = self._solution.unsatisfied
        if not unsatisfied:
            return None

        class Preference:
            DIRECT = 0
            DEFAULT = 1

        def _get_min(dependency):
            if dependency.is_direct_origin():
                return False, Preference.DIRECT
            return True, Preference.DEFAULT

        dependency = min(unsatisfied, key=_get_min)

        locked = self._provider.get_locked(dependency)
        return locked or dependency.name
'''

_SOLVER_AFTER = '''\
class Solver:
    def __init__(self, solution, provider):
        self._solution = solution
        self._provider = provider

    def _choose_next(self, unsatisfied):
        """Prefer direct-origin dependencies."""

        class Preference:
            DIRECT = 0
            DEFAULT = 1

        def _get_min(dependency):
            if dependency.is_direct_origin():
                return False, Preference.DIRECT
            return True, Preference.DEFAULT

        return min(unsatisfied, key=_get_min)

    def choose(self):
        """Pick the next dependency, or None when done."""
        unsatisfied = self._solution.unsatisfied
        if not unsatisfied:
            return None

        dependency = self._choose_next(unsatisfied)

        locked = self._provider.get_locked(dependency)
        return locked or dependency.name
'''


def test_tail_of_method_with_nested_definitions_extracted(tmp_path: Path):
    a = _analyse(tmp_path, {"pkg/solver.py": _SOLVER_BEFORE}, {"pkg/solver.py": _SOLVER_AFTER})
    fd = _one(a, "code.extracted")
    assert fd.symbol == "Solver._choose_next" and fd.details["proven"] is True
    # The nested class and function travel with the block: not moved symbols.
    assert not [f for f in a.findings if f.kind == "symbol.moved"]
    assert _live_changes(a) == []
    assert a.model.summary.verdict == "pure-refactor"


def test_extraction_that_reuses_a_caller_local_name_is_not_proven(tmp_path: Path):
    # The helper's ``dependency`` would clobber nothing, but here the caller reads ``best``
    # after the call, and the helper also binds ``best``: inlined, the caller's value is lost.
    before = _SOLVER_BEFORE.replace(
        "        locked = self._provider.get_locked(dependency)\n",
        "        best = None\n        locked = self._provider.get_locked(dependency) or best\n",
    )
    after = (
        _SOLVER_AFTER.replace(
            "        return min(unsatisfied, key=_get_min)\n",
            "        best = min(unsatisfied, key=_get_min)\n        return best\n",
        )
        .replace(
            "        dependency = self._choose_next(unsatisfied)\n",
            "        best = None\n        dependency = self._choose_next(unsatisfied)\n",
        )
        .replace(
            "        locked = self._provider.get_locked(dependency)\n",
            "        locked = self._provider.get_locked(dependency) or best\n",
        )
    )
    a = _analyse(tmp_path, {"pkg/solver.py": before}, {"pkg/solver.py": after})
    assert all(
        f.details.get("proven") is not True for f in a.findings if f.kind == "code.extracted"
    )
    assert a.model.summary.verdict != "pure-refactor"


# -- inlined: a module-level helper with one caller, its if/else returns now a conditional
# expression at the call site; the unused argument is dropped (mypy 765a78fe).

_MEMBER_BEFORE = '''\
def analyze_member_var_access(name, info, mx):
    """Analyse the attribute ``name`` of ``info``."""
    # It was not a method. Try looking up a variable.
    v = lookup_member_var_or_accessor(info, name, mx.is_lvalue)

    mx.chk.warn_deprecated(v, mx.context)
    if v is None:
        return mx.chk.named_type("builtins.object")
    return v.type


def check_self_arg(functype, dispatched_arg_type):
    return functype.bind(dispatched_arg_type)


def lookup_member_var_or_accessor(info, name, is_lvalue):
    """Find the attribute/accessor node that refers to a member of a type."""
    # TODO handle lvalues
    node = info.get(name)
    if node:
        return node.node
    else:
        return None
'''

_MEMBER_AFTER = '''\
def analyze_member_var_access(name, info, mx):
    """Analyse the attribute ``name`` of ``info``."""
    # It was not a method. Try looking up a variable.
    node = info.get(name)
    v = node.node if node else None

    mx.chk.warn_deprecated(v, mx.context)
    if v is None:
        return mx.chk.named_type("builtins.object")
    return v.type


def check_self_arg(functype, dispatched_arg_type):
    return functype.bind(dispatched_arg_type)
'''


def test_single_caller_helper_inlined(tmp_path: Path):
    a = _analyse(tmp_path, {"pkg/member.py": _MEMBER_BEFORE}, {"pkg/member.py": _MEMBER_AFTER})
    fd = _one(a, "code.inlined")
    assert fd.symbol == "lookup_member_var_or_accessor"
    assert fd.details["proven"] is True
    assert [s["scope"] for s in fd.details["sites"]] == ["analyze_member_var_access"]
    assert _live_changes(a) == []
    assert a.model.summary.verdict == "pure-refactor"


def test_inlined_body_that_clobbers_a_caller_variable_is_not_proven(tmp_path: Path):
    # The caller already had its own ``node``, read after the call: inlining the helper's
    # ``node = info.get(name)`` replaces it.
    before = _MEMBER_BEFORE.replace(
        "    # It was not a method. Try looking up a variable.\n",
        "    node = mx.context\n",
    ).replace("mx.chk.warn_deprecated(v, mx.context)", "mx.chk.warn_deprecated(v, node)")
    after = _MEMBER_AFTER.replace(
        "    # It was not a method. Try looking up a variable.\n",
        "    node = mx.context\n",
    ).replace("mx.chk.warn_deprecated(v, mx.context)", "mx.chk.warn_deprecated(v, node)")
    a = _analyse(tmp_path, {"pkg/member.py": before}, {"pkg/member.py": after})
    for fd in a.findings:
        if fd.kind == "code.inlined":
            assert fd.details["proven"] is False
    assert a.model.summary.verdict != "pure-refactor"


# -- inlined: a nested generator with one ``yield from`` call site, reading the enclosing
# function's variables as a closure (rich 0999b404).

_RENDER_BEFORE = """\
def render(console, tokens, context, element):
    new_line = False
    line = "\\n"

    def handle_self_closing_tag(token):
        text = token.content
        if text is not None:
            element.on_text(context, text)
        should_render = not context.stack or context.stack.top.on_child_close(element)
        if should_render:
            if new_line:
                yield line
            yield from console.render(element)

    for token in tokens:
        if token.nesting == 1:
            should_render = context.enter(token)
            if should_render:
                yield token.tag
            new_line = True
        else:
            context.stack.pop()
            yield from handle_self_closing_tag(token)
"""

_RENDER_AFTER = """\
def render(console, tokens, context, element):
    new_line = False
    line = "\\n"

    for token in tokens:
        if token.nesting == 1:
            should_render = context.enter(token)
            if should_render:
                yield token.tag
            new_line = True
        else:
            context.stack.pop()
            text = token.content
            if text is not None:
                element.on_text(context, text)
            should_render = not context.stack or context.stack.top.on_child_close(element)
            if should_render:
                if new_line:
                    yield line
                yield from console.render(element)
"""


def test_nested_generator_inlined_at_its_yield_from(tmp_path: Path):
    a = _analyse(tmp_path, {"pkg/md.py": _RENDER_BEFORE}, {"pkg/md.py": _RENDER_AFTER})
    fd = _one(a, "code.inlined")
    assert fd.symbol == "render.<locals>.handle_self_closing_tag"
    assert fd.details["proven"] is True
    assert _live_changes(a) == []


def test_inlined_generator_whose_local_is_read_by_the_next_iteration_is_not_proven(
    tmp_path: Path,
):
    # ``should_render`` is read at the top of the loop before it is set there: once inlined,
    # the value left by the previous self-closing token leaks in.
    before = _RENDER_BEFORE.replace(
        "        if token.nesting == 1:\n",
        "        if token.nesting == 1 and not should_render:\n",
    ).replace('    line = "\\n"\n', '    line = "\\n"\n    should_render = False\n')
    after = _RENDER_AFTER.replace(
        "        if token.nesting == 1:\n",
        "        if token.nesting == 1 and not should_render:\n",
    ).replace('    line = "\\n"\n', '    line = "\\n"\n    should_render = False\n')
    a = _analyse(tmp_path, {"pkg/md.py": before}, {"pkg/md.py": after})
    assert all(f.details.get("proven") is not True for f in a.findings if f.kind == "code.inlined")
    assert a.model.summary.verdict != "pure-refactor"


# -- renamed: a private method renamed, its only caller updated and the call re-wrapped by the
# formatter (requests aa1461b6): the caller's change is the rename, nothing else.

_ADAPTER = """\
class HTTPAdapter:
    def __init__(self, pool):
        self.pool = pool

    def {name}(self, request, verify, proxies=None, cert=None):
        host = request.url.split("/")[2]
        return self.pool.connection_from_host(host, verify=verify, cert=cert)

    def send(self, request, verify=True, proxies=None, cert=None):
        try:
{call}
        except ValueError as e:
            raise RuntimeError(e)
        return conn.urlopen(request.method, request.url)
"""


def test_renamed_method_with_its_reformatted_caller_is_accounted(tmp_path: Path):
    before = _ADAPTER.format(
        name="_get_connection",
        call="            conn = self._get_connection(request, verify, proxies=proxies, cert=cert)",
    )
    after = _ADAPTER.format(
        name="get_connection_with_tls_context",
        call=(
            "            conn = self.get_connection_with_tls_context(\n"
            "                request, verify, proxies=proxies, cert=cert\n"
            "            )"
        ),
    )
    a = _analyse(tmp_path, {"pkg/adapters.py": before}, {"pkg/adapters.py": after})
    fd = _one(a, "symbol.renamed")
    assert fd.details["old_qualname"] == "HTTPAdapter._get_connection"
    assert not [f for f in a.findings if f.kind in ("code.extracted", "code.inlined")]
    assert _live_changes(a) == []
    assert a.model.summary.verdict == "pure-refactor"


def test_renamed_method_whose_caller_also_changed_an_argument_stays_a_change(tmp_path: Path):
    before = _ADAPTER.format(
        name="_get_connection",
        call="            conn = self._get_connection(request, verify, proxies=proxies, cert=cert)",
    )
    after = _ADAPTER.format(
        name="get_connection_with_tls_context",
        call="            conn = self.get_connection_with_tls_context(request, True, cert=cert)",
    )
    a = _analyse(tmp_path, {"pkg/adapters.py": before}, {"pkg/adapters.py": after})
    _one(a, "symbol.renamed")
    assert _live_changes(a) == ["HTTPAdapter.send"]
    assert a.model.summary.verdict != "pure-refactor"
