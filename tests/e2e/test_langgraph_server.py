"""auger hosted by the real `langgraph dev` (the repo's langgraph.json, graph id `auger`), driven
through `langgraph-sdk` as any LangGraph Server client would: streamed text, approvals as
interrupts, resumed with `Command(resume=...)`."""

from __future__ import annotations

import json
from typing import Any

from langgraph_sdk import get_client

from langgraph_harness import Hosted


async def run(hosted: Hosted, thread_id: str, **kwargs: Any) -> list[Any]:
    client = get_client(url=hosted.url)
    parts = []
    async for part in client.runs.stream(
        thread_id, "auger", stream_mode=["messages-tuple", "updates"], **kwargs
    ):
        parts.append(part)
    return parts


def interrupts(parts: list[Any]) -> list[dict[str, Any]]:
    return [i for p in parts if p.event == "updates" for i in (p.data or {}).get("__interrupt__", [])]


def streamed_text(parts: list[Any]) -> str:
    chunks = [p.data[0] for p in parts if p.event == "messages" and p.data[0].get("type") == "AIMessageChunk"]
    return "".join(c["content"] for c in chunks if isinstance(c.get("content"), str))


async def new_thread(hosted: Hosted) -> str:
    return str((await get_client(url=hosted.url).threads.create())["thread_id"])


async def test_a_turn_streams_text(hosted: Hosted) -> None:
    hosted.script("say hello", {"text": "Hello from the hosted auger, streamed in chunks."})
    thread = await new_thread(hosted)
    parts = await run(hosted, thread, input={"messages": [{"role": "user", "content": "say hello"}]})
    assert [p for p in parts if p.event == "error"] == []
    assert streamed_text(parts) == "Hello from the hosted auger, streamed in chunks."
    assert sum(p.event == "messages" for p in parts) > 3  # token by token, not one final message
    state = await get_client(url=hosted.url).threads.get_state(thread)
    assert state["values"]["messages"][-1]["content"] == "Hello from the hosted auger, streamed in chunks."
    # auger's skills middleware ran: the built-in skills are in the prompt the model was sent
    [sent] = [r for r in hosted.env.llm.requests if "say hello" in str(r["messages"][-1]["content"])]
    system = str(sent["messages"][0]["content"])
    assert "## Skills" in system and "/~builtin/skills/" in system


def write_call(name: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "write_file", "args": {"file_path": f"/{name}", "content": "hosted\n"}}]}


async def test_an_approval_is_an_interrupt_and_approve_runs_the_call(hosted: Hosted) -> None:
    hosted.script("write approved.txt", write_call("approved.txt"), {"text": "Wrote it."})
    thread = await new_thread(hosted)
    prompt = {"messages": [{"role": "user", "content": "write approved.txt"}]}
    parts = await run(hosted, thread, input=prompt, context={"mode": "manual"})
    [asked] = interrupts(parts)
    [action] = asked["value"]["action_requests"]
    assert action["name"] == "write_file" and action["args"]["file_path"] == "/approved.txt"
    assert "needs approval" in action["description"]
    assert not (hosted.env.project / "approved.txt").exists()  # nothing ran before the answer
    parts = await run(hosted, thread, command={"resume": {"decisions": [{"type": "approve"}]}})
    assert (hosted.env.project / "approved.txt").read_text() == "hosted\n"
    assert "Wrote it." in streamed_text(parts)


async def test_reject_does_not_run_the_call(hosted: Hosted) -> None:
    hosted.script("write rejected.txt", write_call("rejected.txt"), {"text": "Understood, not written."})
    thread = await new_thread(hosted)
    prompt = {"messages": [{"role": "user", "content": "write rejected.txt"}]}
    assert interrupts(await run(hosted, thread, input=prompt))
    answer = {"decisions": [{"type": "reject", "message": "not this file"}]}
    parts = await run(hosted, thread, command={"resume": answer})
    assert not (hosted.env.project / "rejected.txt").exists()
    assert "Understood, not written." in streamed_text(parts)
    state = await get_client(url=hosted.url).threads.get_state(thread)
    tool_results = [m for m in state["values"]["messages"] if m["type"] == "tool"]
    assert "not this file" in tool_results[-1]["content"]


async def test_the_servers_permission_rules_hold_for_its_runs(hosted: Hosted) -> None:
    """A run's JSON context cannot carry auger's permission engine: the server fills it in from
    its own settings, so a deny rule in AUGER_HOME's config refuses the call with no interrupt."""
    hosted.script("write secret.env", write_call("secret.env"), {"text": "It was refused."})
    thread = await new_thread(hosted)
    prompt = {"messages": [{"role": "user", "content": "write secret.env"}]}
    parts = await run(hosted, thread, input=prompt, context={"mode": "yolo"})
    assert interrupts(parts) == []
    assert not (hosted.env.project / "secret.env").exists()
    state = await get_client(url=hosted.url).threads.get_state(thread)
    tool_results = [m for m in state["values"]["messages"] if m["type"] == "tool"]
    assert "deny" in tool_results[-1]["content"].lower()


async def test_the_agents_tools_run_in_the_workspace(hosted: Hosted) -> None:
    """The shell, file reads and search run on the server's backend, rooted at its project, with
    nothing blocking the server's event loop (`langgraph dev` fails a run that does)."""
    (hosted.env.project / "notes").mkdir(exist_ok=True)
    (hosted.env.project / "notes" / "todo.md").write_text("- ship the hosted graph\n")
    calls = [
        {"name": "execute", "args": {"command": "echo from-the-shell > shell.txt"}, "id": "c1"},
        {"name": "read_file", "args": {"file_path": "/notes/todo.md"}, "id": "c2"},
        {"name": "grep", "args": {"pattern": "hosted graph"}, "id": "c3"},
    ]
    hosted.script("use the tools", {"tool_calls": calls}, {"text": "Used them."})
    thread = await new_thread(hosted)
    prompt = {"messages": [{"role": "user", "content": "use the tools"}]}
    parts = await run(hosted, thread, input=prompt, context={"mode": "yolo"})
    assert [p for p in parts if p.event == "error"] == []
    assert (hosted.env.project / "shell.txt").read_text() == "from-the-shell\n"
    state = await get_client(url=hosted.url).threads.get_state(thread)
    results = {m["tool_call_id"]: m for m in state["values"]["messages"] if m["type"] == "tool"}
    assert results["c1"]["status"] == "success"
    assert "ship the hosted graph" in results["c2"]["content"]
    assert "todo.md" in results["c3"]["content"]


async def test_the_configs_mcp_servers_are_the_hosted_agents_tools(hosted: Hosted) -> None:
    hosted.script(
        "add with mcp",
        {"tool_calls": [{"name": "mcp__calc__add", "args": {"a": 20, "b": 22}, "id": "m1"}]},
        {"text": "It is 42."},
    )
    thread = await new_thread(hosted)
    prompt = {"messages": [{"role": "user", "content": "add with mcp"}]}
    parts = await run(hosted, thread, input=prompt, context={"mode": "yolo"})
    assert [p for p in parts if p.event == "error"] == []
    state = await get_client(url=hosted.url).threads.get_state(thread)
    [result] = [m for m in state["values"]["messages"] if m["type"] == "tool"]
    assert result["name"] == "mcp__calc__add" and "42" in str(result["content"])
    asked = next(r for r in hosted.env.llm.requests if "add with mcp" in json.dumps(r["messages"]))
    assert "mcp__calc__add" in [t["function"]["name"] for t in asked["tools"]]
