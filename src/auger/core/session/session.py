"""Session: one conversation on one thread at a time, over a shared `Runtime` — the local
implementation of the port (`auger.core.port.AgentPort`).

It holds only what belongs to the conversation: the thread id, the model spec and params, the
context size, the rules granted "always allow", pending approvals and forms, the running turn and its
lifecycle-hook state. `send(prompt, options)` runs one turn (`auger.core.session.turn`) and
yields its events; `call(op, request)` runs an operation of `auger.core.operations` (the
functions in `auger.core.session.calls`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from auger.core import events as ev
from auger.core.backends.factory import output_limits
from auger.core.backends.jobs import Jobs
from auger.core.middleware.model.context_meter import Meter
from auger.core.port import AgentPort
from auger.core.session.inputs import PendingInputs
from auger.core.session.lifecycle import LifecycleHooks
from auger.core.threads.writer_lease import WriterLease
from auger.errors import BusyError, NotFoundError, UsageError

if TYPE_CHECKING:
    from langchain_core.messages import AIMessage

    from auger.core.models.replies.loop_share import KeysFirst
    from auger.core.operations import Operation
    from auger.core.port import TurnOptions
    from auger.core.runtime import Runtime
    from auger.core.session.lifecycle import Put
    from auger.core.threads.lease import Holder

log = logging.getLogger("auger.session")
PROMPT_CAP = 4 * 1024 * 1024  # bytes of one prompt (more than any model reads), kept out of the database
Req = TypeVar("Req")
Res = TypeVar("Res")


def new_thread_id() -> str:
    return uuid.uuid4().hex


class Session(AgentPort):
    def __init__(
        self,
        runtime: Runtime,
        thread_id: str | None = None,
        *,
        record: bool = True,
        closing: contextlib.AsyncExitStack | None = None,
    ) -> None:
        self.runtime = runtime
        self.thread_id = thread_id or new_thread_id()
        self.model_spec: str | None = runtime.settings.model
        self.project: str | None = str(runtime.settings.project_root)
        self.model_params: dict[str, Any] = {}  # temperature, max_tokens, reasoning_effort, ...
        self.context_tokens = 0
        self.grants: set[str] = set()  # "always allow" rules for this thread
        self.pending: dict[str, ev.ApprovalRequested] = {}
        self.inputs = PendingInputs()  # MCP servers' forms the turn waits on
        self.background = Jobs(output_limits(runtime.settings)["spill_to"])  # they end with the session
        self.meter = Meter()  # the last model request, measured when /context asks
        self.lifecycle = LifecycleHooks(runtime.hooks)
        self.notices: list[str] = []  # warnings shown at the start of the next turn (a model override)
        self.writer = WriterLease(runtime.threads)  # one writer per thread, across processes
        self.thread_wait = float(runtime.settings.get("thread_wait", 60.0) or 0.0)  # seconds to wait for it
        self.record = record  # the thread index sees this conversation's turns
        self.closing = closing  # closed with the session: its own Runtime (`open_session`)
        self._task: asyncio.Task[None] | None = None
        self._cancel_requested = False  # cancel() was called during the running turn
        self._load_warned = False  # skipped skills/subagents are reported once, on the first turn

    # -- controls --------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def select_model(self, spec: str, params: dict[str, Any] | None = None) -> str:
        """Use `spec` from the next turn on, once it resolves and its credentials are there;
        `params`, when given, replace the model params. ModelError otherwise."""
        from auger.core.models.providers import check_credentials
        from auger.core.models.specs import parse_spec

        resolved = parse_spec(spec, self.runtime.settings.providers)
        check_credentials(resolved)
        self.model_spec = resolved.spec
        if params is not None:
            self.model_params = {k: v for k, v in params.items() if v is not None}
        return resolved.spec

    def give_way_to(self, keys: KeysFirst | None) -> None:
        """The turns run in this loop: their model calls and streams wait while a key is on its
        way to the screen (auger.core.models.replies.loop_share)."""
        from auger.core.models.replies.loop_share import give_way

        give_way(keys)

    def cancel(self) -> None:
        """Stop the running turn; what was done stays in the thread."""
        for request in list(self.pending.values()):
            request.respond(ev.ApprovalDecision("reject", "Cancelled by the user."))
        self.inputs.cancel_all()
        self._cancel_requested = True  # also when the turn has ended but its events are still queued
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def resolve_approval(self, request_id: str, decision: ev.ApprovalDecision) -> None:
        request = self.pending.get(request_id)
        if request is None:
            if not self.busy and (other := await self._running_elsewhere()) is not None:
                raise BusyError(  # approvals are sticky: the auger running the turn holds them
                    f"Thread {self.thread_id!r} is running in another auger ({other.describe()});"
                    " answer its approval there (the server that started the run)."
                )
            raise NotFoundError(f"No pending approval {request_id!r} on thread {self.thread_id!r}.")
        request.respond(decision)

    async def _running_elsewhere(self) -> Holder | None:
        """The other auger process (another replica, a headless run) whose turn holds the thread."""
        other = await asyncio.to_thread(self.runtime.threads.lease_holder, self.thread_id)
        return other if other is not None and not other.mine() else None

    async def ask(self, request: ev.ApprovalRequested, put: Put) -> ev.ApprovalDecision:
        """Show `request` to the front end and wait for its answer."""
        self.pending[request.request_id] = request
        put(request)
        assert request.future is not None
        try:
            return await request.future
        finally:
            self.pending.pop(request.request_id, None)

    def config(self, max_turns: int | None = None) -> dict[str, Any]:
        limit = max_turns or self.runtime.settings.max_turns
        return {"configurable": {"thread_id": self.thread_id}, "recursion_limit": 20 * limit + 100}

    async def call(self, op: Operation[Req, Res], request: Req) -> Res:
        from auger.core.session.calls import IMPLEMENTATIONS

        if op.scope == "own" and getattr(request, "thread_id", self.thread_id) != self.thread_id:
            raise UsageError(f"{op.name} is for this session's thread {self.thread_id!r}.")
        if not op.idle:
            result: Res = await IMPLEMENTATIONS[op.name](self, request)
            return result
        if self.busy:
            raise BusyError(f"A turn is running on thread {self.thread_id!r}; {op.name} waits until it ends.")
        await self.writer.acquire(self.thread_id, 0, lambda _: None)  # another auger's turn: refused
        try:
            result = await IMPLEMENTATIONS[op.name](self, request)
        finally:
            await self.release_thread()
        return result

    async def claim_thread(self, notify: Put) -> None:
        """Hold the thread for this turn, waiting up to `thread_wait` seconds for another auger's
        turn on it to end; ThreadBusyError when it stays busy."""
        await self.writer.acquire(
            self.thread_id, self.thread_wait, lambda text: notify(ev.Notice(text, "warning"))
        )

    async def release_thread(self) -> None:
        with contextlib.suppress(asyncio.CancelledError):
            await self.writer.detach()

    # -- threads ---------------------------------------------------------------------------
    async def open_thread(self, thread_id: str | None) -> None:
        """Switch to `thread_id` (None: a new thread); restores its model and token count."""
        await self.lifecycle.end(self.thread_id, "clear")
        self.lifecycle.source = "resume" if thread_id else "clear"
        self.thread_id = thread_id or new_thread_id()
        self.grants.clear()
        self.meter = Meter()
        self.context_tokens = 0
        if thread_id is None:
            return
        self.runtime.threads.touch(thread_id)  # opening it counts as using it: `auger -r` comes back here
        values = await self.state()
        self.context_tokens = int(values.get("_context_tokens") or 0)
        recorded = values.get("_model_spec")
        if not recorded and (info := self.runtime.threads.get(self.thread_id)):
            recorded = info.model  # threads from before the resume state: the recorded model
        settings = self.runtime.settings
        if settings.sources.get("model", "").startswith("flag") and settings.model:
            self.model_spec = settings.model  # `--model` on the command line wins
            if recorded and recorded != self.model_spec:
                self.notices.append(f"Using {self.model_spec} (--model); this thread was on {recorded}.")
        elif recorded:
            self.model_spec = recorded

    async def state(self, thread_id: str | None = None) -> dict[str, Any]:
        """The checkpointed state values (messages, todos, `_model_spec`, ...) of the session's
        thread, or of `thread_id`."""
        config = {"configurable": {"thread_id": self.thread_id if thread_id is None else thread_id}}
        return dict((await self.runtime.graph.aget_state(config)).values or {})

    async def messages(self, thread_id: str | None = None) -> list[Any]:
        return list((await self.state(thread_id)).get("messages", []))

    async def aclose(self) -> None:
        if self.busy:
            self.cancel()
            with contextlib.suppress(BaseException):
                await self._task  # type: ignore[misc]
        await asyncio.to_thread(self.background.stop_all)
        await self.lifecycle.end(self.thread_id, "exit")
        if self.closing is not None:
            closing, self.closing = self.closing, None
            await closing.aclose()

    # -- a turn ----------------------------------------------------------------------------
    async def send(self, prompt: str, options: TurnOptions) -> AsyncIterator[ev.Event]:
        from auger.core.session.turn import DONE, Turn

        if self.busy:
            raise BusyError("A turn is already running on this session.")
        if (size := len(prompt.encode("utf-8", "replace"))) > PROMPT_CAP:
            raise UsageError(
                f"The prompt is {size} bytes, over the {PROMPT_CAP} byte limit (more than any model reads).",
                hint="Save it to a file in the project and ask auger to read or grep it.",
            )
        queue: asyncio.Queue[Any] = asyncio.Queue()
        self._cancel_requested = False
        self._task = asyncio.create_task(Turn(self, options, queue).run(prompt))
        try:
            while (item := await queue.get()) is not DONE:
                if self._cancel_requested and isinstance(item, ev.STREAMED_TEXT):
                    continue  # a slow front end's backlog of a cancelled turn: the thread keeps the text
                yield item
        finally:
            if not self._task.done():
                self.cancel()
                with contextlib.suppress(BaseException):
                    await self._task

    def first_turn_warnings(self) -> list[str]:
        """Skills and subagent files that were skipped, and why: on the session's first turn only."""
        if self._load_warned:
            return []
        self._load_warned = True
        from auger.core.session.turn_input import load_warnings

        return load_warnings(self.runtime.settings)

    async def turn_started(self, prompt: str) -> None:
        index = self.runtime.index
        if index is not None and self.record:
            try:
                await index.turn_started(self.thread_id, prompt, self.model_spec)
            except Exception:  # the index catches up next turn; the turn goes on
                log.exception("recording the turn's start failed")

    async def turn_ended(self, added: Sequence[Any] | None = None, *, settled: bool = False) -> None:
        """Count and index the turn's messages: `added`, the ones the turn streamed into the
        thread, or (None) the whole history read back; then collapse its checkpoints (`settled`:
        the turn finished, no task is pending). A cancel here is absorbed: the turn still ends."""
        index = self.runtime.index
        if index is None or not self.record:
            return
        try:
            if added is None or index.needs_history(self.thread_id):
                await index.turn_ended(
                    self.thread_id, await self.messages(), self.model_spec, settled=settled
                )
            else:
                await index.turn_added(self.thread_id, added, self.model_spec, settled=settled)
        except asyncio.CancelledError:
            log.warning("turn-end indexing cancelled; the thread index catches up next turn")
        except Exception:
            log.exception("indexing the turn failed")

    async def keep_cut_short(
        self, text: str, mark: str, prompt: tuple[Any, list[Any]] | None = None
    ) -> tuple[AIMessage | None, int | None]:
        """A turn cut short, in one checkpoint: the answer streamed so far (text only: a
        half-made tool call never enters the thread), followed by `mark`, so the thread shows
        what the user saw; and, as no provider reported the turn's usage, an estimate of the
        context it added (the prompt, tool results, the partial answer), so the context meter
        and a resume count it. Returns (the message saved or None, the new estimate when it is
        more than the last report, else None). `prompt`: the (system message, tool schemas) the
        last model call was sent, counted when no call of the thread has been reported yet."""
        from langchain_core.messages import AIMessage

        from auger.core.middleware.model.resume_state import CONTEXT_TOKENS, estimated_context

        try:
            values = await self.state()
            content = (
                AIMessage(content=f"{self.runtime.redactor.text(text)}\n\n{mark}") if text.strip() else None
            )
            messages = [*(values.get("messages") or []), *([content] if content is not None else [])]
            known = int(values.get(CONTEXT_TOKENS) or 0)
            tokens = estimated_context(messages, known, prompt)
            self.context_tokens = max(tokens, self.context_tokens)
            update: dict[str, Any] = {CONTEXT_TOKENS: tokens} if tokens > known else {}
            if content is not None:
                update["messages"] = [content]
            if update:
                await self.runtime.graph.aupdate_state(self.config(), update)
        except Exception:  # the turn is already over; the thread and the meter stay as they were
            log.exception("could not save what an interrupted turn streamed")
            return None, None
        return content, tokens if tokens > known else None
