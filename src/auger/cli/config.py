"""`auger config show [--json] | set KEY VALUE | path`.

`set` writes the user file (`$AUGER_HOME/config.toml`) atomically: a temp file in the same
folder, fsync, then `os.replace`, so the file is never half-written. Every other key the user
wrote is kept (comments are not: the file is re-serialised).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from auger import paths
from auger.errors import AugerError, ConfigError, UsageError
from auger.settings import (
    Settings,
    check,
    load_settings,
    parse_text,
    project_config_path,
    read_toml,
    resolve_key,
    show_value,
    user_config_path,
    write_atomic,
)
from auger.settings_schema import key_order

USAGE = "usage: auger config show [--json] | auger config set KEY VALUE | auger config path"
REDACTED = "<redacted>"
_SECRET_WORDS = {"key", "apikey", "token", "secret", "password", "passwd", "auth", "authorization"}
_SECRET_WORDS |= {"cookie", "credential", "credentials", "bearer"}
_SECRET_TABLES = ("env", "headers")


def run(argv: list[str], *, cwd: Path | None = None, env: Mapping[str, str] | None = None) -> int:
    """Run `auger config ...`; returns the exit code. AugerError -> one line on stderr."""
    command, args = (argv[0], argv[1:]) if argv else ("show", [])
    try:
        if command in ("-h", "--help", "help"):
            print(USAGE)
            return 0
        if command == "show" and args in ([], ["--json"]):
            return _show(load_settings(cwd, env), as_json=bool(args))
        if command == "set" and len(args) == 2:
            return _set(args[0], args[1], env)
        if command == "path" and not args:
            return _path(cwd, env)
        raise UsageError(f"bad arguments: config {' '.join(argv)}.", hint=USAGE)
    except AugerError as err:
        print(f"auger: {err}", file=sys.stderr)
        return err.exit_code


# --- show -------------------------------------------------------------------------------------


def _is_secret_name(name: str) -> bool:
    if name.lower().endswith("_env"):  # the NAME of a variable, not its value
        return False
    return not _SECRET_WORDS.isdisjoint(name.lower().replace("-", "_").split("_"))


def redact(value: Any, name: str = "", parent: str = "") -> Any:
    """`value` with secrets masked: entries of `env`/`headers` tables and keys named like secrets."""
    if isinstance(value, dict):
        return {k: redact(v, str(k), name) for k, v in value.items()}
    secret = parent in _SECRET_TABLES or _is_secret_name(name)
    return REDACTED if secret and value not in (None, "") else value


def _redacted(dotted: str, value: Any) -> Any:
    """The value of setting `dotted`, secrets masked (`redact` by its name and its table's)."""
    parts = dotted.split(".")
    return redact(value, parts[-1], parts[-2] if len(parts) > 1 else "")


def _rows(settings: Settings) -> list[tuple[str, Any, str]]:
    keys = sorted(settings.sources, key=key_order)
    return [(dotted, _redacted(dotted, settings.get(dotted)), settings.sources[dotted]) for dotted in keys]


def _show(settings: Settings, *, as_json: bool) -> int:
    rows = _rows(settings)
    if as_json:
        doc = {
            "settings": {key: {"value": value, "source": source} for key, value, source in rows},
            "files": _files(settings.home, settings.project_root),
            "warnings": settings.warnings,
        }
        print(json.dumps(doc, indent=2, ensure_ascii=False, default=str))
        return 0
    lines = [(f"{key} = {show_value(value)}", source) for key, value, source in rows]
    width = min(max(len(text) for text, _ in lines), 60)
    for text, source in lines:
        print(f"{text:<{width}}  # {source}")
    for warning in settings.warnings:
        print(f"auger: warning: {warning}", file=sys.stderr)
    return 0


def _files(home: Path, root: Path) -> dict[str, str]:
    return {"user": str(user_config_path(home)), "project": str(project_config_path(root))}


def _path(cwd: Path | None, env: Mapping[str, str] | None) -> int:
    files = _files(paths.auger_home(env), paths.project_root(cwd))
    for layer, path in files.items():
        print(f"{layer}: {path}")
    return 0


# --- set --------------------------------------------------------------------------------------


def _set(dotted: str, text: str, env: Mapping[str, str] | None) -> int:
    key = resolve_key(dotted)
    value = check(key, dotted, parse_text(key, text), "config set")
    path = write_user_setting(paths.auger_home(env), dotted, value)
    action = (
        f"removed {dotted}" if value is None else f"set {dotted} = {show_value(_redacted(dotted, value))}"
    )
    print(f"{action} in {path}")
    return 0


def write_user_setting(home: Path, dotted: str, value: Any) -> Path:
    """Set (or, for None, remove) one dotted key in the user file, keeping every other key."""
    import tomli_w  # only the write path needs it

    path = user_config_path(home)
    data = read_toml(path) or {}
    _put(data, dotted, value, path)
    write_atomic(path, tomli_w.dumps(data))
    return path


def _put(data: dict[str, Any], dotted: str, value: Any, path: Path) -> None:
    parts = dotted.split(".")
    node = data
    for i, part in enumerate(parts[:-1]):
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            table = ".".join(parts[: i + 1])
            raise ConfigError(f"{path}: {table} is not a table.", hint="Fix or remove it first.")
    if value is None:
        node.pop(parts[-1], None)
    else:
        node[parts[-1]] = value


def save_first_model(settings: Settings, spec: str, base_url: str | None) -> Settings:
    """The TUI's first-run form: write `model` (and the provider's base_url) to the user config;
    return the settings read again."""
    from auger.core.models.specs import parse_spec

    provider = spec.partition(":")[0]
    if not base_url:
        parse_spec(spec, settings.providers)  # an unknown provider: say so before writing anything
    else:
        if ":" not in spec:
            raise AugerError("Write the model as provider:model (e.g. local:qwen3-coder).")
        write_user_setting(settings.home, f"providers.{provider}.base_url", base_url)
    write_user_setting(settings.home, "model", spec)
    return reload_settings(settings)


def reload_settings(settings: Settings) -> Settings:
    """The settings read again from the files and environment (same folder, same auger home):
    also the first-run screen's Enter with nothing typed (configured from another shell)."""
    return load_settings(cwd=settings.cwd, env={**os.environ, "AUGER_HOME": str(settings.home)})
