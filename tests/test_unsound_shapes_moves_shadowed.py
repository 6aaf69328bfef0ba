"""Adversarial review of the moved-construction, re-read-argument and shadowed-method rules:
shapes where one claimed "same behaviour" though Python behaves differently. Each must stay
unexplained (verdict not ``pure-refactor``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.corpus_texts import corpus_text
from tests.gitrepo import analyse_commit
from tests.test_shadowed_methods import _DEFINES, _HEAD, CASE, VISITOR, _shadowed

# shadowed.py: one more module of the mypy 58debfad repository in which ``Checker`` (a direct
# subclass of ``StatementVisitor`` that defines ``visit_var``) still reaches the removed
# ``StatementVisitor.visit_var`` at run time: before it returns None, after AttributeError.
_CALL = "\n\nRESULT = Checker().visit_var(None)\n"
SHADOWED_REACHED = {
    # The subclass's own definition deleted after the class is made.
    "del-on-the-subclass": _DEFINES + "\n\ndel Checker.visit_var\n" + _CALL,
    # ... or by a class decorator, which receives the class object.
    "a-decorator-on-the-subclass": (
        "def strip(k):\n    del k.visit_var\n    return k\n\n\n@strip\n" + _DEFINES + _CALL
    ),
    # ... or dropped from the class namespace while the body runs.
    "locals-in-the-subclass-body": _DEFINES + "    locals().pop('visit_' + 'var')\n" + _CALL,
    # The class reached as a value without writing its name.
    "through-__bases__": _DEFINES.replace(
        "return None", "return Checker.__bases__[0].visit_var(self, o)"
    )
    + _CALL,
    "through-__base__": _DEFINES.replace(
        "return None", "return type(self).__base__.visit_var(self, o)"
    )
    + _CALL,
    "through-__mro__": _DEFINES.replace(
        "return None", "return type(self).__mro__[1].visit_var(self, o)"
    )
    + _CALL,
    "through-mro()": _DEFINES.replace(
        "return None", "return type(self).mro()[1].visit_var(self, o)"
    )
    + _CALL,
    "through-an-annotation": (
        _DEFINES + "\n\ndef f(v: StatementVisitor) -> None:\n    pass\n\n\n"
        "import typing\n\nPLAIN = typing.get_type_hints(f)['v'].visit_var\n"
    ),
}


@pytest.mark.parametrize("variant", sorted(SHADOWED_REACHED))
def test_shadowed_method_still_reached(tmp_path: Path, variant: str):
    base = {
        "mypy/__init__.py": "",
        VISITOR: corpus_text(CASE, VISITOR, "before"),
        "mypy/extra.py": _HEAD + SHADOWED_REACHED[variant],
    }
    a = analyse_commit(tmp_path, base, {VISITOR: corpus_text(CASE, VISITOR, "after")}, "move (#9)")
    assert _shadowed(a) == []
    assert a.model.summary.verdict != "pure-refactor"


# _plainclass / moved-assignment: a construction of a plain dataclass moved within its block.
_MODEL = (
    "from dataclasses import dataclass\n\n\n@dataclass\nclass Box:\n    f: int\n    g: int = 0\n"
)


def _moved(tmp_path: Path, before: str, after: str, model: str = _MODEL) -> str:
    base = {
        "pkg/__init__.py": "",
        "pkg/consts.py": "LIMIT = 3\n",
        "pkg/model.py": model,
        "pkg/use.py": before,
    }
    a = analyse_commit(tmp_path, base, {"pkg/use.py": after}, "move (#9)")
    return a.model.summary.verdict


def test_a_construction_from_a_maybe_unbound_local_does_not_move(tmp_path: Path):
    # make(False, log): before, UnboundLocalError and log stays []; after, log == ["x"] first.
    head = "from pkg.model import Box\n\n\ndef make(flag, log):\n    if flag:\n        a = 1\n"
    built, logged = "    n = Box(f=a)\n", '    log.append("x")\n'
    before = head + built + logged + "    return n\n"
    after = head + logged + built + "    return n\n"
    assert _moved(tmp_path, before, after) != "pure-refactor"


def test_a_construction_from_a_bound_local_still_moves(tmp_path: Path):
    head = "from pkg.model import Box\n\n\ndef make(flag, log):\n    a = 1 if flag else 2\n"
    built, logged = "    n = Box(f=a, g=flag)\n", '    log.append("x")\n'
    before = head + built + logged + "    return n\n"
    after = head + logged + built + "    return n\n"
    assert _moved(tmp_path, before, after) == "pure-refactor"


def test_a_construction_of_a_class_with_a_finalizer_does_not_move(tmp_path: Path):
    # make(None): before, Box(f=1) is built and its __del__ prints when the AttributeError
    # unwinds the frame; after, nothing is built and nothing printed.
    model = _MODEL + "\n    def __del__(self):\n        print('del', self.f)\n"
    head = "from pkg.model import Box\n\n\ndef make(log):\n"
    built, logged = "    n = Box(f=1)\n", "    log.append(1)\n"
    before = head + built + logged + "    return n\n"
    after = head + logged + built + "    return n\n"
    assert _moved(tmp_path, before, after, model) != "pure-refactor"
    assert _moved(tmp_path / "plain", before, after) == "pure-refactor"


_BUMP = (
    "from pkg.consts import LIMIT\nfrom pkg.model import Box\n\n\n"
    "def bump():\n    global LIMIT\n    LIMIT = 99\n\n\n"
)


def test_a_construction_from_an_imported_name_the_module_rebinds_does_not_move(tmp_path: Path):
    # before: n.f == 3 (built before bump() rebinds LIMIT); after: n.f == 99.
    head = _BUMP + "def make(log):\n"
    built, between = "    n = Box(f=LIMIT)\n", "    bump()\n    log.append(1)\n"
    before = head + built + between + "    return n\n"
    after = head + between + built + "    return n\n"
    assert _moved(tmp_path, before, after) != "pure-refactor"


def test_a_construction_from_an_imported_name_bound_once_still_moves(tmp_path: Path):
    head = "from pkg.consts import LIMIT\nfrom pkg.model import Box\n\n\ndef make(log):\n"
    built, between = "    n = Box(f=LIMIT)\n", "    log.append(1)\n"
    before = head + built + between + "    return n\n"
    after = head + between + built + "    return n\n"
    assert _moved(tmp_path, before, after) == "pure-refactor"


# _expand / stable_field: ``h(v.a)`` expanded reads ``v.a`` where the body uses it (maybe never).
_FRESH = (
    "from dataclasses import dataclass\n\n\n@dataclass\nclass P:\n    a: int\n\n\n"
    "def make(n):\n    return P(a=n)\n\n\n"
)
_HELPER = "def helper(x, y):\n    if y:\n        return x\n    return 0\n\n\n"


def _reread_details(tmp_path: Path, assign: str) -> list[str]:
    before = _FRESH + _HELPER + f"def g(flag, y):\n{assign}    return helper(v.a, y)\n"
    after = _FRESH + f"def g(flag, y):\n{assign}    if y:\n        return v.a\n    return 0\n"
    base = {"pkg/__init__.py": "", "pkg/m.py": before}
    a = analyse_commit(tmp_path, base, {"pkg/m.py": after}, "inline (#9)")
    return [
        r["detail"]
        for f in a.findings
        if f.kind == "code.inlined"
        for s in f.details.get("sites", [])
        for r in s.get("rewrites", [])
        if r["kind"] == "reread-argument"
    ]


def test_a_fresh_instance_maybe_unbound_is_no_proof_of_the_reread(tmp_path: Path):
    # g(False, False): before, helper(v.a, y) raises UnboundLocalError; after, it returns 0.
    details = _reread_details(tmp_path, "    if flag:\n        v = make(1)\n")
    assert not any(d.startswith("fresh|") for d in details)


def test_a_fresh_instance_bound_in_the_block_still_proves_the_reread(tmp_path: Path):
    details = _reread_details(tmp_path, "    v = make(1)\n")
    assert details == ["fresh|v|pkg.m.P|make"]


def test_a_construction_does_not_move_across_a_match_capture_of_its_argument(tmp_path: Path):
    # make(1, [5], log): before, n.f == 1; after, ``case [a]`` rebound a first: n.f == 5.
    head = "from pkg.model import Box\n\n\ndef make(a, x, log):\n"
    built = "    n = Box(f=a)\n"
    between = "    match x:\n        case [a]:\n            log.append(a)\n"
    before = head + built + between + "    return n\n"
    after = head + between + built + "    return n\n"
    assert _moved(tmp_path, before, after) != "pure-refactor"
    for i, capture in enumerate(("case [*a]:", "case {**a}:", "case [1] as a:")):
        b, c = (t.replace("case [a]:", capture) for t in (before, after))
        assert _moved(tmp_path / str(i), b, c) != "pure-refactor"


def _src_layout(tmp_path: Path, model: str, extra: dict[str, str]) -> str:
    head = "from pkg.model import Box\n\n\ndef make(a, log):\n"
    built, between = "    n = Box(f=a)\n", "    log.append(1)\n"
    before = head + built + between + "    return n\n"
    after = head + between + built + "    return n\n"
    base = {"src/pkg/__init__.py": "", "src/pkg/model.py": model, "src/pkg/use.py": before}
    a = analyse_commit(tmp_path, {**base, **extra}, {"src/pkg/use.py": after}, "move (#9)")
    return a.model.summary.verdict


def test_a_class_of_another_file_with_the_same_module_path_is_not_taken(tmp_path: Path):
    # The imported Box (src/pkg/model.py) prints when built; a copy under aaa/pkg/model.py is
    # plain. Moving the construction across log.append(1) reorders the print.
    noisy = _MODEL + "\n    def __post_init__(self):\n        print('built', self.f)\n"
    copy = {"aaa/pkg/__init__.py": "", "aaa/pkg/model.py": _MODEL}
    assert _src_layout(tmp_path, noisy, copy) != "pure-refactor"
    assert _src_layout(tmp_path / "one", _MODEL, {}) == "pure-refactor"


_CLOSURES = {
    "a-nested-def": "    def show():\n        return n\n\n",
    "a-lambda": "    show = lambda: n\n",
    "a-generator": "    show = (n for _ in (1,))\n",
}


@pytest.mark.parametrize("closure", sorted(_CLOSURES))
@pytest.mark.parametrize("value", ["Box(f=a)", "0"])
def test_an_assignment_a_closure_reads_does_not_move_across_a_call(
    tmp_path: Path, closure: str, value: str
):
    # make(1, lambda f: f()) (cb=next for the generator): before, show sees n; after,
    # NameError (free variable n referenced before assignment).
    head = "from pkg.model import Box\n\n\ndef make(a, cb):\n" + _CLOSURES[closure]
    built, between = f"    n = {value}\n", "    cb(show)\n"
    before = head + built + between + "    return n\n"
    after = head + between + built + "    return n\n"
    assert _moved(tmp_path, before, after) != "pure-refactor"


SHADOWED_SUPER = {
    # super(type(v), v) with v a Checker starts after Checker: StatementVisitor.visit_var.
    "super-of-type-of-the-object": (
        _DEFINES + "\n\ndef call_base(v, o):\n    return super(type(v), v).visit_var(o)\n"
    ),
    "super-of-an-alias-of-the-subclass": (
        _DEFINES
        + "\n\nK = Checker\n\n\ndef call_base(v, o):\n    return super(K, v).visit_var(o)\n"
    ),
    "super-of-type-in-another-class": (
        _DEFINES + "\n\nclass Other:\n    def run(self, v, o):\n"
        "        return super(type(v), v).visit_var(o)\n"
    ),
}


@pytest.mark.parametrize("variant", sorted(SHADOWED_SUPER))
def test_shadowed_method_reached_by_an_explicit_super(tmp_path: Path, variant: str):
    base = {
        "mypy/__init__.py": "",
        VISITOR: corpus_text(CASE, VISITOR, "before"),
        "mypy/extra.py": _HEAD + SHADOWED_SUPER[variant],
    }
    a = analyse_commit(tmp_path, base, {VISITOR: corpus_text(CASE, VISITOR, "after")}, "move (#9)")
    assert _shadowed(a) == []
    assert a.model.summary.verdict != "pure-refactor"


@pytest.mark.parametrize("value", ["Box(f=a)", "0"])
@pytest.mark.parametrize("jump", ["break", "continue"])
def test_an_assignment_does_not_move_across_a_break_or_continue(
    tmp_path: Path, value: str, jump: str
):
    # make(1, [1]): before, n was assigned before the loop was left; after, make returns None.
    head = "from pkg.model import Box\n\n\ndef make(a, xs):\n    n = None\n    for x in xs:\n"
    built, between = f"        n = {value}\n", f"        if x:\n            {jump}\n"
    tail = "        print(n)\n    return n\n"
    before, after = head + built + between + tail, head + between + built + tail
    assert _moved(tmp_path, before, after) != "pure-refactor"


_CATCH = {
    "try": (
        "    try:\n        if a:\n",
        "            print(n)\n    except ValueError:\n        pass\n    return n\n",
        "            ",
    ),
    "with": ("    with cb:\n", "        print(n)\n    return n\n", "        "),
}


@pytest.mark.parametrize("value", ["Box(f=a)", "0"])
@pytest.mark.parametrize("catch", sorted(_CATCH))
def test_an_assignment_does_not_move_across_a_call_whose_exception_is_caught(
    tmp_path: Path, value: str, catch: str
):
    # cb() raises ValueError (or cb.__exit__ suppresses it): before, make returns the value
    # assigned first; after, None.
    head, tail, pad = _CATCH[catch]
    head = "from pkg.model import Box\n\n\ndef make(a, cb):\n    n = None\n" + head
    built, between = f"{pad}n = {value}\n", f"{pad}cb()\n"
    before, after = head + built + between + tail, head + between + built + tail
    assert _moved(tmp_path, before, after) != "pure-refactor"


def test_a_loop_of_its_own_between_may_break(tmp_path: Path):
    # The break leaves the inner loop only: the construction still moves.
    head = "from pkg.model import Box\n\n\ndef make(a, xs):\n"
    built = "    n = Box(f=a)\n"
    between = "    for x in xs:\n        if x:\n            break\n        print(x)\n"
    before = head + built + between + "    return n\n"
    after = head + between + built + "    return n\n"
    assert _moved(tmp_path, before, after) == "pure-refactor"


@pytest.mark.parametrize("where", ["pkg/model.py", "pkg/use.py"])
def test_a_class_its_module_or_the_building_module_patches_is_not_plain(tmp_path: Path, where: str):
    # Box.__post_init__ set after the class: building a Box now prints, before or after the
    # log.append(1) it moved across.
    patch = "\n\nBox.__post_init__ = lambda self: print('built')\n"
    head = "from pkg.model import Box\n\n\ndef make(a, log):\n"
    built, between = "    n = Box(f=a)\n", "    log.append(1)\n"
    before = head + built + between + "    return n\n"
    after = head + between + built + "    return n\n"
    if where == "pkg/model.py":
        assert _moved(tmp_path, before, after, _MODEL + patch) != "pure-refactor"
    else:
        assert _moved(tmp_path, before + patch, after + patch) != "pure-refactor"


_DROPS = (
    "class M(type):\n    def __new__(mcls, name, bases, ns):\n"
    "        ns.pop('visit_' + 'var', None)\n"
    "        return super().__new__(mcls, name, bases, ns)\n\n\n"
    "class Mixin(metaclass=M):\n    pass\n\n\n"
)


@pytest.mark.parametrize(
    "order", ["(Mixin, StatementVisitor[None])", "(StatementVisitor[None], Mixin)"]
)
def test_shadowed_method_dropped_by_the_metaclass_of_another_base(tmp_path: Path, order: str):
    # Checker's metaclass is M (from Mixin): it drops Checker's own visit_var, so
    # Checker().visit_var found StatementVisitor's before, and fails after.
    extra = _DROPS + _DEFINES.replace("(StatementVisitor[None])", order) + _CALL
    base = {
        "mypy/__init__.py": "",
        VISITOR: corpus_text(CASE, VISITOR, "before"),
        "mypy/extra.py": _HEAD + extra,
    }
    a = analyse_commit(tmp_path, base, {VISITOR: corpus_text(CASE, VISITOR, "after")}, "move (#9)")
    assert _shadowed(a) == []
    assert a.model.summary.verdict != "pure-refactor"
