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
        await wait_for(pilot, lambda: app.session is not None or app.boot_error is not None)
        await ready(pilot)
        assert _status(app) == {"calc": "untrusted"}
        await turn(pilot, "hi")  # the first turn tells the user how to trust them
        assert "/mcp trust" in " ".join(str(n.render()) for n in app.transcript.query("Notice"))
        assert "add" not in [t["function"]["name"] for t in tui.llm.requests[0]["tools"]]
        await turn(pilot, "/mcp trust")
        await wait_for(pilot, lambda: _status(app) == {"calc": "connected"})
        assert "add" in app.transcript.query(InfoBlock).last().source
        await turn(pilot, "/mcp restart calc")
        assert _status(app) == {"calc": "connected"}
        assert "Restarted" in " ".join(b.source for b in app.transcript.query(InfoBlock))
    assert TrustStore(tui.env.home).is_trusted(tui.env.project)
