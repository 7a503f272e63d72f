"""A model reply that did not finish is never acted on.

A stream that breaks off mid-reply (a dropped connection, a proxy or server giving up, a cut
tool call) can still look like a reply: the SDKs end quietly when the body ends without
`[DONE]`, and langchain-core parses each streamed tool call's arguments with
`parse_partial_json`, which *completes* a cut-off `{"command": "rm -rf keep` into
`{"command": "rm -rf keep"}` — a valid tool call that would run. So every model call is
checked before its reply enters the thread (the tool node runs only what is there):

* a streamed reply must carry the provider's finish reason — `finish_reason` (OpenAI and
  compatible servers, Gemini), `stop_reason` (Anthropic), `done_reason` (Ollama); only the
  last event of a complete stream has it;
* every tool call's arguments, as streamed (the raw chunks, seen by a callback on the model),
  must be a complete JSON object, and the provider parser must have found none invalid
  (`invalid_tool_calls`: a non-streamed reply with broken arguments).

Otherwise the call raises `IncompleteReplyError`: the turn ends with that provider error (the
Session keeps the text streamed so far, marked, and exits 1 headless), the half-made reply is
not saved and none of its tool calls runs. Nothing is retried: the model is not re-asked in a
loop, the user decides. ConfigurableModelMiddleware applies it (`watch` the model, then
`ensure_complete` the reply): it wraps every model call of the main agent and of every subagent,
so the check sees the model the call really uses, whatever the provider.
"""

from __future__ import annotations

import json
from typing import Any

from langchain.agents.middleware.types import ExtendedModelResponse
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.exceptions import ModelError
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.messages.ai import add_ai_message_chunks

from auger.errors import ProviderError

FINISH_KEYS = ("finish_reason", "stop_reason", "done_reason")


class IncompleteReplyError(ProviderError, ModelError):
    """The model's reply did not finish (cut stream, broken tool-call arguments); nothing of it ran."""

    is_retryable = False


class StreamedToolCalls(BaseCallbackHandler):
    """Collects what one model call streams: how many chunks, and the raw tool-call chunks."""

    run_inline = True  # called on the event loop, in order, before the call returns

    def __init__(self) -> None:
        self.chunks = 0
        self._calls: list[AIMessageChunk] = []

    def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        pass

    def on_llm_new_token(self, token: Any, *, chunk: Any = None, **kwargs: Any) -> None:
        message = getattr(chunk, "message", None)
        if not isinstance(message, AIMessageChunk):
            return
        self.chunks += 1
        if message.tool_call_chunks:
            self._calls.append(AIMessageChunk(content="", tool_call_chunks=message.tool_call_chunks))

    def raw_arguments(self) -> list[tuple[str, str]]:
        """(tool name, arguments as streamed) per call, merged the way langchain-core merges them."""
        if not self._calls:
            return []
        merged = add_ai_message_chunks(self._calls[0], *self._calls[1:])
        return [(str(c.get("name") or "?"), c.get("args") or "") for c in merged.tool_call_chunks]


def finish_reason(message: AIMessage) -> str | None:
    meta = message.response_metadata or {}
    return next((str(meta[k]) for k in FINISH_KEYS if meta.get(k)), None)


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def incomplete_reason(message: AIMessage, streamed: StreamedToolCalls) -> str | None:
    """Why `message` must not be acted on, or None when it is complete."""
    names = [c.get("name") or "?" for c in [*message.tool_calls, *message.invalid_tool_calls]]
    calls = f" with a half-made call to {', '.join(map(repr, names))}" if names else ""
    if streamed.chunks and finish_reason(message) is None:
        return f"the reply stream ended before the model finished{calls} (no finish reason)"
    broken = [name for name, raw in streamed.raw_arguments() if raw.strip() and not _is_json_object(raw)]
    broken += [c.get("name") or "?" for c in message.invalid_tool_calls]
    if broken:
        which = ", ".join(map(repr, dict.fromkeys(broken)))
        return f"the arguments of the call to {which} are not complete JSON"
    return None


def _reply(response: Any) -> AIMessage | None:
    inner = response.model_response if isinstance(response, ExtendedModelResponse) else response
    if isinstance(inner, AIMessage):
        return inner
    return next((m for m in getattr(inner, "result", []) if isinstance(m, AIMessage)), None)


def watch(model: Any, *, share_loop: bool = False) -> tuple[Any, StreamedToolCalls]:
    """A copy of `model` (sharing its clients) whose calls report their chunks to the collector;
    `share_loop` (an async call): and give the event loop turns while they stream
    (auger.core.models.replies.loop_share)."""
    streamed = StreamedToolCalls()
    if not isinstance(model, BaseChatModel):
        return model, streamed
    callbacks = model.callbacks
    handlers = list(callbacks) if isinstance(callbacks, list) else list(getattr(callbacks, "handlers", []))
    handlers.append(streamed)
    if share_loop:
        from auger.core.models.replies.loop_share import YieldingStream

        handlers.append(YieldingStream())
    # what a call reports to its callbacks as the model (langchain's `_serialized`, a `dumpd` of
    # it kept on the instance) leaves the callbacks out: made once on `model`, every copy has it
    getattr(model, "_serialized", None)
    return model.model_copy(update={"callbacks": handlers}), streamed


def ensure_complete(response: Any, streamed: StreamedToolCalls, spec: str | None) -> Any:
    """`response` when its reply finished; IncompleteReplyError otherwise."""
    message = _reply(response)
    why = incomplete_reason(message, streamed) if message is not None else None
    if why is None:
        return response
    raise IncompleteReplyError(
        f"{spec or 'the model'}: {why}; nothing of the unfinished reply was run or saved.",
        hint="Send the request again (the connection or the server may have failed).",
    )
