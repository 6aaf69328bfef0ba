"""Claims of the PR text (English and Chinese) answered by findings: verified and refuted."""

from __future__ import annotations

from typing import Any

from prreport.findings import Finding
from prreport.report.claims import claims_of

TARGET = "sglang.srt.disaggregation.common.staging_handler"
TARGET_PATH = "python/sglang/srt/disaggregation/common/staging_handler.py"
IMPORTS_STDLIB_TORCH = [
    "__future__",
    "dataclasses",
    "logging",
    "threading",
    "time",
    "torch",
    "typing",
]

BODY_EN = """## Motivation

`handle_watermark_msg` was imported inside the prefill bootstrap `while True` loop, so the
import statement ran once per matching WATERMARK message. There is no circular-import reason:
`common/staging_handler.py` imports only the standard library and torch at module level,
nothing from sglang.

- Deliberately left lazy: `FINISH_ABORT` (inside `except ValueError`, a plausible import cycle).
- [x] no behaviour change
"""

BODY_ZH = """## 动机

handle_watermark_msg 此前在 bootstrap 循环内导入，每条消息执行一次。common/staging_handler.py
模块级只依赖标准库与 torch，不存在循环依赖。本 PR 是纯重构，无行为变化。decode.py 的
FINISH_ABORT 有意保留惰性导入。
"""


def safe(imports: list[str], first_party: list[str] | None = None) -> Finding:
    details: dict[str, Any] = {
        "target_module": TARGET,
        "target_path": TARGET_PATH,
        "target_imports": first_party or [],
        "target_module_imports": imports,
    }
    return Finding("cycle.safe", "python/sglang/mooncake/conn.py", 7, TARGET, "safe", details)


LOOP = Finding(
    "loop.imports-removed",
    "python/sglang/mooncake/conn.py",
    31,
    "MooncakeKVManager.start_prefill_thread.<locals>.bootstrap_thread",
    "loop no longer imports",
    {"loop": "while True", "before": 2, "after": 0},
)
LAZY = Finding(
    "lazy-import.retained",
    "python/sglang/decode_schedule_batch_mixin.py",
    10,
    "FINISH_ABORT",
    "kept lazy",
    {"reason": "cycle-avoidance", "guard": "except ValueError", "named_in_description": True},
)
UNCHANGED = Finding("behavior.unchanged", "python/sglang/mooncake/conn.py", 27, "f", "same")


def by_id(claims: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in claims}


def test_english_claims_verified_with_the_facts_that_prove_them():
    findings = [safe(IMPORTS_STDLIB_TORCH), LOOP, LAZY, UNCHANGED]
    claims = by_id(claims_of("refactor: hoist imports", BODY_EN, findings, "pure-refactor"))
    # "circular-import" with a hyphen is the claim, not noise.
    assert claims["no-import-cycle"]["status"] == "supported"
    only = claims["imports-only"]
    assert only["status"] == "supported"
    assert only["fact"]["module"] == TARGET
    assert only["fact"]["imports"] == IMPORTS_STDLIB_TORCH
    assert only["fact"]["allowed_stdlib"] is True and only["fact"]["allowed"] == ["torch"]
    assert claims["in-loop-import"]["status"] == "supported"
    assert claims["in-loop-import"]["fact"]["loops"][0]["before"] == 2
    assert claims["kept-lazy"]["fact"]["imports"][0]["reason"] == "cycle-avoidance"
    assert claims["no-behavior-change"]["status"] == "supported"
    assert claims["no-behavior-change"]["quote"] == "no behaviour change"


def test_imports_only_refuted_by_a_first_party_or_other_import():
    findings = [safe([*IMPORTS_STDLIB_TORCH, "numpy", "sglang.srt.utils"], ["sglang.srt.utils"])]
    only = by_id(claims_of("t", BODY_EN, findings, "pure-refactor"))["imports-only"]
    assert only["status"] == "contradicted"
    assert only["fact"]["outside"] == ["numpy", "sglang.srt.utils"]


