"""Hoist codemods edit plain shapes on the text and parse with libcst only the parts of a module
they edit otherwise (the function holding the import, the import block at the top): on real
standard-library modules every hoist, made either way, must print exactly what the codemod
makes of the whole module parsed by libcst, whose statement lines come from libcst's own
position metadata."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from prreport.codemods.hoist import HoistSource, _holder, hoist, parse_for_hoist
from prreport.codemods.hoist_cst import CstParts, _Hoist

MODULES = (
    "argparse",
    "tarfile",
    "zipfile",
    "pydoc",
    "shutil",
    "platform",
    "sysconfig",
    "pdb",
    "multiprocessing.context",
)


def _text(name: str) -> str:
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin
    return Path(spec.origin).read_text(encoding="utf-8")


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


class _WholeModule:
    """The reference: one libcst parse of the whole text, lines from ``PositionProvider``."""

    def __init__(self, text: str) -> None:
        self.module = cst.parse_module(text)
        positions = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        self.spans = {
            id(node): (pos.start.line, pos.end.line)
            for node, pos in positions.items()
            if isinstance(node, (cst.BaseStatement, cst.BaseSmallStatement))
        }

    def hoist(self, line: int) -> str | None:
        tr = _Hoist(line, lambda node: self.spans.get(id(node), (0, -1)))
        out = self.module.visit(tr)
        return out.code if tr.removed else None


def _by_libcst(parsed: HoistSource, line: int) -> str | None:
    """The hoist made by libcst's parts only (no edit on the text)."""
    where = _holder(parsed.tree.body, line)
    return CstParts(parsed).hoist(*where, line) if where else None


def _assert_every_hoist_matches(text: str, lines: list[int]) -> int:
    whole = _WholeModule(text)
    assert whole.module.code == text  # libcst prints this module back verbatim
    parsed = parse_for_hoist(text, ast.parse(text))
    assert parsed is not None
    made = on_text = 0
    for line in lines:
        expected = whole.hoist(line)
        assert hoist(text, line, parsed) == expected, f"line {line}"
        assert _by_libcst(parsed, line) == expected, f"line {line} (libcst parts)"
        made += expected is not None
        where = _holder(parsed.tree.body, line)
        on_text += where is not None and parsed._plain(where[1], line) is not None
    assert made, "no import was hoisted: the check would pass vacuously"
    return on_text


@pytest.mark.slow
@pytest.mark.parametrize("name", MODULES)
def test_every_hoist_in_a_real_module_equals_the_whole_module_codemod(name: str):
    text = _text(name)
    lines = _local_imports(text)
    assert len(lines) >= 3, f"{name} has few function-local imports any more: pick another module"
    print(name, _assert_every_hoist_matches(text, lines), "of", len(lines), "on the text")


def test_each_line_is_parsed_at_most_once_per_file():
    text = _text("pydoc")
    parsed = parse_for_hoist(text)
    assert parsed is not None
    lines = _local_imports(text)
    parts_of = CstParts(parsed)
    outs = [parts_of.hoist(*_holder(parsed.tree.body, line), line) for line in lines]  # type: ignore[misc]
    assert sum(out is not None for out in outs) >= 5
    parts = sorted(key for key, part in parts_of._parts.items() if part is not None)
    assert parts[0][0] == 1  # the import block
    for (_b1, e1), (b2, _e2) in zip(parts, parts[1:], strict=False):
        assert e1 < b2  # no two parsed parts share a line
    assert sum(e - b + 1 for b, e in parts) < len(text.splitlines()) // 4


def test_windows_line_breaks_print_as_the_whole_module_does():
    text = _text("argparse").replace("\n", "\r\n")
    _assert_every_hoist_matches(text, _local_imports(text)[:6])


def test_a_first_line_break_unlike_the_others_falls_back_to_the_whole_module():
    # libcst writes new lines with the module's first line break: a function parsed alone
    # would pick another one
    text = _text("tarfile").replace("\n", "\r\n", 1)
    _assert_every_hoist_matches(text, _local_imports(text)[:4])


