"""What an untrusted project wants that needs the user's trust (`auger.trust`), one line each:
settings its config may not set yet, MCP servers, hooks, Claude `allow` lists, memory imports from
outside the project. The TUI's trust prompt, `auger trust` and `/status` show these lines."""

from __future__ import annotations

from pathlib import Path

from auger.settings import Settings
from auger.trust import HOW, ProjectTrust


def project_wants(settings: Settings) -> list[str]:
    """Empty when the project is trusted or wants nothing that needs trust."""
    if settings.trusted or ProjectTrust(settings.home).is_trusted(settings.project_root):
        return []
    from auger.core.mcp.config import servers_from_settings
    from auger.core.safety.claude_settings import read_settings
    from auger.core.safety.hook_config import untrusted_project_hooks

    wants = [f"setting {line}" for line in settings.untrusted]
    servers = [s for s in servers_from_settings(settings, problems=[]) if s.from_project and not s.trusted]
    wants += [f"MCP server {s.name} ({s.source or s.command or s.url})" for s in servers]
    wants += [f"hooks in {source}" for source in untrusted_project_hooks(settings)]
    for file in read_settings(settings.project_root):
        table = file.data.get("permissions")
        if file.scope != "user" and isinstance(table, dict) and table.get("allow"):
            wants.append(f"allow rules in {file.path}")
    wants += [f"memory import {w.split(' is outside', 1)[0]}" for w in _outside(settings)]
    return wants


def _outside(settings: Settings) -> list[str]:
    from auger.core.catalog.memory import memory_warnings

    return [w for w in memory_warnings(settings) if HOW in w]


def status_line(settings: Settings) -> str:
    """`trusted`, or `not trusted` with how to trust it."""
    root = Path(settings.project_root)
    if settings.trusted or ProjectTrust(settings.home).is_trusted(root):
        return f"trusted ({root})"
    return f"not trusted ({root}): its files can only make auger stricter; {HOW}"
