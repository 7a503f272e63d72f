"""MCP server definitions: where they come from, what they mean, and whether the project is trusted.

Sources, later overriding earlier by server name:
  1. `$AUGER_HOME/mcp.json`                  (user)
  2. `[mcp.servers.NAME]` tables in config   (config.toml, passed in as a dict)
  3. `<project root>/.mcp.json`              (project: needs a trust decision before stdio servers run)
  4. `--mcp-config FILE` (or inline JSON)    (explicit, in the order given)

Files use the `mcpServers` format from Claude Code / Cursor (`servers`, as in VS Code, is accepted too).
Strings in `command`, `args`, `env`, `cwd`, `url` and `headers` expand `${VAR}` and `${VAR:-default}`.

A broken user or project file (unreadable, not UTF-8, invalid JSON) or entry is skipped with one
warning naming it (and the line); the agent runs without it. A `--mcp-config` file, which the
user named, is strict (exit 2). An untrusted project `.mcp.json` is read only for its server
names (for the trust prompt): its entries are parsed once the user trusts the project (`auger.trust`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from auger.errors import ConfigError
from auger.trust import HOW, ProjectTrust

PROJECT_FILE = ".mcp.json"
USER_FILE = "mcp.json"
_HTTP_TYPES = {"http": "http", "streamable_http": "http", "streamable-http": "http", "sse": "sse"}
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


@dataclass(frozen=True)
class McpServerConfig:
    name: str
    transport: str  # "stdio" | "http" (streamable HTTP) | "sse"
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)  # added to the MCP SDK's safe default environment
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    disabled: bool = False
    read_only: bool = False  # every tool of this server counts as read-only (no approval needed)
    source: str = ""  # the file (or "config.toml") that defined it
    from_project: bool = False  # came from the project's .mcp.json: needs a trust decision
    trusted: bool = True  # False: a project server whose .mcp.json the user has not approved
    project_root: Path | None = None
    error: str | None = None  # a per-server problem found while reading (e.g. an unset ${VAR})


TrustStore = ProjectTrust  # the manager's name for the one project decision (`auger.trust`)


def untrusted_hint(root: Path | None) -> str:
    return (
        f"Project MCP servers from {root / PROJECT_FILE if root else PROJECT_FILE} are not started until "
        f"you trust the project: {HOW} (/mcp trust in the TUI does it too)."
    )


def _expand(value: str, env: Mapping[str, str], missing: list[str]) -> str:
    def sub(m: re.Match[str]) -> str:
        name, default = m.group(1), m.group(2)
        got = env.get(name)
        if got:
            return got
        if default is not None:
            return default
        if got is None:
            missing.append(name)
        return ""

    return _VAR.sub(sub, value)


def _strings(value: Any, what: str, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str | int | float) for v in value):
        raise ConfigError(f"{where}: `{what}` must be a list of strings.")
    return [str(v) for v in value]


def _table(value: Any, what: str, where: str) -> dict[str, str]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: `{what}` must be a table of strings.")
    return {str(k): str(v) for k, v in value.items()}


def parse_server(
    name: str,
    raw: Any,
    *,
    source: str,
    env: Mapping[str, str],
    from_project: bool = False,
    base_dir: Path | None = None,
) -> McpServerConfig:
    """One `mcpServers` entry -> McpServerConfig (ConfigError if it cannot describe a server)."""
    where = f"MCP server '{name}' in {source}"
    if not isinstance(raw, dict):
        raise ConfigError(f"{where} must be an object with `command` or `url`.")
    disabled = bool(raw.get("disabled", False)) or raw.get("enabled", True) is False
    kind = str(raw.get("type") or raw.get("transport") or "").lower()
    command, url = raw.get("command"), raw.get("url") or raw.get("serverUrl")
    if not command and not url and not disabled:
        raise ConfigError(f"{where} has neither `command` nor `url`.", hint="Add one, or remove the entry.")
    if kind and kind != "stdio" and kind not in _HTTP_TYPES:
        raise ConfigError(f"{where}: unknown type {kind!r} (use stdio, http, streamable_http or sse).")
    missing: list[str] = []

    def x(s: Any) -> str:
        return _expand(str(s), env, missing)

    transport = "stdio" if command and kind in ("", "stdio") else _HTTP_TYPES.get(kind, "http")
    cwd = raw.get("cwd")
    if cwd:
        cwd_path = Path(x(cwd)).expanduser()
        if not cwd_path.is_absolute() and base_dir is not None:
            cwd_path = base_dir / cwd_path
        cwd = str(cwd_path)
    cfg = McpServerConfig(
        name=name,
        transport=transport,
        command=x(command) if command else None,
        args=tuple(x(a) for a in _strings(raw.get("args", []), "args", where)),
        env={k: x(v) for k, v in _table(raw.get("env", {}), "env", where).items()},
        cwd=cwd or None,
        url=x(url) if url else None,
        headers={k: x(v) for k, v in _table(raw.get("headers", {}), "headers", where).items()},
        disabled=disabled,
        read_only=bool(raw.get("readOnly", raw.get("read_only", False))),
        source=source,
        from_project=from_project,
    )
    if missing and not disabled:
        names = sorted(set(missing))
        noun = "environment variable" if len(names) == 1 else "environment variables"
        return replace(cfg, error=f"{noun} {', '.join(names)} not set (used by {where})")
    return cfg


def file_text(path: Path, label: str) -> str | None:
    """The text of a servers file (None: missing). ConfigError: unreadable or not UTF-8."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"Cannot read {label}: {exc.strerror or exc}.") from exc
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{label}: not UTF-8 text (byte {exc.start}); it is not a JSON servers file."
        ) from exc


