"""Adding and removing servers in a servers file (`auger mcp add|remove`), like `claude mcp add`.

Scopes: `user` is `$AUGER_HOME/mcp.json` (every project), `project` is `<project>/.mcp.json`
(shared through the repository; a changed file must be trusted again before its servers run).
A write keeps every other key and server in the file, as written, and is atomic (a temporary
file renamed over it). A file that is not a JSON object with `mcpServers` is refused, not
overwritten.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from auger.core.mcp.config import PROJECT_FILE, USER_FILE, file_text, parse_server
from auger.errors import ConfigError, UsageError
from auger.settings import write_atomic

SCOPES = ("user", "project")


def scope_file(scope: str, home: Path, project_root: Path) -> Path:
    """The file of a scope in SCOPES (`auger mcp`'s argparse choices allow no other)."""
    return home / USER_FILE if scope == "user" else project_root / PROJECT_FILE


def _read(path: Path) -> dict[str, Any]:
    text = file_text(path, str(path))  # None: no file yet; ConfigError: unreadable or not UTF-8
    try:
        data = json.loads(text) if text and text.strip() else {}
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path}:{exc.lineno}:{exc.colno}: invalid JSON ({exc.msg}); fix it before changing it."
        ) from exc
    if not isinstance(data, dict) or not isinstance(data.get(_servers_key(data), {}), dict):
        raise ConfigError(f"{path}: expected a JSON object with `mcpServers`; not changed.")
    return data


def _servers_key(data: dict[str, Any]) -> str:
    return "servers" if "servers" in data and "mcpServers" not in data else "mcpServers"


def _write(path: Path, data: dict[str, Any]) -> None:
    write_atomic(path, json.dumps(data, indent=2) + "\n", new_mode=0o600)  # env and headers hold secrets


def server_entry(
    *,
    transport: str,
    target: str,
    args: list[str],
    env: dict[str, str],
    headers: dict[str, str],
) -> dict[str, Any]:
    """The `mcpServers` entry `auger mcp add` writes (the format Claude Code and Cursor read)."""
    if transport == "stdio":
        entry: dict[str, Any] = {"command": target, "args": args}
        if env:
            entry["env"] = env
        return entry
    if args:
        raise UsageError(f"a {transport} server takes a URL only (got extra arguments: {' '.join(args)}).")
    entry = {"type": transport, "url": target}
    if headers:
        entry["headers"] = headers
    return entry


def add_server(path: Path, name: str, entry: dict[str, Any], *, replace: bool = False) -> None:
    """Write `entry` as server `name` in `path` (UsageError if it exists and not `replace`)."""
    parse_server(name, entry, source=str(path), env={})  # refuses what auger could not run
    data = _read(path)
    key = _servers_key(data)
    servers = data.setdefault(key, {})
    if name in servers and not replace:
        raise UsageError(
            f"MCP server '{name}' already exists in {path}.", hint="Remove it first, or pass --force."
        )
    servers[name] = entry
    _write(path, data)


def remove_server(path: Path, name: str) -> bool:
    """Remove server `name` from `path`; False when it is not there."""
    data = _read(path)
    servers = data.get(_servers_key(data), {})
    if name not in servers:
        return False
    del servers[name]
    _write(path, data)
    return True


def entry_in(path: Path, name: str) -> dict[str, Any] | None:
    data = _read(path)
    found = data.get(_servers_key(data), {}).get(name)
    return found if isinstance(found, dict) else None
