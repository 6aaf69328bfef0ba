"""The registry of proof rules (``prreport.equivalence.rules``) is complete, and true.

Complete: every rewrite kind the engine's source can emit (a ``Rewrite("kind", ...)``, a
``{"kind": ..., "text": ...}`` note, a ``("kind", ...)`` appended to a list of rewrites done) is
a rule, and every rule shown as a rewrite is one the source emits and the report templates word.
True: each rule's before/after, committed to a real git repository and analysed by the whole
pipeline, is proven a refactor by that rule, and its near miss is not.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from prreport.equivalence.rules import RULES, SHOWN, Rule, rule
from prreport.findings import Finding
from prreport.pipeline import Analysis
from tests.gitrepo import analyse_commit

ROOT = Path(__file__).resolve().parent.parent
PATH = "pkg/mod.py"


# -- complete ----------------------------------------------------------------------------------


def _emitted_in(tree: ast.AST) -> Iterator[str]:
    """The rewrite kinds a module's code spells as literals where it records a rewrite."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id == "Rewrite" and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    yield first.value
            # ``done.append(("kind", text, ...))``: a list of the rewrites a pass made
            if (
                isinstance(func, ast.Attribute)
                and func.attr == "append"
                and "done" in ast.unparse(func.value)
                and node.args
                and isinstance(node.args[0], ast.Tuple)
                and node.args[0].elts
            ):
                first = node.args[0].elts[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    yield first.value
        if isinstance(node, ast.Dict):
            keys = [k.value if isinstance(k, ast.Constant) else None for k in node.keys]
            if keys[:2] == ["kind", "text"]:
                value = node.values[0]
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    yield value.value


def _emitted() -> dict[str, set[str]]:
    """Every rewrite kind spelled in prreport's source, with the modules that emit it."""
    out: dict[str, set[str]] = {}
    for path in sorted((ROOT / "prreport").rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for kind in _emitted_in(ast.parse(path.read_text(encoding="utf-8"))):
            out.setdefault(kind, set()).add(module.removesuffix(".__init__"))
    return out


def test_every_rewrite_kind_the_engine_emits_is_a_rule():
    emitted = _emitted()
    # The scan finds the rewrites of every family (it would find nothing if the spelling moved).
    assert {"fixed-condition", "list-to-generator", "inlined-key", "split-tuple"} <= set(emitted)
    assert {"reread-argument", "multi-return", "unreached-method"} <= set(emitted)
    kinds = {r.reported_kind for r in RULES if r.shown == "rewrite"}
    missing = sorted(set(emitted) - kinds)
    assert not missing, f"emitted but not in prreport.equivalence.rules: {missing}"
    stale = sorted(kinds - set(emitted))
    assert not stale, f"listed as rewrites but emitted nowhere: {stale}"


def test_every_rewrite_kind_is_worded_in_each_language():
    kinds = sorted({r.reported_kind for r in RULES if r.shown == "rewrite"})
    for lang in ("en", "zh"):
        text = (ROOT / "templates" / lang / "text.md.j2").read_text(encoding="utf-8")
        missing = [k for k in kinds if f'r.kind == "{k}"' not in text]
        assert not missing, (lang, missing)


def test_the_registry_is_well_formed():
    ids = [r.id for r in RULES]
    assert len(ids) == len(set(ids)), "rule ids are unique"
    for r in RULES:
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", r.id), r.id
        assert r.shown in SHOWN, r.id
        importlib.import_module(r.module)
        for text in (r.proves, r.assumption):
            assert "\n" not in text and (not text or text.endswith(".")), (r.id, text)
        assert r.proves, r.id
        assert r.after != r.before and r.near_miss != r.after or r.near_miss_before, r.id
        for code in (r.before, r.after, r.near_miss, r.near_miss_before):
            ast.parse(code)
        if r.shown != "rewrite":
            assert not (r.kind or r.detail), r.id
        assert rule(r.id) is r
    with pytest.raises(KeyError):
        rule("no-such-rule")


# -- true --------------------------------------------------------------------------------------


def _analyse(tmp_path: Path, r: Rule, before: str, after: str) -> Analysis:
    base = {"pkg/__init__.py": "", **dict(r.context), PATH: before}
    return analyse_commit(tmp_path, base, {PATH: after}, "refactor(pkg): tidy (#5)")


def _rewrites(fd: Finding) -> Iterator[dict[str, str]]:
    details = fd.details or {}
    for part in [details, *(s for s in details.get("sites", []) or [] if isinstance(s, dict))]:
        yield from part.get("rewrites", []) or []


def _shows(a: Analysis, r: Rule) -> bool:
    """Whether a finding of ``a`` proves a refactor by rule ``r``."""
    for fd in a.findings:
        d = fd.details or {}
        if r.shown == "rewrite":
            if any(
                x["kind"] == r.reported_kind and re.search(r.detail, x.get("detail", ""))
                for x in _rewrites(fd)
            ):
                return True
        elif r.shown == "equal":
            if fd.kind == "behavior.unchanged" and not list(_rewrites(fd)):
                return True
        elif r.shown == "expansion":
            # Proven by the expansion itself: a proof by effect summaries is another rule's
            # (the expansion rules' near misses that still do the same are proven by it).
            by_effects = any(x["kind"] == "same-effects" for x in _rewrites(fd))
            if fd.kind in ("code.extracted", "code.inlined") and d.get("proven") is True:
                if not by_effects:
                    return True
        elif r.shown == "case-analysis":
            if fd.kind == "code.branches-collapsed" and d.get("pattern") == "early-return":
                if d.get("proven") is True:
                    return True
    return False


def _told(a: Analysis) -> list[tuple[str, str, object]]:
    return [(f.kind, f.symbol, list(_rewrites(f)) or f.details.get("proven")) for f in a.findings]


@pytest.mark.parametrize("r", RULES, ids=lambda r: r.id)
def test_the_rule_proves_its_example(tmp_path: Path, r: Rule):
    a = _analyse(tmp_path / "example", r, r.before, r.after)
    assert _shows(a, r), _told(a)
    assert a.model.summary.verdict == "pure-refactor", _told(a)


@pytest.mark.parametrize("r", RULES, ids=lambda r: r.id)
def test_the_rule_does_not_prove_its_near_miss(tmp_path: Path, r: Rule):
    a = _analyse(tmp_path / "near", r, r.near_miss_before or r.before, r.near_miss)
    assert not _shows(a, r), _told(a)
    assert a.model.summary.verdict != "pure-refactor", _told(a)
