"""langchain's own per-call passes over the whole history, each message looked at once.

Three functions of langchain walk every message in Python on every model call, whatever the
history holds, and offer no hook: the agent's model node patches invalid tool calls
(`langchain.agents.factory._patch_invalid_tool_calls`: it only adds an error answer after an AI
message whose tool call could not be parsed), and a chat model's `agenerate` formats the messages
for tracing (`chat_models._format_for_tracing`) and normalizes their content blocks
(`_normalize_messages`) — the last two map each message on its own (a message with text content
is passed as it is; one with blocks to convert, as a copy). ~1.5 ms of a model call at 1,200
messages, the largest part of what still grew with the thread.

`install()` replaces the three module globals (looked up at call time) with versions that keep
each message's result (`MessageMemo`: by identity, for as long as the message stays in the
requests; one C-level pass over a request, Python only for what is new): the two maps give each
message what the function gives it, and the patch runs langchain's own function whenever some
message has an invalid tool call (else nothing is added: the same list). So requests, traces and
state updates are langchain's (but for the random id langchain gives a block it converts — an
OpenAI-format audio or file block —, now drawn once per message rather than at every call);
tests/core/test_history_passes.py runs both on the same histories.
A langchain release that renames them leaves them as they are (the test says so).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.messages import AIMessage

from auger.core.models.requests.message_memo import MessageMemo

PASSES = (  # (module, function): the globals `install` replaces
    ("langchain_core.language_models.chat_models", "_format_for_tracing"),
    ("langchain_core.language_models.chat_models", "_normalize_messages"),
    ("langchain.agents.factory", "_patch_invalid_tool_calls"),
)


class RememberedMap:
    """`original` (a per-message map over a list) with each message's result kept."""

    def __init__(self, original: Callable[[list[Any]], list[Any]]) -> None:
        self.original = original
        self.looked_at = 0  # messages the original was run on (what the tests count)
        self._memo = MessageMemo(self._one)
        self._lock = threading.Lock()  # graphs run on worker threads too

    def _one(self, message: Any) -> Any:
        self.looked_at += 1
        return self.original([message])[0]

    def __call__(self, messages: Sequence[Any]) -> list[Any]:
        with self._lock:
            return self._memo.map(messages)


class RememberedPatch:
    """langchain's invalid-tool-call patch, run only when some message has an invalid tool call."""

    def __init__(self, original: Callable[[Sequence[Any]], list[Any]]) -> None:
        self.original = original
        self.looked_at = 0
        self._memo = MessageMemo(self._invalid)
        self._lock = threading.Lock()

    def _invalid(self, message: Any) -> bool:
        self.looked_at += 1
        return isinstance(message, AIMessage) and bool(message.invalid_tool_calls)

    def __call__(self, messages: Sequence[Any]) -> list[Any]:
        with self._lock:
            invalid = self._memo.map(messages)
        if True in invalid:
            return self.original(messages)
        return list(messages)  # what langchain's gives: each message, nothing added


def install() -> None:
    """Replace the three passes once (a later call, or a module already replaced, is a no-op)."""
    import importlib

    for module_name, name in PASSES:
        module = importlib.import_module(module_name)
        original = getattr(module, name, None)
        if original is None or isinstance(original, RememberedMap | RememberedPatch):
            continue
        wrapper = (
            RememberedPatch(original) if name == "_patch_invalid_tool_calls" else RememberedMap(original)
        )
        setattr(module, name, wrapper)
