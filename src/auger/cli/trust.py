"""`auger trust [--forget | --status]`: trust this project (one decision, remembered per project
path in `$AUGER_HOME/trust.json`: its settings, MCP servers, hooks, Claude allow lists and memory
imports then apply), say whether it is trusted and what it wants, or forget the decision."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path

from auger.errors import AugerError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="auger trust", description="Trust this project folder.")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--status", action="store_true", help="say whether it is trusted and what it wants")
    what.add_argument("--forget", action="store_true", help="stop trusting it")
    return parser


def run(argv: list[str], *, cwd: Path | None = None, env: Mapping[str, str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    from auger.core.safety.project_trust import project_wants, status_line
    from auger.settings import load_settings
    from auger.trust import ProjectTrust

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
