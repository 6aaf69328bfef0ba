"""Hoist codemods print only the top-level statements they replace: on real standard-library
modules, the text must equal libcst's full print of the transformed module, and statement
lines taken from the ``ast`` must find the same import as libcst's position metadata."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

from prreport.analyzers._hoist import _follow, _Hoist, hoist, parse_for_hoist

# Over ten seconds each: `pytest -m "not slow"` skips them for a quick loop.
pytestmark = pytest.mark.slow

MODULES = ("argparse", "inspect", "tarfile", "subprocess", "logging")


def _local_imports(text: str) -> list[int]:
    tree = ast.parse(text)
    return sorted(
        {
            node.lineno
            for fn in ast.walk(tree)
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
            for node in ast.walk(fn)
            if isinstance(node, (ast.Import, ast.ImportFrom))
        }
    )


@pytest.mark.parametrize("name", MODULES)
def test_stitched_print_equals_the_full_print(name: str):
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin
    text = Path(spec.origin).read_text(encoding="utf-8")
    lines = _local_imports(text)[:12]
    assert lines, f"{name} has no function-local import any more: pick another module"
    parsed = parse_for_hoist(text, ast.parse(text))
    by_metadata = parse_for_hoist(text)  # no ast: libcst's PositionProvider gives the lines
    assert parsed is not None and parsed.exact and by_metadata is not None
    # statement texts cut from the source at the ast's lines are libcst's prints of them
    assert list(parsed.pieces.values()) == list(by_metadata.pieces.values())
    assert (parsed.header, parsed.footer) == (by_metadata.header, by_metadata.footer)
    for line in lines:
        assert parsed.tree is not None and _follow(parsed.module.body, parsed.tree.body, line, {})
        parsed.prepare(line)
        tr = _Hoist(line, parsed.lines)
        out = parsed.module.visit(tr)
        if tr.removed:
            assert parsed.code(out) == out.code
            assert hoist(text, line) == out.code  # a fresh parse agrees
        assert hoist(text, line, by_metadata) == (out.code if tr.removed else None)


def test_a_layout_the_pieces_do_not_reproduce_falls_back_to_the_full_print():
    text = "def f():\n    import os\n    return os.sep\n"
    parsed = parse_for_hoist(text)
    assert parsed is not None
    parsed.exact = False
    out = hoist(text, 2, parsed)
    assert out is not None and out.startswith("import os\n") and "    import os" not in out
