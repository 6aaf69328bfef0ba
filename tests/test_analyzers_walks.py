"""Call sites and guard chains found by the pruned, lazily-labelled statement walks."""

from __future__ import annotations

import ast
import copy
import dataclasses
import textwrap
from pathlib import Path

from prreport.config import Config, GitConfig
from prreport.findings import Finding
from prreport.pipeline import analyse, gather
from prreport.python import definitions as _defs
from prreport.python.definitions import dump, same_tree
from prreport.sources.git import GitSource
from tests.gitrepo import Repo

BODY = """
class Server:
    @staticmethod
    def start(cfg):
        @contextlib.contextmanager
        def opened():
            yield cfg

        try:
{import_line}            with opened() as c, stage(
                c
            ):
                pass
        except (ValueError,
                KeyError) as err:
            stage(err)
        match cfg:
            case {{"mode": "x"}} if cfg:
                log.info("%s", stage(
                    cfg))
            case _:
                pass

        def later():
            return stage(cfg)


class Other:
    def run(self, stage):
        return stage(self)  # a call of the same name outside the import's scope


def unrelated(stage_name, restage):
    # mentions of the name that are not calls of it, in code the walk may skip
    return stage_name, restage, "stage(x)"
"""


def _guards(tmp_path: Path) -> list[Finding]:
    before = "import contextlib\nimport logging\n\nlog = logging.getLogger()\n" + BODY.format(
        import_line="            from pkg.helpers import stage\n\n"
    )
    after = (
        "import contextlib\nimport logging\n\nfrom pkg.helpers import stage\n\nlog = logging.getLogger()\n"
        + BODY.format(import_line="")
    )
    repo = Repo(tmp_path / "repo")
    repo.commit(
        "init",
        {
            "pkg/__init__.py": "",
            "pkg/helpers.py": "def stage(x):\n    return x\n",
            "pkg/srv.py": before,
        },
    )
    repo.commit("refactor(pkg): hoist stage (#9)", {"pkg/srv.py": after})
    config = Config()
    analysis = analyse(gather(GitSource("9", GitConfig(repo=str(repo.path))), config), config)
    return [f for f in analysis.findings if f.kind.startswith("guard.")]


def test_every_call_site_in_headers_handlers_and_cases_keeps_its_guard_chain(tmp_path: Path):
    found = {(f.kind, f.line, f.details["call"]): f.details for f in _guards(tmp_path)}
    assert set(found) == {
        ("guard.preserved", 16, "stage(c)"),
        ("guard.preserved", 22, "stage(err)"),
        ("guard.preserved", 25, "stage(cfg)"),
        ("guard.preserved", 31, "stage(cfg)"),
    }
    chains = {
        line: [(g["kind"], g["text"]) for g in d["after"]] for (_k, line, _c), d in found.items()
    }
    assert chains == {
        16: [("try", "try / except (ValueError, KeyError)")],
        22: [("except", "except (ValueError, KeyError)")],
        25: [("if", 'match cfg: case {"mode": "x"} if cfg')],
        31: [],
    }
    # The hoist added two lines above the class and removed two inside the try.
    assert {line: [g["line"] for g in d["after"]] for (_k, line, _c), d in found.items()} == {
        16: [15],
        22: [20],
        25: [24],
        31: [],
    }
    assert {line: [g["line"] for g in d["before"]] for (_k, line, _c), d in found.items()} == {
        16: [13],
        22: [20],
        25: [24],
        31: [],
    }
    assert {line: d["scope"] for (_k, line, _c), d in found.items()} == {
        16: "Server.start",
        22: "Server.start",
        25: "Server.start",
        31: "Server.start.<locals>.later",
    }
    assert all(d["before_line"] == line for (_k, line, _c), d in found.items())


_TRICKY = [
    ("x = 1", "x = 1.0"),
    ("x = 0.0", "x = -0.0"),
    ("x = True", "x = 1"),
    ("x = 'a'", "x = b'a'"),
    ("x = 'a'", "x = u'a'"),
    ("x = float('nan')", "x = float('nan')"),
    ("return", "return None"),
    ("f(a, *b)", "f(a, b)"),
    ("def f(a, b=1): pass", "def f(a=1, b): pass"),
    ("if a:\n    import os\n    f()", "if a:\n    f()"),
    ("if a:\n    import os\n    f()", "if a:\n    from os import path\n    f()"),
    ("x = ...", "x = ..."),
]


def _dump(node: ast.AST, drop: tuple[type[ast.stmt], ...] = ()) -> str:
    if drop:
        node = copy.deepcopy(node)
        for n in ast.walk(node):
            for name in ("body", "orelse", "finalbody"):
                block = getattr(n, name, None)
                if isinstance(block, list):
                    setattr(n, name, [s for s in block if not isinstance(s, drop)])
    return dump(node)


def test_same_tree_agrees_with_comparing_dumps():
    imports = (ast.Import, ast.ImportFrom)
    # real code: every pair of same-length functions of a few modules, and each with itself
    funcs = []
    for mod in (ast, dataclasses, textwrap, _defs):
        tree = ast.parse(Path(mod.__file__).read_text(encoding="utf-8"))
        funcs += [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    by_len: dict[int, list[ast.FunctionDef]] = {}
    for fn in funcs:
        by_len.setdefault(len(fn.body), []).append(fn)
    pairs = [(a, b) for group in by_len.values() for a in group[:12] for b in group[:12]]
    pairs += [(ast.parse(a).body[0], ast.parse(b).body[0]) for a, b in _TRICKY if _parses(a, b)]
    equal = 0
    for a, b in pairs:
        assert same_tree(a, b) == (_dump(a) == _dump(b)), (ast.unparse(a), ast.unparse(b))
        assert same_tree(a, b, imports) == (_dump(a, imports) == _dump(b, imports))
        equal += same_tree(a, b)
    assert 0 < equal < len(pairs)  # both outcomes were exercised
    # constants a transformer may build: equal by ``==`` but not by dump, and the reverse
    nan = float("nan")
    for x, y in [(0.0, -0.0), (nan, nan), (1, True), (1, 1.0), ((1,), (1,))]:
        cx, cy = ast.Constant(value=x), ast.Constant(value=y)
        assert same_tree(cx, cy) == (dump(cx) == dump(cy)), (x, y)
    assert same_tree([ast.parse("x = 1").body[0]], [ast.parse("x = 1").body[0]])
    assert not same_tree([ast.parse("x = 1").body[0]], [])


def _parses(*texts: str) -> bool:
    try:
        for t in texts:
            ast.parse(t)
    except SyntaxError:
        return False
    return True
