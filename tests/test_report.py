"""The report: every section of the seed in en and zh, as Markdown, HTML and JSON.

Two inputs: a hand-built bundle with findings written per the finding contract (so the
golden files do not move while analyzers land), and the seed fixture repository through
the real pipeline (section structure, sanitising, offline review wording).
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
from pathlib import Path

import pytest

from prreport.bundle import CheckResult, Comment, FileChange, PullRequestBundle, PullRequestMeta, RelatedCandidate
from prreport.config import Config, ReportConfig
from prreport.findings import Diagnostic, Finding
from prreport.model import build_model
from prreport.pipeline import analyse, gather
from prreport.render import extract_motivation, render_html, render_json, render_markdown
from prreport.sources.git import GitSource
from tests.fixtures import seed_pr

GOLDEN = Path(__file__).parent / "golden"
SEED_REPORT = Path("/work/shared/seed/pr-35980-report.zh.md")
PKG = seed_pr.PKG
MOONCAKE = f"{PKG}/mooncake/conn.py"
NIXL = f"{PKG}/nixl/conn.py"
STAGING = "sglang.srt.disaggregation.common.staging_handler"

# Section headings of the seed report, in its order (levels 1-2), and their English equivalents.
ZH_SECTIONS = ["执行摘要", "功能与动机", "实现拆解", "关键文件", "关键符号", "关键源码片段", "评论区精华", "风险与影响", "关联脉络"]
EN_SECTIONS = [
    "Executive summary",
    "Motivation",
    "Implementation breakdown",
    "Key files",
    "Key symbols",
    "Key source snippets",
    "Review highlights",
    "Risks and impact",
    "Related PRs",
]


# --- the hand-built case -------------------------------------------------------------------


def _line(text: str, needle: str, start: int = 1) -> int:
    """1-based number of the first line at or after ``start`` containing ``needle``."""
    for i, line in enumerate(text.splitlines()[start - 1 :], start):
        if needle in line:
            return i
    raise AssertionError(f"{needle!r} not found")


def _patch(before: str, after: str, path: str) -> str:
    return "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True), f"a/{path}", f"b/{path}", n=3))


def _change(path: str, before: str, after: str) -> FileChange:
    patch = _patch(before, after, path)
    adds = sum(1 for ln in patch.splitlines() if ln.startswith("+") and not ln.startswith("+++"))
    dels = sum(1 for ln in patch.splitlines() if ln.startswith("-") and not ln.startswith("---"))
    return FileChange(path, "modified", adds, dels, patch=patch, before=before, after=after)


def _hoist_findings(path: str, before: str, after: str, scope: str, guard: str | None) -> list[Finding]:
    """What the import, loop, guard, behaviour and cycle analyzers report for one backend file."""
    block = _line(after, f"from {STAGING} import (")
    loop_before, loop_after = _line(before, "while True:"), _line(after, "while True:")
    removed = [n for n, ln in enumerate(before.splitlines(), 1) if ln.startswith("-")]
    del removed
    out = []
    for name, room in (("handle_watermark_msg", "WATERMARK"), ("handle_staging_rsp", "STAGING_RSP")):
        imp = _line(before, f"{name},", loop_before) - 1  # the "from ... import (" line in the loop
        to_line = _line(after, f"    {name},", block)
        call = _line(after, f"{name}(")
        ctx = ["while True", f'if room == "{room}"' if guard is None else f'if waiting_req_bytes[0] == b"{room}"']
        if guard:
            ctx.append(guard)
        out.append(
            Finding(
                "import.hoisted", path, to_line, name, f"{name} hoisted to module level",
                {"module": STAGING, "name": name, "alias": None, "from_scope": scope, "from_line": imp,
                 "from_context": ctx, "to_scope": "<module>", "to_line": to_line, "merged_into_existing": True,
                 "block_line": block},
                explains=((path, "-", imp), (path, "-", imp + 1), (path, "-", imp + 2), (path, "-", imp + 3), (path, "+", to_line)),
            )
        )
        guards = [{"kind": "loop", "text": "while True", "line": loop_after}]
        if guard:
            guards.append({"kind": "if", "text": guard, "line": call - 1})
        else:
            guards.append({"kind": "if", "text": f'room == "{room}"', "line": call - 1})
        out.append(
            Finding(
                "guard.preserved", path, call, name, "guards preserved",
                {"scope": scope, "call": after.splitlines()[call - 1].strip(), "before": guards, "after": guards},
            )
        )
    out.append(
        Finding(
            "loop.imports-removed", path, loop_after, scope, "loop no longer imports",
            {"loop": "while True", "scope": scope, "before": 2, "after": 0, "before_line": loop_before, "after_line": loop_after},
        )
    )
    outer = scope.split(".<locals>")[0]
    out.append(
        Finding(
            "behavior.unchanged", path, _line(after, f"def {outer.split('.')[-1]}("), outer, "equal modulo imports",
            {"before_line": _line(before, f"def {outer.split('.')[-1]}("), "after_line": _line(after, f"def {outer.split('.')[-1]}(")},
        )
    )
    out.append(
        Finding(
            "cycle.safe", path, block, STAGING, "target imports no first-party module",
            {"importer_module": path.removeprefix("python/").removesuffix(".py").replace("/", "."), "target_module": STAGING,
             "target_path": f"{PKG}/common/staging_handler.py", "target_imports": [], "chain": [], "depth": 1},
        )
    )
    return out


def hand_built() -> tuple[PullRequestBundle, list[Finding], list[Diagnostic]]:
    """The seed PR as a GitHub-style bundle (reviews, CI, related) with contract findings."""
    base = seed_pr.base_files()
    after = seed_pr.pr_files()
    files = (
        _change(MOONCAKE, base[MOONCAKE], after[MOONCAKE]),
        _change(NIXL, base[NIXL], after[NIXL]),
    )
    pr = PullRequestMeta(
        repo="sgl-project/sglang",
        number=seed_pr.PR_NUMBER,
        title=seed_pr.PR_TITLE,
        body=seed_pr.PR_BODY,
        author="hoister",
        base_sha="1" * 40,
        head_sha="2" * 40,
        url="https://github.com/sgl-project/sglang/pull/35980",
        labels=("run-ci",),
        created_at="2026-08-22T09:00:00Z",
        merged_at="2026-08-23T01:24:00Z",
        merged_by="hoister",
    )
    findings = _hoist_findings(MOONCAKE, base[MOONCAKE], after[MOONCAKE], "MooncakeKVManager.start_prefill_thread.<locals>.bootstrap_thread", None)
    findings += _hoist_findings(NIXL, base[NIXL], after[NIXL], "NixlKVManager._start_bootstrap_thread.<locals>.bootstrap_thread", "self.enable_staging")
    findings += [
        Finding(
            "contract.implicit", f"{PKG}/common/staging_handler.py", None, STAGING, "safe while it imports no sglang",
            {"module": STAGING, "forbidden": ["sglang"],
             "contract": f'[importlinter:contract:staging-handler-leaf]\nname = {STAGING} imports no sglang\ntype = forbidden\nsource_modules =\n    {STAGING}\nforbidden_modules =\n    sglang'},
        ),
        Finding(
            "lazy-import.retained", f"{PKG}/decode.py", _line(base[f"{PKG}/decode.py"], "import dsv4_state_payloads"),
            "dsv4_state_payloads", "kept lazy",
            {"module": "sglang.srt.hardware.npu_hooks", "name": "dsv4_state_payloads", "scope": "build_state_payloads",
             "reason": "platform-guard", "guard": "_is_npu and isinstance(pool, DeepSeekV4TokenToKVPool)",
             "named_in_description": True, "followup_diff": ""},
        ),
        Finding(
            "lazy-import.retained", f"{PKG}/decode_schedule_batch_mixin.py",
            _line(base[f"{PKG}/decode_schedule_batch_mixin.py"], "import FINISH_ABORT"), "FINISH_ABORT", "kept lazy",
            {"module": "sglang.srt.managers.schedule_batch", "name": "FINISH_ABORT",
             "scope": "ScheduleBatchDisaggregationDecodeMixin.process_prebuilt", "reason": "cycle-avoidance",
             "guard": "except ValueError", "named_in_description": True, "followup_diff": ""},
        ),
    ]
    bundle = PullRequestBundle(
        source="github",
        pr=pr,
        files=files,
        issue_comments=(Comment("issue_comment", "hoister", "/tag-and-rerun-ci", "2026-08-22T10:00:00Z"),),
        checks=(CheckResult("Base", "completed", "success"), CheckResult("Extra", "completed", "failure")),
        related=(
            RelatedCandidate(36030, "refactor(disagg): move _is_watermark_ready into StagingManagerMixin", "follow-up",
                             "", merged_at="2026-08-26T10:00:00Z", reasons=("references-this", "same-series"),
                             series="refactor(disagg)"),
            RelatedCandidate(35948, "refactor(disagg): hoist duplicated _handle_staging_req into a mixin", "predecessor",
                             "", merged_at="2026-08-20T10:00:00Z", reasons=("same-series", "same-files"),
                             series="refactor(disagg)", shared_files=(MOONCAKE,)),
            RelatedCandidate(35838, "refactor(disagg): remove unreferenced dead code", "same-series", "",
                             merged_at="2026-08-05T10:00:00Z", reasons=("same-series",), series="refactor(disagg)"),
        ),
        review_data_available=True,
        head_paths=tuple(sorted(base)),
    )
    return bundle, sorted(findings, key=Finding.sort_key), []


CONFIG = Config(report=ReportConfig(snippet_max_lines=30, max_snippets=4))


@pytest.fixture(scope="module")
def hand_model():
    bundle, findings, diags = hand_built()
    return build_model(bundle, findings, diags, CONFIG)


def _golden(request: pytest.FixtureRequest, name: str, text: str) -> None:
    path = GOLDEN / name
    if request.config.getoption("--update-golden"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"{path} missing: run pytest --update-golden"
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from the golden file (pytest --update-golden)"
