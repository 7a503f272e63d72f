"""`auger trust [--forget | --status]`: trust this project (one decision, remembered per project
path in `$AUGER_HOME/trust.json`: its settings, MCP servers, hooks, Claude allow lists and memory
imports then apply), say whether it is trusted and what it wants, or forget the decision."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path

from auger.errors import AugerError
from auger.settings import Settings, load_settings
from auger.trust import HOW, ProjectTrust, status_line


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="auger trust", description="Trust this project folder.")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--status", action="store_true", help="say whether it is trusted and what it wants")
    what.add_argument("--forget", action="store_true", help="stop trusting it")
    return parser


def project_wants(settings: Settings) -> list[str]:
    """What an untrusted project wants that needs trust, one line each (settings its config may not
    set yet, MCP servers, hooks, Claude allow lists, memory imports from outside it): for
    `auger trust --status` and the TUI's trust question. Empty when trusted or wanting nothing."""
    if settings.trusted or ProjectTrust(settings.home).is_trusted(settings.project_root):
        return []
    from auger.core.hooks.config import untrusted_project_hooks
    from auger.core.mcp.config import servers_from_settings
    from auger.core.safety.claude_settings import read_settings

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


def run(argv: list[str], *, cwd: Path | None = None, env: Mapping[str, str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        settings = load_settings(cwd, env)
        store, root = ProjectTrust(settings.home), settings.project_root
        if args.forget:
            print(f"No longer trusted: {root}" if store.forget(root) else f"{root} was not trusted.")
            return 0
        wants = project_wants(settings)
        if args.status:
            print(f"Project {status_line(settings)}")
            print("".join(f"  wants {line}\n" for line in wants), end="")
            return 0
        store.trust(root)
    except AugerError as err:
        print(f"auger: {err}", file=sys.stderr)
        return err.exit_code
    print(f"Trusted {root}" + (": " + "; ".join(wants) if wants else "."))
    return 0
