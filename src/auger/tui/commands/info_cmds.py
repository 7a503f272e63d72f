"""Read-only commands: /help, /status, /skills, /agents, /memory, /tools, /mcp."""

from __future__ import annotations

import platform
from typing import TYPE_CHECKING

from auger.core.port import PLAN_MODE
from auger.tui.commands.registry import REGISTRY, command
from auger.tui.format import md_code, md_table, one_line

if TYPE_CHECKING:
    from auger.core.port import Catalogue
    from auger.tui.commands.context import CommandContext

WEB_SEARCH_HINT = (
    'No `web_search`: to add it, set `[web_search] provider = "searxng"` (with `url` = your instance) '
    'or `"tavily"` / `"brave"` (with `api_key_env` = the variable holding the key) in your config.toml.'
)
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
    ("PageUp / PageDown", "scroll the conversation a page"),
    ("Shift+Up / Shift+Down", "scroll the conversation a line"),
    ("Ctrl+Home / Ctrl+End", "the conversation's top / end (Home / End move in the prompt)"),
    ("Ctrl+C twice, Ctrl+D", "quit"),
    ("@path", "attach a file"),
    ("!command", "run a shell command; its output goes with your next prompt"),
]


def _cell(text: str) -> str:
    """A description for a table cell: one line, whole (the table wraps it to the width there is;
    only a runaway one is cut)."""
    return one_line(" ".join(text.split()), 600)


async def _catalogue(ctx: CommandContext) -> Catalogue | None:
    """The agent's catalogue, read again (a skill added a moment ago shows)."""
    if ctx.port is not None:
        ctx.facts.catalogue = await ctx.port.catalogue()
    return ctx.facts.catalogue


@command("help", "Commands and keys", aliases=("?",), needs_session=False)
async def help_cmd(ctx: CommandContext, arg: str) -> None:
    rows: list[list[str]] = []
    for cmd in REGISTRY.all():
        names = ", ".join(f"/{a}" for a in cmd.aliases)
        extra = f" (also {names})" if names else ""
        rows.append([md_code(cmd.usage), _cell(cmd.help) + extra])
    await _catalogue(ctx)
    rows += [
        [md_code(f"/{name} {hint}".rstrip()), f"{kind}: {_cell(text)}"]
        for kind, name, hint, text in ctx.facts.invocable()
    ]
    keys = md_table(["Key", "What it does"], [[k, v] for k, v in KEYS_HELP])
    await ctx.write(md_table(["Command", "What it does"], rows) + "\n\n" + keys)


@command("status", "Model, provider, approval mode, sandbox, project trust, MCP servers, versions")
async def status_cmd(ctx: CommandContext, arg: str) -> None:
    info = await ctx.agent.agent_info()
    model = ctx.agent.model_spec or info.model or "(none)"
    sandbox = "unknown" if info.sandbox is None else "on" if info.sandbox else "off"
    rows = [
        ["Model", md_code(model)],
        ["Provider", model.split(":", 1)[0] if ":" in model else "(default)"],
        ["Mode", ctx.settings.mode],  # the front end's: it goes with each turn
        ["Sandbox", sandbox],
        ["Project", info.project or "(not told)"],
        ["Trust", _cell(info.trust or "(not told)")],
    ]
    catalogue = await _catalogue(ctx)
    servers = None if catalogue is None else catalogue.mcp
    running = ", ".join(f"{s.name} ({s.status})" for s in servers or []) or "none configured"
    rows.append(
        ["MCP servers", _cell(running if servers is not None else "off (--no-mcp or none configured)")]
    )
    rows.append(["Versions", f"auger {info.version} (agent), Python {platform.python_version()} (here)"])
    await ctx.write(md_table(["", ""], rows))


