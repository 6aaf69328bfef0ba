"""Hostile PR text (issue #13 items 6-7) in every output: Markdown, HTML, JSON, the PR comment, the terminal."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from prreport.publish.body import neutralise_mentions
from prreport.publish.comment import comment_body
from prreport.render.escape import md_code, md_text, terminal_line, terminal_text
from tests.conftest import run_cli
from tests.hostile import EVIL_NAME, EVIL_TITLE, MENTIONS, hostile_bundle

STEM = "sgl-project-sglang-pr-35980"
# Whatever the PR says, a report has these headings and no other.
REPORT_HEADINGS = {
    "PR #35980 report",
    "Executive summary",
    "Motivation",
    "Implementation breakdown",
    "Key files",
    "Key symbols",
    "Key source snippets",
    "Review highlights",
    "Risks and impact",
    "Public API",
    "Claims checked",
    "Related PRs",
    "Diagnostics",
}
# Terminal control: C0 but tab/newline, DEL, C1, bidi overrides and isolates.
CONTROL_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
WORKFLOW_COMMAND_RE = re.compile(r"^\s*::|##\[", re.MULTILINE)
LIVE_MENTION_RE = re.compile(r"@[A-Za-z0-9]")


@pytest.fixture(scope="module")
def evil(seed_repo, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seed PR saved as a bundle, with hostile text planted everywhere a PR supplies it."""
    repo, _base, _sha = seed_repo
    tmp = tmp_path_factory.mktemp("hostile")
    saved = tmp / "seed.json"
    res = run_cli(
        "35980", "--repo", str(repo.path), "--save-bundle", str(saved), "--out", str(tmp), "-q"
    )
    assert res.returncode == 0, res.stderr
    return hostile_bundle(saved, tmp / "evil.json")


