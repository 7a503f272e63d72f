"""`auger mcp list [--json] [--mcp-config FILE] [--trust-project-mcp]`: start every configured MCP
server, show its status and tools (or why it failed), and shut them all down again."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from auger.errors import AugerError, UsageError

JSON_KEYS = ("name", "status", "tools", "error", "source")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="auger mcp", description="MCP servers: list them and their tools.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    listing = sub.add_parser("list", help="start every configured server and show its status and tools")
    listing.add_argument("--json", action="store_true", help="print a JSON array instead of a table")
    listing.add_argument(
        "--mcp-config", metavar="FILE", action="append", default=[], help="extra servers file"
    )
    listing.add_argument(
        "--trust-project-mcp", action="store_true", help="start this project's servers without asking"
    )
    return parser


async def _collect(servers: list[Any], log_dir: Path, call_timeout: float) -> list[dict[str, Any]]:
    from auger.core.mcp.manager import McpManager

    manager = McpManager(servers, log_dir, call_timeout, on_notice=lambda _text: None)
    try:
        await manager.start()
        return manager.status()
    finally:
        await manager.aclose()


def _print_table(rows: list[dict[str, Any]]) -> None:
    if not rows:
        print("No MCP servers configured (see `auger config show`, .mcp.json or $AUGER_HOME/mcp.json).")
        return
    width = max(len(r["name"]) for r in rows)
    for row in rows:
        tools = ", ".join(row["tools"]) if row["tools"] else "-"
        print(f"{row['name']:<{width}}  {row['status']:<10} {tools}")
        if row["error"]:
            print(f"{'':<{width}}  error: {row['error']}")
        print(f"{'':<{width}}  from {row['source']}")


def run(argv: Sequence[str], *, cwd: Path | None = None, env: Mapping[str, str] | None = None) -> int:
    args = _parser().parse_args(list(argv) or ["list"])
    if args.command != "list":
        print(UsageError(f"unknown mcp command {args.command!r} (try: auger mcp list)."), file=sys.stderr)
        return UsageError.exit_code
    try:
        from auger import paths
        from auger.core.mcp.config import servers_from_settings
        from auger.settings import load_settings

        settings = load_settings(cwd=cwd, env=env)
        if not logging.getLogger().handlers:  # run from the command line: SDK logs go to the log file
            from auger.logsetup import setup_logging

            setup_logging(settings.home)
        for warning in settings.warnings:
            print(f"auger: warning: {warning}", file=sys.stderr)
        base = Path(cwd) if cwd else Path.cwd()
        extra = [item if item.lstrip().startswith("{") else str(base / item) for item in args.mcp_config]
        problems: list[str] = []
        servers = servers_from_settings(
            settings,
            extra=extra,
            env=os.environ if env is None else env,
            trust_project=args.trust_project_mcp,
            problems=problems,
        )
        for problem in problems:
            print(f"auger: warning: {problem} Skipped.", file=sys.stderr)
        call_timeout = float(settings.get("mcp.call_timeout", 60.0) or 60.0)
        rows = asyncio.run(_collect(servers, paths.logs_dir(settings.home), call_timeout))
    except AugerError as err:
        print(f"auger: {err}", file=sys.stderr)
        return err.exit_code
    if args.json:
        print(json.dumps([{k: row[k] for k in JSON_KEYS} for row in rows], indent=2))
    else:
        _print_table(rows)
    return 0
