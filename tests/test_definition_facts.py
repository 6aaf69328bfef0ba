"""The facts and proofs the definition rules are built from, each with a case and a near miss:
pair equality, retargeted lines, import-time reads, placeholder bodies, class hierarchy shapes,
reflection, and whole-word hits."""

from __future__ import annotations

import ast
import textwrap

from prreport.equivalence.equality import body_text, equality, names_own_class
from prreport.equivalence.retarget import retargeted_row, static_home
from prreport.python.definitions import Definition, index
from prreport.python.hierarchy import base_name, bases_after, bases_before, direct_subclasses
from prreport.python.importtime import binds, first_bindings, future_annotations, runtime_reads
from prreport.python.placeholders import body_kind, is_abstract, placeholder_kind, signature
from prreport.python.references import word_hits
from prreport.python.reflection import class_never_a_value, supers_start_at_home


def _defs(text: str, path: str = "m.py") -> dict[str, Definition]:
    text = textwrap.dedent(text)
    return index(path, ast.parse(text), text)


def _fn(text: str) -> ast.FunctionDef:
    node = ast.parse(textwrap.dedent(text)).body[0]
    assert isinstance(node, ast.FunctionDef)
    return node


def test_equality_renamed_locals_and_a_changed_body():
    a = _defs("def f(x):\n    y = x + 1\n    return y\n")["f"]
    b = _defs("def g(x):\n    z = x + 1\n    return z\n")["g"]
    c = _defs("def g(x):\n    z = x + 2\n    return z\n")["g"]
    assert equality(a, _defs("def g(x):\n    y = x + 1\n    return y\n")["g"]) == "byte-identical"
    assert equality(a, b) == "modulo-renames"
    assert equality(a, c) == "different"
    assert body_text(a).startswith("def _(")


def test_equality_function_made_a_method_of_its_first_argument_class():
    fn = _defs("def area(s: Shape):\n    return s.w * s.h\n")["area"]
    meth = _defs("class Shape:\n    def area(self):\n        return self.w * self.h\n")
    assert equality(fn, meth["Shape.area"]) == "modulo-renames"
    untyped = _defs("def area(s):\n    return s.w * s.h\n")["area"]
    assert equality(untyped, meth["Shape.area"]) == "different"  # no declared receiver


def test_names_own_class():
    assert names_own_class(_fn("def m(self):\n    return super().m()\n"))
    assert names_own_class(_fn("def m(self):\n    return self.__x\n"))
    assert not names_own_class(_fn("def m(self):\n    return self.__x__\n"))


def test_retargeted_row_and_static_home():
    old = _defs("def f(x):\n    return x\n", "pkg/a.py")["f"]
    new = _defs("def g(x):\n    return x\n", "pkg/b.py")["g"]
    assert retargeted_row("from pkg.a import f", old, new, "pkg.a", "pkg.b") == (
        "from pkg.b import g"
    )
    assert retargeted_row("from .a import f", old, new, "pkg.a", "pkg.b") == "from .b import g"
    assert retargeted_row("fx = 1", old, new, "pkg.a", "pkg.b") == "fx = 1"  # not the word
    meth = _defs("class C:\n    @staticmethod\n    def g(x):\n        return x\n")["C.g"]
    assert static_home(old, meth) == "C"
    plain = _defs("class C:\n    def g(self, x):\n        return x\n")["C.g"]
    assert static_home(old, plain) == ""


def test_import_time_reads_follow_the_scope_functions_called():
    tree = ast.parse("def helper():\n    return LIMIT\n\nVALUE = helper()\nLIMIT = 3\n")
    assert binds(tree.body[1]) == {"VALUE"}
    assert "LIMIT" in runtime_reads(tree.body[1], {"helper": tree.body[0]}, set())
    assert "LIMIT" not in runtime_reads(tree.body[0], {}, set())  # a body runs only when called
    assert first_bindings(tree) == {"helper": 1, "VALUE": 4, "LIMIT": 5}
    assert not future_annotations(tree)
    assert future_annotations(ast.parse("from __future__ import annotations\n"))


def test_placeholder_and_body_kinds():
    assert placeholder_kind(_fn("def m(self):\n    pass\n")) == "pass"
    assert placeholder_kind(_fn("def m(self, x):\n    return super().m(x)\n")) == "super-call"
    assert placeholder_kind(_fn("def m(self, x):\n    return super().m(1)\n")) is None
    assert body_kind(_fn("def m(self):\n    raise ValueError('no')\n")) == "raise"
    assert body_kind(_fn("def m(self):\n    return (1, 2)\n")) == "constant"
    assert body_kind(_fn("def m(self):\n    return self.x\n")) == "implementation"
    assert signature(_fn("def m(self, a: int = 1):\n    pass\n")) == signature(
        _fn("def m(self, a=1):\n    pass\n")
    )
    assert is_abstract(_fn("@abc.abstractmethod\ndef m(self):\n    pass\n"))


def test_bases_before_and_after_a_class():
    tree = ast.parse("class S(Mixin, Base[T], Generic[T], Other):\n    pass\n")
    node = next(direct_subclasses(tree, "Base"))
    assert [base_name(b) for b in bases_before(node, "Base")] == ["Mixin"]
    assert [base_name(b) for b in bases_after(node, "Base")] == ["Other"]  # Generic left out
    assert list(direct_subclasses(tree, "Mixin2")) == []


def test_class_never_a_value():
    ok = ast.parse(
        "class S(Base):\n    pass\n\ndef f(x: Base) -> bool:\n    return isinstance(x, Base)\n"
    )
    assert class_never_a_value(ok, "Base", "visit_var", {"visit_"})
    assert not class_never_a_value(ast.parse("b = Base()\n"), "Base", "visit_var", set())
    assert not class_never_a_value(ast.parse("k = 'visit_var'\n"), "Base", "visit_var", set())
    composed = ast.parse("def f(o, kind):\n    return o.__dict__['visit_' + kind]\n")
    assert not class_never_a_value(composed, "Base", "visit_var", {"visit_"})


def test_supers_start_at_home():
    home = ast.parse("class S(B):\n    def m(self):\n        return super(S, self).m()\n")
    assert supers_start_at_home(home)
    away = ast.parse("class T(B):\n    def m(self):\n        return super(S, self).m()\n")
    assert not supers_start_at_home(away)


def test_word_hits_skip_comments_and_longer_words():
    text = "f()\n# f()\nff = 1\nx = f\n"
    assert word_hits(text, "f") == [1, 4]
