"""Each message converted to its chat-completions dict once, not again on every model call.

langchain-openai builds a request by converting every message of the history to the dict the API
takes (`_convert_message_to_dict`: content blocks filtered, tool calls re-serialised, roles
named), on every call: at turn 300 of a thread (1,200 messages) ~18 ms of each turn, the part of
building a request that grew with the thread. The conversion of a message depends on that
message alone (and on the model's name: o-series models get the "developer" role), so
`MessageDictMemo` keeps each message's dict for as long as the message stays in the requests and
has langchain-openai itself convert only the messages it has not seen: the request is the same
list of dicts, byte for byte on the wire (tests/core/test_message_dicts.py compares them).

A message is known by its identity (LangGraph keeps the same message objects in state from call
to call, and middleware copies a message rather than changing it in place, which
auger.core.models.requests.message_memo relies on too); one met again at another place must
also still hold the same content object. The places where a request holds the same message as
the last one are found in one C-level pass, only the rest is looked at in Python (at 1,200
messages ~0.1 ms a call). The dicts are shared from one request to the next: nothing after the
payload changes them (auger posts the body as built, auger.core.models.requests.openai_body; the SDK's
own path copies).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import repeat
from typing import Any

from langchain_core.language_models import LanguageModelInput
from langchain_core.messages import BaseMessage
from langchain_core.prompt_values import ChatPromptValue, PromptValue
from langchain_openai import ChatOpenAI
from pydantic import PrivateAttr

from auger.core.models.requests.identity_pass import changed_places

Convert = Callable[[list[BaseMessage]], list[dict[str, Any]]]


class MessageDictMemo:
    def __init__(self) -> None:
        self.converted = 0  # messages handed to the converter so far (what the tests count)
        self._model: str | None = None
        self._forget()

    def _forget(self) -> None:
        self._messages: list[BaseMessage] = []  # the last request's messages and their dicts
        self._dicts: list[dict[str, Any]] = []
        self._kept: dict[int, tuple[BaseMessage, Any, dict[str, Any]]] = {}  # by id(message)

    def dicts(
        self, messages: list[BaseMessage], convert: Convert, model: str | None = None
    ) -> list[dict[str, Any]]:
        """The dict of each message; `convert` gets (in order) only the messages not met before.
        `model`: the name of the model converting (another name starts the memo over)."""
        if model != self._model:
            self._forget()
            self._model = model
        # where this request holds the last one's message at the same place: one C-level pass;
        # only the other places (the system prompt, a message middleware rewrote, what is new)
        # are looked at in Python
        same, look = changed_places(self._messages, messages)
        out: list[Any] = self._dicts[: len(same)] + [None] * (len(messages) - len(same))
        todo: list[int] = []
        for i in look:
            hit = self._kept.get(id(messages[i]))
            if hit is not None and hit[0] is messages[i] and hit[1] is messages[i].content:
                out[i] = hit[2]
            else:
                todo.append(i)
        if todo:
            fresh = convert([messages[i] for i in todo])
            self.converted += len(todo)
            for i, d in zip(todo, fresh, strict=True):
                out[i] = d
        for i in look:
            self._kept[id(messages[i])] = (messages[i], messages[i].content, out[i])
        if len(self._kept) > 2 * len(messages) + 64:  # forget what left the requests
            self._kept = {id(m): self._kept[id(m)] for m in messages}
        self._messages, self._dicts = list(messages), out
        return list(out)


class ChatOpenAIMessageMemo(ChatOpenAI):
    """ChatOpenAI whose chat-completions requests convert only the messages not sent before.
    The memo is made with the model and shared by its copies (auger copies the model per call
    to add callbacks: auger.core.models.replies.complete_reply.watch)."""

    _message_memo: MessageDictMemo = PrivateAttr(default_factory=lambda: MessageDictMemo())

    def _convert_input(self, model_input: LanguageModelInput) -> PromptValue:
        # a list of messages (what the agent sends) as langchain-core's `convert_to_messages` would
        # pass it on — the same objects — found in one C-level pass, not a Python step per message
        if type(model_input) is list and all(map(isinstance, model_input, repeat(BaseMessage))):
            return ChatPromptValue.model_construct(messages=list(model_input))
        return super()._convert_input(model_input)

    def _get_request_payload(
        self, input_: LanguageModelInput, *, stop: list[str] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        if isinstance(input_, list) and all(map(isinstance, input_, repeat(BaseMessage))):
            messages: list[BaseMessage] = input_  # already messages: no per-message conversion pass
        else:
            messages = self._convert_input(input_).to_messages()
        if self._use_responses_api({**self._default_params, **kwargs}):
            return super()._get_request_payload(messages, stop=stop, **kwargs)  # Responses API items
        built: dict[str, Any] = {}

        def convert(new: list[BaseMessage]) -> list[dict[str, Any]]:
            built.update(super(ChatOpenAIMessageMemo, self)._get_request_payload(new, stop=stop, **kwargs))
            return list(built["messages"])

        dicts = self._message_memo.dicts(messages, convert, self.model_name)
        payload = built or super()._get_request_payload([], stop=stop, **kwargs)
        payload["messages"] = dicts
        return payload
