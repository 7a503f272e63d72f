"""`auger mcp list|get|add|remove`, like `claude mcp ...`.

  auger mcp list [--json] [--mcp-config FILE] [--trust-project-mcp]   every server: status, tools
  auger mcp get NAME [--json] [--trust-project-mcp]                    one server: where, what, status
  auger mcp add [-s user|project] [-t stdio|http|sse] [-e K=V]... [-H 'K: V']... [--force]
                NAME COMMAND_OR_URL [ARGS...]        (put `--` before a command's own options)
  auger mcp remove [-s user|project] NAME

`list` and `get` start the servers, report, and shut them down again. Files: `auger.core.mcp.edit`."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from auger.core.mcp.edit import SCOPES
from auger.errors import AugerError, UsageError

JSON_KEYS = ("name", "status", "tools", "error", "source")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="auger mcp", description="MCP servers: list, inspect, add, remove.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    get = sub.add_parser("get", help="start one server and show where it is defined, its status and tools")
    get.add_argument("name")
    get.add_argument("--json", action="store_true", help="print a JSON object")
    get.add_argument(
        "--trust-project-mcp", action="store_true", help="start it even if the project is untrusted"
    )
    add = sub.add_parser("add", help="add a server to $AUGER_HOME/mcp.json (or the project's .mcp.json)")
    add.add_argument("-s", "--scope", choices=SCOPES, default="user", help="user (default) or project")
    add.add_argument("-t", "--transport", choices=("stdio", "http", "sse"), default="stdio")
    add.add_argument("-e", "--env", action="append", default=[], metavar="KEY=VALUE", help="stdio env var")
    add.add_argument(
        "-H", "--header", action="append", default=[], metavar="'NAME: VALUE'", help="HTTP header"
    )
    add.add_argument("--force", action="store_true", help="replace a server of the same name")
    add.add_argument("name")
    add.add_argument("target", metavar="COMMAND_OR_URL")
    add.add_argument("args", nargs=argparse.REMAINDER, help="the command's arguments")
    remove = sub.add_parser("remove", help="remove a server from the file that defines it")
    remove.add_argument("-s", "--scope", choices=SCOPES, help="which file (needed when both define it)")
    remove.add_argument("name")
    listing = sub.add_parser("list", help="start every configured server and show its status and tools")
    listing.add_argument("--json", action="store_true", help="print a JSON array instead of a table")
    listing.add_argument(
        "--mcp-config", metavar="FILE", action="append", default=[], help="extra servers file"
    )
    listing.add_argument(
        "--trust-project-mcp", action="store_true", help="start this project's servers without asking"
    )
    return parser


async def _collect(settings: Any, servers: list[Any]) -> list[dict[str, Any]]:
    """Start `servers`, read each one's status and tools, and shut them down again."""
    from auger.core.mcp.manager import McpManager
    from auger.paths import logs_dir

    timeout = settings.get("mcp.call_timeout")
    manager = McpManager(servers, logs_dir(settings.home), timeout, on_notice=lambda _text: None)
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
    parser = _parser()
    try:
        args = parser.parse_args(list(argv) or ["list"])
    except SystemExit as exc:  # argparse printed the usage line
        return int(exc.code or 0) and UsageError.exit_code
    commands = {"list": _list, "get": _get, "add": _add, "remove": _remove}  # argparse allows no other
    try:
        from auger.settings import load_settings

        settings = load_settings(cwd=cwd, env=env)
        if not logging.getLogger().handlers:  # run from the command line: SDK logs go to the log file
            from auger.logsetup import setup_logging

            setup_logging(settings.home)
        for warning in settings.warnings:
            print(f"auger: warning: {warning}", file=sys.stderr)
        return commands[args.command](args, settings, Path(cwd) if cwd else Path.cwd(), env)
    except AugerError as err:
        print(f"auger: {err}", file=sys.stderr)
        return err.exit_code


