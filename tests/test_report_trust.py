"""The report says only what the code bears out, in a shape a reviewer reads (issue 32 §2-§5):
on the seed PR (its fixture is real-shaped: staging_handler imports sglang inside a function
and under TYPE_CHECKING) and on the sglang series shapes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from prreport.config import Config, GitConfig
from prreport.pipeline import analyse, gather
from prreport.render import render_markdown
from prreport.render.markdown import render_comment
from prreport.report.model import ReportModel
from prreport.sources.git import GitSource
from tests.test_sglang_series import _run

STAGING_PATH = "python/sglang/srt/disaggregation/common/staging_handler.py"


@pytest.fixture(scope="module")
def seed_model(seed_repo) -> ReportModel:
    repo, _base, _sha = seed_repo
    cfg = Config(git=GitConfig(repo=str(repo.path)))
    return analyse(gather(GitSource("35980", cfg.git), cfg), cfg).model


def _section(md: str, heading: str) -> str:
    start = md.index(f"# {heading}\n")
    nxt = re.search(r"^# ", md[start + 2 :], re.M)
    return md[start : start + 2 + nxt.start()] if nxt else md[start:]


def _headings(md: str) -> list[str]:
    return re.findall(r"^# (.+)$", md, re.M)


# --- §4 claims placed and read right -----------------------------------------------------


def test_claims_come_right_after_the_executive_summary(seed_model):
    for lang, (summary, claims) in (
        ("en", ("Executive summary", "Claims checked")),
        ("zh", ("执行摘要", "声明核查")),
    ):
        heads = _headings(render_markdown(seed_model, lang))
        assert heads[heads.index(summary) + 1] == claims, heads
        comment = render_comment(seed_model, lang)
        first = re.search(r"<summary>([^<]+)</summary>", comment)
        assert first and first.group(1).startswith(claims), first


def test_no_sentence_is_quoted_twice(seed_model):
    for lang, heading in (("en", "Claims checked"), ("zh", "声明核查")):
        claims = _section(render_markdown(seed_model, lang), heading)
        quotes = re.findall(r"“([^”]+)”", claims)
        assert len(quotes) == len(set(quotes)) >= 4, quotes
        # a sentence making two claims is quoted once, with an answer per claim under it
        assert claims.count("There is no cycle-avoidance reason") == 1
    # the comment does not echo the description: its claims carry no quote at all
    comment = render_comment(seed_model, "en")
    claims = comment.split("<summary>Claims checked")[1].split("</details>")[0]
    assert "“" not in claims and claims.count("\n- ") >= 6


def test_the_motivation_gist_uses_the_modules_real_imports(seed_model):
    en = _section(render_markdown(seed_model, "en"), "Motivation")
    zh = _section(render_markdown(seed_model, "zh"), "功能与动机")
    gist = next(ln for ln in en.splitlines() if ln.startswith("In short"))
    # `torch` as code comes from the module's own imports, not from words of the PR text
    assert (
        "imports only the standard library and `torch` at module level (what the code shows)"
        in gist
    )
    zh_gist = next(ln for ln in zh.splitlines() if ln.startswith("概括而言"))
    assert "模块级只依赖标准库与 `torch`（以代码为准）" in zh_gist
    for noise in ("circular", "keep", "local", "is,"):
        assert noise not in gist


# --- §1/§3 reasons and advice agree with the contract ------------------------------------


def test_an_import_the_contract_forbids_hoisting_is_no_candidate(seed_model):
    kvpoll = next(x for x in seed_model.breakdown["retained"] if x["path"] == STAGING_PATH)
    assert kvpoll["symbol"] == "KVPoll" and kvpoll["reason"] == "contract"
    fd = next(
        f
        for f in seed_model.findings
        if f.kind == "lazy-import.retained" and f.path == STAGING_PATH
    )
    assert fd.details["followup_diff"] == "" and fd.details["contract_forbidden"] == ["sglang"]
    md = render_markdown(seed_model, "en")
    assert "hoisted, it would break the implicit contract under Risks" in md
    assert (
        "`KVPoll` in `handle_staging_rsp` (`python/sglang/srt/disaggregation/common/staging_handler.py:54`; no reason found"
        not in md
    )


# --- §5 shape and size ---------------------------------------------------------------------


def test_verdict_first_action_as_bullets_key_files_in_the_breakdown(seed_model):
    for lang, verdict, action in (
        ("en", "**Verdict**", "**Recommended action**"),
        ("zh", "**结论**", "**推荐动作**"),
    ):
        md = render_markdown(seed_model, lang)
        summary = md[md.index("\n# ", md.index("---")) :].split("\n# ")[1]
        bullets = [ln for ln in summary.splitlines() if ln.startswith("- ")]
        assert bullets[0].startswith(f"- {verdict}"), bullets
        lines = summary.splitlines()
        at = next(i for i, ln in enumerate(lines) if ln.startswith(f"- {action}"))
        assert lines[at + 1].startswith("  - ") and lines[at + 2].startswith("  - ")
        assert "## Key files" not in md and "## 关键文件" not in md


def test_no_generic_test_advice_for_an_import_only_pr(seed_model):
    md = render_markdown(seed_model, "en")
    assert "add a test that runs the changed code" not in md
    assert "add the test that keeps `sglang.srt.disaggregation.common.staging_handler`" in md
    assert "补充覆盖改动代码的测试" not in render_markdown(seed_model, "zh")


@pytest.mark.parametrize(("lang", "golden"), [("en", "pr-35980.md"), ("zh", "pr-35980.zh.md")])
def test_the_seed_report_and_comment_fit_their_sizes(seed_model, lang, golden):
    md = render_markdown(seed_model, lang).encode()
    comment = render_comment(seed_model, lang).encode()
    assert len(md) <= 16 * 1024, len(md)
    assert len(comment) <= 10 * 1024, len(comment)
    assert len((Path(__file__).parent / "golden" / golden).read_bytes()) <= 16 * 1024


def test_the_seed_zh_report_and_comment_have_no_calques(seed_model):
    from tests.test_report_zh import calques

    for text in (render_markdown(seed_model, "zh"), render_comment(seed_model, "zh")):
        assert calques(text) == []
    md = render_markdown(seed_model, "zh")
    # the words that replaced the calques, where the seed report uses them
    assert "- 基线 → PR 提交：" in md and "已由分析结论解释" in md
    assert "处于 `self.enable_staging` 条件下" in md and "调用点条件不变" in md
    assert "（模块 `sglang.srt.disaggregation.nixl`；依赖调整）" in md


def test_related_prs_name_the_direct_base_and_say_what_it_made(seed_model):
    md = _section(render_markdown(seed_model, "en"), "Related PRs")
    base = next(ln for ln in md.splitlines() if "#35948" in ln)
    assert "(direct base)" in base
    assert "It changed `common/staging_handler.py`, the module this PR now imports" in base
    assert "same series" not in base  # the reason in words, not the series key
    assert "(direct base)" not in md.replace(base, "")  # only one direct base
    assert "（直接前驱）" in render_markdown(seed_model, "zh")


# --- §2 no sentence contradicts a finding ------------------------------------------------------


def test_an_abstract_override_every_subclass_overrides_is_not_said_to_change_calls(tmp_path):
    a = _run(tmp_path, "35950")
    en, zh = render_markdown(a.model, "en"), render_markdown(a.model, "zh")
    assert "no base class provides it" not in en and "没有基类提供该方法" not in zh
    assert "declares it abstract and every concrete subclass overrides it" in en
    assert "将其声明为抽象方法，且每个具体子类都覆盖了它" in zh


def test_a_subclass_relying_on_the_dropped_body_still_reads_as_a_change(tmp_path):
    a = _run(tmp_path, "35950", "fake")
    assert "no base class provides it, so calls behave differently" in render_markdown(
        a.model, "en"
    )


def test_headline_follows_proven_and_the_verdict_names_the_input(tmp_path):
    a = _run(tmp_path, "35847")
    en, zh = render_markdown(a.model, "en"), render_markdown(a.model, "zh")
    one_line = next(ln for ln in en.splitlines() if ln.startswith("- **One line**"))
    assert "collapses duplicated branches" not in one_line.lower()
    assert "not proven equivalent" in one_line
    assert "合并重复分支" not in next(ln for ln in zh.splitlines() if ln.startswith("- **一句话**"))
    verdict = next(ln for ln in en.splitlines() if ln.startswith("- **Verdict**"))
    # one sentence with the input now answered otherwise, first among what changes
    assert re.search(
        r"What changes: for `class_type == KVClassType\.KVARGS and transfer_backend not in \([^`]+\)`, "
        r"`get_kv_class` now does `return KVArgs` instead of `raise ValueError\(",
        verdict,
    ), verdict
    assert "当 `class_type == KVClassType.KVARGS" in zh


def test_main_body_lists_show_five_and_fold_the_rest():
    from tests.corpus_texts import corpus_analysis

    snippets = render_markdown(corpus_analysis("uvicorn-587a1ccc").model, "en")
    section = _section(snippets, "Implementation breakdown")
    shown = section.split("<details>")[0]
    assert shown.count("\n### ") == 5 and "<summary>More snippets (1)</summary>" in section
    left = render_markdown(corpus_analysis("alembic-19d44660").model, "en")
    edits = _section(left, "Lines left to review")
    assert edits.split("<details>")[0].count("\n- `") == 5
    assert re.search(r"<summary>More edits left to review \(\d+\)</summary>", edits)
