"""Subagents: `NAME.md` definitions the main agent can hand work to with the `task` tool.

Sources, in rising precedence (a later definition of the same name wins):

    built-in  auger's shipped agents/     user     $AUGER_HOME/agents
    project   .claude/agents, then .auger/agents

A definition is markdown with frontmatter: `name` and `description` (required), `model`
(optional `provider:model`; absent or `inherit` = follow the main agent's model, including a
`/model` switch) and `tools` (optional allow-list: the subagent sees and runs ONLY those tools;
Claude Code names such as Read, Grep, Bash are understood) and `project_context` (default true:
it gets the project's AGENTS.md chain and local facts; `false` for an agent that should start
from its own prompt alone). The body is its system prompt.
Invalid files are skipped with a warning naming the file and the reason.

Remote subagents come from config, `[async_subagents.NAME]` with `graph_id`, `description` and
optional `url` / `headers`, and are handed to deepagents as async subagents.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auger.core.backends.mounts import builtin_dir
from auger.core.catalog.frontmatter import (
    Catalog,
    FrontmatterError,
    name_list,
    name_problem,
    read_frontmatter,
    text_field,
)
from auger.core.safety.claude_tools import auger_tool

if TYPE_CHECKING:
    from auger.settings import Settings


@dataclass(frozen=True)
class SubagentDef:
    name: str
    description: str
    system_prompt: str
    source: str  # built-in | user | project .claude | project .auger
    path: Path
    model: str | None = None  # None: follow the main agent's model
    tools: tuple[str, ...] | None = None  # None: the default tools
    project_context: bool = True  # the project's AGENTS.md chain and local facts


@dataclass
class SubagentCatalog(Catalog[SubagentDef]):
    """The file-defined subagents by name (`Catalog`), and those config tables define."""

    async_agents: list[dict[str, Any]] = field(default_factory=list)
    acp_agents: list[dict[str, Any]] = field(default_factory=list)  # [acp_agents.NAME]: other agents' CLIs


def subagent_sources(settings: Settings) -> list[tuple[str, Path]]:
    root = Path(settings.project_root)
    return [
        ("built-in", builtin_dir("agents")),
        ("user", Path(settings.home) / "agents"),
        ("project .claude", root / ".claude" / "agents"),
        ("project .auger", root / ".auger" / "agents"),
    ]


def _model(raw: Any, settings: Settings, path: Path, warnings: list[str]) -> str | None:
    if raw is None or str(raw).strip() in ("", "inherit"):
        return None
    from auger.core.models.specs import parse_spec
    from auger.errors import ModelError

    try:
        return parse_spec(str(raw), settings.providers).spec
    except ModelError as exc:
        why = f"model {raw!r} is not usable ({exc.message}); it follows the main model"
        warnings.append(f"subagent {path}: {why}")
        return None


def load_definition(label: str, path: Path, settings: Settings, warnings: list[str]) -> SubagentDef:
    data, body = read_frontmatter(path)
    name = text_field(data, "name")
    problem = name_problem(name)
    if problem:
        raise FrontmatterError(problem)
    description = text_field(data, "description")
    if not description:
        raise FrontmatterError("'description' is missing")
    if not body.strip():
        raise FrontmatterError("the body (the subagent's system prompt) is empty")
    names = name_list(data.get("tools"))
    tools = tuple(dict.fromkeys(auger_tool(t) for t in names)) if names is not None else None
    model = _model(data.get("model"), settings, path, warnings)
    project = data.get("project_context", True)
    if not isinstance(project, bool):
        raise FrontmatterError(f"'project_context' is {project!r}; write true or false")
    return SubagentDef(name, description, body.strip(), label, path, model, tools, project)


def _tables(
    settings: Settings, key: str, required: tuple[str, ...], warnings: list[str]
) -> Iterator[tuple[str, dict[str, Any]]]:
    """(name, table) of each usable `[KEY.NAME]` config table; the others are skipped with a warning."""
    for name, table in settings.get(key).items():  # tables of tables: load_settings checked it
        missing = [k for k in required if not table.get(k)]
        if missing or name_problem(name):
            why = name_problem(name) or f"missing {' and '.join(missing)}"
            warnings.append(f"skipped [{key}.{name}]: {why}")
            continue
        yield name, table


def _async_agents(settings: Settings, warnings: list[str]) -> list[dict[str, Any]]:
    return [
        {"name": name, "description": table["description"], "graph_id": table["graph_id"]}
        | {k: table[k] for k in ("url", "headers") if table.get(k)}
        for name, table in _tables(settings, "async_subagents", ("graph_id", "description"), warnings)
    ]


def _acp_agents(settings: Settings, warnings: list[str]) -> list[dict[str, Any]]:
    """`[acp_agents.NAME]` tables: an Agent Client Protocol agent (`command`, `args`, `env`,
    `description`) that the `task` tool can delegate to (auger.core.agent.acp_subagent)."""
    return [
        {
            "name": name,
            "description": str(table["description"]),
            "command": str(table["command"]),
            "args": [str(a) for a in table.get("args") or []],
            "env": {str(k): str(v) for k, v in (table.get("env") or {}).items()},
        }
        for name, table in _tables(settings, "acp_agents", ("command", "description"), warnings)
    ]


def discover_subagents(settings: Settings) -> SubagentCatalog:
    found: dict[str, SubagentDef] = {}
    warnings: list[str] = []
    for label, folder in subagent_sources(settings):
        try:
            files = sorted(p for p in folder.iterdir() if p.suffix == ".md" and not p.name.startswith("."))
        except OSError:
            continue
        for path in files:
            try:
                agent = load_definition(label, path, settings, warnings)
            except FrontmatterError as exc:
                warnings.append(f"skipped subagent {path}: {exc}")
                continue
            found[agent.name] = agent
    async_agents = _async_agents(settings, warnings)
    return SubagentCatalog(
        dict(sorted(found.items())), warnings, async_agents, _acp_agents(settings, warnings)
    )


def subagent_specs(
    catalog: SubagentCatalog,
    *,
    middleware: Callable[[str | None, frozenset[str] | None, bool], list[Any]],
    tools: Sequence[Any] = (),
) -> list[dict[str, Any]]:
    """deepagents specs: `middleware(model_spec, tools, project)` is a subagent's middleware for its
    model (None: follow the main agent's), its allowed tool names (None: all) and whether it gets
    the project's context; `tools` are the agent's
    extra tools (MCP) to filter."""
    from auger.core.middleware.base import tool_name
    from auger.core.middleware.tools.tool_allowlist import ToolAllowListMiddleware

    specs: list[dict[str, Any]] = []
    for agent in catalog:
        allowed = None if agent.tools is None else frozenset(agent.tools)
        stack = middleware(agent.model, allowed, agent.project_context)
        spec: dict[str, Any] = {
            "name": agent.name,
            "description": agent.description,
            "system_prompt": agent.system_prompt,
            "middleware": stack,
        }
        if agent.tools is not None:
            stack.insert(0, ToolAllowListMiddleware(agent.tools))  # outermost: the rest see its tools
            spec["tools"] = [t for t in tools if tool_name(t) in agent.tools]
        specs.append(spec)
    return [*specs, *catalog.async_agents]
