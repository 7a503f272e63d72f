"""`auger --connect URL` where URL is a LangGraph Server (the real `langgraph dev` hosting auger's
graph): headless turns through the port, approvals as the server's interrupts, thread operations,
and a clear error for what such a server cannot do."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk import get_client

from auger.cli import agents
from auger.core import events as ev
from auger.core.port import TurnOptions
from auger.errors import ThreadError
from auger.remote.langgraph import LangGraphSession, NotSupportedError
from auger.settings import load_settings
from conftest import AUGER
from langgraph_harness import Hosted


def connect(hosted: Hosted, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real `auger` with a home of its own (no config: the agent's is the server's)."""
    env = {**hosted.env.env, "AUGER_HOME": str(tmp_path / "client-home"), "HOME": str(tmp_path)}
    return subprocess.run(
        [AUGER, "--connect", hosted.url, *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )


def events(proc: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


def write_call(name: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "write_file", "args": {"file_path": f"/{name}", "content": "remote\n"}}]}


def test_headless_turn_on_a_langgraph_server(hosted: Hosted, tmp_path: Path) -> None:
    hosted.script("greet me over langgraph", {"text": "Greetings from the LangGraph-hosted auger."})
    proc = connect(hosted, tmp_path, "-n", "greet me over langgraph")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Greetings from the LangGraph-hosted auger."
    assert "Traceback" not in proc.stderr


