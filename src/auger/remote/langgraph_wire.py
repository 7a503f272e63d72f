"""A LangGraph Server's JSON as auger's shapes: messages (LangChain dicts) as message objects,
stream parts as the `(namespace, mode, data)` triples `StreamTranslator` reads in process (so a
hosted turn gives the same IR events as a local one), threads as `LiveThread`s."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from auger.core.threads.store import TITLE_CHARS, LiveThread

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage


def to_message(data: Any) -> BaseMessage | None:
    """A serialised LangChain message (`{"type": "ai", "content": ...}`) as the message object."""
    from langchain_core import messages as lc

    kinds: dict[str, type[lc.BaseMessage]] = {
        "ai": lc.AIMessage,
        "AIMessageChunk": lc.AIMessageChunk,
        "human": lc.HumanMessage,
        "tool": lc.ToolMessage,
        "system": lc.SystemMessage,
    }
    if not isinstance(data, dict) or data.get("type") not in kinds:
        return None
    return kinds[data["type"]].model_validate(data)


def to_messages(items: Any) -> list[BaseMessage]:
    return [m for item in items or [] if (m := to_message(item)) is not None]


def stream_part(event: str, data: Any) -> tuple[tuple[str, ...], str, Any] | None:
    """One `runs.stream` part (`event` "messages|tools:abc", "updates", ...) as
    `(namespace, mode, data)` with its messages as objects; None for parts with no IR."""
    mode, _, ns = event.partition("|")
    namespace = tuple(ns.split("|")) if ns else ()
    if mode == "messages" and isinstance(data, list) and len(data) == 2:
        message = to_message(data[0])
        return (namespace, "messages", (message, data[1] or {})) if message is not None else None
    if mode == "updates" and isinstance(data, dict):
        return namespace, "updates", {node: _update(node, value) for node, value in data.items()}
    if mode == "custom":
        return namespace, "custom", data
    return None


def reply_model(namespace: tuple[str, ...], mode: str, data: Any) -> str | None:
    """The `provider:model` that wrote a main-agent reply in this update (auger tags replies)."""
    if namespace or mode != "updates" or not isinstance(data.get("model"), dict):
        return None
    for message in data["model"].get("messages") or []:
        spec = getattr(message, "response_metadata", {}).get("auger_model_spec")
        if spec:
            return str(spec)
    return None


def _update(node: str, value: Any) -> Any:
    if node == "__interrupt__" or not isinstance(value, dict) or "messages" not in value:
        return value
    messages = value["messages"]
    return {**value, "messages": to_messages(messages if isinstance(messages, list) else [messages])}


def _time(value: Any) -> float:
    try:
        return datetime.fromisoformat(str(value)).timestamp()
    except ValueError:
        return 0.0


def first_prompt(messages: list[Any]) -> str:
    human = next((m for m in messages if isinstance(m, dict) and m.get("type") == "human"), None)
    content = (human or {}).get("content", "")
    if isinstance(content, list):
        content = " ".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return " ".join(str(content).split())[:TITLE_CHARS]


def to_thread(thread: dict[str, Any]) -> LiveThread:
    """A LangGraph Server thread (`threads.get` / `search`) as auger's thread object."""
    metadata = thread.get("metadata") or {}
    messages = list((thread.get("values") or {}).get("messages") or [])
    return LiveThread(
        id=str(thread["thread_id"]),
        title=str(metadata.get("title") or first_prompt(messages)),
        cwd="",
        root="",
        git_branch=None,
        model=metadata.get("model"),
        created_at=_time(thread.get("created_at")),
        updated_at=_time(thread.get("updated_at")),
        message_count=len(messages),
        parent_id=None,
        fork_turn=None,
        busy=thread.get("status") == "busy",
        context_tokens=(thread.get("values") or {}).get("_context_tokens"),
    )
