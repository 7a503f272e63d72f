"""Flags shared by the commands that run the agent (`auger`, `auger serve`, `auger acp`)."""

from __future__ import annotations

import argparse


def agent_flags(p: argparse.ArgumentParser, no_mcp: str = "do not start MCP servers") -> None:
    """The MCP and trust flags of every command that runs the agent (`auger`, `serve`, `acp`)."""
    p.add_argument("--no-mcp", action="store_true", help=no_mcp)
    p.add_argument("--mcp-config", metavar="FILE", action="append", default=[], help="extra MCP servers file")
    p.add_argument(
        "--trust-project",
        "--trust-project-mcp",
        "--trust-project-hooks",
        dest="trust_project",
        action="store_true",
        help="trust this project for this run: its settings, MCP servers and hooks (see: auger trust)",
    )
