"""Trojan Source and confusable identifiers (Hardening II, G4).

A homoglyph rename of ``validate`` (a Cyrillic ``а``) with every caller renamed read as a clean
rename, "Safe to skim"; bidi and invisible characters in changed code were no risk, and a
zero-width space in a risk line printed invisibly.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from prreport.config import Config, GitConfig
from prreport.pipeline import Analysis, analyse, gather
from prreport.render.escape import md_code, md_fence, md_text, terminal_json, terminal_line
from prreport.render.markdown import render_markdown
from prreport.sources.git import GitSource
from tests.gitrepo import Repo

SPOOF = "v\u0430lidate"  # a Cyrillic а
# Every character of the issue that must never print as itself.
HIDDEN = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\u180e\ufeff\U000e0041\U000e007f"
RAW = re.compile(f"[{HIDDEN}]")


def _run(tmp_path: Path, base: dict[str, str], head: dict[str, str]) -> Analysis:
    repo = Repo(tmp_path / "repo")
    repo.commit("init", base)
    repo.commit("refactor(auth): tidy (#5)", head)
    cfg = Config()
    src = GitSource("5", GitConfig(repo=str(repo.path)))
    try:
        return analyse(gather(src, cfg), cfg)
    finally:
        src.close()


_BASE = {
    "pkg/__init__.py": "",
    "pkg/auth.py": "def validate(user):\n    return user.is_admin\n",
    "pkg/b.py": "from pkg.auth import validate\n\n\ndef use(u):\n    return validate(u)\n",
}


def test_a_homoglyph_rename_with_every_caller_renamed_is_never_safe_to_skim(tmp_path: Path):
    a = _run(
        tmp_path,
        _BASE,
        {
            "pkg/auth.py": f"def {SPOOF}(user):\n    return user.is_admin\n",
            "pkg/b.py": f"from pkg.auth import {SPOOF}\n\n\ndef use(u):\n    return {SPOOF}(u)\n",
        },
    )
    spoofs = [f for f in a.findings if f.kind == "unicode.confusable"]
    assert {(f.path, f.line) for f in spoofs} == {("pkg/auth.py", 1), ("pkg/b.py", 1)}
    assert spoofs[0].details["reason"] == "mixed-script"
    assert spoofs[0].details["looks_like"] == "validate"
    assert spoofs[0].details["scripts"] == ["CYRILLIC", "LATIN"]
    assert a.model.summary.action["level"] != "skim"
    ids = [r["id"] for r in a.model.risks]
    assert "confusable-identifier" in ids
    md = render_markdown(a.model, "en")
    assert (
        "`v\\u0430lidate` at `pkg/auth.py:1` mixes cyrillic and latin letters and looks like `validate`"
        in md
    )
    assert "与其他名字形似的标识符" in render_markdown(a.model, "zh")


@pytest.mark.parametrize("ch", list(HIDDEN[:-3]) + ["\U000e0041", "\ufeff"])
def test_bidi_and_invisible_characters_in_changed_code_are_a_high_risk_with_positions(
    tmp_path: Path, ch: str
):
    line = f"    return user.is_admin  # ok{ch} done\n"
    a = _run(tmp_path, _BASE, {"pkg/auth.py": f"def validate(user):\n{line}"})
    (fd,) = [f for f in a.findings if f.kind == "unicode.hidden"]
    assert (fd.path, fd.line) == ("pkg/auth.py", 2)
    (c,) = fd.details["characters"]
    assert c["column"] == line.index(ch) + 1 and c["codepoint"] == f"U+{ord(ch):04X}"
    assert a.model.summary.action["level"] == "block"
    risk = next(r for r in a.model.risks if r["id"] == "hidden-characters")
    assert risk["severity"] == "high"
    md = render_markdown(a.model, "en")
    assert f"U+{ord(ch):04X}" in md and f"at column {c['column']}" in md
    # Spelt out wherever the report prints code or text: the risk line and the snippet.
    assert not RAW.search(md), "a hidden character printed as itself"
    escaped = f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}"
    assert f"# ok{escaped} done" in md


def test_a_byte_order_mark_and_unchanged_lines_are_not_reported(tmp_path: Path):
    base = dict(_BASE, **{"pkg/old.py": "X = 1  # \u200b kept\n", "pkg/c.py": "Y = 1\n"})
    a = _run(
        tmp_path, base, {"pkg/c.py": "\ufeffY = 2\n", "pkg/old.py": "X = 1  # \u200b kept\nZ = 2\n"}
    )
    assert not [f for f in a.findings if f.kind.startswith("unicode.")]


def test_nfkc_and_whole_script_spoofs_are_named_and_plain_non_latin_names_are_not(
    tmp_path: Path,
):
    head = {
        "pkg/auth.py": (
            "def validate(user):\n    return user.is_admin\n"
            "\uff56\uff41\uff4c = 1\n"  # fullwidth "val": NFKC makes it `val`
            "\u0455\u0435\u0442 = 2\n"  # Cyrillic "ѕет" (s, e, and a т which has no twin): plain
            "\u0455\u0435\u0440 = 3\n"  # Cyrillic "ѕер": drawn like `sep`
            "na\u00efve = 4\n\u6570\u636e = 5\n\u6570\u636e_list = 6\n\u0434\u0430\u043d\u043d\u044b\u0435 = 7\n"
        )
    }
    a = _run(tmp_path, _BASE, head)
    got = {
        f.details["spelled"]: (f.details["reason"], f.details["looks_like"])
        for f in a.findings
        if f.kind == "unicode.confusable"
    }
    assert got == {
        "\\uff56\\uff41\\uff4c": ("nfkc", "val"),
        "\\u0455\\u0435\\u0440": ("whole-script", "sep"),
    }


def test_every_output_spells_the_invisible_characters():
    for ch in HIDDEN:
        for out in (
            md_code(f"a{ch}b"),
            md_text(f"a{ch}b"),
            md_fence(f"a{ch}b"),
            terminal_line(f"a{ch}b"),
        ):
            assert ch not in out and "a" in out
        text = terminal_json(json.dumps({"k": f"a{ch}b"}, ensure_ascii=False))
        assert ch not in text and json.loads(text) == {"k": f"a{ch}b"}


def test_joiners_that_text_needs_and_prose_files_are_not_reported(tmp_path: Path):
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # an emoji ZWJ sequence
    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # a ZWNJ Persian needs
    head = {
        "pkg/auth.py": f"def validate(user):\n    return user.is_admin  # {family} {persian}\n",
        "README.md": "# Title \u200b\u202e hidden in prose\n",
    }
    a = _run(tmp_path, _BASE, head)
    assert not [f for f in a.findings if f.kind.startswith("unicode.")]