def _servers(settings: Any, extra: list[str], trust: bool, env: Mapping[str, str] | None) -> list[Any]:
    from auger.core.mcp.config import servers_from_settings

    problems: list[str] = []
    servers = servers_from_settings(settings, extra=extra, env=env, trust_project=trust, problems=problems)
    for problem in problems:
        print(f"auger: warning: {problem} Skipped.", file=sys.stderr)
    return servers


def _list(args: argparse.Namespace, settings: Any, base: Path, env: Mapping[str, str] | None) -> int:
    extra = [item if item.lstrip().startswith("{") else str(base / item) for item in args.mcp_config]
    rows = asyncio.run(_collect(settings, _servers(settings, extra, args.trust_project_mcp, env)))
    if args.json:
        print(json.dumps([{k: row[k] for k in JSON_KEYS} for row in rows], indent=2))
    else:
        _print_table(rows)
    return 0


def _get(args: argparse.Namespace, settings: Any, base: Path, env: Mapping[str, str] | None) -> int:
    found = [s for s in _servers(settings, [], args.trust_project_mcp, env) if s.name == args.name]
    if not found:
        raise UsageError(f"no MCP server named '{args.name}'.", hint="See `auger mcp list`.")
    cfg = found[0]
    [row] = asyncio.run(_collect(settings, found))
    info = {
        **{k: row[k] for k in JSON_KEYS},
        "transport": cfg.transport,
        "command": cfg.command,
        "args": list(cfg.args),
        "url": cfg.url,
        "env": sorted(cfg.env),  # names only: values are often secrets
        "headers": sorted(cfg.headers),
    }
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    print(f"{cfg.name}  {row['status']}")
    print(f"  from: {row['source']}")
    target = cfg.url if cfg.url else " ".join([cfg.command or "", *cfg.args])
    print(f"  {cfg.transport}: {target}")
    for label, names in (("env", info["env"]), ("headers", info["headers"])):
        if names:
            print(f"  {label}: {', '.join(names)}")
    if row["error"]:
        print(f"  error: {row['error']}")
    print(f"  tools: {', '.join(row['tools']) or '-'}")
    return 0


def _pairs(items: list[str], sep: str, what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, found, value = item.partition(sep)
        if not found or not key.strip():
            raise UsageError(f"bad {what} {item!r}: expected {'KEY=VALUE' if sep == '=' else 'NAME: VALUE'}.")
        out[key.strip()] = value.strip() if sep == ":" else value
    return out


def _add(args: argparse.Namespace, settings: Any, base: Path, env: Mapping[str, str] | None) -> int:
    from auger.core.mcp.edit import add_server, scope_file, server_entry

    rest = args.args[1:] if args.args[:1] == ["--"] else args.args
    entry = server_entry(
        transport=args.transport,
        target=args.target,
        args=list(rest),
        env=_pairs(args.env, "=", "--env"),
        headers=_pairs(args.header, ":", "--header"),
    )
    path = scope_file(args.scope, settings.home, settings.project_root)
    add_server(path, args.name, entry, replace=args.force)
    print(f"Added MCP server '{args.name}' to {path}.")
    if args.scope == "project" and not settings.trusted:
        print(
            "The project is not trusted: `auger trust` (or --trust-project for one run) starts its servers."
        )
    return 0


def _remove(args: argparse.Namespace, settings: Any, base: Path, env: Mapping[str, str] | None) -> int:
    from auger.core.mcp.edit import entry_in, remove_server, scope_file

    scopes = [args.scope] if args.scope else list(SCOPES)
    paths = {s: scope_file(s, settings.home, settings.project_root) for s in scopes}
    holding = [s for s, p in paths.items() if entry_in(p, args.name) is not None]
    if not holding:
        where = " or ".join(str(p) for p in paths.values())
        raise UsageError(f"no MCP server named '{args.name}' in {where}.")
    if len(holding) > 1:
        raise UsageError(
            f"MCP server '{args.name}' is defined in both {paths['user']} and {paths['project']}.",
            hint="Pick one with --scope user or --scope project.",
        )
    remove_server(paths[holding[0]], args.name)
    print(f"Removed MCP server '{args.name}' from {paths[holding[0]]}.")
    return 0
