"""MCP beyond tools, against the FastMCP test server over stdio: prompts as slash commands,
resources (`@server:uri` and the model's read tools), roots, progress and notifications/cancelled."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from test_mcp import by_name, call, fast, running, text

from auger.core.mcp.callers import ANSWERER
from auger.core.mcp.client import CALL
from auger.core.mcp.prompts import McpPrompt, McpPromptError, PromptArg, prompt_arguments
from auger.core.mcp.resources import mentions, resource_tools
from auger.core.mcp.user_message import mcp_message
from mcp_servers.fastmcp_server import PNG_1PX


def human(content: str) -> Any:
    from langchain_core.messages import HumanMessage

    return HumanMessage(content=content)


async def expand(prompt: str, manager: Any) -> Any:
    return await mcp_message(prompt, human(prompt), manager)


async def wait_for_file(path: Path, seconds: float = 10.0) -> bool:
    """The server process writes it: poll with a deadline (no event crosses the process); the
    loop keeps running meanwhile (the notification is sent by a task of its own)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists():
            return True
        await asyncio.sleep(0.05)
    return False


# --- prompts ----------------------------------------------------------------------------------

REVIEW = McpPrompt("gh", "review", "", (PromptArg("pr", True), PromptArg("focus")))


def test_prompt_arguments_positional_keyword_and_rest_of_line() -> None:
    assert prompt_arguments(REVIEW, "42") == {"pr": "42"}
    assert prompt_arguments(REVIEW, "42 the tests and docs") == {"pr": "42", "focus": "the tests and docs"}
    assert prompt_arguments(REVIEW, "focus=speed 7") == {"focus": "speed", "pr": "7"}
    assert prompt_arguments(REVIEW, '"4 2" x') == {"pr": "4 2", "focus": "x"}
    with pytest.raises(McpPromptError, match=r"needs pr\. Usage: /mcp__gh__review pr \[focus\]"):
        prompt_arguments(REVIEW, "")
    with pytest.raises(McpPromptError, match="too many arguments"):
        prompt_arguments(McpPrompt("gh", "hello"), "extra words")


async def test_prompts_are_listed_and_run_as_slash_commands(tmp_path: Path) -> None:
    async with running([fast("docs")], tmp_path) as manager:
        listed = {p.command: p for p in manager.prompts()}
        assert set(listed) == {"mcp__docs__review", "mcp__docs__hello", "mcp__docs__look"}
        assert listed["mcp__docs__review"].usage == "/mcp__docs__review pr [focus]"
        message = await expand("/mcp__docs__review 42 the error paths", manager)
        assert message.content == "Review pull request 42, looking at the error paths."
        assert message.additional_kwargs["auger_mcp_prompt"]["command"] == "mcp__docs__review"
        assert (await expand("/mcp__docs__hello", manager)).content == "Say hello."
        with pytest.raises(McpPromptError, match="needs pr"):
            await expand("/mcp__docs__review", manager)
        with pytest.raises(McpPromptError, match=r"No MCP prompt /mcp__docs__nope .*/mcp__docs__hello"):
            await expand("/mcp__docs__nope x", manager)
        plain = human("/commit fix typo")  # not an MCP prompt: untouched
        assert await mcp_message("/commit fix typo", plain, manager) is plain


# --- resources --------------------------------------------------------------------------------


def test_mentions_only_name_configured_servers() -> None:
    text_ = "see @docs:docs://guide, and mail bob@docs:x or @alice:hi; @docs:docs://guide again"
    assert mentions(text_, ["docs"]) == [("docs", "docs://guide")]


async def test_resource_mentions_are_attached_and_tools_read_them(tmp_path: Path) -> None:
    async with running([fast("docs")], tmp_path) as manager:
        assert [(s, str(r.uri)) for s, r in manager.resources()] == [
            ("docs", "docs://guide"),
            ("docs", "docs://pixel"),
        ]
        message = await expand("follow @docs:docs://guide here", manager)
        assert message.content.startswith("follow @docs:docs://guide here\n\n")
        assert '<mcp_resource server="docs" uri="docs://guide">\n# Guide\nUse tabs.' in message.content
        assert message.additional_kwargs["auger_mcp_resources"] == [{"server": "docs", "uri": "docs://guide"}]
        with pytest.raises(McpPromptError, match="docs://missing"):
            await expand("read @docs:docs://missing", manager)

        tools = {t.name: t for t in resource_tools(manager)}
        listing = text(await call(tools["list_mcp_resources"]))
        assert "docs:docs://guide  guide (text/markdown) - The team's style guide." in listing
        assert "Use tabs." in text(await call(tools["read_mcp_resource"], server="docs", uri="docs://guide"))
        missing = await call(tools["read_mcp_resource"], server="nowhere", uri="x://y")
        assert missing.status == "error" and "'nowhere' is not available" in text(missing)


