"""Settings: one typed schema (`auger.settings_schema`), five layers, lowest to highest:

built-in defaults < user `$AUGER_HOME/config.toml` < project `<root>/.auger/config.toml`
< environment (`AUGER_MODEL`, ...) < command-line flags.

Higher layers win key by key; tables merge key by key; `permissions.*` lists are concatenated.
Only the standard library is imported here (the writer in `auger.cli.config` uses tomli_w).
"""

from __future__ import annotations

import copy
import json
import math
import os
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from auger import paths, trust
from auger.atomic import write_atomic  # noqa: F401 - its callers import it from here
from auger.errors import ConfigError
from auger.settings_schema import KEYS, Key, find_key, free_prefix, is_section, parse_text, suggest

CONFIG_NAME = "config.toml"
Point = tuple[tuple[str, ...], Key, Any]  # concrete dotted path, its schema key, validated value

_PROVIDER_FIELDS = ("base_url", "api_key_env", "models")
_NEAR_MISS = 0.7  # an extra provider param this close to a real key is probably a typo of it
_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {  # kind -> (fits, what is wrong otherwise)
    "str": (lambda v: isinstance(v, str), "is not a string"),
    "bool": (lambda v: isinstance(v, bool), "is not true or false"),
    "int": (lambda v: isinstance(v, int) and not isinstance(v, bool), "is not a whole number"),
    "float": (lambda v: isinstance(v, int | float) and not isinstance(v, bool), "is not a number"),
    "list": (
        lambda v: isinstance(v, list) and all(isinstance(i, str) for i in v),
        "is not a list of strings",
    ),
    "table": (lambda v: isinstance(v, dict), "is not a table"),
}


@dataclass(frozen=True)
class ProviderSettings:
    name: str
    base_url: str | None
    api_key_env: str | None
    models: list[str]
    params: dict[str, Any]  # extra keys: temperature, max_tokens, headers, context_window...


@dataclass
class Settings:
    model: str | None  # "provider:model" (None = not configured)
    mode: str  # "manual" | "auto-edit" | "yolo"
    shell: bool  # False -> FilesystemBackend, no `execute`
    max_turns: int  # model-call cap per user prompt
    timeout: float | None  # headless wall-clock limit
    shell_timeout: int  # seconds per shell command
    providers: dict[str, ProviderSettings]
    home: Path
    cwd: Path
    project_root: Path
    data: dict[str, Any]  # full merged config (defaults included), for sections other modules own
    sources: dict[str, str]  # dotted key -> where its value came from
    warnings: list[str]  # unknown keys etc., shown once by the front end
    trusted: bool = True  # the user trusts the project (`auger.trust`); else its files only tighten
    untrusted: list[str] = field(default_factory=list)  # "file: key" the project set but may not yet

    def get(self, dotted: str, default: Any = None) -> Any:
        """The merged value at a dotted key (`settings.get("sandbox.enabled")`), else `default`."""
        node: Any = self.data
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node


def user_config_path(home: Path) -> Path:
    return home / CONFIG_NAME


def project_config_path(root: Path) -> Path:
    return root / ".auger" / CONFIG_NAME


def show_value(value: Any) -> str:
    """A value as it would read in TOML-ish JSON: strings quoted, booleans lowercase."""
    return json.dumps(value, ensure_ascii=False, default=str)


# --- validation -------------------------------------------------------------------------------


def _problem(key: Key, value: Any) -> str | None:
    """What is wrong with `value` for `key`, or None if it is fine."""
    if value is None:
        return None if key.nullable else "must be set"
    if key.kind == "any":
        return None
    fits, wrong = _CHECKS[key.kind]
    if not fits(value):
        return wrong
    if key.choices and value not in key.choices:
        return "is not one of " + ", ".join(key.choices)
    return _number_problem(key, value) if key.kind in ("int", "float") else None


def _number_problem(key: Key, value: float) -> str | None:
    """nan and inf are no numbers of seconds or tokens; nothing here means anything below 0."""
    if not math.isfinite(value):
        return "is not a finite number"
    if key.positive and value <= 0:
        return "must be greater than 0"
    return "must not be negative" if value < 0 else None


def check(key: Key, dotted: str, value: Any, where: str) -> Any:
    """`value` validated for `key` (ints widened to float for float keys); ConfigError naming `where`."""
    problem = _problem(key, value)
    if problem:
        raise ConfigError(f"{where}: {dotted} = {show_value(value)} {problem}")
    return float(value) if key.kind == "float" and value is not None else value


