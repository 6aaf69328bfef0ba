"""GitHub Actions annotations (issue 36): the risks' spots as ``::warning``/``::notice`` lines,
escaped by GitHub's rules, at most 10 per level; file names and messages are hostile input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import prreport.render.annotations as gh_annotations
from prreport.render.escape import command_data, command_property
from tests.conftest import run_cli
from tests.hostile import EVIL_LINE, EVIL_PATH, hostile_bundle_with_risk

COMMAND_RE = re.compile(r"^::(warning|notice) (?P<props>[^:]*)::(?P<message>.*)$")


def _decode(text: str, prop: bool) -> str:
    """What the runner reads back (actions/runner's unescaping, in its order)."""
    pairs = [("%0D", "\r"), ("%0A", "\n")] + ([("%3A", ":"), ("%2C", ",")] if prop else [])
    for k, v in [*pairs, ("%25", "%")]:
        text = text.replace(k, v)
    return text


def test_escaping_follows_githubs_rules_and_spells_out_controls():
    assert command_data("50%\r\nnext::x,y:z") == "50%25%0D%0Anext::x,y:z"
    assert command_property("a:b,c%d\ne") == "a%3Ab%2Cc%25d%0Ae"
    # Decoding gives the text back, apart from the controls spelt out for the job log.
    for value in ("a%0Ab", "%25", "x\ny\r::z", "k,v:w"):
        assert _decode(command_data(value), False) == value
        assert _decode(command_property(value), True) == value
    assert command_data("\x1b[2J\u202e\x07") == "\\x1b[2J\\u202e\\x07"


@pytest.fixture(scope="module")
def evil_bundle(seed_repo, tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo, _base, _sha = seed_repo
    tmp = tmp_path_factory.mktemp("annotations")
    saved = tmp / "seed.json"
    res = run_cli(
        "35980", "--repo", str(repo.path), "--save-bundle", str(saved), "--out", str(tmp), "-q"
    )
    assert res.returncode == 0, res.stderr
    return hostile_bundle_with_risk(saved, tmp / "evil.json")


def test_hostile_file_names_and_lines_stay_inside_one_annotation(evil_bundle, tmp_path):
    res = run_cli(
        "--bundle", str(evil_bundle), "--out", str(tmp_path), "-q",
        env={"GITHUB_ACTIONS": "true"},
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines and all(COMMAND_RE.match(ln) for ln in lines), lines
    evil = [COMMAND_RE.match(ln) for ln in lines if "pwned" in ln]
    # Its unexplained line (medium) and its bidi control (high "hidden-characters"): warnings.
    assert len(evil) == 2 and all(m and m[1] == "warning" for m in evil), lines
    seen = "".join(EVIL_PATH).replace("\x1b", "\\x1b").replace("\u202e", "\\u202e")
    for m in evil:
        assert m is not None
        props = dict(p.split("=", 1) for p in m["props"].split(","))
        assert set(props) == {"file", "line", "title"} and props["line"] == "1"
        assert _decode(props["file"], True) == seen
    messages = [_decode(m["message"], False) for m in evil if m]
    assert any(msg.endswith(EVIL_LINE.replace("\u202e", "\\u202e")) for msg in messages)
    assert "\x1b" not in res.stdout and "\u202e" not in res.stdout
    assert "no-tests" not in res.stdout  # says little alone: not a mark on every file


def test_the_flag_overrides_the_environment(evil_bundle, tmp_path):
    on = {"GITHUB_ACTIONS": "true"}
    off = run_cli(
        "--bundle", str(evil_bundle), "--out", str(tmp_path), "-q", "--no-annotations", env=on
    )
    assert off.returncode == 0 and "::" not in off.stdout, off.stdout
    outside = run_cli("--bundle", str(evil_bundle), "--out", str(tmp_path), "-q")
    assert outside.returncode == 0 and outside.stdout == ""
    forced = run_cli("--bundle", str(evil_bundle), "--out", str(tmp_path), "-q", "--annotations")
    assert forced.stdout.startswith("::warning file=")
    # With the report on stdout, the annotations go to stderr and stdout stays the document.
    doc = run_cli("--bundle", str(evil_bundle), "--format", "json", "--out", "-", env=on)
    assert json.loads(doc.stdout)["schema"] == "prreport.report/1"
    assert "::warning file=" in doc.stderr


def test_at_most_ten_per_level_worst_first(monkeypatch):
    spots = [
        {"level": lvl, "path": f"p{i}.py", "line": i + 1, "title": "t", "message": "m"}
        for lvl in ("warning", "notice")
        for i in range(13)
    ]
    monkeypatch.setattr(gh_annotations, "annotation_spots", lambda model: spots)
    lines, left_out = gh_annotations.annotation_lines(None)  # type: ignore[arg-type]
    assert left_out == 6
    assert [ln.split(" ", 1)[0] for ln in lines] == ["::warning"] * 10 + ["::notice"] * 10
    assert lines[0] == "::warning file=p0.py,line=1,title=t::m"
    assert lines[9].startswith("::warning file=p9.py,")
