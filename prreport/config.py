"""Configuration: parsed once into frozen dataclasses.

Precedence: defaults < the configuration file < environment (``PRREPORT_<SECTION>_<KEY>``) < CLI
flags. The file is the first of ``--config FILE``, ``$PRREPORT_CONFIG``, ``.prreport.toml`` and
``[tool.prreport]`` in ``pyproject.toml`` of ``--repo`` (else the current directory) or a parent
up to the repository root (``config_file.py``); a ``config.toml`` belongs to someone else and is
never read unless named.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from prreport.config_file import CONFIG_ENV, find_config
from prreport.errors import ConfigError

LANGS = ("en", "zh")
FORMATS = ("md", "html", "json")
# A single report can also be SARIF 2.1.0 (code scanning); the digest is md, html, json.
REPORT_FORMATS = (*FORMATS, "sarif")
SOURCES = ("git", "github")
# Environment variables of prreport that are not PRREPORT_<SECTION>_<KEY> settings.
_OTHER_ENV = frozenset({CONFIG_ENV, "PRREPORT_ARTIFACT"})


@dataclass(frozen=True)
class ReportConfig:
    """What the report looks like and where it goes."""

    lang: str = "en"
    formats: tuple[str, ...] = ("md", "json")
    out_dir: str = "output"
    snippet_max_lines: int = 40
    max_snippets: int = 6
    quiet: bool = False
    source: str = "git"
    related_window_days: int = 60


@dataclass(frozen=True)
class GitConfig:
    """The local git source."""

    repo: str = "."
    max_file_bytes: int = 1_048_576
    related_window_days: int = 60
    related_max: int = 12


@dataclass(frozen=True)
class GitHubConfig:
    """The GitHub source (``report.source = "github"`` or ``--github``) and where comments go."""

    repo: str = ""
    api_url: str = "https://api.github.com"
    cache: bool = True
    cache_dir: str = ".prreport-cache"
    max_rate_limit_wait: int = 60
    timeout: int = 30
    retries: int = 3
    # Seconds one client (a PR's source, a publisher) may spend waiting on the network in all:
    # every request, retry, backoff and rate-limit wait draws on it.
    deadline: int = 120
    related_window_days: int = 60


@dataclass(frozen=True)
class AnalysisConfig:
    """Analyzer settings."""

    cycle_depth: int = 4
    max_followups: int = 10
    # One changed file's budget: its estimated syntax-tree memory (MiB) and the analysis time
    # (seconds) a run spends before leaving its largest file unanalysed.
    max_file_memory: int = 1024
    max_file_seconds: int = 120
    first_party: tuple[str, ...] = ()
    disabled: tuple[str, ...] = ()
    # Which public names the Public API check holds a PR to: "declared" (listed in the module's
    # ``__all__``, re-exported by a package ``__init__``, or defined in the top-level one) or
    # "names" (griffe's conventions: every name without a leading underscore).
    public_api: str = "declared"
    heavy_packages: tuple[str, ...] = (
        "torch", "tensorflow", "triton", "jax", "transformers", "vllm", "deepspeed", "numpy",
        "scipy", "pandas", "matplotlib", "sklearn", "cv2", "numba", "cupy", "flash_attn",
        "onnxruntime", "tensorrt", "xformers", "apex", "sympy", "datasets", "accelerate",
        "sentencepiece", "polars", "pyarrow",
    )  # fmt: skip


@dataclass(frozen=True)
class DigestConfig:
    """The weekly digest."""

    workers: int = 4
    cache_dir: str = ".prreport-cache/analysis"
    # Left out by default: draft PRs and PRs by bots; "draft", "bot" here take them in.
    include: tuple[str, ...] = ()


@dataclass(frozen=True)
class Config:
    """All settings, in one frozen value passed explicitly."""

    report: ReportConfig = field(default_factory=ReportConfig)
    git: GitConfig = field(default_factory=GitConfig)
    github: GitHubConfig = field(default_factory=GitHubConfig)
    analysis: AnalysisConfig = field(default_factory=AnalysisConfig)
    digest: DigestConfig = field(default_factory=DigestConfig)
    modules: tuple[tuple[str, str], ...] = ()


_SECTIONS: dict[str, type] = {
    "report": ReportConfig,
    "git": GitConfig,
    "github": GitHubConfig,
    "analysis": AnalysisConfig,
    "digest": DigestConfig,
}

# Keys that are set from another one, so that a setting lives in one place: (section, key) -> source.
_DERIVED = {
    ("git", "related_window_days"): ("report", "related_window_days"),
    ("github", "related_window_days"): ("report", "related_window_days"),
}

# Inclusive bounds of every integer setting: a zero timeout or a negative size is a mistake.
_INT_RANGES: dict[tuple[str, str], tuple[int, int]] = {
    ("report", "snippet_max_lines"): (1, 10_000),
    ("report", "max_snippets"): (1, 1_000),
    ("report", "related_window_days"): (1, 36_500),
    ("git", "max_file_bytes"): (1, 2**31),
    ("git", "related_max"): (0, 1_000),
    ("github", "max_rate_limit_wait"): (0, 86_400),
    ("github", "timeout"): (1, 3_600),
    ("github", "retries"): (0, 100),
    ("github", "deadline"): (1, 86_400),
    ("analysis", "cycle_depth"): (1, 100),
    ("analysis", "max_followups"): (0, 10_000),
    ("analysis", "max_file_memory"): (1, 2**20),
    ("analysis", "max_file_seconds"): (1, 86_400),
    ("digest", "workers"): (1, 256),
}

# Environment variables that other tools already set and we honour as well.
# Settings with a fixed set of values: checked where they are given, even when a flag overrides them.
_CHOICES: dict[tuple[str, str], tuple[str, ...]] = {
    ("report", "source"): SOURCES,
    ("report", "lang"): LANGS,
    ("analysis", "public_api"): ("declared", "names"),
}
_ENV_ALIASES = {"GITHUB_API_URL": ("github", "api_url")}


def _coerce(where: str, value: Any, typ: Any, from_env: bool) -> Any:
    """Check (and, for environment strings, convert) ``value`` against the field type."""
    origin = typing.get_origin(typ)
    if typ is bool:
        if from_env and isinstance(value, str):
            low = value.strip().lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off", ""):
                return False
        if isinstance(value, bool):
            return value
        raise ConfigError(f"{where}: expected true or false, got {value!r}")
    if typ is int:
        if from_env and isinstance(value, str) and value.strip().isascii():
            try:
                return int(value)
            except ValueError:
                pass
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise ConfigError(f"{where}: expected an integer, got {value!r}")
    if typ is str:
        if isinstance(value, str):
            return value
        raise ConfigError(f"{where}: expected a string, got {value!r}")
    if origin is tuple:
        if from_env and isinstance(value, str):
            value = [v.strip() for v in value.split(",") if v.strip()]
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return tuple(value)
        raise ConfigError(f"{where}: expected a list of strings, got {value!r}")
    raise ConfigError(f"{where}: unsupported type")  # pragma: no cover


def _field_types(cls: type) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls)}


def _apply(base: Any, values: Mapping[str, Any], section: str, origin: str, from_env: bool) -> Any:
    types_ = _field_types(type(base))
    changes = {}
    for key, value in values.items():
        if (section, key) in _DERIVED:
            sec, k = _DERIVED[section, key]
            raise ConfigError(f"{origin}: '{section}.{key}' is now set once, as '{sec}.{k}'")
        if key not in types_:
            known = ", ".join(sorted(types_))
            raise ConfigError(f"{origin}: unknown key '{section}.{key}' (known: {known})")
        changes[key] = _coerce(f"{origin}: '{section}.{key}'", value, types_[key], from_env)
        choices = _CHOICES.get((section, key))
        if choices is not None and changes[key] not in choices:
            raise ConfigError(
                f"{origin}: '{section}.{key}' must be one of {', '.join(choices)}, got {changes[key]!r}"
            )
    return dataclasses.replace(base, **changes)


def _check_env_names(env: Mapping[str, str]) -> None:
    """A ``PRREPORT_`` variable that names no section is a typo, as an unknown key is."""
    prefixes = tuple(f"PRREPORT_{name.upper()}_" for name in _SECTIONS)
    for name in sorted(env):
        if (
            name.startswith("PRREPORT_")
            and name not in _OTHER_ENV
            and not name.startswith(prefixes)
        ):
            known = [f"{p}<KEY>" for p in prefixes] + sorted(_OTHER_ENV)
            spelled = [
                f"{p}{k.upper()}"
                for p, s in zip(prefixes, _SECTIONS, strict=True)
                for k in _keys(s)
            ]
            close = difflib.get_close_matches(name, spelled + sorted(_OTHER_ENV), n=1)
            hint = f"did you mean {close[0]}?" if close else f"known: {', '.join(known)}"
            raise ConfigError(f"environment: unknown variable {name} ({hint})")


def _keys(section: str) -> list[str]:
    return [f.name for f in dataclasses.fields(_SECTIONS[section])]


def _validate(cfg: Config) -> Config:
    if cfg.report.lang not in LANGS:
        raise ConfigError(
            f"'report.lang' must be one of {', '.join(LANGS)}, got {cfg.report.lang!r}"
        )
    bad = [f for f in cfg.report.formats if f not in REPORT_FORMATS]
    if bad or not cfg.report.formats:
        raise ConfigError(
            f"'report.formats' must be a non-empty list from {', '.join(REPORT_FORMATS)}, got {list(cfg.report.formats)!r}"
        )
    for (section, name), (low, high) in _INT_RANGES.items():
        value = getattr(getattr(cfg, section), name)
        if not low <= value <= high:
            raise ConfigError(f"'{section}.{name}' must be from {low} to {high}, got {value}")
    if cfg.report.source not in SOURCES:
        raise ConfigError(
            f"'report.source' must be one of {', '.join(SOURCES)}, got {cfg.report.source!r}"
        )
    if cfg.github.repo and cfg.github.repo.count("/") != 1:
        raise ConfigError(f"'github.repo' must look like OWNER/NAME, got {cfg.github.repo!r}")
    if cfg.report.source == "github" and not cfg.github.repo:
        raise ConfigError(
            "'report.source' is github but no repository is set: pass --github OWNER/NAME or set 'github.repo'"
        )
    _check_url("github.api_url", cfg.github.api_url)
    bad_include = [v for v in cfg.digest.include if v not in ("draft", "bot")]
    if bad_include:
        raise ConfigError(f"'digest.include' takes draft, bot; got {bad_include!r}")
    days = cfg.report.related_window_days
    return dataclasses.replace(
        cfg,
        git=dataclasses.replace(cfg.git, related_window_days=days),
        github=dataclasses.replace(cfg.github, related_window_days=days),
    )


def _check_url(where: str, url: str) -> None:
    """An http(s) URL with a host (and a valid port), or a ConfigError naming ``where``."""
    try:
        parts = urlsplit(url)
        ok = parts.scheme in ("http", "https") and bool(parts.hostname)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        ok = False
    if not ok:
        raise ConfigError(
            f"'{where}' must be an http(s) URL such as https://api.github.com, got {url!r}"
        )


def load_config(
    path: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
) -> Config:
    """Build the configuration from defaults, a TOML file, the environment and CLI overrides.

    ``path`` None means the first file :func:`find_config` finds. ``overrides`` maps section to
    ``{key: value}`` with already-typed values from the CLI; ``None`` values are ignored.
    """
    env = os.environ if env is None else env
    cfg = Config()
    start = (overrides or {}).get("git", {}).get("repo")
    data, origin = find_config(path, env, start=Path(start) if start else None)
    sections = {name: getattr(cfg, name) for name in _SECTIONS}
    modules: tuple[tuple[str, str], ...] = ()
    for key, value in data.items():
        if key == "modules":
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                raise ConfigError(
                    f"{origin}: '[modules]' must map path globs to module names (strings)"
                )
            modules = tuple((str(k), str(v)) for k, v in value.items())
        elif key in _SECTIONS:
            if not isinstance(value, dict):
                raise ConfigError(f"{origin}: '{key}' must be a table ([{key}])")
            sections[key] = _apply(sections[key], value, key, origin, from_env=False)
        else:
            known = ", ".join(sorted([*_SECTIONS, "modules"]))
            raise ConfigError(f"{origin}: unknown section '{key}' (known: {known})")
    # Environment.
    _check_env_names(env)
    for name, base in list(sections.items()):
        prefix = f"PRREPORT_{name.upper()}_"
        env_values = {
            k[len(prefix) :].lower(): v for k, v in env.items() if k.startswith(prefix) and v != ""
        }
        for alias, (sec, key) in _ENV_ALIASES.items():
            if sec == name and env.get(alias) and key not in env_values:
                env_values[key] = env[alias]
        if env_values:
            sections[name] = _apply(base, env_values, name, "environment", from_env=True)
    # CLI flags.
    for name, values in (overrides or {}).items():
        given = {k: v for k, v in values.items() if v is not None}
        if given:
            sections[name] = _apply(sections[name], given, name, "command line", from_env=False)
    try:
        return _validate(Config(**sections, modules=modules))
    except ConfigError as exc:
        # Name where the offending value came from: the last of file, environment, flags.
        where = _origin_of(str(exc), data, env, overrides, origin)
        raise ConfigError(f"{where}: {exc}" if where else str(exc)) from None


def _origin_of(
    message: str,
    data: Mapping[str, Any],
    env: Mapping[str, str],
    overrides: Mapping[str, Mapping[str, Any]] | None,
    file_origin: str,
) -> str:
    """Where the key a validation message names (``'section.key'``) was set, or ``""``."""
    m = re.match(r"'(\w+)\.(\w+)'", message)
    if not m:
        return ""
    section, key = m.groups()
    if (overrides or {}).get(section, {}).get(key) is not None:
        return "command line"
    aliases = [a for a, sk in _ENV_ALIASES.items() if sk == (section, key)]
    if any(env.get(n) for n in [f"PRREPORT_{section.upper()}_{key.upper()}", *aliases]):
        return "environment"
    table = data.get(section)
    return file_origin if isinstance(table, dict) and key in table else ""