def unknown_message(parts: tuple[str, ...], where: str | None = None, cutoff: float = 0.6) -> str:
    dotted = ".".join(parts)
    near = suggest(parts, cutoff)
    place = f" in {where}" if where else ""
    return f'unknown setting "{dotted}"{place}' + (f' (did you mean "{near}"?)' if near else "")


def resolve_key(dotted: str) -> Key:
    """The schema key for a dotted name given by the user (flags, `config set`); ConfigError if unknown."""
    parts = tuple(dotted.split("."))
    key = find_key(parts)
    if key is not None:
        return key
    if free_prefix(parts) is not None:
        return Key(dotted, "any", None, "inside a free-form table", nullable=True)
    if is_section(parts):
        raise ConfigError(f'"{dotted}" is a table, not a setting.', hint="Set one of its keys instead.")
    raise ConfigError(unknown_message(parts) + ".", hint="See `auger config show` for every key.")


# --- reading files ----------------------------------------------------------------------------


def _toml_error(path: Path, err: tomllib.TOMLDecodeError, text: str) -> ConfigError:
    """One readable line naming the file and the line (tomllib says "at end of document" for the last)."""
    msg = " ".join(str(err).split())
    at = re.search(r"\s*\((?:at line (\d+), column (\d+)|at end of document)\)", msg)
    if at is None:
        return ConfigError(f"{path}: invalid TOML: {msg}", hint="Fix the file or move it aside.")
    where = (
        f"line {at[1]}, column {at[2]}" if at[1] else f"line {max(len(text.splitlines()), 1)} (end of file)"
    )
    what = (msg[: at.start()] + msg[at.end() :]).rstrip(".")
    return ConfigError(f"{path}: invalid TOML at {where}: {what}.", hint="Fix the file.")


def read_toml(path: Path) -> dict[str, Any] | None:
    """The parsed TOML at `path`, or None if there is no such file."""
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as err:
        raise ConfigError(
            f"cannot read {path}: {err.strerror or err}.", hint="Make it a readable file or remove it."
        ) from err
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")  # a BOM, as some Windows editors write
    except UnicodeDecodeError as err:
        raise ConfigError(f"{path}: not UTF-8 text.", hint="Save it as UTF-8.") from err
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise _toml_error(path, err, text) from err


def _walk(table: Mapping[str, Any], prefix: tuple[str, ...], where: str, warnings: list[str]) -> list[Point]:
    """Validate one file's table against the schema; unknown keys become warnings."""
    points: list[Point] = []
    for name, value in table.items():
        parts = (*prefix, name)
        dotted = ".".join(parts)
        key = find_key(parts)
        if key is not None:
            points.append((parts, key, check(key, dotted, value, where)))
            if key.kind == "any" and suggest(parts, _NEAR_MISS):  # probably a typo of a real key
                warnings.append(unknown_message(parts, where, _NEAR_MISS) + "; passing it to the model as is")
        elif is_section(parts):
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: {dotted} = {show_value(value)} must be a table ([{dotted}])")
            points.extend(_walk(value, parts, where, warnings))
        else:
            warnings.append(unknown_message(parts, where))
    return points


# --- merging ----------------------------------------------------------------------------------


def _table_at(data: dict[str, Any], parts: Iterable[str]) -> dict[str, Any]:
    node = data
    for part in parts:
        child = node.get(part)
        if not isinstance(child, dict):
            child = node[part] = {}
        node = child
    return node


def _deep_merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for name, value in top.items():
        old = merged.get(name)
        merged[name] = _deep_merge(old, value) if isinstance(old, dict) and isinstance(value, dict) else value
    return merged


def _apply(data: dict[str, Any], sources: dict[str, str], point: Point, label: str) -> None:
    parts, key, value = point
    dotted = ".".join(parts)
    parent = _table_at(data, parts[:-1])
    old = parent.get(parts[-1])
    combined = True
    if key.concat and isinstance(old, list) and isinstance(value, list):
        value = old + value
    elif isinstance(old, dict) and isinstance(value, dict):
        value = _deep_merge(old, value)
    else:
        combined = False
    parent[parts[-1]] = copy.deepcopy(value)
    prior = sources.get(dotted, "default")
    sources[dotted] = f"{prior} + {label}" if combined and prior != "default" else label