def test_headless_refuses_approvals_and_the_mode_travels_with_the_run(hosted: Hosted, tmp_path: Path) -> None:
    hosted.script("make refused.txt", write_call("refused.txt"), {"text": "Could not write it."})
    proc = connect(hosted, tmp_path, "-n", "make refused.txt", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    out = events(proc)
    [finished] = [e for e in out if e["type"] == "tool_call_finished"]
    assert finished["status"] == "rejected" and "--mode auto-edit" in finished["output"]
    assert out[-1] == {**out[-1], "type": "turn_ended", "reason": "done", "text": "Could not write it."}
    assert not (hosted.env.project / "refused.txt").exists()

    hosted.script("make allowed.txt", write_call("allowed.txt"), {"text": "Written."})
    proc = connect(hosted, tmp_path, "--mode", "auto-edit", "-n", "make allowed.txt")
    assert proc.returncode == 0, proc.stderr
    assert (hosted.env.project / "allowed.txt").read_text() == "remote\n"
    assert proc.stdout.strip() == "Written."


async def turn(port: Any, prompt: str, answer: ev.ApprovalDecision | None = None) -> list[ev.Event]:
    out = []
    async for event in port.send(prompt, TurnOptions(mode="manual")):
        out.append(event)
        if isinstance(event, ev.ApprovalRequested) and answer is not None:
            event.respond(answer)
    return out


async def test_the_port_over_a_langgraph_server(hosted: Hosted, tmp_path: Path) -> None:
    settings = load_settings(cwd=tmp_path, env={"AUGER_HOME": str(tmp_path / "client-home")})
    port = await agents.remote(hosted.url)(settings, None)
    try:
        assert isinstance(port, LangGraphSession)  # recognised by its /info, not auger serve's API
        hosted.script("port writes port.txt", write_call("port.txt"), {"text": "Port wrote it."})
        out = await turn(port, "port writes port.txt", ev.ApprovalDecision("approve"))
        [asked] = [e for e in out if isinstance(e, ev.ApprovalRequested)]
        [started] = [e for e in out if isinstance(e, ev.ToolCallStarted)]
        assert asked.call_id == started.call_id and asked.name == "write_file"
        assert asked.suggested_rule == "write_file(port.txt)" and "needs approval" in asked.description
        assert (hosted.env.project / "port.txt").read_text() == "remote\n"
        [finished] = [e for e in out if isinstance(e, ev.ToolCallFinished)]
        assert finished.status == "success"
        assert out[-1] == ev.TurnEnded("done", port.thread_id, "Port wrote it.")
        assert port.model_spec == "local:scripted-model"  # the server's configured model, as it ran

        history = await port.history()  # the saved turn, as the live one's events
        assert [type(e).__name__ for e in history] == [
            "TurnStarted", "ToolCallStarted", "ToolCallFinished", "TextDelta", "TurnEnded",
        ]  # fmt: skip
        threads = await port.list_threads()
        mine = next(t for t in threads if t.id == port.thread_id)
        assert mine.title == "port writes port.txt" and mine.message_count == 4
        await port.rename_thread("renamed on the server")
        assert (await port.thread_info()).title == "renamed on the server"  # type: ignore[union-attr]

        with pytest.raises(NotSupportedError, match="is not supported by a LangGraph Server"):
            await port.rewind(1)
        with pytest.raises(NotSupportedError, match="not supported by a LangGraph Server"):
            await port.catalogue()
        with pytest.raises(
            NotSupportedError, match=r"input_requested event.*\(resolve_input\) is not supported"
        ):
            await port.resolve_input("any", ev.InputAnswer("decline"))  # a LangGraph run has no MCP forms
        with pytest.raises(ThreadError, match="No thread 'no-such-thread'"):
            await port.open_thread("no-such-thread")
    finally:
        await port.aclose()


async def test_a_rejected_approval_over_the_port(hosted: Hosted, tmp_path: Path) -> None:
    settings = load_settings(cwd=tmp_path, env={"AUGER_HOME": str(tmp_path / "client-home")})
    port = await agents.remote(hosted.url)(settings, None)
    try:
        hosted.script("port rejects no.txt", write_call("no.txt"), {"text": "Left it alone."})
        out = await turn(port, "port rejects no.txt", ev.ApprovalDecision("reject", "keep the tree clean"))
        [finished] = [e for e in out if isinstance(e, ev.ToolCallFinished)]
        assert finished.status == "rejected" and "keep the tree clean" in finished.output
        assert not (hosted.env.project / "no.txt").exists()
        assert out[-1] == ev.TurnEnded("done", port.thread_id, "Left it alone.")
    finally:
        await port.aclose()


def test_resume_a_langgraph_thread_headless(hosted: Hosted, tmp_path: Path) -> None:
    hosted.script("first of two", {"text": "One."})
    first = events(connect(hosted, tmp_path, "-n", "first of two", "--output-format", "stream-json"))
    thread = first[-1]["thread_id"]
    hosted.script("second of two", {"text": "Two."})
    proc = connect(hosted, tmp_path, "-r", thread, "-n", "second of two", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    assert events(proc)[-1]["thread_id"] == thread
    sent = [r for r in hosted.env.llm.requests if "second of two" in json.dumps(r)][-1]
    assert "One." in json.dumps(sent["messages"])  # the server's thread carried the first turn


async def test_cancel_stops_the_run_on_the_server(hosted: Hosted, tmp_path: Path) -> None:
    import asyncio

    settings = load_settings(cwd=tmp_path, env={"AUGER_HOME": str(tmp_path / "client-home")})
    port = await agents.remote(hosted.url)(settings, None)
    try:
        hosted.script("port waits forever", {"hang": True})
        served = len(hosted.env.llm.served)
        events: list[ev.Event] = []

        async def consume() -> None:
            async for event in port.send("port waits forever", TurnOptions(mode="manual")):
                events.append(event)

        task = asyncio.create_task(consume())
        while not any(r.get("hang") for r in hosted.env.llm.served[served:]):  # another process's state
            await asyncio.sleep(0.05)
        port.cancel()
        await asyncio.wait_for(task, 60)
        assert events[-1] == ev.TurnEnded("cancelled", port.thread_id, "")
        client = get_client(url=hosted.url)
        [run] = await client.runs.list(port.thread_id)
        await client.runs.join(port.thread_id, run["run_id"])
        assert (await client.runs.get(port.thread_id, run["run_id"]))["status"] in ("interrupted", "error")
    finally:
        await port.aclose()


def test_an_unknown_thread_is_one_line_and_exit_2(hosted: Hosted, tmp_path: Path) -> None:
    missing = "00000000-0000-4000-8000-000000000000"
    proc = connect(hosted, tmp_path, "-r", missing, "-n", "hello?")
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"auger: No thread '{missing}' on the LangGraph Server at {hosted.url}."
