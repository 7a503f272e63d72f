"""Translate LangGraph stream chunks (`updates` + `custom`, with subgraphs) into IR events.

The model's tokens come as custom events of `TokenRelay` (in process) or as `messages` chunks
(a LangGraph server's stream, `auger.remote.langgraph`): both go through `_on_message`.

One `StreamTranslator` per turn. Events from a subagent carry `parent_id`: the id of the
`task` call that spawned it, matched by subgraph namespace.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator
from typing import Any, Literal

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, RemoveMessage, ToolMessage

from auger.core import events as ev
from auger.core.middleware.model.turn_limit import TURN_LIMIT_FLAG
from auger.core.session.token_relay import TOKEN_EVENT


def _text_and_reasoning(msg: AIMessage | AIMessageChunk) -> tuple[str, str]:
    content = msg.content
    reasoning = msg.additional_kwargs.get("reasoning_content") or ""
    if isinstance(content, str):
        return content, reasoning if isinstance(reasoning, str) else ""
    text: list[str] = []
    thoughts: list[str] = [reasoning] if isinstance(reasoning, str) else []
    for block in content:
        if isinstance(block, str):
            text.append(block)
        elif isinstance(block, dict):
            kind = block.get("type")
            if kind == "text":
                text.append(str(block.get("text", "")))
            elif kind in ("thinking", "reasoning"):
                thoughts.append(str(block.get(kind) or block.get("text") or ""))
    return "".join(text), "".join(thoughts)


def tool_output_text(msg: ToolMessage) -> str:
    content = msg.content
    if isinstance(content, str):
        return content
    parts = [b.get("text", "") if isinstance(b, dict) else str(b) for b in content]
    return "".join(str(p) for p in parts)


class StreamTranslator:
    def __init__(self) -> None:
        self.final_text = ""
        self.hit_turn_limit = False
        self.interrupts: list[Any] = []
        self._started: dict[str, tuple[str, float, str | None]] = {}  # call_id -> name, t0, parent
        self._call_keys: dict[str, str] = {}  # call_id -> call_key(name, args)
        self.rejected: list[str] = []  # call keys the user (or policy) rejected this turn
        self._asked: set[str] = set()  # call ids an approval request was matched to
        self._task_calls: list[str] = []  # task call ids in start order, not yet bound to a namespace
        self._task_types: dict[str, str] = {}  # task call id -> subagent type
        self._ns_parent: dict[str, str] = {}  # subgraph namespace root -> task call id
        self._streamed_text: dict[str | None, bool] = {}
        self.partial_text = ""  # main-agent text streamed since the last finished model call
        # what entered the main thread's messages this turn, in order (the thread index reads this
        # instead of the whole history); `rewrote`: a node replaced or removed messages instead
        self.entered: list[BaseMessage] = []
        self.rewrote = False

    def running_call(self, name: str, args: dict[str, Any]) -> tuple[str, str | None]:
        """(call id, parent id) of the started, unfinished call with this name and arguments —
        how an approval request (which carries no id) is matched to its `tool_call_started`."""
        key = call_key(name, args)
        for call_id, started_key in self._call_keys.items():
            if started_key == key and call_id not in self._asked:
                self._asked.add(call_id)
                return call_id, self._started.get(call_id, ("", 0.0, None))[2]
        return "", None

    # -- namespaces ------------------------------------------------------------------------
    def _parent(self, ns: tuple[str, ...]) -> str | None:
        if not ns:
            return None
        root = ns[0]
        if root not in self._ns_parent:
            if not self._task_calls:
                return None
            self._ns_parent[root] = self._task_calls.pop(0)
        return self._ns_parent[root]

    def note_input(self, payload: Any) -> None:
        """The messages a graph input (the prompt, a Stop hook's reason) adds to the thread."""
        if isinstance(payload, dict):
            self._entered(payload.get("messages") or [])

    def _entered(self, messages: Any) -> None:
        for msg in messages if isinstance(messages, list) else [messages]:
            if isinstance(msg, BaseMessage) and not isinstance(msg, RemoveMessage):
                self.entered.append(msg)
            else:  # an Overwrite of the list, a RemoveMessage
                self.rewrote = True

    # -- entry point -----------------------------------------------------------------------
    def feed(self, ns: tuple[str, ...], mode: str, data: Any) -> Iterator[ev.Event]:
        if mode == "messages":
            yield from self._on_message(ns, *data)
        elif mode == "updates":
            yield from self._on_updates(ns, data)
        elif mode == "custom" and isinstance(data, dict):
            yield from self._on_custom(ns, data)

    def _on_custom(self, ns: tuple[str, ...], data: dict[str, Any]) -> Iterator[ev.Event]:
        """Events middleware sends through the stream writer: notices (permission refusals, hook
        problems), tool progress (MCP `notifications/progress`), the model's tokens (TokenRelay)."""
        kind = data.get("auger_event")
        if kind == "notice":
            level: Literal["info", "warning"] = "warning" if data.get("level") == "warning" else "info"
            yield ev.Notice(str(data.get("message", "")), level)
        elif kind == "tool_progress":
            total = data.get("total")
            yield ev.ToolProgress(
                str(data.get("call_id") or ""),
                float(data.get("progress") or 0),
                float(total) if total is not None else None,
                str(data["message"]) if data.get("message") else None,
                self._parent(ns),
            )
        elif kind == "acp_subagent":
            yield from self._on_acp_subagent(data)
        elif kind == TOKEN_EVENT:  # a model node's chunk (TokenRelay), as the "messages" mode gave it
            yield from self._on_message(ns, data.get("chunk"), {"langgraph_node": "model"})

    def _on_acp_subagent(self, data: dict[str, Any]) -> Iterator[ev.Event]:
        """An event of an ACP agent working on a `task` call (auger.core.agent.acp_subagent),
        as a subagent event of that call."""
        task = {"description": data.get("description"), "subagent_type": data.get("subagent_type")}
        key = call_key("task", task)
        parent = next((cid for cid, k in self._call_keys.items() if k == key), None)
        try:
            event = ev.event_from_dict(dict(data.get("event") or {}))
        except (KeyError, TypeError):
            return
        if parent is not None and "parent_id" in {f.name for f in dataclasses.fields(event)}:
            event = dataclasses.replace(event, **{"parent_id": parent})
        yield event

    def _on_message(self, ns: tuple[str, ...], chunk: Any, meta: dict[str, Any]) -> Iterator[ev.Event]:
        if not isinstance(chunk, AIMessageChunk) or meta.get("langgraph_node") != "model":
            return
        parent = self._parent(ns)
        text, reasoning = _text_and_reasoning(chunk)
        if reasoning:
            yield ev.ReasoningDelta(reasoning, parent)
        if text:
            self._streamed_text[parent] = True
            if parent is None:
                self.partial_text += text
            yield ev.TextDelta(text, parent)

    def _on_updates(self, ns: tuple[str, ...], data: dict[str, Any]) -> Iterator[ev.Event]:
        for node, update in data.items():
            if node == "__interrupt__":
                if not ns:
                    self.interrupts.extend(update)
                continue
            for part in update if isinstance(update, list) else [update]:
                if isinstance(part, dict):
                    yield from self._on_node_update(ns, node, part)

    def _on_node_update(self, ns: tuple[str, ...], node: str, update: dict[str, Any]) -> Iterator[ev.Event]:
        parent = self._parent(ns)
        messages = update.get("messages") or []
        if not ns:
            self._entered(messages)
        for msg in messages if isinstance(messages, list) else [messages]:
            # the turn limit's message comes from the model node too, in the model's place
            if isinstance(msg, AIMessage) and msg.additional_kwargs.get(TURN_LIMIT_FLAG):
                self.hit_turn_limit = True
                if parent is None:
                    self.final_text = str(msg.content)
                yield ev.TextDelta(str(msg.content), parent)
            elif isinstance(msg, AIMessage) and node == "model":
                yield from self._on_ai_message(msg, parent)
            elif isinstance(msg, ToolMessage):
                yield from self._on_tool_message(msg, parent)
        if "todos" in update and update["todos"] is not None:
            yield ev.TodosUpdated(list(update["todos"]), parent)

    def _on_ai_message(self, msg: AIMessage, parent: str | None) -> Iterator[ev.Event]:
        text, _ = _text_and_reasoning(msg)
        if parent is None:
            self.final_text = text
            self.partial_text = ""
        if text and not self._streamed_text.get(parent):
            yield ev.TextDelta(text, parent)  # the model did not stream: send it whole
        self._streamed_text[parent] = False
        usage = msg.usage_metadata
        if usage:
            yield ev.Usage(
                input_tokens=usage.get("input_tokens", 0),
                output_tokens=usage.get("output_tokens", 0),
                total_tokens=usage.get("total_tokens", 0),
                context_tokens=usage.get("total_tokens", 0),
                model=msg.response_metadata.get("model_name"),
                parent_id=parent,
            )
        for call in msg.tool_calls:
            call_id, name, args = call.get("id") or "", call["name"], call.get("args") or {}
            self._started[call_id] = (name, time.monotonic(), parent)
            self._call_keys[call_id] = call_key(name, args)
            yield ev.ToolCallStarted(call_id, name, dict(args), parent)
            if name == "task":
                self._task_calls.append(call_id)
                self._task_types[call_id] = str(args.get("subagent_type", ""))
                yield ev.SubagentStarted(call_id, self._task_types[call_id], str(args.get("description", "")))

    def _on_tool_message(self, msg: ToolMessage, parent: str | None) -> Iterator[ev.Event]:
        name, t0, started_parent = self._started.pop(
            msg.tool_call_id, (msg.name or "", time.monotonic(), parent)
        )
        output = tool_output_text(msg)
        status: Literal["success", "error", "rejected"] = "error" if msg.status == "error" else "success"
        key = self._call_keys.pop(msg.tool_call_id, None)
        if msg.status == "error" and key in self.rejected:
            self.rejected.remove(key)
            status = "rejected"
        elif msg.status == "error" and msg.additional_kwargs.get("auger_refused"):
            status = "rejected"  # a deny rule or a PreToolUse hook: the tool never ran
        yield ev.ToolCallFinished(
            msg.tool_call_id, name, output, status, int((time.monotonic() - t0) * 1000), started_parent
        )
        if name == "task":
            yield ev.SubagentFinished(msg.tool_call_id, self._task_types.pop(msg.tool_call_id, ""), output)


def call_key(name: str, args: dict[str, Any]) -> str:
    """Identifies a tool call by name and arguments (approval requests carry no call id)."""
    return f"{name}:{json.dumps(args, sort_keys=True, default=str)}"
