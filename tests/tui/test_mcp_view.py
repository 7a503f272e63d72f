"""/mcp in the TUI: a project's .mcp.json is not started until the user trusts it (remembered
per project); a server can be restarted. Real FastMCP servers over stdio."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conftest_tui import Tui, ready, tui, turn, wait_for  # noqa: F401

from auger.cli.agents import local
from auger.core.mcp.config import TrustStore
from auger.tui.widgets.messages import InfoBlock

SERVER = Path(__file__).resolve().parents[1] / "mcp_servers" / "fastmcp_server.py"


def _project_mcp(tui: Tui) -> None:
    spec = {"mcpServers": {"calc": {"command": sys.executable, "args": [str(SERVER)]}}}
    (tui.env.project / ".mcp.json").write_text(json.dumps(spec))


def _status(app) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {s["name"]: s["status"] for s in app.session.runtime.mcp.status()}


async def test_project_servers_wait_for_trust_then_start(tui: Tui) -> None:
    _project_mcp(tui)
    tui.llm.add({"text": "hello"})
    app = tui.app(factory=local())
    async with app.run_test(size=(100, 40)) as pilot:
        from auger.tui.screens.choice import ChoiceScreen

        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))  # the trust question first
        await pilot.press("2")  # not now
        await ready(pilot)
        assert _status(app) == {"calc": "untrusted"}
        await turn(pilot, "hi")  # the first turn tells the user how to trust them
        assert "/mcp trust" in " ".join(str(n.render()) for n in app.transcript.query("Notice"))
        assert "mcp__calc__add" not in [t["function"]["name"] for t in tui.llm.requests[0]["tools"]]
        await turn(pilot, "/mcp trust")
        await wait_for(pilot, lambda: _status(app) == {"calc": "connected"})
        assert "mcp__calc__add" in app.transcript.query(InfoBlock).last().source
        await turn(pilot, "/mcp restart calc")
        assert _status(app) == {"calc": "connected"}
        assert "Restarted" in " ".join(b.source for b in app.transcript.query(InfoBlock))
    assert TrustStore(tui.env.home).is_trusted(tui.env.project)


async def test_prompts_resources_and_progress_in_the_tui(tui: Tui) -> None:
    """`/mcp__calc__review 42 ...` is completed and sent as the server's prompt, `@calc:docs://guide`
    attaches the resource, and a tool's progress shows on its row."""
    from auger.tui.prompt.completer import completions
    from auger.tui.widgets.tool_row import ToolRow

    spec = {"mcpServers": {"calc": {"command": sys.executable, "args": [str(SERVER)]}}}
    (tui.env.home / "mcp.json").write_text(json.dumps(spec))
    tui.llm.add(
        {"text": "reviewed"},
        {"text": "read it"},
        {"tool_calls": [{"name": "mcp__calc__steps", "args": {"count": 4}}]},
        {"text": "stepped"},
    )
    app = tui.app(factory=local(), mode="yolo")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: _status(app) == {"calc": "connected"})

        def labels() -> list[str]:
            menu = completions(app.facts, lambda: app.files, "/mcp__calc__r", len("/mcp__calc__r"))
            return [c.label for c in menu.items] if menu is not None else []

        # the catalogue is read again while a server is still starting, so its prompts join the menu
        await wait_for(pilot, lambda: labels() == ["/mcp__calc__review pr [focus]"])
        await turn(pilot, "/mcp__calc__review 42 the tests")
        assert tui.last_user_text() == "Review pull request 42, looking at the tests."
        await turn(pilot, "use @calc:docs://guide please")
        assert "Use tabs." in tui.last_user_text() and "use @calc:docs://guide please" in tui.last_user_text()
        await turn(pilot, "step")
        row = app.transcript.query(ToolRow).last()
        assert row.tool_name == "mcp__calc__steps" and row.status == "success"
        assert row.progress == "▰▰▰▰▰▰▰▰▰▰ 4/4 step 4 of 4"


async def test_a_servers_sampling_request_asks_before_the_model_answers(tui: Tui) -> None:
    """In manual mode an MCP server's `sampling/createMessage` is an approval in the transcript:
    approved, the current model answers it; refused, the model never sees it."""
    from auger.tui.widgets.approval import ApprovalPrompt
    from auger.tui.widgets.tool_row import ToolRow

    spec = {"mcpServers": {"calc": {"command": sys.executable, "args": [str(SERVER)]}}}
    (tui.env.home / "mcp.json").write_text(json.dumps(spec))
    tui.env.write_config('[permissions]\nallow = ["calc:*"]\n')  # the tool runs; its sampling asks
    ask = {"tool_calls": [{"name": "mcp__calc__ask_model", "args": {"question": "capital of France?"}}]}
    tui.llm.add({"when": {"last_user_contains": "capital of France?"}, "text": "Paris"})
    app = tui.app(factory=local(), mode="manual")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: _status(app) == {"calc": "connected"})
        for answer, expected in (("y", "the model said: Paris"), ("escape", "refused: The user refused")):
            tui.llm.add({"when": {"last_user_contains": "ask it"}, **ask})
            tui.llm.add({"when": {"last_user_contains": "ask it"}, "text": "done"})
            sent = len(tui.llm.requests)
            app.prompt.load_text("ask it")
            app.prompt.action_submit()
            await wait_for(pilot, lambda: app.transcript.query(ApprovalPrompt))
            prompt = app.transcript.query_one(ApprovalPrompt)
            assert prompt.request.name == "mcp_sampling" and prompt.request.args["server"] == "calc"
            assert "capital of France?" in prompt.request.args["messages"]
            await wait_for(pilot, lambda: app.transcript.query_one(ApprovalPrompt).has_focus)
            await pilot.press(answer)
            await app.workers.wait_for_complete()
            await wait_for(pilot, lambda: not app.busy)
            row = app.transcript.query(ToolRow).last()
            assert row.tool_name == "mcp__calc__ask_model" and expected in row.output, row.output
            asked = [r for r in tui.llm.requests[sent:] if "capital of France?" in str(r["messages"][-1:])]
            assert len(asked) == (1 if answer == "y" else 0)