def test_cycle_claim_refuted_by_a_cycle_and_unchecked_when_the_walk_did_not_finish():
    risk = Finding("cycle.risk", "a.py", 3, TARGET, "cycle", {"chain": ["a", "b", "a"]})
    claims = by_id(claims_of("t", BODY_EN, [risk], "behavior-change"))
    assert claims["no-import-cycle"]["status"] == "contradicted"
    assert claims["no-import-cycle"]["fact"]["chains"] == [["a", "b", "a"]]
    unchecked = Finding("cycle.unchecked", "a.py", 3, TARGET, "?", {"missing": ["sglang.srt.x"]})
    claims = by_id(claims_of("t", BODY_EN, [unchecked], "unknown"))
    assert claims["no-import-cycle"]["status"] == "not-checkable"
    assert claims["no-import-cycle"]["fact"]["missing"] == ["sglang.srt.x"]
    # Without the target's imports the "imports only" claim is not checkable, never supported.
    assert claims["imports-only"]["status"] == "not-checkable"


def test_behaviour_claim_refuted_by_a_change_and_not_checkable_on_an_unknown_verdict():
    changed = Finding("behavior.changed", "pkg/a.py", 9, "Session.send", "changed")
    claims = by_id(claims_of("t", BODY_EN, [changed], "behavior-change"))
    assert claims["no-behavior-change"]["status"] == "contradicted"
    assert claims["no-behavior-change"]["fact"]["symbols"] == ["Session.send"]
    claims = by_id(claims_of("t", BODY_EN, [UNCHANGED], "unknown"))
    assert claims["no-behavior-change"]["status"] == "not-checkable"


def test_chinese_claims_are_recognised_and_answered():
    findings = [safe(IMPORTS_STDLIB_TORCH), LOOP, LAZY, UNCHANGED]
    claims = by_id(claims_of("重构：提升导入", BODY_ZH, findings, "pure-refactor"))
    assert {
        "in-loop-import",
        "imports-only",
        "no-import-cycle",
        "pure-refactor",
        "kept-lazy",
    } <= set(claims)
    assert claims["imports-only"]["status"] == "supported"
    assert claims["imports-only"]["fact"]["allowed"] == ["torch"]
    assert claims["no-import-cycle"]["quote"].endswith("不存在循环依赖。")
    assert claims["pure-refactor"]["status"] == "supported"


def test_dead_code_and_move_claims():
    dead = Finding("code.dead-removed", "pkg/a.py", 4, "old_helper", "dead", {"proven": True})
    body = "Remove dead code: `old_helper` is never called. Move `parse` to utils."
    claims = by_id(claims_of("cleanup", body, [dead], "pure-refactor"))
    assert claims["dead-code"]["status"] == "supported"
    # The PR says something moved and the analyzers found no move: said, not verified.
    assert claims["moved"]["status"] == "not-checkable"
    unresolved = Finding("names.unresolved", "pkg/b.py", 8, "old_helper", "unresolved")
    claims = by_id(claims_of("cleanup", body, [dead, unresolved], "behavior-change"))
    assert claims["dead-code"]["status"] == "contradicted"
    broken = Finding("symbol.moved", "pkg/utils.py", 1, "parse", "moved", {"behavior_change": True})
    claims = by_id(claims_of("cleanup", body, [broken], "behavior-change"))
    assert claims["moved"]["status"] == "contradicted"


def test_ordinary_feature_text_makes_no_claim():
    body = "Add a `--timeout` option to the client and document it in the README."
    assert claims_of("feat: timeout option", body, [], "behavior-change") == []


def test_commit_trailers_are_never_the_motivation():
    from prreport.render import extract_motivation

    body = "Hoist the parser import: it ran per call.\n\nCo-authored-by: A <a@example.com>\nSigned-off-by: B <b@example.com>"
    got = extract_motivation(body)
    assert got["sections"] == [{"heading": "", "text": "Hoist the parser import: it ran per call."}]
    assert extract_motivation("Signed-off-by: B <b@example.com>")["source"] == "none"


def test_seed_report_verifies_what_staging_handler_imports(seed_repo):
    from prreport.config import Config, GitConfig
    from prreport.pipeline import analyse, gather
    from prreport.render import render_markdown
    from prreport.sources.git import GitSource
    from tests.fixtures import seed_pr

    repo, _base, _sha = seed_repo
    cfg = Config(git=GitConfig(repo=str(repo.path)))
    model = analyse(gather(GitSource(str(seed_pr.PR_NUMBER), cfg.git), cfg), cfg).model
    only = by_id(list(model.claims))["imports-only"]
    assert only["status"] == "supported"
    assert only["fact"]["imports"] == [
        "dataclasses",
        "logging",
        "threading",
        "time",
        "torch",
        "typing",
    ]
    md = render_markdown(model, "en")
    assert (
        "**verified**: `sglang.srt.disaggregation.common.staging_handler`'s module-level imports are "
        "`dataclasses`, `logging`, `threading`, `time`, `torch` and `typing`; no first-party import"
    ) in md


