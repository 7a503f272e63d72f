"""deepagents' per-call history scans, each message looked at once instead of on every call.

Three SDK middlewares walk the whole history in Python whatever it holds: the
unsupported-content check, before every model call, looks at every human and tool message
(auger's `TextAwareUnsupportedContent` answers plain text at once, but still one Python step per
message: ~0.3 ms a call at 1,200 messages); the filesystem middleware, before every model call,
reorders media results and looks for evicted messages (~0.5 ms a call); the dangling-tool-call
patch, before every run, collects every tool call and every answer (~0.3 ms a turn). Their
verdicts are per message, or sums over the messages, so they are kept from one call to the
next, for as long as the messages stay in the requests — known by identity, as
auger.core.models.requests.message_memo explains: a request that grows the last one, or
replaces some of its messages, costs only what is new. Whenever a verdict says there is
something to do, the SDK's own code does it (the filesystem passes: over the part of the list
they can act on), so what the model is sent, or what enters the thread, is the SDK's.

All three take the SDK's slots by name (deepagents replaces its own middleware with one of the
same name). tests/core/test_history_scans.py pins the SDK behaviour relied on against its classes.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from itertools import islice
from typing import Any

from deepagents.middleware.filesystem import FilesystemMiddleware, _is_read_file_media_result
from deepagents.middleware.patch_tool_calls import PatchToolCallsMiddleware
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from auger.core.middleware.model.unsupported_content import TextAwareUnsupportedContent, plain_text
from auger.core.middleware.tools.edit_tool import ReadStamps, edit_tool, stamping
from auger.core.middleware.tools.search_tool import grep_tool
from auger.core.models.requests.identity_pass import false_at
from auger.core.models.requests.message_memo import MessageMemo, common_prefix


def takes_as_is(message: Any) -> bool:
    """Whether the unsupported-content check passes `message` through whatever the model: it
    looks at human and tool messages only, and any model takes plain text."""
    return not isinstance(message, HumanMessage | ToolMessage) or plain_text(message.content)


class RememberedUnsupportedContent(TextAwareUnsupportedContent):
    """The unsupported-content check with each message's "plain text" verdict kept (it does not
    depend on the model); the other messages get the SDK's check, against this call's model."""

    def __init__(self) -> None:
        super().__init__()
        self.looked_at = 0  # messages whose verdict was worked out (what the tests count)
        self._verdicts = MessageMemo(self._verdict)
        self._lock = threading.Lock()  # the main agent and its subagents share the instance

    def _verdict(self, message: Any) -> bool:
        self.looked_at += 1
        return takes_as_is(message)

    def _filter_request(self, request: Any) -> Any:
        with self._lock:
            verdicts = self._verdicts.map(request.messages)
        if all(verdicts):
            return request
        messages = list(request.messages)
        changed = False
        for i in false_at(verdicts):
            filtered = self._filter_message(messages[i], model=request.model)
            changed = changed or filtered is not messages[i]
            messages[i] = filtered
        return request.override(messages=messages) if changed else request


class _ToolCallTally:
    """The tool-call ids of a message list and the ids its tool messages answer (counted, so a
    message can be taken back out), kept for the list the last look was at: a new list is
    reached from it by taking out the messages after the prefix both share (by identity) and
    adding the new list's rest — at a run's start, the last run's messages as read back from
    the thread and the new prompt."""

    def __init__(self) -> None:
        self.looked_at = 0
        self._messages: list[Any] = []
        self._calls: Counter[str] = Counter()
        self._answered: Counter[str] = Counter()
        self._open: set[str] = set()  # ids called and not answered

    def dangling(self, messages: Sequence[Any]) -> bool:
        """Whether some tool call of `messages` has no answer (the SDK's test, as a tally)."""
        same = common_prefix(self._messages, messages)
        for message in self._messages[same:]:
            self._count(message, -1)
        for message in messages[same:]:
            self.looked_at += 1
            self._count(message, 1)
        self._messages = list(messages)
        return bool(self._open)

    def _count(self, message: Any, sign: int) -> None:
        ids = []
        if message.type == "tool":  # as the SDK tells an answer
            self._answered[message.tool_call_id] += sign
            ids.append(message.tool_call_id)
        if isinstance(message, AIMessage):
            for call in (*message.tool_calls, *message.invalid_tool_calls):
                if call["id"] is not None:
                    self._calls[call["id"]] += sign
                    ids.append(call["id"])
        for call_id in ids:
            if self._calls[call_id] > 0 and self._answered[call_id] <= 0:
                self._open.add(call_id)
            else:
                self._open.discard(call_id)


class RememberedPatchToolCalls(PatchToolCallsMiddleware):
    """deepagents' dangling-tool-call patch, which looks only at the messages added since the
    last run to know that nothing dangles; when something does, the SDK's own patch runs."""

    def __init__(self) -> None:
        super().__init__()
        self._tally = _ToolCallTally()
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return "PatchToolCallsMiddleware"  # the SDK's slot (and its graph node's name)

    @property
    def looked_at(self) -> int:
        return self._tally.looked_at

    def before_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        messages = state["messages"]
        with self._lock:
            dangling = bool(messages) and self._tally.dangling(messages)
        return super().before_agent(state, runtime) if dangling else None

    async def abefore_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return self.before_agent(state, runtime)  # no I/O: run here, not on a worker thread


def inert(message: Any) -> bool:
    """Whether deepagents' filesystem passes leave `message` alone wherever it stands: they act
    on user messages only — a read_file media result (moved after its batch's tool results) or
    one evicted to a file (`lc_evicted_to`: sent truncated)."""
    if not isinstance(message, HumanMessage):
        return True
    return not _is_read_file_media_result(message) and not message.additional_kwargs.get("lc_evicted_to")


class RememberedFilesystem(FilesystemMiddleware):
    """deepagents' FilesystemMiddleware, whose per-call history passes see only the messages from
    the last AI reply on when the ones before it are all `inert` (verdicts kept per message).

    Its passes over the request's messages: media results moved after the tool results of their
    batch (a left-to-right scan in which an AI message always starts afresh), every evicted user
    message truncated, the last message evicted if it is a user message over the limit, and on a
    refused request the file contents after the last AI message replaced. Over `[*head, *tail]`,
    `tail` starting at the last AI message and `head` all inert, each gives `head` unchanged and
    its result on `tail`: so it is given `tail`, and the request passed on is `head` + what it
    made of `tail` (tests/core/test_history_scans.py runs both classes on the same requests).
    With binary offloading on (auger leaves it off) it always sees the whole list. Its grep and
    edit_file tools are auger's (`tools/search_tool.py`, `tools/edit_tool.py`: read_file and
    write_file record what edit_file checks a stale edit by)."""

    def __init__(self, **kwargs: Any) -> None:
        self.read_stamps = ReadStamps()  # per graph, per thread: the files read (edit_tool)
        super().__init__(**kwargs)
        self._inert = MessageMemo(inert)
        self._lock = threading.Lock()
        self.sent_whole = 0  # calls whose whole history the SDK passes saw (what the tests count)

    @property
    def name(self) -> str:
        return "FilesystemMiddleware"  # the SDK's slot

    def _create_grep_tool(self) -> Any:
        return grep_tool(self)  # a regex, context lines, a file type (auger.core.backends.search)

    def _create_edit_file_tool(self) -> Any:
        return edit_tool(self, super()._create_edit_file_tool())  # stale edits refused, changes shown

    def _create_read_file_tool(self) -> Any:
        return stamping(self, super()._create_read_file_tool())  # what edit_file checks staleness by

    def _create_write_file_tool(self) -> Any:
        return stamping(self, super()._create_write_file_tool())

    def _cut(self, messages: list[Any]) -> int:
        """Where the tail the SDK passes need starts (0: they need the whole list)."""
        if self._offload_binary_content:
            return 0
        cut = next((i for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], AIMessage)), 0)
        with self._lock:
            verdicts = self._inert.map(messages)
        if cut and all(islice(verdicts, cut)):
            return cut
        self.sent_whole += 1
        return 0

    def _tail(self, request: Any, handler: Callable[[Any], Any]) -> tuple[Any, Callable[[Any], Any]]:
        """The request the SDK passes are given (its tail, or all of it) and the handler that puts
        the head back in front of what they made of it (the sync or the async one: it returns what
        `handler` returns)."""
        cut = self._cut(request.messages)
        if not cut:
            return request, handler
        head = request.messages[:cut]
        tail = request.override(messages=request.messages[cut:])
        return tail, lambda inner: handler(inner.override(messages=[*head, *inner.messages]))

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return super().wrap_model_call(*self._tail(request, handler))

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return await super().awrap_model_call(*self._tail(request, handler))


def sdk_filesystem(model: Any, backend: Any) -> RememberedFilesystem:
    """The filesystem middleware deepagents would build for the main agent with `model` (auger's
    tool descriptions, its harness profile's over them; auger passes no permissions), remembering."""
    from deepagents.profiles.harness.harness_profiles import _harness_profile_for_model

    from auger.core.agent.prompt import TOOL_DESCRIPTIONS

    profile = _harness_profile_for_model(model, None)  # as create_deep_agent, given a model object
    descriptions = {**TOOL_DESCRIPTIONS, **profile.tool_description_overrides}
    return RememberedFilesystem(backend=backend, custom_tool_descriptions=descriptions)
