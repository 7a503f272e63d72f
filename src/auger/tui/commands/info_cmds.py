"""Read-only commands: /help, /skills, /agents, /memory, /tools, /mcp."""

from __future__ import annotations

from typing import TYPE_CHECKING

from auger.core.port import PLAN_MODE
from auger.tui.commands.registry import REGISTRY, command
from auger.tui.format import md_code, md_table, one_line

if TYPE_CHECKING:
    from auger.core.port import Catalogue
    from auger.tui.app import AugerApp

KEYS_HELP = [
    ("Enter", "send"),
    ("Shift+Enter, Ctrl+J", "new line"),
    ("Up / Down", "previous / next prompt"),
    ("Ctrl+R", "search prompt history"),
    ("Ctrl+G", "edit the prompt in $EDITOR"),
    ("Esc", "interrupt the running turn"),
    ("Esc Esc", "on an empty prompt: rewind to before an earlier turn (/rewind)"),
    ("Shift+Tab", "cycle the approval mode"),
    ("Ctrl+O", "expand / collapse the last tool call"),
    ("Ctrl+C twice, Ctrl+D", "quit"),
    ("@path", "attach a file"),
    ("!command", "run a shell command; its output goes with your next prompt"),
]


def _cell(text: str) -> str:
    """A description for a table cell: one line, whole (the table wraps it to the width there is;
    only a runaway one is cut)."""
    return one_line(" ".join(text.split()), 600)


async def _catalogue(app: AugerApp) -> Catalogue | None:
    """The agent's catalogue, read again (a skill added a moment ago shows)."""
    if app.session is not None:
        app.catalogue = await app.session.catalogue()
    return app.catalogue


@command("help", "Commands and keys", aliases=("?",), needs_session=False)
async def help_cmd(app: AugerApp, arg: str) -> None:
    rows: list[list[str]] = []
    for cmd in REGISTRY.all():
        names = ", ".join(f"/{a}" for a in cmd.aliases)
        extra = f" (also {names})" if names else ""
        rows.append([md_code(cmd.usage), _cell(cmd.help) + extra])
    catalogue = await _catalogue(app)
    skills = catalogue.skills if catalogue is not None else []
    rows += [[md_code(f"/{s.name} {s.args_hint}".rstrip()), f"skill: {_cell(s.description)}"] for s in skills]
    commands = catalogue.commands if catalogue is not None else []
    rows += [
        [md_code(f"/{c.name} {c.args_hint}".rstrip()), f"command: {_cell(c.description)}"] for c in commands
    ]
    keys = md_table(["Key", "What it does"], [[k, v] for k, v in KEYS_HELP])
    await app.write_info(md_table(["Command", "What it does"], rows) + "\n\n" + keys)


@command("skills", "Skills you can invoke as /<skill-name> args")
async def skills_cmd(app: AugerApp, arg: str) -> None:
    catalogue = await _catalogue(app)
    if catalogue is None or not catalogue.skills:
        await app.write_info("No skills found. Add one as `.auger/skills/<name>/SKILL.md` in the project.")
        return
    rows = [[md_code(f"/{s.name}"), s.source, _cell(s.description)] for s in catalogue.skills]
    await app.write_info(md_table(["Skill", "Source", "Description"], rows))


@command("agents", "Subagents the agent can delegate to")
async def agents_cmd(app: AugerApp, arg: str) -> None:
    catalogue = await _catalogue(app)
    rows = [
        [md_code(agent.name), agent.source, agent.model or "(same)", _cell(agent.description)]
        for agent in (catalogue.subagents if catalogue else [])
    ]
    await app.write_info(md_table(["Subagent", "Source", "Model", "Description"], rows))


@command("memory", "Memory files (AGENTS.md) the agent reads")
async def memory_cmd(app: AugerApp, arg: str) -> None:
    catalogue = await _catalogue(app)
    files = catalogue.memory if catalogue else []
    rows = [
        [mem.scope, md_code(str(mem.path)), "loaded" if mem.exists else "missing (create it to add memory)"]
        for mem in files
    ]
    await app.write_info(md_table(["Scope", "File", "State"], rows) if files else "No memory files.")


@command("tools", "Tools the agent is offered in the current mode")
async def tools_cmd(app: AugerApp, arg: str) -> None:
    catalogue = await _catalogue(app)
    plan = app.settings.mode == PLAN_MODE
    names = (catalogue.plan_tools if plan else catalogue.tools) if catalogue else []
    label = "Tools (plan mode: read-only)" if plan else "Tools"
    await app.write_info(f"{label}: " + ", ".join(f"`{n}`" for n in names))


@command(
    "mcp", "MCP servers and their tools; `/mcp restart NAME`, `/mcp trust`", args="[restart NAME | trust]"
)
async def mcp_cmd(app: AugerApp, arg: str) -> None:
    assert app.session is not None
    action, _, name = arg.strip().partition(" ")
    if action == "trust":
        await app.write_info(await app.session.mcp_trust())
    elif action == "restart":
        await app.write_info(await app.session.mcp_restart(name.strip()))
    catalogue = await _catalogue(app)
    if catalogue is None or not catalogue.mcp:
        await app.write_info("No MCP servers configured (`.mcp.json`, `$AUGER_HOME/mcp.json` or `[mcp]`).")
        return
    rows: list[list[str]] = []
    for srv in catalogue.mcp:
        tools = ", ".join(srv.tools) or "-"
        state = srv.status + (f": {_cell(srv.error)}" if srv.error else "")
        rows.append([md_code(srv.name), state, _cell(tools)])
    await app.write_info(md_table(["Server", "Status", "Tools"], rows))
