"""Syntax newer than the running Python is read, not reported unparseable (Python 3.15 issue, §1).

PEP 810 ``lazy import`` (3.15), PEP 695 type parameters and ``type`` statements (3.12) and
PEP 758 ``except A, B:`` (3.14) do not parse with the stdlib ``ast`` of Python 3.11-3.13;
libcst reads them, and the parse door lowers them to the same lines in older syntax, with
what was lowered kept on the nodes.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from prreport.config import Config, GitConfig
from prreport.pipeline import Analysis, analyse, gather
from prreport.python.parse import parse_source
from prreport.sources.git import GitSource
from tests.gitrepo import Repo

NEWER = (
    "lazy import json\n"
    "lazy from pkg.heavy import load, dump as save\n"
    "type Pair[T] = tuple[T, T]\n"
    "\n"
    "\n"
    "def first[T](items: list[T]) -> T:\n"
    "    try:\n"
    "        return items[0]\n"
    "    except IndexError, KeyError:\n"
    "        raise ValueError('empty')\n"
    "\n"
    "\n"
    "class Box[T]:\n"
    "    def get(self) -> T: ...\n"
)


def _nodes(tree: ast.Module, kind: type) -> list:
    return [n for n in ast.walk(tree) if isinstance(n, kind)]


def test_newer_syntax_parses_on_the_same_lines_with_what_was_lowered_kept():
    tree, problem, _ = parse_source(NEWER, "pkg/app.py")
    assert tree is not None and problem == ""
    imports = _nodes(tree, ast.Import) + _nodes(tree, ast.ImportFrom)
    assert sorted((n.lineno, getattr(n, "is_lazy", 0)) for n in imports) == [(1, 1), (2, 1)]
    (alias,) = [n for n in _nodes(tree, ast.Assign) if getattr(n, "type_alias", False)]
    assert alias.lineno == 3 and ast.unparse(alias.value) == "tuple[T, T]"
    assert alias.type_params_lowered == ("T",)
    (fn,) = [n for n in _nodes(tree, ast.FunctionDef) if n.name == "first"]
    assert fn.lineno == 6 and fn.type_params_lowered == ("T",)
    (handler,) = _nodes(tree, ast.ExceptHandler)
    assert handler.lineno == 9 and ast.unparse(handler.type) == "(IndexError, KeyError)"
    (box,) = _nodes(tree, ast.ClassDef)
    assert box.lineno == 13 and box.type_params_lowered == ("T",)


def test_code_no_parser_reads_is_still_reported_with_its_line():
    tree, problem, line = parse_source("def f(:\n    pass\n", "pkg/bad.py")
    assert tree is None and problem.startswith("does not parse") and line == 1


def test_plain_code_takes_the_fast_path_and_carries_no_lowering_marks():
    tree, _, _ = parse_source("import json\n", "pkg/a.py")
    assert tree is not None and not hasattr(tree.body[0], "is_lazy")


def _analyse(root: Path, before: str, after: str) -> Analysis:
    repo = Repo(root / "repo")
    repo.commit(
        "init", {"pkg/__init__.py": "", "pkg/heavy.py": "def load(): ...\n", "pkg/app.py": before}
    )
    repo.commit("refactor(pkg): lazy imports (#9)", {"pkg/app.py": after})
    cfg = Config()
    src = GitSource("9", GitConfig(repo=str(repo.path)))
    try:
        return analyse(gather(src, cfg), cfg)
    finally:
        src.close()


def test_a_pr_adopting_lazy_imports_is_analysed_not_unknown(tmp_path: Path):
    before = (
        "def run(path):\n"
        "    import json\n"
        "    from pkg.heavy import load\n"
        "    return load(json.loads(path))\n"
    )
    after = (
        "lazy import json\n"
        "lazy from pkg.heavy import load\n"
        "\n"
        "\n"
        "def run(path):\n"
        "    return load(json.loads(path))\n"
    )
    a = _analyse(tmp_path, before, after)
    assert not [d for d in a.diagnostics if d.origin == "parser"], a.diagnostics
    assert a.model.summary.verdict != "unknown"
    kinds = {f.kind for f in a.findings if f.path == "pkg/app.py"}
    assert "import.made-lazy" in kinds  # PEP 810 semantics: tests/test_lazy_semantics.py


def test_type_parameters_are_bound_where_python_binds_them(tmp_path: Path):
    a = _analyse(tmp_path, "import json\n", NEWER + "\n\nBAD = Missing\n")
    unresolved = sorted((f.line, f.symbol) for f in a.findings if f.kind == "names.unresolved")
    assert unresolved == [(17, "Missing")]  # T of Pair, first and Box is bound; Missing is not


def test_pep_701_f_strings_reusing_their_quote_are_read_as_the_same_tree():
    tree, problem, _ = parse_source('def f(d):\n    return f"{d["a"]}-{d[\'b\']}"\n', "a.py")
    assert tree is not None and problem == ""
    old, _, _ = parse_source("def f(d):\n    return f\"{d['a']}-{d['b']}\"\n", "a.py")
    assert ast.dump(tree) == ast.dump(old)


@pytest.mark.parametrize(
    ("new", "old"),
    [
        # a backslash in an expression: no older spelling but the tree itself
        ("x = f\"{'\\n'.join(a)}\"\n", 'x = f"{sep.join(a)}"\n'),
        # a triple-quoted one reusing its quote, over two lines
        ('z = f"""multi {a["k"]}\nline {b}"""\n', 'z = f"""multi {a[\'k\']}\nline {b}"""\n'),
        # a comment inside an expression
        ('u = f"{\n    a  # the total\n    + b\n}"\n', 'u = f"{a + b}"\n'),
        # implicitly concatenated with plain strings, a nested spec
        ('w = "pre" f"{d["a"]:>{n}}" "post"\n', 'w = "pre" f"{d[\'a\']:>{n}}" "post"\n'),
    ],
)
def test_pep_701_f_strings_no_quote_change_can_say_are_read_as_python_312_reads_them(
    new: str, old: str
):
    tree, problem, _ = parse_source(new, "b.py")
    assert tree is not None and problem == ""
    want = ast.parse(old)
    if "sep.join" in old:  # the separator is the literal newline, not a name
        want.body[0].value.values[0].value.func.value = ast.Constant(value="\n")  # type: ignore[attr-defined]
    assert ast.dump(tree) == ast.dump(want)


