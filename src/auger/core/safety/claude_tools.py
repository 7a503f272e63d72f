"""Claude Code's tool names, and which auger tools they stand for.

Users bring matchers, permission rules and `allowed-tools` lists written for Claude Code
(`Bash`, `Read`, `Edit|Write`, `mcp__github__create_issue`). auger's own tools have other names
(`execute`, `read_file`, `edit_file`, ...); this table is the one place that maps them:

* hook matchers (`auger.core.hooks.config`): a tool call is matched against its auger name and
  the Claude names of that tool (`claude_names("edit_file")` = Edit, MultiEdit), so `Edit|Write`
  fires for `edit_file` and `write_file`;
* a subagent's `tools` list (`auger.core.catalog.subagents`): `auger_tool("Read")` = read_file;
* permission rules and `allowed-tools` (`auger.core.safety.rules`): a Claude rule names the
  tools Claude Code applies it to (`rule_tools`): `Edit(...)` covers every tool that edits files,
  `Read(...)` every tool that reads them (Claude Code: "Read rules apply to Grep, Glob and LS").

`WebFetch(domain:example.com)` applies to any tool called with a `url` argument (auger's
`fetch_url`, an MCP fetch server's `fetch`), by the URL's host; `WebSearch` is `web_search`.
"""

from __future__ import annotations

import re

# auger tool -> the Claude Code tool names a hook matcher may use for it
_HOOK_NAMES: dict[str, tuple[str, ...]] = {
    "execute": ("Bash",),
    "read_file": ("Read",),
    "write_file": ("Write",),
    "edit_file": ("Edit", "MultiEdit"),
    "ls": ("LS",),
    "glob": ("Glob",),
    "grep": ("Grep",),
    "task": ("Task", "Agent"),
    "write_todos": ("TodoWrite",),
    "fetch_url": ("WebFetch",),
    "web_search": ("WebSearch",),
}

# Claude Code name in a subagent's `tools` list -> the one auger tool it is
_AUGER_TOOL = {claude: tool for tool, names in _HOOK_NAMES.items() for claude in names}

# Claude Code name in a permission rule / allowed-tools -> the auger tools it applies to
_RULE_TOOLS: dict[str, tuple[str, ...]] = {
    "Bash": ("execute",),
    "Read": ("read_file", "ls", "glob", "grep"),
    "Write": ("write_file",),
    "Edit": ("edit_file", "write_file", "delete"),
    "MultiEdit": ("edit_file",),
    "NotebookEdit": ("edit_file",),
    "LS": ("ls",),
    "Glob": ("glob",),
    "Grep": ("grep",),
    "Task": ("task",),
    "Agent": ("task",),
    "TodoWrite": ("write_todos",),
    "WebSearch": ("web_search",),
}
WEB_FETCH = "WebFetch"
_MCP = re.compile(r"mcp__([A-Za-z0-9_.-]+?)(?:__([A-Za-z0-9_.*-]+))?\Z")


def claude_names(tool: str) -> tuple[str, ...]:
    """The Claude Code names hook matchers may use for the auger tool `tool`."""
    return _HOOK_NAMES.get(tool, ())


def auger_tool(name: str) -> str:
    """The auger tool a Claude Code name stands for in a subagent's `tools` (others: as given)."""
    return _AUGER_TOOL.get(name, name)


def rule_tools(name: str) -> tuple[str, ...] | None:
    """The auger tools a Claude rule tool name stands for (None: not a Claude name)."""
    return _RULE_TOOLS.get(name)


def mcp_rule_tool(name: str) -> str | None:
    """`mcp__server__tool` -> `server:tool`, `mcp__server` (or `mcp__server__*`) -> `server:*`."""
    match = _MCP.match(name)
    if match is None:
        return None
    return f"{match.group(1)}:{match.group(2) or '*'}"


def split_tool_list(value: object) -> list[str]:
    """An `allowed-tools` value as entries: a YAML list, or a string separated by commas or
    spaces outside parentheses (`Bash(git add:*), Read` is two entries, not three)."""
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return [str(v).strip() for v in value if str(v).strip()]
    out, depth, word = [], 0, ""
    for ch in str(value):
        depth += (ch == "(") - (ch == ")")
        if depth <= 0 and (ch == "," or ch.isspace()):
            depth = 0
            if word.strip():
                out.append(word.strip())
            word = ""
            continue
        word += ch
    if word.strip():
        out.append(word.strip())
    return out