@command("skills", "Skills you can invoke as /<skill-name> args")
async def skills_cmd(ctx: CommandContext, arg: str) -> None:
    catalogue = await _catalogue(ctx)
    if catalogue is None or not catalogue.skills:
        await ctx.write("No skills found. Add one as `.auger/skills/<name>/SKILL.md` in the project.")
        return
    rows = [[md_code(f"/{s.name}"), s.source, _cell(s.description)] for s in catalogue.skills]
    await ctx.write(md_table(["Skill", "Source", "Description"], rows))


@command("agents", "Subagents the agent can delegate to")
async def agents_cmd(ctx: CommandContext, arg: str) -> None:
    catalogue = await _catalogue(ctx)
    rows = [
        [md_code(agent.name), agent.source, agent.model or "(same)", _cell(agent.description)]
        for agent in (catalogue.subagents if catalogue else [])
    ]
    await ctx.write(md_table(["Subagent", "Source", "Model", "Description"], rows))


@command("memory", "Memory files (AGENTS.md) the agent reads")
async def memory_cmd(ctx: CommandContext, arg: str) -> None:
    catalogue = await _catalogue(ctx)
    files = catalogue.memory if catalogue else []
    rows = [
        [mem.scope, md_code(str(mem.path)), "loaded" if mem.exists else "missing (create it to add memory)"]
        for mem in files
    ]
    await ctx.write(md_table(["Scope", "File", "State"], rows) if files else "No memory files.")


@command("tools", "Tools the agent is offered in the current mode")
async def tools_cmd(ctx: CommandContext, arg: str) -> None:
    catalogue = await _catalogue(ctx)
    plan = ctx.settings.mode == PLAN_MODE
    names = (catalogue.plan_tools if plan else catalogue.tools) if catalogue else []
    label = "Tools (plan mode: read-only)" if plan else "Tools"
    text = f"{label}: " + ", ".join(f"`{n}`" for n in names)
    if catalogue and not plan and "web_search" not in names:
        text += f"\n\n{WEB_SEARCH_HINT}"
    await ctx.write(text)


@command(
    "mcp", "MCP servers and their tools; `/mcp restart NAME`, `/mcp trust`", args="[restart NAME | trust]"
)
async def mcp_cmd(ctx: CommandContext, arg: str) -> None:
    action, _, name = arg.strip().partition(" ")
    if action == "trust":
        await ctx.write(await ctx.agent.mcp_trust())
    elif action == "restart":
        await ctx.write(await ctx.agent.mcp_restart(name.strip()))
    catalogue = await _catalogue(ctx)
    if catalogue is None or not catalogue.mcp:
        await ctx.write("No MCP servers configured (`.mcp.json`, `$AUGER_HOME/mcp.json` or `[mcp]`).")
        return
    rows: list[list[str]] = []
    for srv in catalogue.mcp:
        tools = ", ".join(srv.tools) or "-"
        state = srv.status + (f": {_cell(srv.error)}" if srv.error else "")
        rows.append([md_code(srv.name), state, _cell(tools)])
    await ctx.write(md_table(["Server", "Status", "Tools"], rows))


@command("doctor", "Check the config, the model and its key, trust, MCP servers, the sandbox, the terminal")
async def doctor_cmd(ctx: CommandContext, arg: str) -> None:
    import os

    marks = {"ok": "✓", "warn": "!", "fail": "✗"}
    rows = [(c.name, c.status, c.detail, c.fix) for c in await ctx.agent.doctor()]  # the agent's side
    colour = os.environ.get("COLORTERM", "")
    full = colour in ("truecolor", "24bit")
    rows.append(
        (
            "terminal",
            "ok",
            f"TERM={os.environ.get('TERM', '')}, COLORTERM={colour or '(unset)'}",
            "" if full else "COLORTERM=truecolor gives full colour.",
        )
    )
    table = [[marks.get(s, s), n, _cell(d), _cell(f) if s != "ok" else ""] for n, s, d, f in rows]
    failed = sum(1 for _, s, _, _ in rows if s == "fail")
    plural = "s" if failed != 1 else ""
    await ctx.write(
        md_table(["", "Check", "Found", "Fix"], table) + f"\n\n{failed or 'No'} problem{plural} to fix."
    )