@pytest.fixture(scope="module")
def rendered(evil: Path, tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("hostile-out")
    res = run_cli("--bundle", str(evil), "--format", "md,html,json", "--out", str(out))
    assert res.returncode == 0, res.stderr
    return res, out


def _headings(markdown: str) -> set[str]:
    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    return {
        tokens[i + 1].content.strip()
        for i, t in enumerate(tokens)
        if t.type == "heading_open" and t.map is not None
    }


def _link_targets(markdown: str) -> list[str]:
    tokens = MarkdownIt("commonmark", {"html": True}).enable("table").parse(markdown)
    hrefs = []
    for t in tokens:
        for c in t.children or []:
            if c.type == "link_open":
                hrefs.append(str(c.attrs.get("href")))
    return hrefs


def test_hostile_names_cannot_add_headings_links_or_controls_to_markdown_and_html(rendered):
    _res, out = rendered
    md = (out / f"{STEM}.md").read_text(encoding="utf-8")
    page = (out / f"{STEM}.html").read_text(encoding="utf-8")
    headings = _headings(md)
    # Snippet headings name the file (spelt out) and its lines; no other heading may appear.
    extra = {h for h in headings - REPORT_HEADINGS if not re.search(r" lines \d+–\d+$", h)}
    assert extra == set()
    assert not any(h.startswith(("VERDICT", "fake heading", "CR heading")) for h in headings)
    assert not [h for h in _link_targets(md) if "evil.example" in h]
    assert not re.search(r"""href=["'][^"']*evil\.example""", page)
    assert not re.search(r"<h\d[^>]*>[^<]*(VERDICT|fake heading|injected)", page)
    # The name is still shown, spelt out on one line, where the report names the file.
    assert md_code(EVIL_NAME) in md
    for text in (md, page):
        assert not CONTROL_RE.search(text), CONTROL_RE.search(text)


def test_json_keeps_the_hostile_strings_exactly(rendered):
    _res, out = rendered
    data = json.loads((out / f"{STEM}.json").read_text(encoding="utf-8"))
    assert EVIL_NAME in [f["path"] for f in data["files"]]
    assert data["pr"]["title"] == EVIL_TITLE


def test_stdout_and_stderr_carry_no_workflow_command_and_no_terminal_control(rendered):
    res, _out = rendered
    assert "VERDICT" in res.stdout  # the report was printed
    for stream in (res.stdout, res.stderr):
        assert not WORKFLOW_COMMAND_RE.search(stream), WORKFLOW_COMMAND_RE.search(stream)
        assert not CONTROL_RE.search(stream), CONTROL_RE.search(stream)


def test_an_error_naming_a_hostile_path_is_one_safe_line(tmp_path):
    res = run_cli("--bundle", str(tmp_path / "x\n::error::pwned\x1b[2J.json"), cwd=tmp_path)
    assert res.returncode == 2
    assert res.stderr.startswith("error: ") and res.stderr.count("\n") == 1, res.stderr
    assert not WORKFLOW_COMMAND_RE.search(res.stderr) and not CONTROL_RE.search(res.stderr)


def _live_mentions(markdown: str) -> list[str]:
    """``@name`` that GitHub would link: in text and raw HTML after entity decoding, not in code."""
    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    found = []
    for t in md.parse(markdown):
        if t.type == "html_block":
            found += LIVE_MENTION_RE.findall(html.unescape(t.content))
        for c in t.children or []:
            # markdown-it has decoded the entities of text already; raw HTML is decoded by GitHub.
            if c.type in ("text", "html_inline"):
                text = html.unescape(c.content) if c.type == "html_inline" else c.content
                found += [
                    m for m in re.findall(r"@[A-Za-z0-9][\w-]*", text) if m[1:].startswith(MENTIONS)
                ]
    return found


def test_pr_comment_has_no_live_mention_from_names_entities_or_injected_fences(evil, tmp_path):
    res = run_cli(
        "comment",
        "35980",
        "--bundle",
        str(evil),
        "--github",
        "sgl-project/sglang",
        "--dry-run",
        cwd=tmp_path,
    )
    assert res.returncode == 0, res.stderr
    assert "@" in res.stdout
    assert _live_mentions(res.stdout) == []
    assert not WORKFLOW_COMMAND_RE.search(res.stdout)


@pytest.mark.parametrize(
    "text",
    [
        "cc &#64;admin and &#x40;root and &commat;owner and &#0064;boss",
        "@&#97;dmin",
        # an HTML block: GitHub renders the "fence" as text, so its mention is live
        "intro\n<details>\n```\n@admin\n```\n</details>\n",
        # an unclosed fence: not a code block the neutraliser may skip
        "text\n\n```\n@admin",
        # a lone CR is a line break to GitHub: the fence line hides behind it
        "a\r```\r@admin\r```",
    ],
)
def test_neutraliser_is_not_fooled(text):
    assert _live_mentions(comment_body(text, "x")) == []
    assert _live_mentions(neutralise_mentions(text)) == []


def test_a_real_code_block_keeps_its_decorators():
    text = "Snippet:\n\n```python\n@dataclass\nclass A: ...\n```\n"
    assert neutralise_mentions(text) == text


def test_escaping_functions():
    assert md_text("a\nb\r# c [x](y) &#64;z") == r"a b \# c \[x\](y) \&\#64;z"
    assert md_code("a`b\nc") == "``a`b\\nc``"
    assert terminal_line("x\n::error::y\x1b[2J\u202e") == "x\\n::error::y\\x1b[2J\\u202e"
    assert (
        terminal_text("ok\n  ::warning::w\n##[group]g\x07")
        == "ok\n  \\::warning::w\n#\\#[group]g\\x07"
    )


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_out_dash_prints_a_safe_file_and_json_stays_the_same_value(evil, rendered, fmt):
    _res, out = rendered
    res = run_cli("--bundle", str(evil), "--format", fmt, "--out", "-")
    assert res.returncode == 0, res.stderr
    assert not WORKFLOW_COMMAND_RE.search(res.stdout)
    assert not CONTROL_RE.search(res.stdout), CONTROL_RE.search(res.stdout)
    if fmt == "json":
        saved = json.loads((out / f"{STEM}.json").read_text(encoding="utf-8"))
        printed = json.loads(res.stdout)
        printed.pop("generated_at", None), saved.pop("generated_at", None)
        assert printed == saved


def test_a_dunder_in_quoted_pr_text_is_a_name_not_bold():
    from prreport.render import markdown_to_html_fragment
    from prreport.render.escape import md_quote

    quoted = md_quote("Call __init__ once, not `__init__` twice:\n```\nobj.__init__()\n```")
    html = markdown_to_html_fragment(quoted)
    assert "<strong>" not in html
    assert html.count("__init__") == 3


def test_sarif_of_hostile_text_is_safe_on_stdout_and_the_same_value(evil, tmp_path):
    """SARIF is JSON: on stdout its controls are JSON escapes, never raw, and it parses to the
    file's value; file names stay exact in the URIs (percent-encoded)."""
    res = run_cli("--bundle", str(evil), "--format", "sarif", "--out", "-")
    assert res.returncode == 0, res.stderr
    assert not WORKFLOW_COMMAND_RE.search(res.stdout)
    assert not CONTROL_RE.search(res.stdout), CONTROL_RE.search(res.stdout)
    printed = json.loads(res.stdout)
    run_cli("--bundle", str(evil), "--format", "sarif", "--out", str(tmp_path), "-q")
    (saved,) = tmp_path.glob("*.sarif")
    assert printed == json.loads(saved.read_text(encoding="utf-8"))


def test_annotations_of_hostile_text_are_one_command_each(evil):
    """Every line printed in Actions is one of our workflow commands; a hostile name or title
    inside one cannot end it or start another (GitHub's escaping, controls spelt out)."""
    res = run_cli(
        "--bundle", str(evil), "--out", "-", "--format", "json", env={"GITHUB_ACTIONS": "true"}
    )
    assert res.returncode == 0, res.stderr
    commands = [ln for ln in res.stderr.splitlines() if ln.startswith("::")]
    assert commands, res.stderr
    for line in commands:
        assert re.match(r"^::(warning|notice) file=[^,:]*(,line=\d+)?,title=[^,:]*::", line), line
        assert not CONTROL_RE.search(line) and "\n" not in line
    assert not WORKFLOW_COMMAND_RE.search(res.stdout)
