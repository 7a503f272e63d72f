"""Subagent definitions (sources, validation, Claude tool names, models), async subagents from
config, and the tool allow-list as the subagent's model sees it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool

from auger.core.catalog.subagents import discover_subagents, subagent_specs
from auger.core.middleware.tools.tool_allowlist import ToolAllowListMiddleware
from auger.settings import Settings, load_settings
from scripted_model import ScriptedChatModel


def write_agent(folder: Path, filename: str, front: str, body: str = "You are a helper.") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / filename
    path.write_text(f"---\n{front}\n---\n\n{body}\n")
    return path


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    home, project = tmp_path / "auger-home", tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    (home / "config.toml").write_text(
        '[providers.local]\nbase_url = "http://127.0.0.1:9/v1"\nmodels = ["small"]\n'
        '[async_subagents.researcher]\ngraph_id = "research"\nurl = "http://remote:2024"\n'
        'description = "Deep research in the background."\n'
        "[async_subagents.broken]\nurl = 'http://x'\n"
    )
    monkeypatch.setenv("HOME", str(tmp_path))
    return load_settings(cwd=project, env={"AUGER_HOME": str(home), "HOME": str(tmp_path)})


def test_builtin_agents_are_read_only_helpers(settings: Settings) -> None:
    catalog = discover_subagents(settings)
    explorer, reviewer = catalog.get("explorer"), catalog.get("reviewer")
    assert explorer is not None and reviewer is not None
    assert explorer.tools == ("ls", "read_file", "glob", "grep") and explorer.source == "built-in"
    assert reviewer.tools is not None and not {"write_file", "edit_file"} & set(reviewer.tools)


def test_sources_validation_models_and_claude_tool_names(settings: Settings) -> None:
    root = settings.project_root
    write_agent(settings.home / "agents", "explorer.md", "name: explorer\ndescription: USER explorer")
    write_agent(
        root / ".claude" / "agents",
        "tester.md",
        "name: tester\ndescription: Runs tests.\ntools: Read, Grep, Bash\nmodel: sonnet",
    )
    write_agent(root / ".auger" / "agents", "pinned.md", "name: pinned\ndescription: d\nmodel: local:small")
    write_agent(root / ".auger" / "agents", "inherit.md", "name: inherit\ndescription: d\nmodel: inherit")
    bad = root / ".auger" / "agents"
    no_desc = write_agent(bad, "no-desc.md", "name: no-desc")
    bad_name = write_agent(bad, "bad.md", "name: Bad Name\ndescription: d")
    empty = write_agent(bad, "empty.md", "name: empty\ndescription: d", body="")
    catalog = discover_subagents(settings)
    by_name = {a.name: a for a in catalog}
    assert by_name["explorer"].description == "USER explorer" and by_name["explorer"].source == "user"
    assert by_name["tester"].tools == ("read_file", "grep", "execute")
    assert by_name["tester"].model is None  # "sonnet" is no provider:model spec: follows the main model
    assert by_name["pinned"].model == "local:small" and by_name["inherit"].model is None
    text = "\n".join(catalog.warnings)
    assert "model 'sonnet' is not usable" in text
    assert f"skipped subagent {no_desc}: 'description' is missing" in text
    assert f"skipped subagent {bad_name}: name 'Bad Name' must be lowercase" in text
    assert f"skipped subagent {empty}: the body" in text
    assert "skipped [async_subagents.broken]: missing graph_id and description" in text
    assert catalog.async_agents == [
        {
            "name": "researcher",
            "description": "Deep research in the background.",
            "graph_id": "research",
            "url": "http://remote:2024",
        }
    ]


@tool
def lookup(q: str) -> str:
    """Look something up."""
    return q


@tool
def other(q: str) -> str:
    """Another tool."""
    return q


def test_specs_pin_models_and_filter_tools(settings: Settings) -> None:
    write_agent(
        settings.project_root / ".auger" / "agents",
        "scout.md",
        "name: scout\ndescription: d\ntools: [read_file, lookup]\nmodel: local:small",
    )
    seen: list[str | None] = []

    def middleware(spec: str | None, tools: frozenset[str] | None = None, project: bool = True) -> list[Any]:
        seen.append(spec)
        return [f"model-mw:{spec}", "c"]

    specs = {
        s["name"]: s
        for s in subagent_specs(discover_subagents(settings), middleware=middleware, tools=[lookup, other])
    }
    scout = specs["scout"]
    assert scout["tools"] == [lookup]
    assert scout["middleware"][1:] == ["model-mw:local:small", "c"]
    assert isinstance(scout["middleware"][0], ToolAllowListMiddleware)  # outermost: the rest see its tools
    assert scout["middleware"][0].allowed == {"read_file", "lookup"}
    assert "graph_id" in specs["researcher"]
    assert None in seen  # explorer/reviewer follow the main model


def test_allow_list_hides_and_refuses_other_tools() -> None:
    model = ScriptedChatModel(
        script=[
            {"tool_calls": [{"name": "other", "args": {"q": "x"}}]},
            {"tool_calls": [{"name": "lookup", "args": {"q": "y"}}]},
            "done",
        ]
    )
    agent = create_agent(model, tools=[lookup, other], middleware=[ToolAllowListMiddleware(["lookup"])])
    out = agent.invoke({"messages": [HumanMessage("go")]})
    assert all(call["tools"] == ["lookup"] for call in model.calls)
    results = [m for m in out["messages"] if m.type == "tool"]
    assert results[0].status == "error" and "not available to this agent" in results[0].content
    assert results[1].content == "y"


def test_async_subagents_from_config_reach_the_agent(settings: Settings) -> None:
    from auger.core.agent.context import AugerContext
    from auger.core.agent.graph import create_cli_agent

    model = ScriptedChatModel(script=["ok"])
    graph = create_cli_agent(settings, model=model)
    graph.invoke({"messages": [HumanMessage("hi")]}, context=AugerContext(mode="yolo"))
    tools = set(model.calls[0]["tools"])
    assert {"task", "start_async_task", "check_async_task"} <= tools
