"""`auger hooks list [--json] | trust`: show the hooks auger would run here (and whether this
project's hooks are trusted), or trust this project (`auger trust`: one decision for all of it)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path

from auger.errors import AugerError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="auger hooks", description="Lifecycle hooks (Claude Code format).")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    listing = sub.add_parser("list", help="every hook that would run here, with its source")
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    sub.add_parser("trust", help="trust this project (as `auger trust` does: hooks, MCP servers, settings)")
    return parser


def run(argv: list[str], *, cwd: Path | None = None, env: Mapping[str, str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv or ["list"])
    except SystemExit as exc:
        return int(exc.code or 0)
    from auger.core.hooks.config import load_hooks, trust_project_hooks, untrusted_project_hooks
    from auger.settings import load_settings

    try:
        settings = load_settings(cwd, env)
        if args.command == "trust":
            pending = untrusted_project_hooks(settings)
            if not pending:
                print("No untrusted project hooks here.")
                return 0
            trust_project_hooks(settings)
            print("Trusted: " + ", ".join(pending))
            return 0
        hooks, notices = load_hooks(settings, trust_project=True)
        untrusted = set(untrusted_project_hooks(settings))
        rows = [
            {
                "event": h.event,
                "matcher": h.matcher,
                "command": h.command,
                "timeout": h.timeout,
                "source": h.source,
                "trusted": h.source not in untrusted,
            }
            for h in hooks
        ]
    except AugerError as err:
        print(f"auger: {err}", file=sys.stderr)
        return err.exit_code
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for row in rows:
            flag = "" if row["trusted"] else "  [not trusted: run `auger trust`]"
            matcher = f" ({row['matcher']})" if row["matcher"] else ""
            print(f"{row['event']}{matcher}: {row['command']}  # {row['source']}{flag}")
        if not rows:
            print("No hooks configured.")
    for text in notices:
        if "were not run" not in text:
            print(f"auger: warning: {text}", file=sys.stderr)
    return 0
