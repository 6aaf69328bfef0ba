"""The PR comment reads top-down (issue #19): badge, summary table, then collapsible sections."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from prreport.publish.comment import comment_body
from tests.conftest import run_cli

SHA_LINK_RE = re.compile(
    r"\]\((https://github\.com/sgl-project/sglang/blob/(?P<sha>[0-9a-f]{40})/(?P<path>[^)#]+)(?:#L(?P<line>\d+)(?:-L\d+)?)?)\)"
)


@pytest.fixture(scope="module")
def seed_comment(seed_repo, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """The #35980 comment as it would be posted (dry run), and the PR's head commit."""
    repo, _base, sha = seed_repo
    tmp = tmp_path_factory.mktemp("comment")
    res = run_cli(
        "comment",
        "35980",
        "--repo",
        str(repo.path),
        "--github",
        "sgl-project/sglang",
        "--fail-on",
        "cycle.risk",
        "--dry-run",
        cwd=tmp,
    )
    assert res.returncode == 0, res.stderr
    return res.stdout, sha


def test_comment_order_badge_table_then_details(seed_comment):
    body, _sha = seed_comment
    lines = body.split("\n")
    assert lines[0].startswith("<!-- prreport:report sha256=")
    assert lines[1].startswith("## ✅ Pure refactor")  # the badge, as an H2
    table = [i for i, ln in enumerate(lines) if ln.startswith("| **")]
    first_details = lines.index("<details>")
    assert table and 1 < table[0] < table[-1] < first_details
    rows = [lines[i].split("|")[1].strip() for i in table]
    assert rows == [
        "**Verdict**",
        "**Lines left to review**",
        "**Recommended action**",
        "**Spots to look at**",
        "**Gate** (`--fail-on cycle.risk`)",
    ]
    assert "✅ passes" in lines[table[-1]]
    summaries = re.findall(r"<summary>([^<(]+)", body)
    assert [s.strip() for s in summaries] == [
        "Claims checked",
        "Implementation breakdown",
        "Files",
        "Behaviour differences",
        "Imports left function-local",
        "Risks",
        "tests/test_staging_handler_imports.py",  # the contract's test, inside Risks
        "Related PRs",
    ]
    assert body.count("<details>") == body.count("</details>") == len(summaries)


def test_first_screen_fits_and_the_comment_is_small(seed_comment):
    body, _sha = seed_comment
    above = body.split("<details>")[0]
    assert above.count("\n") <= 25, above
    # issue 32: at most 10 KB, with the claims and the contract's test (the full report: ~16 KB)
    assert len(body.encode()) <= 10_240 and body.count("\n") < 130


def test_no_h1_and_no_motivation_echo(seed_comment):
    body, _sha = seed_comment
    tokens = MarkdownIt("commonmark", {"html": True}).enable("table").parse(body)
    assert {t.tag for t in tokens if t.type == "heading_open"} <= {"h2", "h3"}
    assert "Motivation" not in body and "readability change" not in body  # PR description text


def test_links_point_at_the_head_commit_lines(seed_comment, seed_repo):
    body, sha = seed_comment
    repo, _base, _ = seed_repo
    links = list(SHA_LINK_RE.finditer(body))
    assert links
    assert {m["sha"] for m in links} == {sha}
    head = {
        p: (repo.path / p).read_text(encoding="utf-8").splitlines()
        for p in {m["path"] for m in links}
        if (repo.path / p).is_file()
    }
    # A loop entry point link lands on its `while True:` line at head.
    entry = [m for m in links if m["path"].endswith("mooncake/conn.py") and m["line"]]
    assert any("while True" in head[m["path"]][int(m["line"]) - 1] for m in entry)


def test_behaviour_difference_is_a_diff_block_with_line_links(tmp_path):
    from tests.gitrepo import Repo

    repo = Repo(tmp_path / "r")
    repo.commit("init", {"pkg/__init__.py": "", "pkg/a.py": "def f(x):\n    return x + 1\n"})
    repo.git("remote", "add", "origin", "https://github.com/o/r.git")  # where links point
    repo.commit("fix(pkg): off by one (#7)", {"pkg/a.py": "def f(x):\n    return x + 2\n"})
    res = run_cli(
        "comment", "7", "--repo", str(repo.path), "--github", "o/r", "--dry-run", cwd=tmp_path
    )
    assert res.returncode == 0, res.stderr
    body = res.stdout
    assert "```diff\n-    return x + 1\n+    return x + 2\n```" in body
    assert re.search(
        r"\[`pkg/a\.py:1–2`\]\(https://github\.com/o/r/blob/[0-9a-f]{40}/pkg/a\.py#L1-L2\)", body
    )
    assert re.search(r"\[L2\]\(https://github\.com/o/r/blob/[0-9a-f]{40}/pkg/a\.py#L2\)", body)


