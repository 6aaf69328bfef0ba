"""Issue 16: snippets as diff hunks, less noise, readable scope names, and the HTML page."""

from __future__ import annotations

import ast
import dataclasses
import json
import re
import textwrap

from prreport.bundle import PullRequestBundle, PullRequestMeta
from prreport.findings import Finding
from prreport.render import render_html, render_json, render_markdown
from prreport.report.build import build_model
from prreport.report.ledger import ledger_of
from prreport.report.snippets import snippets_of
from tests.test_report import CONFIG, MOONCAKE, NIXL, PKG, _change, hand_built


def _sides(diff: str) -> tuple[str, str]:
    """The before and after texts a hunk shows (``...`` lines kept: they are Python too)."""
    before, after = [], []
    for line in diff.splitlines():
        tag, text = line[:1], line[1:]
        if tag in (" ", "-"):
            before.append(text)
        if tag in (" ", "+"):
            after.append(text)
    return "\n".join(before), "\n".join(after)


def _parses(text: str) -> bool:
    try:
        ast.parse(textwrap.dedent(text) + "\n")
    except SyntaxError:
        return False
    return True


def _model(extra: list[Finding] | None = None, **pr_changes: object):
    bundle, findings, diags = hand_built()
    if pr_changes:
        bundle = dataclasses.replace(bundle, pr=dataclasses.replace(bundle.pr, **pr_changes))
    return build_model(bundle, findings + (extra or []), diags, CONFIG)


# --- snippets ------------------------------------------------------------------------------


def test_loop_snippet_is_a_diff_showing_the_removed_in_loop_imports():
    model = _model()
    loop = next(
        s for s in model.snippets if s["path"] == MOONCAKE and s["caption_facts"]["kind"] == "loop"
    )
    lines = loop["diff"].splitlines()
    removed = [ln for ln in lines if ln.startswith("-")]
    assert any(
        "from sglang.srt.disaggregation.common.staging_handler import (" in ln for ln in removed
    )
    assert any(
        ln.strip() == "-    handle_watermark_msg," or "handle_watermark_msg," in ln
        for ln in removed
    )
    assert any(ln.strip() == "..." for ln in lines), "unchanged code is elided"
    # The headers of the blocks the change sits in are shown: the def, the loop, the branch.
    assert lines[0] == " def bootstrap_thread():"
    assert " " * 5 + "while True:" in lines and any('if room == "WATERMARK":' in ln for ln in lines)
    # Both sides of the hunk are whole statements: each parses on its own.
    before, after = _sides(loop["diff"])
    assert _parses(before) and _parses(after)
    assert "import" not in after
    block = next(s for s in model.snippets if s["caption_facts"]["kind"] == "import-block")
    assert [ln for ln in block["diff"].splitlines() if ln.startswith("+")] == [
        "+    handle_staging_rsp,",
        "+    handle_watermark_msg,",
    ]


def test_every_snippet_hunk_is_whole_statements_on_both_sides():
    for snippet in _model().snippets:
        before, after = _sides(snippet["diff"])
        assert _parses(before) and _parses(after), snippet["diff"]


_BEFORE = '''import logging


def serve(sock, table):
    """Serve forever."""
    while True:
        msg = sock.recv()
        config = {
            "a": 1,
            "b": 2,
            "c": 3,
        }
        if msg == "X":
            from pkg.handlers import handle_x

            handle_x(
                msg,
                config,
            )
            continue
        table.update(
            msg=msg,
            config=config,
        )
        logging.info("done %s", msg)
'''
_AFTER = _BEFORE.replace(
    "import logging\n", "import logging\n\nfrom pkg.handlers import handle_x\n"
).replace("            from pkg.handlers import handle_x\n\n", "")


