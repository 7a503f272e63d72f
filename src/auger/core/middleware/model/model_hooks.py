"""PreModel / PostModel hooks: around every model call (the main agent's and each subagent's).

auger's own events (Claude Code has none; they follow agent-switch's beforeLLM / afterLLM).
The hook reads the call on stdin:

    PreModel   {"model", "system_prompt", "messages": [{"role", "content"}], "tools": [names]}
    PostModel  {"model", "reply": {"content", "tool_calls": [{"name", "args"}]}}

and may BLOCK it (exit 2, `decision: "block"`, `continue: false`): the call is not made (PreModel)
or its reply is dropped (PostModel), and the turn ends with an error naming the hook's reason —
or, for PreModel, MODIFY the request: `hookSpecificOutput.updatedSystemPrompt` replaces the
system prompt, `additionalContext` is appended to it. The matcher is the model spec
(`provider:model`). Messages are sent as text (content blocks other than text are named, not
copied), at most the last `MAX_MESSAGES`.
"""

from __future__ import annotations

from typing import Any

from auger.core.hooks.runner import HookResult
from auger.core.middleware.base import tool_name
from auger.errors import AugerError

MAX_MESSAGES = 200


class HookBlockedError(AugerError):
    """A PreModel / PostModel hook blocked a model call."""


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content if isinstance(content, list) else [content]:
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif isinstance(block, dict):
            parts.append(f"[{block.get('type', 'block')}]")
        else:
            parts.append(str(block))
    return "".join(parts)


def _role(message: Any) -> str:
    return {"human": "user", "ai": "assistant"}.get(
        getattr(message, "type", ""), getattr(message, "type", "")
    )


def _system_text(request: Any) -> str:
    system = getattr(request, "system_message", None)
    return _text(system.content) if system is not None else str(getattr(request, "system_prompt", "") or "")


def pre_payload(request: Any, base: dict[str, Any], model: str) -> dict[str, Any]:
    messages = list(getattr(request, "messages", None) or [])[-MAX_MESSAGES:]
    return {
        **base,
        "model": model,
        "system_prompt": _system_text(request),
        "messages": [{"role": _role(m), "content": _text(m.content)} for m in messages],
        "tools": [name for t in request.tools or [] if (name := tool_name(t))],
    }


def post_payload(reply: Any, base: dict[str, Any], model: str) -> dict[str, Any]:
    calls = [
        {"name": c["name"], "args": c.get("args") or {}} for c in getattr(reply, "tool_calls", None) or []
    ]
    content = _text(reply.content) if reply is not None else ""
    return {**base, "model": model, "reply": {"content": content, "tool_calls": calls}}


def check(event: str, result: HookResult) -> None:
    if result.blocked:
        what = "the model call" if event == "PreModel" else "the model's reply"
        raise HookBlockedError(f"A {event} hook blocked {what}: {result.reason}")


def modified(request: Any, result: HookResult) -> Any:
    """The request with the system prompt a PreModel hook asked for."""
    if result.updated_prompt is None and not result.context:
        return request
    prompt = result.updated_prompt if result.updated_prompt is not None else _system_text(request)
    prompt = "\n\n".join(p for p in [prompt, *result.context] if p)
    from langchain_core.messages import SystemMessage

    return request.override(system_message=SystemMessage(content=prompt))
