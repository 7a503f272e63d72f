"""What MCP things are called in auger: one rule, independent of which other servers exist.

A tool is `mcp__SERVER__TOOL` and a prompt's slash command `/mcp__SERVER__PROMPT` (Claude Code's
rule), so adding, removing or losing a server never renames another server's tools (a crash
once renamed the survivor's tool in the middle of a turn). Characters a provider refuses in a
function name become `_`; a name over 64 characters keeps its first 55 and gains `_` plus 8 hex
digits of a hash of the full name, so it stays unique and stable.

Rules and hook matchers written for the names auger used before (a tool's bare name, or
`SERVER__TOOL` when two servers shared it) still match: `legacy_names` lists them.
"""

from __future__ import annotations

import hashlib
import re

PREFIX = "mcp__"
MAX_NAME = 64  # OpenAI's limit on a function name
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def safe(part: str) -> str:
    """A server or tool name with every character a function name cannot hold turned into `_`."""
    return _UNSAFE.sub("_", part)


def tool_name(server: str, tool: str) -> str:
    """The name the model and the rules see for `tool` of `server`: `mcp__server__tool`."""
    name = f"{PREFIX}{safe(server)}__{safe(tool)}"
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
    return f"{name[: MAX_NAME - 9]}_{digest}"


prompt_command = tool_name  # the slash command (without `/`) running a prompt: `mcp__server__prompt`


def legacy_names(server: str, tool: str) -> tuple[str, str]:
    """Names this tool may have had before the stable rule: its own, and `SERVER__TOOL`."""
    return tool, f"{safe(server)}__{tool}"[:MAX_NAME]