def test_a_hunk_is_never_cut_inside_a_multi_line_expression():
    path = "pkg/serve.py"
    change = _change(path, _BEFORE, _AFTER)
    bundle = PullRequestBundle(
        source="git",
        pr=PullRequestMeta(
            repo="o/n", number=1, title="t", body="", author="a", base_sha="b", head_sha="h"
        ),
        files=(change,),
    )
    loop_line = _AFTER.splitlines().index("    while True:") + 1
    finding = Finding(
        "loop.imports-removed",
        path,
        loop_line,
        "serve",
        "loop no longer imports",
        {"loop": "while True", "scope": "serve", "before": 1, "after": 0, "after_line": loop_line},
    )
    for max_lines in (40, 9, 6):
        ledger = ledger_of(bundle, [finding], [])
        (snippet,) = snippets_of(ledger, [finding], max_lines=max_lines, max_snippets=3)
        diff = snippet["diff"]
        if max_lines > 6:
            assert "-            from pkg.handlers import handle_x" in diff
        before, after = _sides(diff)
        assert _parses(before) and _parses(after), diff
        assert len(diff.splitlines()) <= max(max_lines, 1) or not snippet["diff_truncated"]
        # The call after the removed import is shown whole (its closing parenthesis too).
        if "handle_x(" in diff:
            assert "         )" in diff or "    )" in diff


def test_snippet_without_a_matching_patch_falls_back_to_the_after_code():
    bundle, findings, diags = hand_built()
    files = tuple(dataclasses.replace(f, patch="") for f in bundle.files)
    model = build_model(dataclasses.replace(bundle, files=files), findings, diags, CONFIG)
    assert all(s["diff"] == "" for s in model.snippets)
    md = render_markdown(model, "en")
    assert "```python" in md and "```diff" not in md


def test_markdown_shows_the_snippets_as_diff_blocks_in_both_languages():
    model = _model()
    for lang in ("en", "zh"):
        md = render_markdown(model, lang)
        assert md.count("```diff") == 4
        assert "-            from sglang.srt.disaggregation.common.staging_handler import (" in md


# --- less noise ----------------------------------------------------------------------------

_UNRELATED = Finding(
    "lazy-import.retained",
    f"{PKG}/decode.py",
    40,
    "heavy_helper",
    "kept lazy",
    {
        "module": "sglang.srt.other.heavy",
        "name": "heavy_helper",
        "scope": "Decoder.<locals>.warm_up",
        "reason": "hoistable",
        "guard": "",
        "named_in_description": False,
    },
)
# A lazy import left in a changed file, in a function this PR did not touch.
_UNTOUCHED_IN_CHANGED_FILE = dataclasses.replace(
    _UNRELATED,
    path=MOONCAKE,
    line=60,
    symbol="other_helper",
    details={**_UNRELATED.details, "name": "other_helper", "scope": "MooncakeKVManager.close"},
)


def test_unrelated_lazy_imports_go_to_a_collapsed_appendix_and_stay_in_the_json():
    model = _model([_UNRELATED, _UNTOUCHED_IN_CHANGED_FILE])
    for lang, word in (("en", "# Appendix"), ("zh", "# 附录")):
        md = render_markdown(model, lang)
        head = "# Implementation breakdown" if lang == "en" else "# 实现拆解"
        breakdown = md[md.index(head) : md.index("## ")]
        assert "heavy_helper" not in breakdown and "other_helper" not in breakdown
        appendix = md[md.index(word) :]
        assert appendix.count("<details>") == 1 and "</details>" in appendix
        assert "`heavy_helper`" in appendix and "`other_helper`" in appendix
        # The lazy imports the PR names stay in the breakdown.
        assert "`FINISH_ABORT`" in breakdown and "`dsv4_state_payloads`" in breakdown
        page = render_html(model, lang)
        assert '<details class="appendix"><summary>' in page
        assert "&lt;details&gt;" not in page
    retained = json.loads(render_json(model, stamped=False))["breakdown"]["retained"]
    touching = {x["symbol"]: x["touches_diff"] for x in retained}
    assert touching == {
        "dsv4_state_payloads": True,
        "FINISH_ABORT": True,
        "heavy_helper": False,
        "other_helper": False,
    }


