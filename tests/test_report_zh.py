"""The Chinese report reads as Chinese: no English template words, no broken joins.

Rendered over the golden case and real corpus commits (many template paths: moves, dead code,
behaviour changes, guards, related PRs). Words of the PR's own text (titles, names, quotes),
code spans, fences and identifiers of the change are allowed; template English is not.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from prreport.bundle import load_bundle
from prreport.config import Config
from prreport.pipeline import analyse
from prreport.render import render_json, render_markdown
from prreport.report.build import build_model
from tests.test_report import CONFIG, hand_built

CORPUS = "tests/corpus/bundles/{}.json.gz"
# Real commits whose reports reach many template paths (moves, renames, extraction, dead code,
# behaviour changes, guards, failing CI, related PRs), and are quick to analyse.
CASES = (
    "mypy-cd422e09",
    "attrs-3aa497d0",
    "starlette-3226ad72",
    "requests-aa1461b6",
    "pip-c34c3b6e",
    "rich-0999b404",
)
# Words a Chinese engineer writes in English anyway.
ALLOWED = {
    "PR", "CI", "API", "import", "imports", "review", "issue", "mixin", "Python", "GitHub",
    "JSON", "HTML", "AST", "SHA", "diff", "git", "F821", "ruff", "codemod", "libcst", "TODO",
    "import-linter", "pyproject.toml", ".importlinter", "sys.modules", "kernel", "forward",
}  # fmt: skip
# Keys whose values are identifiers or PR-supplied text (allowed verbatim in prose).
_IDENT_KEYS = {
    "symbol", "path", "before_path", "module", "modules", "title", "author", "login", "name",
    "merged_by", "series", "labels", "checks", "scope", "target_module", "importer_module",
    "old_qualname", "helper", "shared_files", "key_symbols", "changed_functions", "repo",
    "head_ref", "base_ref", "user", "state", "public_api_touched", "heading", "allowed",
}  # fmt: skip
BROKEN = (
    r"\d+ 个 [为是的]",  # "6 个 为": a count joined to the next word
    r"[：:]\s*的",  # "影响： 的": an empty subject
    r"\d+ more\b",  # "2 more" left in English
    r"(`[^`]+`)、\1(?!\S)",  # a name listed twice in a row
    r"、、|，，|。。",
)


# Word-for-word translations of the English template that read unnaturally in Chinese.
CALQUES = (
    r"头部",  # "head" (commit): PR 提交 / PR 最新提交
    r"守卫",  # "guard(ed by)": 条件 / 处于 … 条件下
    r"依赖接线",  # "dependency-wiring": 依赖调整
    r"绕回",  # "leads back": 形成循环
    r"正面核查",  # "checked positively"
    r"发现与元数据",  # "findings and metadata": 分析结论与元数据
    r"今天就会",  # "fails today": 现在就会
    r"可由分析发现解释",  # "accounted for by findings": 已由分析结论解释
    r"类型 [^\s：]",  # "类型 重构": a label run into its value
    r'"[^"\n]{1,6}"',  # ASCII quotes around a Chinese word: “低”
)


def calques(md: str) -> list[str]:
    """Calques in the report's own Chinese words (code, quotes of the PR and fences left out)."""
    text = prose(re.sub(r"```.*?```", " ", md, flags=re.S))
    return [m.group(0) for pat in CALQUES for m in re.finditer(pat, text)]


def _identifiers(node: Any, key: str = "", out: set[str] | None = None) -> set[str]:
    out = set() if out is None else out
    if isinstance(node, dict):
        for k, v in node.items():
            _identifiers(v, k, out)
    elif isinstance(node, list):
        for v in node:
            _identifiers(v, key, out)
    elif isinstance(node, str) and key in _IDENT_KEYS:
        out.update(re.findall(r"[A-Za-z_][\w.\-/]*", node))
        out.update(p for w in re.findall(r"[\w.\-/]+", node) for p in re.split(r"[./\-]", w))
    return out


def prose(md: str) -> str:
    """The report's own words: without code, quotes of the PR text, links and URLs."""
    md = re.sub(r"```.*?```", " ", md, flags=re.S)
    md = re.sub(r"<details>.*?</details>", " ", md, flags=re.S)
    md = re.sub(r"\\([\\`*_{}\[\]()#+\-.!<>|])", r"\1", md)  # Markdown escapes of PR text
    lines = []
    for line in md.splitlines():
        if line.lstrip().startswith(">"):
            continue
        # A code span stands for a name: a placeholder, so "：`f` 的" is not an empty subject.
        line = re.sub(r"`[^`]*`", "〔码〕", line)
        line = re.sub(r"“[^”]*”", " ", line)
        line = re.sub(r"<https?://[^>]*>|https?://\S+|\]\([^)]*\)", " ", line)
        lines.append(line)
    return "\n".join(lines)


def english_words(md: str, model_json: dict[str, Any]) -> set[str]:
    known = _identifiers(model_json) | ALLOWED
    words = set()
    for w in re.findall(r"[A-Za-z_][\w.\-]*\w|[A-Za-z]", prose(md)):
        # Hex (commit SHAs) and single letters are not words.
        if len(w) < 2 or re.fullmatch(r"[0-9a-f]+", w) or w in known:
            continue
        if all(p in known for p in re.split(r"[._\-]", w) if p):
            continue
        words.add(w)
    return words


def broken_joins(md: str) -> list[str]:
    text = re.sub(r"```.*?```", " ", md, flags=re.S)
    return [m.group(0) for pat in BROKEN for m in re.finditer(pat, prose(text))]


def _check(md: str, model_json: dict[str, Any]) -> None:
    assert english_words(md, model_json) == set()
    assert broken_joins(md) == []
    assert calques(md) == []


def test_golden_case_reads_as_chinese():
    bundle, findings, diags = hand_built()
    model = build_model(bundle, findings, diags, CONFIG)
    import json

    _check(render_markdown(model, "zh"), json.loads(render_json(model)))


@pytest.mark.parametrize("case", CASES)
def test_real_commit_reports_read_as_chinese(case: str):
    import json

    model = analyse(load_bundle(CORPUS.format(case)), Config()).model
    _check(render_markdown(model, "zh"), json.loads(render_json(model)))


def test_the_checker_catches_english_and_broken_joins():
    md = "- 影响： 的行为发生变化；`a`、`b`、2 more 守卫；6 个 为函数内导入；changed in `f`."
    assert english_words(md, {}) == {"more", "changed", "in"}
    assert len(broken_joins(md)) == 3


def test_the_checker_catches_calques():
    md = '- 基线 → 头部：x；`f` 受 `flag` 守卫；类型 依赖接线；没有高于"低"级别的风险；契约今天就会失败。'
    assert calques(md) == ["头部", "守卫", "依赖接线", "今天就会", "类型 依", '"低"']
