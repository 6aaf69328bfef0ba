"""Configuration: parsed once into frozen dataclasses.

Precedence: defaults < ``config.toml`` < environment (``PRREPORT_<SECTION>_<KEY>``) < CLI flags.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prreport.errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

LANGS = ("en", "zh")
FORMATS = ("md", "html", "json")


@dataclass(frozen=True)
class ReportConfig:
    """What the report looks like and where it goes."""

    lang: str = "en"
    formats: tuple[str, ...] = ("md", "json")
    out_dir: str = "output"
    snippet_max_lines: int = 40
    max_snippets: int = 6
    quiet: bool = False


@dataclass(frozen=True)
class GitConfig:
    """The local git source."""

    repo: str = "."
    max_file_bytes: int = 1_048_576
    related_window_days: int = 60
    related_max: int = 12


@dataclass(frozen=True)
class GitHubConfig:
    """The GitHub source; used when ``repo`` (OWNER/NAME) is set."""

    repo: str = ""
    api_url: str = "https://api.github.com"
    cache: bool = True
    cache_dir: str = ".prreport-cache"
    max_rate_limit_wait: int = 60
    timeout: int = 30
    retries: int = 3
    related_window_days: int = 60


@dataclass(frozen=True)
class AnalysisConfig:
    """Analyzer settings."""

    cycle_depth: int = 4
    max_followups: int = 10
    first_party: tuple[str, ...] = ()
    disabled: tuple[str, ...] = ()
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

# Environment variables that other tools already set and we honour as well.
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
        if from_env and isinstance(value, str):
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
        if key not in types_:
            known = ", ".join(sorted(types_))
            raise ConfigError(f"{origin}: unknown key '{section}.{key}' (known: {known})")
        changes[key] = _coerce(f"{origin}: '{section}.{key}'", value, types_[key], from_env)
    return dataclasses.replace(base, **changes)


def _validate(cfg: Config) -> Config:
    if cfg.report.lang not in LANGS:
        raise ConfigError(
            f"'report.lang' must be one of {', '.join(LANGS)}, got {cfg.report.lang!r}"
        )
    bad = [f for f in cfg.report.formats if f not in FORMATS]
    if bad or not cfg.report.formats:
        raise ConfigError(
            f"'report.formats' must be a non-empty list from {', '.join(FORMATS)}, got {list(cfg.report.formats)!r}"
        )
    for name in ("snippet_max_lines", "max_snippets"):
        if getattr(cfg.report, name) < 1:
            raise ConfigError(f"'report.{name}' must be at least 1")
    if cfg.git.max_file_bytes < 1:
        raise ConfigError(
            f"'git.max_file_bytes' must be at least 1 (bytes), got {cfg.git.max_file_bytes}"
        )
    if cfg.github.repo and cfg.github.repo.count("/") != 1:
        raise ConfigError(f"'github.repo' must look like OWNER/NAME, got {cfg.github.repo!r}")
    return cfg


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from None


def load_config(
    path: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
) -> Config:
    """Build the configuration from defaults, a TOML file, the environment and CLI overrides.

    ``path`` None means ``./config.toml`` when it exists. ``overrides`` maps section to
    ``{key: value}`` with already-typed values from the CLI; ``None`` values are ignored.
    """
    env = os.environ if env is None else env
    cfg = Config()
    file_path = Path(path) if path is not None else Path("config.toml")
    data: dict[str, Any] = {}
    if path is not None or file_path.is_file():
        data = _read_toml(file_path)
    origin = str(file_path)
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
    return _validate(Config(**sections, modules=modules))