def test_no_appendix_when_every_lazy_import_is_related():
    md = render_markdown(_model(), "en")
    assert "Other function-local imports" not in md and "# Appendix" not in md


def test_key_files_are_merged_into_the_breakdown():
    for lang in ("en", "zh"):
        md = render_markdown(_model(), lang)
        assert "## Key files" not in md and "## 关键文件" not in md
        # each source file is one breakdown item: its link, counts, module and change type
        items = re.findall(
            r"^\d+\. \*\*\[`[^`]+`\]\([^)]+\) ?[(（][^)）]+[)）]\*\* ?[(（]([^)）]+)[)）][:：] ?(.+)$",
            md,
            re.M,
        )
        assert len(items) == 2 and all("sglang.srt.disaggregation" in key for key, _ in items)
        items = [text for _key, text in items]
        for text in items:
            assert md.count(text) == 1, f"repeated: {text}"
        lines = [
            ln for ln in md.splitlines() if len(ln) > 60 and not ln.startswith((" ", "+", "-  "))
        ]
        assert len(lines) == len(set(lines))


def test_key_file_symbols_are_only_symbols_the_diff_touches():
    model = _model([_UNTOUCHED_IN_CHANGED_FILE])
    moon = next(f for f in model.files if f.path == MOONCAKE)
    assert "other_helper" not in moon.symbols
    assert "handle_watermark_msg" in moon.symbols


def test_nested_scopes_read_as_words_not_locals():
    model = _model()
    en, zh = render_markdown(model, "en"), render_markdown(model, "zh")
    assert "<locals>" not in en and "<locals>" not in zh
    assert "the `bootstrap_thread` nested in `start_prefill_thread`" in en
    assert "`start_prefill_thread` 内嵌的 `bootstrap_thread`" in zh


# --- links ---------------------------------------------------------------------------------


def test_links_to_github_when_the_repository_is_known():
    md = render_markdown(_model(), "en")
    sha = "2" * 40
    assert f"https://github.com/sgl-project/sglang/commit/{sha}" in md
    assert f"https://github.com/sgl-project/sglang/blob/{sha}/{NIXL}#L4-L9" in md


def test_no_links_when_the_repository_is_a_folder_name():
    md = render_markdown(_model(repo="sglang", url=""), "en")
    assert "/blob/" not in md and "/commit/" not in md


# --- the HTML page -------------------------------------------------------------------------


def test_page_has_contents_ids_severity_colours_and_a_diff_view():
    model = _model()
    for lang in ("en", "zh"):
        page = render_html(model, lang)
        ids = re.findall(r'<h[12] id="(sec-\d+)"', page)
        toc = re.findall(r'<a href="#(sec-\d+)"', page)
        assert toc and toc == ids[1:], "every heading but the title is in the contents"
        assert page.index('<nav class="toc">') < page.index('id="sec-1"')
        assert page.count('<li class="risk risk-medium">') == 2
        assert page.count('<li class="risk risk-low">') == 2
        assert '<span class="line del">-            from sglang' in page
        assert '<span class="line add">+    handle_staging_rsp,</span>' in page
        assert '<details class="section" open=""><summary><h2 id=' in page
        assert "prefers-color-scheme: dark" in page and 'name="viewport"' in page
        assert "Content-Security-Policy" in page and "default-src 'none'" in page


def test_pr_text_cannot_open_a_details_block_or_set_ids():
    body = "## Motivation\n\n<details>\n<summary>evil</summary>\n\n</details>\n"
    model = _model(body=body, title="<details>\n<summary>t</summary>")
    for lang in ("en", "zh"):
        page = render_html(model, lang)
        assert "<summary>evil" not in page and "<summary>t<" not in page
        assert "&lt;details&gt;" in page