def test_lines_after_a_lowered_multiline_f_string_keep_their_numbers():
    tree, _, _ = parse_source('x = f"""{a["k"]}\n\n"""\ny = 1\n', "c.py")
    assert tree is not None and tree.body[1].lineno == 4


MODERN = (
    "import json\n"
    "\n"
    "\n"
    "type Row = dict[str, str]\n"
    "\n"
    "\n"
    "def label[T: Row](row: T) -> str:\n"
    '    return f"{row["name"]} ({row["kind"]})"\n'
    "\n"
    "\n"
    "def read(lines):\n"
    "    out = []\n"
    "    for line in lines:\n"
    "        from pkg.heavy import load\n"
    "\n"
    "        try:\n"
    "            out.append(load(json.loads(line)))\n"
    "        except ValueError, KeyError:\n"
    '            out.append(f"{line!r:>{len(line)}}")\n'
    "    return out\n"
)


def test_a_hoist_in_a_file_of_312_to_314_syntax_is_a_proven_refactoring(tmp_path: Path):
    # PEP 695 (type parameters, ``type``), PEP 701 (f-string quotes), PEP 758 (``except A, B``)
    after = MODERN.replace("import json\n", "import json\n\nfrom pkg.heavy import load\n").replace(
        "        from pkg.heavy import load\n\n", ""
    )
    a = _analyse(tmp_path, MODERN, after)
    assert not [d for d in a.diagnostics if d.origin == "parser"], a.diagnostics
    kinds = {f.kind for f in a.findings}
    assert {"import.hoisted", "loop.imports-removed", "cycle.safe"} <= kinds
    assert a.model.summary.verdict == "pure-refactor", a.model.summary.one_line


def test_a_file_no_parser_reads_gives_the_honest_unknown_verdict(tmp_path: Path):
    # Newer than anything libcst 1.9 knows (or simply broken): never "pure", never a traceback.
    a = _analyse(tmp_path, "def run():\n    return 1\n", "def run(:\n    return 1\n")
    assert a.model.summary.verdict == "unknown"
    assert any("does not parse" in d.message for d in a.diagnostics)
    assert a.model.summary.headline["unparsed_files"] == ["pkg/app.py"]