PIXEL = {"type": "image", "base64": PNG_1PX, "mime_type": "image/png"}


async def test_images_in_resources_and_prompts_are_image_blocks(tmp_path: Path) -> None:
    """What the model may see (a text model gets each as a line: tests/e2e/test_tool_errors.py)."""
    async with running([fast("docs")], tmp_path) as manager:
        attached = await expand("what is in @docs:docs://pixel ?", manager)
        text_block, image = attached.content
        assert text_block["text"].endswith(
            '<mcp_resource server="docs" uri="docs://pixel">\n[image resource docs://pixel]\n</mcp_resource>'
        )
        assert image == PIXEL
        looked = await expand("/mcp__docs__look", manager)
        assert looked.content[0]["text"].startswith("What is in this screenshot?")
        assert looked.content[1:] == [PIXEL]
        tool = {t.name: t for t in resource_tools(manager)}["read_mcp_resource"]
        read = await call(tool, server="docs", uri="docs://pixel")
        assert read.status == "success" and PIXEL in read.content


# --- roots, progress, cancellation ------------------------------------------------------------


async def test_roots_are_the_project(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    async with running([fast("r")], tmp_path, roots=[project]) as manager:
        assert text(await call(by_name(manager)["mcp__r__roots"])) == project.resolve().as_uri()


async def test_progress_reaches_the_running_call(tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []
    async with running([fast("p")], tmp_path) as manager:
        token = CALL.set(("call-7", seen.append))
        try:
            result = await call(by_name(manager)["mcp__p__steps"], count=3)
        finally:
            CALL.reset(token)
    assert text(result) == "did 3 steps"
    assert [(e["call_id"], e["progress"], e["total"], e["message"]) for e in seen] == [
        ("call-7", i, 3, f"step {i} of 3") for i in (1, 2, 3)
    ]


async def test_cancelling_a_call_sends_notifications_cancelled(tmp_path: Path) -> None:
    marker = tmp_path / "cancelled.txt"
    async with running([fast("c")], tmp_path) as manager:
        started = asyncio.Event()
        token = CALL.set(("call-1", lambda _event: started.set()))
        try:
            task = asyncio.create_task(call(by_name(manager)["mcp__c__wait_for_cancel"], marker=str(marker)))
            await asyncio.wait_for(started.wait(), 20)  # the server is inside the tool
        finally:
            CALL.reset(token)
        task.cancel()  # what Esc does to the running tool call
        with pytest.raises(asyncio.CancelledError):
            await task
        assert await wait_for_file(marker), "the server never heard notifications/cancelled"
        assert text(await call(by_name(manager)["mcp__c__echo"], text="still up")) == "still up"


async def test_a_timed_out_call_is_cancelled_on_the_server(tmp_path: Path) -> None:
    marker = tmp_path / "timed-out.txt"
    async with running([fast("t")], tmp_path, call_timeout=1.0) as manager:
        result = await call(by_name(manager)["mcp__t__wait_for_cancel"], marker=str(marker))
        assert result.status == "error" and "timed out after 1s" in text(result)
        assert await wait_for_file(marker), "the server never heard notifications/cancelled"


class SlowUser:
    """The front end's answer to a server's form (what `SessionRequests.elicit` gives the manager),
    after the user took `seconds` to fill it in."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.notices: list[str] = []

    def notify(self, text: str) -> None:
        self.notices.append(text)

    async def elicit(self, server: str, params: Any) -> Any:
        from mcp.types import ElicitResult

        await asyncio.sleep(self.seconds)
        content = {"name": "Ann", "email": "ann@example.com", "age": 42, "role": "dev"}
        return ElicitResult(action="accept", content=content)


async def test_a_form_open_longer_than_the_call_timeout_does_not_time_the_call_out(tmp_path: Path) -> None:
    async with running([fast("t")], tmp_path, call_timeout=1.0) as manager:
        user = SlowUser(2.5)  # the turn's answerer: the user takes 2.5 s; the call's timeout is 1 s
        ANSWERER.set(user)
        started = time.monotonic()
        result = await call(by_name(manager)["mcp__t__sign_up"], team="core")
        assert text(result).startswith("elicitation accept:"), text(result)
        assert '"name": "Ann"' in text(result) and time.monotonic() - started >= 2.5
        # and the timeout still holds for a call that waits on no form
        marker = tmp_path / "timed-out.txt"
        result = await call(by_name(manager)["mcp__t__wait_for_cancel"], marker=str(marker))
        assert result.status == "error" and "timed out after 1s" in text(result)
        assert await wait_for_file(marker), "the server never heard notifications/cancelled"
        # the notice goes to the turn that made the call, not to whichever turn drains the manager
        assert user.notices == ["MCP tool 'wait_for_cancel' on server 't' timed out after 1s."]
        assert manager.drain_notices() == []
