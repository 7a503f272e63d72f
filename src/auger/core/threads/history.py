"""A thread's saved conversation: its messages read from the checkpointer, and the same messages
as the IR events a live turn emits (what `AgentPort.history()` returns, so one renderer draws saved
and live turns, and what transcripts are written from).

* `read_history(db, thread_id)` — the messages without building the agent (no model, no tools):
  a one-node graph whose `messages` channel is the same DeltaChannel deepagents uses, read
  through the public `aget_state`.
* `to_events(messages, thread_id)` — per saved turn: `TurnStarted(prompt)` (a skill call as the
  user typed it, `/name args`), `TextDelta` per reply, `ToolCallStarted` / `ToolCallFinished`
  per tool call, `TurnEnded`. Hook context added to a prompt comes as a `Notice`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from auger.core import events as ev

if TYPE_CHECKING:
    from auger.core.threads.backend import ThreadDatabase

SKILL_KEY = "auger_skill"  # additional_kwargs of a `/skill args` message (auger.core.catalog.skills)
MCP_PROMPT_KEY = "auger_mcp_prompt"  # an MCP prompt run as `/mcp__server__prompt` (auger.core.mcp.prompts)
TYPED_KEY = "auger_typed"  # what the user typed, when the front end expanded it (TurnOptions.typed)
HOOK_KEY = "auger_hook"  # additional_kwargs of hook context (auger.core.session.lifecycle)
REFUSED_KEY = "auger_refused"  # additional_kwargs of a refused call (auger.core.middleware.tools.permissions)


def content_text(content: Any) -> str:
    """The text of a message's content (a string, or a list of content blocks); an image as a
    placeholder naming it (`[image image/png]`)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(_block_text(p) for p in content)
    return "" if content is None else str(content)


def _block_text(block: Any) -> str:
    if isinstance(block, str):
        return block
    if not isinstance(block, dict):
        return ""
    if block.get("type") in ("image", "image_url"):
        mime = block.get("mime_type") or block.get("mimeType")
        return f" [image{f' {mime}' if mime else ''}]"
    return str(block.get("text", ""))


def _prompt(msg: Any, text: str) -> str:
    marks = getattr(msg, "additional_kwargs", None) or {}
    typed, skill, prompt = marks.get(TYPED_KEY), marks.get(SKILL_KEY), marks.get(MCP_PROMPT_KEY)
    if isinstance(typed, str):  # a prompt the front end expanded (@files inlined): as typed
        return typed
    if isinstance(skill, dict):  # a `/skill args` call: what the user typed
        return f"/{skill.get('name')} {skill.get('args') or ''}".rstrip()
    if isinstance(prompt, dict):  # an MCP prompt `/mcp__server__prompt args`
        return f"/{prompt.get('command')} {prompt.get('args') or ''}".rstrip()
    return text


def to_events(messages: Sequence[Any], thread_id: str) -> list[ev.Event]:
    """The saved conversation as IR events, turn by turn."""
    out: list[ev.Event] = []
    final: str | None = None  # the reply of the turn in progress (None: no turn started yet)
    names: dict[str, str] = {}
    for msg in messages:
        kind, text = getattr(msg, "type", ""), content_text(getattr(msg, "content", "")).strip()
        extra = getattr(msg, "additional_kwargs", None) or {}
        if kind == "human" and HOOK_KEY in extra:
            out.append(ev.Notice(text))
        elif kind == "human":
            if final is not None:
                out.append(ev.TurnEnded("done", thread_id, final))
            final = ""
            out.append(ev.TurnStarted(thread_id, _prompt(msg, text)))
        elif kind == "ai":
            if text:
                final = text
                out.append(ev.TextDelta(text))
            for call in getattr(msg, "tool_calls", None) or []:
                call_id, name = str(call.get("id") or ""), str(call.get("name"))
                names[call_id] = name
                out.append(ev.ToolCallStarted(call_id, name, dict(call.get("args") or {})))
        elif kind == "tool":
            call_id = str(getattr(msg, "tool_call_id", ""))
            status: Literal["success", "error", "rejected"] = (
                "rejected"
                if extra.get(REFUSED_KEY)
                else "error"
                if getattr(msg, "status", "") == "error"
                else "success"
            )
            name = getattr(msg, "name", None) or names.get(call_id, "tool")
            out.append(ev.ToolCallFinished(call_id, name, text, status))
    if final is not None:
        out.append(ev.TurnEnded("done", thread_id, final))
    return out


@cache
def _history_graph_builder() -> Any:
    from typing import Annotated

    from langgraph.channels.delta import DeltaChannel
    from langgraph.graph import END, START, StateGraph
    from langgraph.graph.message import _messages_delta_reducer
    from typing_extensions import TypedDict

    # the functional form: annotations are evaluated here, not looked up later by name
    channel: Any = DeltaChannel(cast(Any, _messages_delta_reducer), snapshot_frequency=50)
    HistoryState = TypedDict("HistoryState", {"messages": Annotated[list[Any], channel]})  # noqa: UP013

    builder = StateGraph(HistoryState)
    builder.add_node("noop", lambda _state: {})
    builder.add_edge(START, "noop")
    builder.add_edge("noop", END)
    return builder


async def read_history(db: Path | ThreadDatabase, thread_id: str) -> list[Any]:
    """A thread's messages, read from the checkpointer without building the agent. `db`: the
    thread database, or an SQLite file."""
    from auger.core.threads.backend import ThreadDatabase
    from auger.core.threads.checkpoints.checkpointer import open_saver

    if isinstance(db, Path):
        db = ThreadDatabase(db.parent, file=db)
    saver, conn = await open_saver(db)
    try:
        graph = _history_graph_builder().compile(checkpointer=saver)
        state = await graph.aget_state({"configurable": {"thread_id": thread_id}})
        return list((state.values or {}).get("messages", []))
    finally:
        await conn.close()
