"""Configuration precedence and validation."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from prreport.config import Config, load_config
from prreport.errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

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


# --- Where the settings come from -------------------------------------------------------------


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_discovery_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    assert load_config(env={}) == Config()  # nothing found: the defaults
    _write(tmp_path / "pyproject.toml", "[project]\nname = 'x'\n")
    assert load_config(env={}) == Config()  # a pyproject without [tool.prreport]
    _write(tmp_path / "pyproject.toml", "[tool.prreport.report]\nmax_snippets = 4\n")
    assert load_config(env={}).report.max_snippets == 4
    _write(tmp_path / ".prreport.toml", "[report]\nmax_snippets = 3\n")
    assert load_config(env={}).report.max_snippets == 3  # .prreport.toml before pyproject
    named = _write(tmp_path / "named.toml", "[report]\nmax_snippets = 2\n")
    assert load_config(env={"PRREPORT_CONFIG": str(named)}).report.max_snippets == 2
    flag = _write(tmp_path / "flag.toml", "[report]\nmax_snippets = 1\n")
    assert load_config(flag, env={"PRREPORT_CONFIG": str(named)}).report.max_snippets == 1


def test_a_foreign_config_toml_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # Another tool's config.toml in the current directory (it used to be: unknown section 'server').
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "config.toml", "[server]\nport = 8080\n")
    assert load_config(env={}) == Config()


def test_the_repository_config_toml_documents_every_setting():
    text = (ROOT / "config.toml").read_text(encoding="utf-8")
    data = load_config(ROOT / "config.toml", env={})
    assert data == Config()
    table = tomllib.loads(text)
    for section in ("report", "git", "github", "analysis", "digest"):
        fields = {
            f.name
            for f in dataclasses.fields(getattr(Config(), section))
            if (section, f.name)
            not in {("git", "related_window_days"), ("github", "related_window_days")}
        }
        assert set(table[section]) == fields, section


def test_pyproject_tool_table_must_be_a_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "pyproject.toml", "[tool]\nprreport = 3\n")
    with pytest.raises(ConfigError, match=r"tool\.prreport"):
        load_config(env={})


def test_related_window_days_is_set_in_one_place(tmp_path: Path):
    c = load_config(_write(tmp_path / "c.toml", "[report]\nrelated_window_days = 5\n"), env={})
    assert c.git.related_window_days == c.github.related_window_days == 5
    for section in ("git", "github"):
        cfg = _write(tmp_path / "c.toml", f"[{section}]\nrelated_window_days = 5\n")
        with pytest.raises(ConfigError, match="report.related_window_days"):
            load_config(cfg, env={})


def test_github_repo_alone_does_not_select_github(tmp_path: Path):
    c = load_config(_write(tmp_path / "c.toml", "[github]\nrepo = 'o/n'\n"), env={})
    assert c.report.source == "git"
    with pytest.raises(ConfigError, match="--github OWNER/NAME"):
        load_config(_write(tmp_path / "c.toml", "[report]\nsource = 'github'\n"), env={})


# --- Values that used to pass, or crash (issue 13, items 1 and 11) ----------------------------


@pytest.mark.parametrize(
    "text, needle",
    [
        ("[git]\nmax_file_bytes = 0\n", "'git.max_file_bytes' must be from 1"),
        ("[git]\nmax_file_bytes = -5\n", "'git.max_file_bytes' must be from 1"),
        ("[github]\ntimeout = 0\n", "'github.timeout' must be from 1 to 3600, got 0"),
        ("[github]\nretries = -1\n", "'github.retries'"),
        ("[digest]\nworkers = 0\n", "'digest.workers'"),
        ('[github]\napi_url = "http://[::1"\n', "'github.api_url' must be an http(s) URL"),
        ('[github]\napi_url = "ftp://x"\n', "'github.api_url' must be an http(s) URL"),
        ('[github]\napi_url = "http://h:99999"\n', "'github.api_url' must be an http(s) URL"),
        ("[report]\nsource = 'svn'\n", "'report.source' must be one of git, github"),
        ("[report]\nmax_snippets = " + "9" * 5000 + "\n", "not valid TOML"),
        ("x = " + "[" * 3000 + "]" * 3000 + "\n", "nested too deeply"),
    ],
)
def test_values_out_of_range_are_config_errors(tmp_path: Path, text: str, needle: str):
    with pytest.raises(ConfigError) as exc:
        load_config(_write(tmp_path / "c.toml", text), env={})
    assert needle in str(exc.value)


def test_a_non_utf8_file_is_a_config_error(tmp_path: Path):
    cfg = tmp_path / "c.toml"
    cfg.write_bytes(b"[report]\nlang = '\xff'\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(cfg, env={})


def test_env_values_are_checked_too():
    with pytest.raises(ConfigError, match="'github.timeout'"):
        load_config(env={"PRREPORT_GITHUB_TIMEOUT": "0"})
    with pytest.raises(ConfigError, match="'github.api_url'"):
        load_config(env={"GITHUB_API_URL": "http://[::1"})