def test_a_comment_from_an_artifact_has_no_live_link_or_image():
    hostile = (
        "## ✅ Pure refactor\n\n[approve](https://evil.example) ![x](https://evil.example/p.png) "
        "<img src=https://evil.example/i.png> <https://evil.example> www.evil.example\n\n"
        "<details>\n<summary>Files (1)</summary>\n\n- a\n\n</details>\n"
    )
    body = comment_body(hostile, "x", untrusted=True)
    tokens = MarkdownIt("commonmark", {"html": True}).parse(body)
    kinds = {c.type for t in tokens for c in (t.children or [])}
    assert not kinds & {"link_open", "image"}
    raw = [t.content for t in tokens if t.type == "html_block"] + [
        c.content for t in tokens for c in (t.children or []) if c.type == "html_inline"
    ]
    allowed = re.compile(r"<!--.*-->|</?details>|<summary>[^<>]*</summary>|")
    assert all(allowed.fullmatch(ln.strip()) for h in raw for ln in h.split("\n")), raw
    assert not re.search(
        r"https?://|www\.", body.split("\n", 1)[1]
    )  # GitHub's autolinker finds none
    assert "evil.example" in body  # still readable


def test_the_comment_is_written_next_to_the_report(seed_repo, tmp_path):
    repo, _base, _sha = seed_repo
    res = run_cli(
        "comment",
        "35980",
        "--repo",
        str(repo.path),
        "--github",
        "sgl-project/sglang",
        "--no-post",
        "--out",
        str(tmp_path / "o"),
        cwd=tmp_path,
    )
    assert res.returncode == 0, res.stderr
    names = sorted(p.name for p in Path(tmp_path / "o").iterdir())
    assert (
        "sgl-project-sglang-pr-35980.comment.md" in names
        and "sgl-project-sglang-pr-35980.md" in names
    )


def test_the_chinese_comment_has_the_same_shape(seed_repo, tmp_path):
    repo, _base, _sha = seed_repo
    res = run_cli(
        "comment",
        "35980",
        "--repo",
        str(repo.path),
        "--github",
        "sgl-project/sglang",
        "--lang",
        "zh",
        "--dry-run",
        cwd=tmp_path,
    )
    assert res.returncode == 0, res.stderr
    body = res.stdout
    assert body.split("\n")[1].startswith("## ✅ 纯重构")
    assert body.split("<details>")[0].count("\n") <= 25
    tokens = MarkdownIt("commonmark", {"html": True}).enable("table").parse(body)
    assert {t.tag for t in tokens if t.type == "heading_open"} <= {"h2", "h3"}


def test_spots_row_links_what_the_recommended_action_says_to_look_at(seed_comment):
    body, sha = seed_comment
    row = next(ln for ln in body.split("\n") if ln.startswith("| **Spots to look at**"))
    base = f"https://github.com/sgl-project/sglang/blob/{sha}/python/sglang/srt/disaggregation"
    assert f"({base}/decode.py#L16)" in row  # dsv4_state_payloads, kept lazy
    assert f"({base}/mooncake/conn.py#L42)" in row  # the call without the feature flag


def test_spots_name_the_full_repository_relative_path(seed_comment):
    """Not cut to two components: ``python/sglang/…/mooncake/conn.py:42``, as GitHub shows it."""
    body, _sha = seed_comment
    row = next(ln for ln in body.split("\n") if ln.startswith("| **Spots to look at**"))
    assert "[`python/sglang/srt/disaggregation/mooncake/conn.py:42`](" in row, row
    assert "[`python/sglang/srt/disaggregation/decode.py:16`](" in row, row


def test_the_readme_tells_the_true_sizes_and_file_counts(seed_repo, seed_comment, tmp_path):
    """The sizes the README gives for the #35980 comment and report are what prreport writes
    (within 15 %), and it lists every example workflow there is."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    readme = root / "README.md"
    text = " ".join(readme.read_text(encoding="utf-8").split())
    m = re.search(
        r"#35980 comment is ~([\d.]+) KB / (\d+) lines with (\d+) lines above the first "
        r"`<details>` \(the full report, ~([\d.]+) KB / (\d+) lines",
        text,
    )
    assert m, "the README's comment size sentence"
    body, _sha = seed_comment
    repo, _base, _head = seed_repo
    res = run_cli("35980", "--repo", str(repo.path), "--format", "md", "--out", "-", cwd=tmp_path)
    report = res.stdout
    actual = [
        len(body.encode()) / 1000,
        body.count("\n"),
        body.split("<details>")[0].count("\n"),
        len(report.encode()) / 1000,
        report.count("\n"),
    ]
    for said, real in zip(map(float, m.groups()), actual, strict=True):
        assert abs(said - real) <= 0.15 * real, (m.groups(), actual)
    for wf in (root / "examples" / "workflows").glob("*.yml"):
        assert f"- `{wf.name}`" in readme.read_text(encoding="utf-8"), wf.name