def _servers_table(text: str | None, label: str) -> dict[str, Any]:
    """The `mcpServers` object of a servers file's text ({}: no file); ConfigError naming file and line."""
    try:
        data = json.loads(text) if text and text.strip() else {}
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{label}:{exc.lineno}:{exc.colno}: invalid JSON ({exc.msg}).") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{label}: expected a JSON object with `mcpServers`.")
    servers = data.get("mcpServers", data.get("servers", {}))
    if not isinstance(servers, dict):
        raise ConfigError(f"{label}: `mcpServers` must be an object mapping names to servers.")
    return servers


def read_servers_file(
    path: Path,
    *,
    env: Mapping[str, str],
    from_project: bool = False,
    text: str | None = None,
    problems: list[str] | None = None,
) -> dict[str, McpServerConfig]:
    """Servers from one JSON file (or inline JSON `text`). Missing file -> {}.

    With `problems` (a list) the file degrades instead of failing: a file that cannot be read or
    parsed adds one line there and gives no servers, a bad entry adds one and is skipped.
    Without it any problem is a ConfigError (for `--mcp-config`, which the user named)."""
    label = "--mcp-config" if text is not None else str(path)
    try:
        table = _servers_table(file_text(path, label) if text is None else text, label)
    except ConfigError as exc:
        if problems is None:
            raise
        problems.append(str(exc))
        return {}
    out: dict[str, McpServerConfig] = {}
    for name, raw in table.items():
        try:
            out[str(name)] = parse_server(
                str(name), raw, source=label, env=env, from_project=from_project, base_dir=path.parent
            )
        except ConfigError as exc:
            if problems is None:
                raise
            problems.append(str(exc))
    return out


def untrusted_servers(path: Path, root: Path, problems: list[str]) -> dict[str, McpServerConfig]:
    """The server NAMES of a project `.mcp.json` nobody trusted yet — all the trust prompt needs.
    Nothing else is read: no entry is checked, no `${VAR}` is expanded, nothing can start."""
    try:
        table = _servers_table(file_text(path, str(path)), str(path))
    except ConfigError as exc:
        problems.append(str(exc))
        return {}
    return {
        str(name): McpServerConfig(
            name=str(name),
            transport="stdio",
            source=str(path),
            from_project=True,
            trusted=False,
            project_root=Path(root),
        )
        for name in table
    }


def project_servers(root: Path, *, env: Mapping[str, str], problems: list[str]) -> dict[str, McpServerConfig]:
    """The project's `.mcp.json` servers, read in full: once the user trusts it."""
    servers = read_servers_file(Path(root) / PROJECT_FILE, env=env, from_project=True, problems=problems)
    return {n: replace(c, trusted=True, project_root=Path(root)) for n, c in servers.items()}


def load_mcp_servers(
    *,
    home: Path,
    project_root: Path,
    config_servers: Mapping[str, Any] | None = None,
    config_sources: Mapping[str, str] | None = None,
    extra: Sequence[str | Path] = (),
    env: Mapping[str, str] | None = None,
    trust_project: bool = False,
    problems: list[str] | None = None,
) -> list[McpServerConfig]:
    """Merge every source (see module doc). `config_sources` maps a config.toml server name to where
    it came from (`Settings.sources` labels); one set by the project's config.toml needs trust too.
    `trust_project` trusts the project's servers for this run only (nothing is remembered).

    With `problems` (a list), a broken user or project file — or entry — is one line there and
    is skipped; without it, the first such problem is a ConfigError. `--mcp-config` files are
    strict either way. An untrusted project `.mcp.json` is read only for its server names."""
    env = os.environ if env is None else env
    found: list[str] = []
    merged = read_servers_file(Path(home) / USER_FILE, env=env, problems=found)
    for name, raw in (config_servers or {}).items():
        label = (config_sources or {}).get(str(name)) or "config.toml"
        try:
            merged[str(name)] = parse_server(
                str(name),
                raw,
                source=label,
                env=env,
                from_project=any(part.startswith("project (") for part in label.split(" + ")),
            )
        except ConfigError as exc:
            found.append(str(exc))
    trusted = trust_project or TrustStore(home).is_trusted(project_root)
    project_file = Path(project_root) / PROJECT_FILE
    if trusted:
        merged.update(read_servers_file(project_file, env=env, from_project=True, problems=found))
    else:
        merged.update(untrusted_servers(project_file, Path(project_root), found))
    if found and problems is None:
        raise ConfigError(found[0])
    if problems is not None:
        problems += found
    for name, cfg in merged.items():
        if cfg.from_project:
            merged[name] = replace(cfg, trusted=trusted, project_root=Path(project_root))
    for item in extra:
        text = str(item)
        if text.lstrip().startswith("{"):
            merged.update(read_servers_file(Path("."), env=env, text=text))
            continue
        path = Path(item).expanduser()
        if not path.is_file():
            raise ConfigError(f"--mcp-config: no such file {path}.")
        merged.update(read_servers_file(path, env=env))
    return list(merged.values())


def servers_from_settings(
    settings: Any,
    *,
    extra: Sequence[str | Path] = (),
    env: Mapping[str, str] | None = None,
    trust_project: bool = False,
    problems: list[str] | None = None,
) -> list[McpServerConfig]:
    """`load_mcp_servers` fed from an `auger.settings.Settings` (`[mcp.servers]`, home, root)."""
    servers = settings.get("mcp.servers")  # a table of tables: load_settings refuses anything else
    return load_mcp_servers(
        home=settings.home,
        project_root=settings.project_root,
        config_servers=servers,
        config_sources={n: settings.sources.get(f"mcp.servers.{n}", "") for n in servers},
        extra=extra,
        env=env,
        trust_project=trust_project or settings.trusted,  # --trust-project, or trusted
        problems=problems,
    )
