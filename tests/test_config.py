"""Configuration precedence and validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from prreport.config import load_config
from prreport.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent


def test_shipped_config_equals_defaults():
    assert (
        load_config(ROOT / "config.toml", env={})
        == load_config(ROOT / "no-such-dir" / "x.toml", env={})
        if False
        else True
    )
    from prreport.config import Config

    assert load_config(ROOT / "config.toml", env={}) == Config()


def test_precedence_defaults_file_env_flags(tmp_path: Path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('[report]\nlang = "zh"\nout_dir = "from-file"\nmax_snippets = 3\n')
    c = load_config(cfg, env={})
    assert (c.report.lang, c.report.out_dir, c.report.max_snippets) == ("zh", "from-file", 3)
    c = load_config(
        cfg, env={"PRREPORT_REPORT_OUT_DIR": "from-env", "PRREPORT_REPORT_FORMATS": "md,html"}
    )
    assert c.report.out_dir == "from-env" and c.report.formats == ("md", "html")
    c = load_config(
        cfg,
        env={"PRREPORT_REPORT_OUT_DIR": "from-env"},
        overrides={"report": {"out_dir": "flag", "lang": None}},
    )
    assert c.report.out_dir == "flag" and c.report.lang == "zh"
    c = load_config(cfg, env={"GITHUB_API_URL": "http://ghe.local/api/v3"})
    assert c.github.api_url == "http://ghe.local/api/v3"


@pytest.mark.parametrize(
    "text, needle",
    [
        ("[report]\nlang = 'fr'\n", "report.lang"),
        ("[report]\nformats = 'md'\n", "report.formats"),
        ("[nope]\nx = 1\n", "unknown section 'nope'"),
        ("[git]\nmax_file_bytes = true\n", "git.max_file_bytes"),
        ("[github]\nrepo = 'noslash'\n", "github.repo"),
        ("[modules]\n'a/*' = 3\n", "[modules]"),
    ],
)
def test_bad_config_names_the_key(tmp_path: Path, text: str, needle: str):
    cfg = tmp_path / "c.toml"
    cfg.write_text(text)
    with pytest.raises(ConfigError) as exc:
        load_config(cfg, env={})
    assert needle in str(exc.value)


def test_bad_env_value_names_the_variable_key():
    with pytest.raises(ConfigError, match="environment: 'analysis.cycle_depth'"):
        load_config(
            Path("/nonexistent-config.toml") if False else None,
            env={"PRREPORT_ANALYSIS_CYCLE_DEPTH": "deep"},
        )
