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

A reply that did not finish raises `IncompleteReplyError`: the turn ends with that provider error
(the Session keeps the text streamed so far, marked, and exits 1 headless), the half-made reply
is not saved and none of its tool calls runs; the user decides whether to send it again. A reply
that finished with arguments that are not a JSON object is the model's mistake, and the model is
told, as the SDKs do: each such call gets an error ToolMessage quoting what it sent (its args
stored as `{}`; it never runs) and the turn goes on, so the model can call again. If its next
reply is broken the same way, the turn ends with an IncompleteReplyError that says so.
ConfigurableModelMiddleware applies it (`watch` the model, then `ensure_complete` the reply): it
wraps every model call of the main agent and of every subagent, so the check sees the model the
call really uses, whatever the provider.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from langchain.agents.middleware.types import ExtendedModelResponse, ModelResponse
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.exceptions import ModelError
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, AnyMessage, ToolMessage
from langchain_core.messages.ai import add_ai_message_chunks

from auger.errors import ProviderError

FINISH_KEYS = ("finish_reason", "stop_reason", "done_reason")
INVALID_ARGS = "Error: the arguments of this call are not a JSON object"  # the model reads this


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

    def raw_arguments(self) -> list[tuple[str, str, str]]:
        """(call id, tool name, arguments as streamed) per call, merged as langchain-core merges them."""
        if not self._calls:
            return []
        merged = add_ai_message_chunks(self._calls[0], *self._calls[1:])
        return [
            (str(c.get("id")), str(c.get("name") or "?"), c.get("args") or "")
            for c in merged.tool_call_chunks
        ]


def finish_reason(message: AIMessage) -> str | None:
    meta = message.response_metadata or {}
    return next((str(meta[k]) for k in FINISH_KEYS if meta.get(k)), None)


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def incomplete_reason(message: AIMessage, streamed: StreamedToolCalls) -> str | None:
    """Why `message` did not finish, or None when it did."""
    if not streamed.chunks or finish_reason(message) is not None:
        return None
    names = [c.get("name") or "?" for c in [*message.tool_calls, *message.invalid_tool_calls]]
    calls = f" with a half-made call to {', '.join(map(repr, names))}" if names else ""
    return f"the reply stream ended before the model finished{calls} (no finish reason)"


def invalid_arguments(message: AIMessage, streamed: StreamedToolCalls) -> dict[str, tuple[str, str]]:
    """The calls of a finished reply whose arguments are not a JSON object: id -> (name, as sent)."""
    bad = {
        i: (name, raw)
        for i, name, raw in streamed.raw_arguments()
        if raw.strip() and not _is_json_object(raw)
    }
    for call in message.invalid_tool_calls:
        bad[str(call.get("id"))] = (call.get("name") or "?", call.get("args") or "")
    return bad


def _answer_invalid(response: Any, message: AIMessage, bad: dict[str, tuple[str, str]]) -> Any:
    """`response` with the broken calls kept as `{}` (never run) and an error for each the model reads."""
    calls = [c for c in message.tool_calls if str(c.get("id")) not in bad]
    calls += [{"name": name, "args": {}, "id": i, "type": "tool_call"} for i, (name, _raw) in bad.items()]
    message.tool_calls, message.invalid_tool_calls = calls, []
    errors = [
        ToolMessage(
            f"{INVALID_ARGS}; it was not run. You sent: {raw[:2000]!r}. Call {name} again with its "
            "arguments as one valid JSON object.",
            tool_call_id=i,
            name=name,
            status="error",
        )
        for i, (name, raw) in bad.items()
    ]
    inner = response.model_response if isinstance(response, ExtendedModelResponse) else response
    if isinstance(inner, ModelResponse):
        inner.result.extend(errors)
        return response
    return ModelResponse(result=[message, *errors])


def _told_already(messages: list[AnyMessage]) -> bool:
    """The model's last reply was answered with INVALID_ARGS (this call is its second try)."""
    tail = itertools.takewhile(lambda m: isinstance(m, ToolMessage), reversed(messages))
    return any(str(m.content).startswith(INVALID_ARGS) for m in tail)


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


def ensure_complete(
    response: Any, streamed: StreamedToolCalls, spec: str | None, sent: list[AnyMessage]
) -> Any:
    """`response` when its reply finished (the model told of calls with broken arguments, once);
    IncompleteReplyError otherwise. `sent`: the messages the call sent."""
    message = _reply(response)
    if message is None:
        return response
    model = spec or "the model"
    if why := incomplete_reason(message, streamed):
        raise IncompleteReplyError(
            f"{model}: {why}; nothing of the unfinished reply was run or saved.",
            hint="Send the request again (the connection or the server may have failed).",
        )
    bad = invalid_arguments(message, streamed)
    if not bad:
        return response
    if not _told_already(sent):
        return _answer_invalid(response, message, bad)
    which = ", ".join(map(repr, dict.fromkeys(name for name, _raw in bad.values())))
    raise IncompleteReplyError(
        f"{model}: the model sent invalid tool-call arguments to {which} again (not a JSON object, "
        "after it was told); nothing of that reply was run or saved.",
        hint="Ask again, or pick another model (/model or --model).",
    )
