"""Every cross-reference in a report resolves to something the report contains (issue 32 §2):
"see …", "above", "below", "under Risks" and their Chinese forms, in the Markdown report
(en, zh) and the PR comment of every corpus commit and of the seed PR.

Words the PR supplies (quoted description, claims' quotes, titles, code) are left out: only
prreport's own sentences are read. A phrase no rule knows fails the test, so a new
cross-reference needs a rule saying what it points at."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from prreport.render import render_markdown
from prreport.render.escape import md_text
from prreport.render.markdown import render_comment
from tests.corpus_texts import BUNDLES, corpus_analysis

pytestmark = pytest.mark.slow

CASES = sorted(p.name.removesuffix(".json.gz") for p in BUNDLES.glob("*.json.gz"))

Rule = tuple[re.Pattern[str], Callable[[str], bool]]


def _has(*needles: str) -> Callable[[str], bool]:
    return lambda text: all(n in text for n in needles)


def _risks(text: str) -> bool:
    return bool(re.search(r"^  1\. \*\*|^- \*\*.+\*\* \((low|medium|high)\)", text, re.M)) or bool(
        re.search(r"^  1\. \*\*|^- \*\*.+\*\*（[低中高]）", text, re.M)
    )


# (phrase, what must be in the same document for it to resolve)
RULES: list[Rule] = [
    (re.compile(r"\(under Risks\)|\bunder Risks\b"), _risks),
    (re.compile(r"the implicit contract under Risks"), _has("**Implicit contract**")),
    (re.compile(r"see the risk Import cycle not checked"), _has("**Import cycle not checked**")),
    (re.compile(r"\(see the risks\)"), _risks),
    (re.compile(r"\(see the verdict\)"), _has("**Verdict**")),
    (re.compile(r"listed below"), _has("<summary>Lines left to review")),
    (re.compile(r"Review the spots below"), _has("**Spots to look at**")),
    (re.compile(r"见“风险与影响”|“风险与影响”中的隐式契约"), _has("**隐式契约**")),
    (re.compile(r"见风险“导入环未能检查”"), _has("**导入环未能检查**")),
    (re.compile(r"见风险"), _risks),
    (re.compile(r"见结论"), _has("**结论**")),
    (re.compile(r"，见下"), _has("<summary>待审阅的行")),
    # prose that reads like a cross-reference but points at nothing in the document
    (
        re.compile(
            r"above low|cannot see reviews|高于\"低\"|高于“低”|见 JSON 报告|完整列表见报告文件"
        ),
        lambda _t: True,
    ),
    # zh "`kind` 见 `path:line`": 见 as "at" before a location (the code span is dropped)
    (re.compile(r"(?<=\s)见(?=\s*[、）]|\s*$)"), lambda _t: True),
]
SUSPECT = re.compile(r"\b(above|below|see)\b|见|上文|下文|下方|上方", re.I)


def _own_sentences(text: str, titles: tuple[str, ...]) -> list[str]:
    """The report's own lines: fences, block quotes, inline code, links and PR titles dropped."""
    text = re.sub(r"(?ms)^ *```.*?^ *```", "", text)
    text = re.sub(r"(?ms)^ *~~~.*?^ *~~~", "", text)
    for title in sorted(titles, key=len, reverse=True):
        text = text.replace(title, "")
    out = []
    for line in text.splitlines():
        if line.lstrip().startswith(">") or line.startswith(("- Title:", "- 标题：")):
            continue
        line = re.sub(r"(`+)(?:(?!\1).)*\1", "", line)  # inline code
        line = re.sub(r"\[[^\]]*\]\([^)]*\)", "", line)  # links (paths)
        out.append(line)
    return out


def unresolved(text: str, titles: tuple[str, ...] = ()) -> list[str]:
    """Cross-references in ``text`` that point at nothing it contains, or that no rule knows
    (``titles``: PR titles the text prints, which are the PR's words)."""
    bad = []
    for line in _own_sentences(text, titles):
        rest = line
        for pattern, resolves in RULES:
            if pattern.search(rest):
                if not resolves(text):
                    bad.append(f"{pattern.pattern!r} does not resolve: {line[:200]}")
                rest = pattern.sub("", rest)
        rest = re.sub(r"“[^”]*”", "", rest)  # quoted PR text
        if SUSPECT.search(rest):
            bad.append(f"no rule for: {line[:200]}")
    return bad


def _titles(model) -> tuple[str, ...]:
    return tuple(md_text(t) for t in [model.pr["title"], *(c["title"] for c in model.related)] if t)


def _documents(model) -> dict[str, str]:
    return {
        "md en": render_markdown(model, "en"),
        "md zh": render_markdown(model, "zh"),
        "comment en": render_comment(model, "en"),
        "comment zh": render_comment(model, "zh"),
    }


@pytest.mark.parametrize("case", CASES)
def test_corpus_report_cross_references_resolve(case: str) -> None:
    model = corpus_analysis(case).model
    for name, text in _documents(model).items():
        assert not unresolved(text, _titles(model)), (case, name, unresolved(text, _titles(model)))


def test_seed_report_cross_references_resolve(seed_repo) -> None:
    from prreport.config import Config, GitConfig
    from prreport.pipeline import analyse, gather
    from prreport.sources.git import GitSource

    repo, _base, _sha = seed_repo
    cfg = Config(git=GitConfig(repo=str(repo.path)))
    model = analyse(gather(GitSource("35980", cfg.git), cfg), cfg).model
    docs = _documents(model)
    for name, text in docs.items():
        assert not unresolved(text, _titles(model)), (name, unresolved(text, _titles(model)))
    # the references the seed does make are among those checked
    assert "(under Risks)" in docs["md en"] and "见“风险与影响”" in docs["md zh"]


def test_a_dangling_reference_is_caught() -> None:
    text = "# Report\n\n- Impact: the walk did not finish: see the risk Import cycle not checked.\n"
    assert unresolved(text) and "does not resolve" in unresolved(text)[0]
    assert unresolved("- Something, as said above.\n") == [
        "no rule for: - Something, as said above."
    ]
    assert not unresolved("- Quoted: “see the code above” — fine.\n> see below\n")


def test_rules_are_read_from_real_phrases() -> None:
    """Each rule's phrase is one the templates print (a rule for no phrase would hide nothing)."""
    templates = "".join(
        p.read_text(encoding="utf-8")
        for p in (Path(__file__).resolve().parent.parent / "templates").rglob("*.j2")
    )
    for needle in (
        "under Risks",
        "see the risk Import cycle not checked",
        "见结论",
        "listed below",
    ):
        assert needle in templates, needle
