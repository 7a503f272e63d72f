"""An MCP server serves one turn's calls at a time, so the requests it sends (a form, sampling)
reach the turn whose call made them: another turn's call waits (at most the call timeout) and
one made outside any turn has its form declined."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from test_mcp import by_name, call, fast, running, text

from auger.core.mcp.callers import ANSWERER

GOOD = {"name": "Ann", "email": "ann@example.com", "age": 42, "role": "dev"}


class Turn:
    """A turn's answerer: records the forms it is shown; answers once `release` is set."""

    def __init__(self) -> None:
        self.forms: list[str] = []
        self.shown = asyncio.Event()
        self.release = asyncio.Event()

    async def elicit(self, server: str, params: Any) -> Any:
        from mcp.types import ElicitResult

        self.forms.append(params.message)
        self.shown.set()
        await self.release.wait()
        return ElicitResult(action="accept", content=GOOD)

    def notify(self, text: str) -> None:
        raise AssertionError(f"no notice here: {text}")

    async def sample(self, server: str, params: Any) -> Any:
        raise AssertionError("no sampling here")


async def _as(turn: Turn | None, tool: Any, **args: Any) -> Any:
    ANSWERER.set(turn)  # what the turn's own task sets (auger.core.session.turn)
    return await call(tool, **args)


async def test_another_turns_call_waits_while_the_server_serves_a_turn(tmp_path: Path) -> None:
    async with running([fast("t")], tmp_path, call_timeout=1.0) as manager:
        tools = by_name(manager)
        first, second = Turn(), Turn()
        signing = asyncio.create_task(_as(first, tools["mcp__t__sign_up"], team="core"))
        await first.shown.wait()  # the server waits for the first turn's form
        busy = await _as(second, tools["mcp__t__sign_up"], team="ops")
        assert busy.status == "error" and "busy with another thread's calls for 1s" in text(busy)
        assert second.forms == []  # its call never reached the server
        first.release.set()
        assert text(await signing).startswith("elicitation accept:")
        second.release.set()
        assert text(await _as(second, tools["mcp__t__sign_up"], team="ops")).startswith("elicitation accept:")
        assert first.forms == ["Join team core: who are you?"] and second.forms == [
            "Join team ops: who are you?"
        ]
        outside = await _as(None, tools["mcp__t__sign_up"], team="none")  # no turn: nobody to ask
        assert text(outside) == "elicitation decline: null"
