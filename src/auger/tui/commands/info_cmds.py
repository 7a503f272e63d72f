"""Read-only commands: /help, /skills, /agents, /memory, /tools, /mcp."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from auger.tui import services
from auger.tui.commands.registry import REGISTRY, command
from auger.tui.format import md_code, md_table, one_line

if TYPE_CHECKING:
    from auger.tui.app import AugerApp

KEYS_HELP = [
    ("Enter", "send"),
    ("Shift+Enter, Ctrl+J", "new line"),
    ("Up / Down", "previous / next prompt"),
    ("Ctrl+R", "search prompt history"),
    ("Ctrl+G", "edit the prompt in $EDITOR"),
    ("Esc", "interrupt the running turn"),
    ("Shift+Tab", "cycle the approval mode"),
    ("Ctrl+O", "expand / collapse the last tool call"),
    ("Ctrl+C twice, Ctrl+D", "quit"),
    ("@path", "attach a file"),
    ("!command", "run a shell command; its output goes with your next prompt"),
]


def _cell(text: str) -> str:
    return one_line(text, 90)


@command("help", "Commands and keys", aliases=("?",), needs_session=False)
async def help_cmd(app: AugerApp, arg: str) -> None:
    rows: list[list[str]] = []
    for cmd in REGISTRY.all():
        names = ", ".join(f"/{a}" for a in cmd.aliases)
        extra = f" (also {names})" if names else ""
        rows.append([md_code(cmd.usage), _cell(cmd.help) + extra])
    rows += [[md_code(f"/{name} [args]"), f"skill: {_cell(desc)}"] for name, desc in services.skills(app)]
    keys = md_table(["Key", "What it does"], [[k, v] for k, v in KEYS_HELP])
    await app.write_info(md_table(["Command", "What it does"], rows) + "\n\n" + keys)


@command("skills", "Skills you can invoke as /<skill-name> args", needs_session=False)
async def skills_cmd(app: AugerApp, arg: str) -> None:
    found = services.skill_details(app)
    if not found:
        await app.write_info("No skills found. Add one as `.auger/skills/<name>/SKILL.md` in the project.")
        return
    rows = [[md_code(f"/{s.name}"), s.source, _cell(s.description)] for s in found]
    await app.write_info(md_table(["Skill", "Source", "Description"], rows))


def _field(item: Any, *names: str) -> str:
    for name in names:
        value = item.get(name) if isinstance(item, dict) else getattr(item, name, None)
        if value:
            return str(value)
    return ""


@command("agents", "Subagents the agent can delegate to", needs_session=False)
async def agents_cmd(app: AugerApp, arg: str) -> None:
    rows = [[md_code("general-purpose"), "built-in", "(same)", "Any task, with the main agent's tools"]]
    for agent in services.subagents(app):
        name, model = _field(agent, "name"), _field(agent, "model") or "(same)"
        source = _field(agent, "source") or ("remote" if _field(agent, "url") else "")
        rows.append([md_code(name), source, model, _cell(_field(agent, "description"))])
    await app.write_info(md_table(["Subagent", "Source", "Model", "Description"], rows))


@command("memory", "Memory files (AGENTS.md) the agent reads", needs_session=False)
async def memory_cmd(app: AugerApp, arg: str) -> None:
    files = services.memory_files(app)
    rows = [
        [mem.scope, md_code(str(mem.path)), "loaded" if mem.exists else "missing (create it to add memory)"]
        for mem in files
    ]
    await app.write_info(md_table(["Scope", "File", "State"], rows) if files else "No memory files.")


@command("tools", "Tools the agent can call")
async def tools_cmd(app: AugerApp, arg: str) -> None:
    names = services.tool_names(app)
    await app.write_info("Tools: " + ", ".join(f"`{n}`" for n in names))


@command(
    "mcp", "MCP servers and their tools; `/mcp restart NAME`, `/mcp trust`", args="[restart NAME | trust]"
)
async def mcp_cmd(app: AugerApp, arg: str) -> None:
    action, _, name = arg.strip().partition(" ")
    if action in ("restart", "trust"):
        await app.write_info(await services.mcp_action(app, action, name.strip()))
    status = services.mcp_status(app)
    if not status:
        await app.write_info("No MCP servers configured (`.mcp.json`, `$AUGER_HOME/mcp.json` or `[mcp]`).")
        return
    rows: list[list[str]] = []
    for srv in status:
        tools = ", ".join(srv["tools"]) or "-"
        state = srv["status"] + (f": {_cell(srv['error'])}" if srv.get("error") else "")
        rows.append([md_code(srv["name"]), state, _cell(tools)])
    await app.write_info(md_table(["Server", "Status", "Tools"], rows))