def test_an_import_inside_a_fallback_definition_above_the_first_def():
    # ``try: from _x import f / except ImportError: def f(): import ...`` before any def: the
    # function lies in the import block, which is then parsed as one part with it
    real = _text("tarfile")
    tree = ast.parse(real)
    first = next(st for st in tree.body if isinstance(st, (ast.FunctionDef, ast.ClassDef)))
    lines = real.splitlines(keepends=True)
    at = first.lineno - 1
    while lines[at - 1].strip() == "" or lines[at - 1].startswith("#"):
        at -= 1
    fallback = (
        "try:\n    from _tarfile_speedups import nts\n"
        "except ImportError:\n    def nts(s, encoding, errors):\n"
        "        import codecs\n        return codecs.decode(s, encoding, errors)\n"
    )
    text = "".join(lines[:at]) + fallback + "".join(lines[at:])
    line = text.splitlines().index("        import codecs") + 1
    _assert_every_hoist_matches(text, [line, *_local_imports(real)[:1]])


def test_code_libcst_would_not_print_back_gets_no_codemod():
    # libcst prints ``except (A, B) :`` without the space: a hoist in that function would
    # change a line it does not touch; elsewhere the line stays as written
    text = _text("tarfile")
    tree = ast.parse(text)
    fn = next(
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef)
        and any(isinstance(x, ast.Import) for x in ast.walk(n))
        and any(isinstance(x, ast.ExceptHandler) and x.type is not None for x in ast.walk(n))
    )
    handler = next(x for x in ast.walk(fn) if isinstance(x, ast.ExceptHandler) and x.type)
    lines = text.splitlines(keepends=True)
    row = lines[handler.lineno - 1]
    assert row.rstrip().endswith(":")
    lines[handler.lineno - 1] = row.rstrip()[:-1] + " :\n"
    lossy = "".join(lines)
    assert cst.parse_module(lossy).code != lossy
    inside = next(x.lineno for x in ast.walk(fn) if isinstance(x, ast.Import))
    parsed = parse_for_hoist(lossy)
    assert parsed is not None and _by_libcst(parsed, inside) is None
    out = hoist(lossy, inside, parsed)  # on the text when its shape is plain: line kept
    assert out is None or lines[handler.lineno - 1] in out
    elsewhere = [ln for ln in _local_imports(lossy) if not fn.lineno <= ln <= fn.end_lineno]
    outs = [hoist(lossy, ln) for ln in elsewhere]
    made = [out for out in outs if out is not None]
    assert made and all(lines[handler.lineno - 1] in out for out in made)


def test_plain_hoists_do_not_import_libcst():
    # importing libcst costs more than analysing a large PR: plain shapes never need it
    code = (
        "import ast, importlib.util, sys\n"
        "from pathlib import Path\n"
        "from prreport.codemods.hoist import hoist_diff, parse_for_hoist\n"
        "text = Path(importlib.util.find_spec('argparse').origin).read_text(encoding='utf-8')\n"
        "parsed = parse_for_hoist(text)\n"
        "lines = [n.lineno for f in ast.walk(parsed.tree) if isinstance(f, ast.FunctionDef)\n"
        "         for n in f.body if isinstance(n, ast.Import)]\n"
        "diffs = [hoist_diff('Lib/argparse.py', text, line, parsed) for line in lines]\n"
        "assert len(lines) >= 3 and all(d.startswith('--- a/Lib/argparse.py') for d in diffs)\n"
        "print('libcst' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# Lines around a real function-local import (above: its own comments, which move with it;
# below: the next statement's, whose blank lines go when the import opened the block).
_AROUND = {
    "comment above": (["{i}# why it is here\n"], []),
    "blank and comment above": (["\n", "{i}# why\n", "\n"], []),
    "comments at other depths": (["# at column zero\n", "{i}  # deeper\n"], []),
    "blank lines after": ([], ["\n", "\n"]),
    "comment after": ([], ["\n", "{i}# after\n", "\n"]),
}


@pytest.mark.slow
def test_comments_and_blank_lines_around_the_import_print_as_libcst_does():
    real = _text("argparse").splitlines(keepends=True)
    on_text = 0
    for line in _local_imports("".join(real))[:3]:
        row = real[line - 1]
        indent = row[: len(row) - len(row.lstrip())]
        for above, below in _AROUND.values():
            lines = list(real)
            lines[line - 1 : line] = [
                *(a.format(i=indent) for a in above),
                row,
                *(b.format(i=indent) for b in below),
            ]
            text = "".join(lines)
            on_text += _assert_every_hoist_matches(text, [line + len(above)])
    assert on_text >= 8
