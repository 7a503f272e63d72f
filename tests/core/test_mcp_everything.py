"""The reference MCP server from npm, @modelcontextprotocol/server-everything (pinned in
tests/mcp_servers/package.json; scripts/test.sh installs it): prompts, resources and templates,
progress, roots and its content types, through auger's client. One server for the module."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from test_mcp import call, text

from auger.core.mcp.client import CALL
from auger.core.mcp.config import McpServerConfig
from auger.core.mcp.manager import McpManager
from auger.core.mcp.resources import resource_tools
from auger.core.mcp.user_message import mcp_message

pytestmark = pytest.mark.asyncio(loop_scope="module")
EVERYTHING = (
    Path(__file__).resolve().parents[1] / "mcp_servers" / "node_modules" / ".bin" / "mcp-server-everything"
)
PROJECT = Path(__file__).resolve().parents[2]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def ev(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[McpManager]:
    assert EVERYTHING.exists(), "npm server missing: run scripts/test.sh (npm ci --prefix tests/mcp_servers)"
    assert shutil.which("node"), "node is needed for the npm MCP server (apt install nodejs)"
    config = McpServerConfig("ev", "stdio", command=str(EVERYTHING), args=("stdio",))
    manager = McpManager([config], tmp_path_factory.mktemp("logs"), 30, roots=[PROJECT])
    await manager.start()
    try:
        yield manager
    finally:
        await manager.aclose()


def tools(manager: McpManager) -> dict[str, Any]:
    return {t.name: t for t in manager.tools()}


async def test_connected_with_stable_names(ev: McpManager) -> None:
    assert ev.status()[0]["status"] == "connected", ev.status()
    assert {"mcp__ev__echo", "mcp__ev__get-sum", "mcp__ev__trigger-long-running-operation"} <= set(tools(ev))


async def test_prompts_with_arguments_and_an_embedded_resource(ev: McpManager) -> None:
    usages = {p.command: p.usage for p in ev.prompts()}
    assert usages["mcp__ev__simple-prompt"] == "/mcp__ev__simple-prompt"
    assert usages["mcp__ev__args-prompt"] == "/mcp__ev__args-prompt city [state]"
    from langchain_core.messages import HumanMessage

    asked = await mcp_message("/mcp__ev__args-prompt Paris", HumanMessage("x"), ev)
    assert "Paris" in asked.content
    embedded = await mcp_message("/mcp__ev__resource-prompt Text 1", HumanMessage("x"), ev)
    assert '<resource uri="demo://resource/dynamic/text/1">' in embedded.content


async def test_resources_and_templates(ev: McpManager) -> None:
    from langchain_core.messages import HumanMessage

    uris = {str(r.uri) for _, r in ev.resources()}
    assert "demo://resource/static/document/features.md" in uris
    prompt = "summarise @ev:demo://resource/static/document/features.md"
    attached = await mcp_message(prompt, HumanMessage(prompt), ev)
    assert (
        "## Tools" in attached.content
        and 'uri="demo://resource/static/document/features.md"' in attached.content
    )
    by_name = {t.name: t for t in resource_tools(ev)}
    listing = text(await call(by_name["list_mcp_resources"], server="ev"))
    assert "ev:demo://resource/dynamic/text/{resourceId}" in listing and "(template)" in listing
    read = await call(by_name["read_mcp_resource"], server="ev", uri="demo://resource/dynamic/text/3")
    assert read.status == "success" and "3" in text(read)
    blob = await call(by_name["read_mcp_resource"], server="ev", uri="demo://resource/dynamic/blob/3")
    assert "[binary resource demo://resource/dynamic/blob/3" in text(blob)


async def test_progress_of_a_long_running_operation(ev: McpManager) -> None:
    seen: list[dict[str, Any]] = []
    token = CALL.set(("call-lr", seen.append))
    try:
        result = await call(tools(ev)["mcp__ev__trigger-long-running-operation"], duration=1, steps=4)
    finally:
        CALL.reset(token)
    assert "completed" in text(result)
    assert [(e["progress"], e["total"]) for e in seen] == [(1, 4), (2, 4), (3, 4), (4, 4)]


async def test_roots_are_the_project(ev: McpManager) -> None:
    assert PROJECT.as_uri() in text(await call(tools(ev)["mcp__ev__get-roots-list"]))


async def test_content_types(ev: McpManager) -> None:
    image = await call(tools(ev)["mcp__ev__get-tiny-image"])
    assert [b["type"] for b in image.content].count("image") == 1
    links = text(await call(tools(ev)["mcp__ev__get-resource-links"], count=2))
    assert "[resource link: " in links and "demo://resource/dynamic/" in links
    ref = await call(tools(ev)["mcp__ev__get-resource-reference"], resourceType="Text", resourceId=2)
    assert ref.status == "success" and "Resource 2" in text(ref)
