"""An MCP server's form (`elicitation/create`) in the TUI: a real FastMCP server's `sign_up` tool
asks for a form with every field type; the user fills it in (what does not fit is shown at its
field and the form stays), declines it or cancels it, and the server's tool result — which
echoes what it received — reaches the model. The same through `auger serve` (server-side MCP
server, the client answers), where the server checks the content again."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest_tui import Tui, ready, tui, wait_for  # noqa: F401
from test_serve_remote import RemoteTui, _remote_tui
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, Select, Static

from auger.cli.agents import local
from auger.core.events import InputAnswer
from auger.errors import UsageError
from auger.tui.app import AugerApp
from auger.tui.widgets.input_form import InputForm
from auger.tui.widgets.tool_row import ToolRow
from conftest import AugerEnv
from serve_harness import start_server

SERVER = Path(__file__).resolve().parents[1] / "mcp_servers" / "fastmcp_server.py"
SIGN_UP = {"tool_calls": [{"name": "mcp__calc__sign_up", "args": {"team": "core"}}]}


async def connected(pilot: Pilot[Any]) -> None:
    """The MCP server is up where the agent runs (its tools are in the catalogue)."""
    app = pilot.app
    assert isinstance(app, AugerApp) and app.session is not None
    for _ in range(300):
        catalogue = await app.session.catalogue()
        if catalogue.mcp and catalogue.mcp[0].status == "connected":
            return
        await pilot.pause(0.1)
    raise AssertionError(f"the MCP server did not connect: {catalogue.mcp}")


def configure(tui: Tui) -> None:
    """The FastMCP server where the agent runs; its tools run without asking (the form still asks)."""
    spec = {"mcpServers": {"calc": {"command": sys.executable, "args": [str(SERVER)]}}}
    (tui.env.home / "mcp.json").write_text(json.dumps(spec))
    tui.env.write_config('[permissions]\nallow = ["calc:*"]\n')


def open_forms(app: AugerApp) -> list[InputForm]:
    return [f for f in app.transcript.query(InputForm) if f.answer is None]


async def open_form(pilot: Pilot[Any], tui: Tui, prompt: str) -> InputForm:
    app = pilot.app
    assert isinstance(app, AugerApp)
    tui.llm.add({"when": {"last_user_contains": prompt}, **SIGN_UP})
    tui.llm.add({"when": {"last_user_contains": prompt}, "text": "all done"})
    app.prompt.load_text(prompt)
    app.prompt.action_submit()
    await wait_for(pilot, lambda: app.busy)
    await wait_for(
        pilot, lambda: [f for f in app.transcript.query(InputForm) if f.answer is None] or not app.busy
    )
    assert app.busy, [(r.tool_name, r.output) for r in app.transcript.query(ToolRow)]
    form = [f for f in app.transcript.query(InputForm) if f.answer is None][-1]
    # the form may be in the transcript before its fields are composed: wait for the field, focused
    await wait_for(pilot, lambda: bool(fields := form.query("#input-name")) and app.focused is fields.first())
    return form


async def finish(pilot: Pilot[Any], tui: Tui, sent: int) -> str:
    """Wait for the turn; the tool's output (what the server received), also in the model's next request."""
    app = pilot.app
    assert isinstance(app, AugerApp)
    await wait_for(pilot, lambda: not app.busy)
    await app.workers.wait_for_complete()
    row = app.transcript.query(ToolRow).last()
    assert row.tool_name == "mcp__calc__sign_up", row.tool_name
    tool_messages = [m for r in tui.llm.requests[sent:] for m in r["messages"] if m["role"] == "tool"]
    assert row.output in str(tool_messages[-1]["content"])
    return row.output


def field_error(form: InputForm, name: str) -> str:
    return str(form.query_one(f"#field-{name} .error", Static).render())


async def fill_in_decline_cancel(tui: Tui, app: AugerApp) -> None:
    async with app.run_test(size=(100, 60)) as pilot:
        await ready(pilot)
        await connected(pilot)
        # 1. typed with the keyboard: what does not fit is shown at its field, the form stays
        sent = len(tui.llm.requests)
        form = await open_form(pilot, tui, "sign me up")
        assert "Join team core: who are you?" in str(form.query_one(".message", Static).render())
        labels = [str(s.render()) for s in form.query(".label")]
        assert labels == ["Your name *", "Email *", "Age *", "Height (m)", "Role *"]
        await pilot.press(*"A", "tab", *"ann@example.com", "tab", *"17", "tab", "tab")
        assert app.focused is form.query_one("#input-role", Select)
        await pilot.press("enter", "down", "down", "enter")  # the overlay: blank, Developer, Operations
        await wait_for(pilot, lambda: form.query_one("#input-role", Select).value == "ops")
        await pilot.press("tab", "space")  # the newsletter checkbox
        assert form.query_one("#input-newsletter", Checkbox).value is True
        await pilot.press("ctrl+s")
        assert field_error(form, "name") == "must be at least 2 characters"
        assert field_error(form, "age") == "must be at least 18"
        assert field_error(form, "email") == ""
        assert form.answer is None and app.busy
        # 2. the agent checks the content too (a front end that did not): refused, naming the field
        with pytest.raises(UsageError, match="field 'age': must be at least 18"):
            await app.session.resolve_input(form.request.request_id, InputAnswer("accept", {"age": 5}))  # type: ignore[union-attr]
        form.query_one("#input-name", Input).value = "Ann"
        form.query_one("#input-age", Input).value = "42"
        form.query_one("#input-height", Input).focus()
        await pilot.press(*"1.8", "enter")
        output = await finish(pilot, tui, sent)
        expected = {"age": 42, "email": "ann@example.com", "height": 1.8, "name": "Ann", "newsletter": True}
        assert output == f"elicitation accept: {json.dumps({**expected, 'role': 'ops'}, sort_keys=True)}"
        assert form.answer == InputAnswer("accept", {**expected, "role": "ops"})
        assert "-resolved" in form.classes
        # 3. declined (Ctrl+N), then 4. cancelled (Esc): the turn goes on each time
        for key, action in (("ctrl+n", "decline"), ("escape", "cancel")):
            sent = len(tui.llm.requests)
            form = await open_form(pilot, tui, f"{action} it")
            await pilot.press(key)
            assert await finish(pilot, tui, sent) == f"elicitation {action}: null"
            assert tui.llm.requests[-1]["messages"][-1]["content"] != ""  # the model answered after it
            assert app.transcript.query(ToolRow).last().status == "success"


async def test_a_servers_form_filled_in_declined_and_cancelled(tui: Tui) -> None:
    configure(tui)
    await fill_in_decline_cancel(tui, tui.app(factory=local(), mode="yolo"))  # asked in yolo too


async def test_a_turn_cancelled_while_the_form_is_open_cancels_it(tui: Tui) -> None:
    configure(tui)
    app = tui.app(factory=local(), mode="manual")
    async with app.run_test(size=(100, 60)) as pilot:
        await ready(pilot)
        await connected(pilot)
        form = await open_form(pilot, tui, "sign me up")
        app.action_cancel()
        await wait_for(pilot, lambda: not app.busy)
        await app.workers.wait_for_complete()
        assert form.answer == InputAnswer("cancel")
        assert app.session is not None and not app.session.inputs.open  # type: ignore[attr-defined]


@pytest.fixture
def remote_mcp_tui(
    auger_env: AugerEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[RemoteTui]:
    """A RemoteTui whose server runs the MCP server (the shared fixture's has --no-mcp)."""
    rt = _remote_tui(auger_env, tmp_path, monkeypatch)
    assert rt.server.stop() == 0
    configure(rt)
    rt.server = start_server(auger_env)
    yield rt
    assert rt.server.stop() == 0


async def test_a_servers_form_over_auger_serve(remote_mcp_tui: RemoteTui) -> None:
    await fill_in_decline_cancel(remote_mcp_tui, remote_mcp_tui.app(mode="yolo"))
