"""The example the README shows (docs/example/) is what prreport makes of the seed PR today."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "example"
STEM = "sgl-project-sglang-pr-35980"


def test_the_readme_links_the_example_files():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in ("comment.png", f"{STEM}.comment.md", f"{STEM}.md", f"{STEM}.html"):
        assert f"docs/example/{name}" in readme
        assert (EXAMPLE / name).stat().st_size > 0


def test_the_example_comment_and_report_are_today_s(seed_repo, tmp_path: Path):
    repo = seed_repo[0].path
    got = run_cli("comment", "35980", "--repo", str(repo), "--no-post", "--out", str(tmp_path))
    assert got.returncode == 0, got.stderr
    for name in (f"{STEM}.comment.md", f"{STEM}.md"):
        made = (tmp_path / name).read_text(encoding="utf-8")
        assert made == (EXAMPLE / name).read_text(encoding="utf-8"), (
            f"regenerate docs/example/{name}"
        )
