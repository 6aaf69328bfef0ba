"""Settings found as ruff and black find theirs (issue 36): from ``--repo`` (else the current
directory) and its parents up to the repository root, the closest first; and the JSON Schema of
the settings file, checked against the documented ``config.toml``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema
import pytest

from prreport.config import load_config
from tests.conftest import run_cli
from tests.gitrepo import Repo

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_settings_come_from_the_repo_root_of_repo_not_the_cwd(tmp_path, monkeypatch):
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    _write(project / "pyproject.toml", "[tool.prreport.report]\nmax_snippets = 4\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert load_config(env={}).report.max_snippets != 4
    over = {"git": {"repo": str(project)}}
    assert load_config(env={}, overrides=over).report.max_snippets == 4
    # From a folder inside the repository: its parents up to the root are searched.
    sub = project / "src" / "pkg"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    assert load_config(env={}).report.max_snippets == 4
    # The closest directory wins; a .prreport.toml before a pyproject.toml in the same folder.
    _write(sub / ".prreport.toml", "[report]\nmax_snippets = 2\n")
    assert load_config(env={}).report.max_snippets == 2
    # Nothing above the repository root is read.
    _write(tmp_path / ".prreport.toml", "[report]\nmax_snippets = 9\n")
    monkeypatch.chdir(project)
    assert load_config(env={}).report.max_snippets == 4


def test_a_folder_outside_any_repository_reads_only_itself(tmp_path, monkeypatch):
    _write(tmp_path / ".prreport.toml", "[report]\nmax_snippets = 7\n")
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    monkeypatch.chdir(inner)
    assert load_config(env={}).report.max_snippets != 7


def test_the_cli_names_the_file_it_read_from_the_repo_root(tmp_path):
    repo = Repo(tmp_path / "r")
    repo.commit("init", {"pkg/__init__.py": "", "pkg/a.py": "def f():\n    return 1\n"})
    repo.commit("refactor: tidy (#3)", {"pkg/a.py": "def f():\n    return 2\n"})
    _write(repo.path / ".prreport.toml", "[report]\nbogus = 1\n")
    res = run_cli("HEAD", "--repo", str(repo.path), "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert res.returncode == 2
    assert res.stderr.startswith(f"error: {repo.path}{'/'}.prreport.toml: unknown key"), res.stderr
    assert "Traceback" not in res.stderr


def test_the_settings_schema_accepts_config_toml_and_rejects_mistakes():
    schema = json.loads((ROOT / "schemas" / "settings.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    documented = tomllib.loads((ROOT / "config.toml").read_text(encoding="utf-8"))
    assert list(validator.iter_errors(documented)) == []
    # Every setting prreport knows is in the schema, and nothing else.
    from prreport.config import Config

    cfg = Config()
    for section, props in schema["properties"].items():
        if section == "modules":
            continue
        known = {f for f in vars(getattr(cfg, section))}
        assert set(props["properties"]) == known, section
    for bad in (
        {"report": {"bogus": 1}},
        {"nosuch": {}},
        {"report": {"formats": ["pdf"]}},
        {"report": {"lang": "fr"}},
        {"github": {"timeout": 0}},
        {"modules": {"src/*": 3}},
    ):
        assert list(validator.iter_errors(bad)), bad


@pytest.mark.parametrize("section", ["report", "git", "github"])
def test_schema_defaults_are_the_code_defaults(section):
    from dataclasses import fields

    from prreport.config import Config

    schema = json.loads((ROOT / "schemas" / "settings.schema.json").read_text(encoding="utf-8"))
    props = schema["properties"][section]["properties"]
    value = getattr(Config(), section)
    for f in fields(value):
        default = getattr(value, f.name)
        if "default" in props[f.name]:
            want = list(default) if isinstance(default, tuple) else default
            assert props[f.name]["default"] == want, (section, f.name)