def test_a_contradiction_without_names_never_reads_changes_in_nothing():
    from prreport.render.templates import environment

    claim = {"id": "no-behavior-change", "status": "contradicted", "fact": {"symbols": []}}
    for lang, want in (("en", "behaviour changes"), ("zh", "行为发生变化")):
        macros = environment().get_template(f"{lang}/text.md.j2").module
        assert str(macros.claim_fact(claim)) == want  # type: ignore[attr-defined]


def test_a_move_claim_is_answered_by_the_rename_it_describes():
    """psf/requests aa1461b6: "Move _get_connection to get_connection_with_tls_context" is a
    rename in the same class; the claim is verified by it, and said to be a rename."""
    rename = Finding(
        "symbol.renamed",
        "src/requests/adapters.py",
        377,
        "HTTPAdapter.get_connection_with_tls_context",
        "renamed",
        {"old_qualname": "HTTPAdapter._get_connection", "call_sites_updated": True},
    )
    unrelated = Finding(
        "symbol.renamed",
        "src/requests/utils.py",
        9,
        "to_native",
        "renamed",
        {"old_qualname": "nat"},
    )
    title = "Move _get_connection to get_connection_with_tls_context"
    claims = by_id(claims_of(title, "", [rename, unrelated], "pure-refactor"))
    assert claims["moved"]["status"] == "supported"
    assert claims["moved"]["fact"]["as"] == ["renamed"]
    assert claims["moved"]["fact"]["symbols"] == ["HTTPAdapter.get_connection_with_tls_context"]
    # a rename the text does not name answers nothing
    claims = by_id(claims_of(title, "", [unrelated], "pure-refactor"))
    assert claims["moved"]["status"] == "not-checkable"


def test_subjects_that_are_claims_are_checked():
    # issue 32 §4: these got "No checkable claim".
    dead = Finding("code.dead-removed", "pkg/a.py", 4, "_helper", "dead", {"proven": True})
    for title in (
        "Remove unused private function",
        "Removed an unused internal class",
        "Remove unused get_foo()",
    ):
        assert (
            by_id(claims_of(title, "", [dead], "pure-refactor"))["dead-code"]["status"]
            == "supported"
        )
    sunk = Finding("import.sunk", "pkg/a.py", 9, "torch", "sunk")
    for title in ("Lazy import of torch", "make torch import lazy"):
        assert (
            by_id(claims_of(title, "", [sunk], "pure-refactor"))["made-lazy"]["status"]
            == "supported"
        )
    hoisted = Finding("import.hoisted", "pkg/a.py", 1, "torch", "hoisted")
    assert (
        by_id(claims_of("make torch import lazy", "", [hoisted], "pure-refactor"))["made-lazy"][
            "status"
        ]
        == "contradicted"
    )
    assert "moved" in by_id(claims_of("Move `name` to utils", "", [], "pure-refactor"))
    kept = by_id(claims_of("tidy", "Two lazy imports are kept on purpose.", [], "pure-refactor"))
    assert "kept-lazy" in kept and "made-lazy" not in kept


def test_in_loop_claim_counts_imports_of_exclusive_branches_once(seed_repo):
    # The two imports sit in branches that each end with `continue`: at most one ran per
    # iteration ("once per matching message", as the PR says), not two.
    from prreport.config import Config, GitConfig
    from prreport.pipeline import analyse, gather
    from prreport.render import render_markdown
    from prreport.sources.git import GitSource
    from tests.fixtures import seed_pr

    repo, _base, _sha = seed_repo
    cfg = Config(git=GitConfig(repo=str(repo.path)))
    model = analyse(gather(GitSource(str(seed_pr.PR_NUMBER), cfg.git), cfg), cfg).model
    loops = by_id(list(model.claims))["in-loop-import"]["fact"]["loops"]
    assert [(lp["before"], lp["per_iteration"]) for lp in loops] == [(2, 1), (2, 1)]
    text = " ".join(render_markdown(model, "en").split())
    assert (
        "held 2 import statements in exclusive branches, at most 1 run per iteration before, 0 now"
        in text
    )
    assert "每次迭代至多执行 1 条" in render_markdown(model, "zh")