def _defaults() -> tuple[dict[str, Any], dict[str, str]]:
    data: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for key in KEYS:
        parts = key.parts
        if key.wildcards:
            _table_at(data, parts[: parts.index("*")])
        else:
            _table_at(data, parts[:-1])[parts[-1]] = copy.deepcopy(key.default)
            sources[key.name] = "default"
    return data, sources


def _env_points(env: Mapping[str, str]) -> list[tuple[Point, str]]:
    points: list[tuple[Point, str]] = []
    for key in KEYS:
        if key.env and env.get(key.env, "").strip():
            value = check(key, key.name, parse_text(key, env[key.env]), f"environment variable {key.env}")
            points.append(((key.parts, key, value), f"env {key.env}"))
    return points


def _flag_points(flags: Mapping[str, Any]) -> list[tuple[Point, str]]:
    points: list[tuple[Point, str]] = []
    for dotted, raw in flags.items():
        if raw is None:  # flag not given
            continue
        key = resolve_key(dotted)
        value = parse_text(key, raw) if isinstance(raw, str) and key.kind != "str" else raw
        name = dotted.replace(".", "-").replace("_", "-")
        label = f"flag --no-{name}" if value is False else f"flag --{name}"
        points.append(((tuple(dotted.split(".")), key, check(key, dotted, value, label)), label))
    return points


def _config_files(home: Path, root: Path) -> list[tuple[str, Path]]:
    user, project = user_config_path(home), project_config_path(root)
    if project.resolve() == user.resolve():  # running in the home folder itself
        return [("user", user)]
    return [("user", user), ("project", project)]


def _providers(table: Mapping[str, Any]) -> dict[str, ProviderSettings]:
    return {
        name: ProviderSettings(
            name=name,
            base_url=conf.get("base_url"),
            api_key_env=conf.get("api_key_env"),
            models=list(conf.get("models") or []),
            params={k: v for k, v in conf.items() if k not in _PROVIDER_FIELDS},
        )
        for name, conf in table.items()
    }


def _layer_points(layer: str, path: Path, warnings: list[str]) -> list[Point]:
    """A config file's validated points. A broken project file (bad TOML, a bad value) is a warning
    and is left out whole; the user's own file stays strict (running without it could loosen what
    they set)."""
    found: list[str] = []
    try:
        points = _walk(read_toml(path) or {}, (), str(path), found)
    except ConfigError as err:
        if layer != "project":
            raise
        warnings.append(f"{err.message.rstrip('.')}; the file is ignored until it is fixed.")
        return []
    warnings.extend(found)
    return points


def _project_point(
    point: Point, path: Path, data: dict[str, Any], trusted: bool, notes: tuple[list[str], list[str]]
) -> bool:
    """True when a project file's `point` applies; else one line in `notes` (warnings, untrusted)."""
    warnings, untrusted = notes
    dotted = ".".join(point[0])
    if point[1].user_only:
        warnings.append(f"{path}: {dotted} is ignored in a project's config (set it in your own config.toml)")
        return False
    if not trusted and trust.screen(point[0], point[2], data):
        warnings.append(trust.ignored_line(path, dotted))
        untrusted.append(f"{path}: {dotted}")
        return False
    return True


def load_settings(
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    flags: Mapping[str, Any] | None = None,
    *,
    trust_project: bool = False,
) -> Settings:
    """Merge every layer into one validated `Settings` (ConfigError on invalid values).
    `trust_project` trusts the project for this run (`--trust-project`), as `auger trust` does."""
    env = os.environ if env is None else env
    cwd = (cwd or Path.cwd()).resolve()
    home, root = paths.auger_home(env), paths.project_root(cwd)
    trusted = trust.is_trusted(home, root, once=trust_project)
    data, sources = _defaults()
    warnings: list[str] = []
    untrusted: list[str] = []
    for layer, path in _config_files(home, root):
        for point in _layer_points(layer, path, warnings):
            if layer != "project" or _project_point(point, path, data, trusted, (warnings, untrusted)):
                _apply(data, sources, point, f"{layer} ({path})")
    for point, label in [*_env_points(env), *_flag_points(flags or {})]:
        _apply(data, sources, point, label)
    return Settings(
        model=data["model"],
        mode=data["mode"],
        shell=data["shell"],
        max_turns=data["max_turns"],
        timeout=data["timeout"],
        shell_timeout=data["shell_timeout"],
        providers=_providers(data["providers"]),
        home=home,
        cwd=cwd,
        project_root=root,
        data=data,
        sources=sources,
        warnings=list(dict.fromkeys(warnings)),
        trusted=trusted,
        untrusted=untrusted,
    )
