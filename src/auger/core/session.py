"""Session: the one port every front end uses.

`send(prompt)` runs one turn and yields IR events; approvals are answered through the
`ApprovalRequested` event's future (or `resolve_approval`), `cancel()` stops a turn and keeps
what was done, `set_model()` switches the model for the next turn of the same thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from auger.core import events as ev
from auger.core.context import MODES, AugerContext
from auger.core.provider_errors import describe_error
from auger.core.session_safety import SessionSafety
from auger.core.stream import StreamTranslator, call_key
from auger.core.text import clean_text
from auger.errors import AugerError, ProviderError, UsageError

if TYPE_CHECKING:
    from auger.core.compact import Compaction
    from auger.settings import Settings

log = logging.getLogger("auger.session")

ApprovalPolicy = Callable[[ev.ApprovalRequested, AugerContext], ev.ApprovalDecision]
_DONE = object()
_BROKEN_OFF = "[interrupted: the reply broke off here]"  # after the kept text of a failed model call


def headless_policy(request: ev.ApprovalRequested, ctx: AugerContext) -> ev.ApprovalDecision:
    """No human to ask: whatever needs approval (the mode, an ask rule, a protected path — the
    request's description says which) is refused, and the refusal is explained to the model."""
    why = request.description or f"{request.name} needs approval in {ctx.mode!r} mode."
    return ev.ApprovalDecision(
        "reject",
        f"Not run: {why} auger is running without a human (headless), so nobody can approve it. "
        "Do not retry it; finish what you can without it and say what is left. The user can allow it "
        "with --mode auto-edit or --mode yolo or an allow rule in [permissions], except a protected "
        "path (.git/, .auger/, ~/.ssh, AUGER_HOME): only a human approves that, in an interactive auger.",
    )


class Session:
    def __init__(
        self,
        settings: Settings,
        graph: Any,
        *,
        conn: Any = None,
        thread_id: str | None = None,
        approval_policy: ApprovalPolicy | None = None,
        on_turn_end: Callable[[Session, str], Any] | None = None,
        on_turn_start: Callable[[Session, str], Any] | None = None,
    ) -> None:
        self.settings = settings
        self.graph = graph
        self._conn = conn
        self.thread_id = thread_id or new_thread_id()
        self.model_spec: str | None = settings.model
        self.model_params: dict[str, Any] = {}  # temperature, max_tokens, reasoning_effort, ...
        self._load_warned = False  # skipped skills/subagents are reported once, on the first turn
        self.notices: list[str] = []  # warnings shown at the start of the next turn (a model override)
        self.mode: str = settings.mode
        self.context_tokens = 0
        self.max_turns = settings.max_turns
        self.always_allow: set[str] = set()
        self.approval_policy = approval_policy
        self.on_turn_end = on_turn_end
        self.on_turn_start = on_turn_start
        self.default_model: Any = None  # the chat model the graph was built with, if given
        self.threads: Any = None  # ThreadStore (auger.core.threads), closed with the session
        self.writer: Any = None  # WriterLease (auger.core.writer_lease): one writer per thread
        self.thread_wait = float(settings.get("thread_wait", 60.0) or 0.0)  # seconds to wait for it
        self._pending: dict[str, ev.ApprovalRequested] = {}
        self._task: asyncio.Task[None] | None = None
        self._cancel_requested = False  # cancel() was called during the running turn
        self.mcp: Any = None  # McpManager, closed with the session
        self.safety = SessionSafety(settings)  # rules, hooks (create_session sets .hooks), redaction

    # -- controls --------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def set_model(self, spec: str, params: dict[str, Any] | None = None) -> None:
        """Use `spec` from the next turn on; `params`, when given, replace the model params."""
        from auger.core.models import parse_spec

        self.model_spec = parse_spec(spec, self.settings.providers).spec
        if params is not None:
            self.model_params = {k: v for k, v in params.items() if v is not None}

    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise UsageError(f"Unknown approval mode {mode!r}.", hint=f"Use one of: {', '.join(MODES)}.")
        self.mode = mode

    def cancel(self) -> None:
        """Stop the running turn; what was done stays in the thread."""
        for request in list(self._pending.values()):
            request.respond(ev.ApprovalDecision("reject", "Cancelled by the user."))
        self._cancel_requested = True  # also when the turn has ended but its events are still queued
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def resolve_approval(self, request_id: str, decision: ev.ApprovalDecision) -> None:
        request = self._pending.get(request_id)
        if request is None:
            raise UsageError(f"No pending approval {request_id!r}.")
        request.respond(decision)

    def context(self) -> AugerContext:
        return AugerContext(
            model_spec=self.model_spec,
            model_params=dict(self.model_params),
            mode=self.mode,
            always_allow=frozenset(self.always_allow),
            thread_id=self.thread_id,
            max_turns=self.max_turns,
            permissions=self.safety.permissions,
            hooks=self.safety.hooks,
            verdicts=self.safety.verdicts,
            originals=self.safety.originals,
        )

    @property
    def config(self) -> dict[str, Any]:
        return {"configurable": {"thread_id": self.thread_id}, "recursion_limit": 20 * self.max_turns + 100}

    # -- threads ---------------------------------------------------------------------------
    async def open_thread(self, thread_id: str | None) -> None:
        """Switch to `thread_id` (None: a new thread); restores its model and token count."""
        await self.safety.end_session(self, "clear")
        self.safety.source = "resume" if thread_id else "clear"
        self.thread_id = thread_id or new_thread_id()
        self.always_allow.clear()
        self.context_tokens = 0
        if thread_id is None:
            return
        values = (await self.graph.aget_state(self.config)).values or {}
        self.context_tokens = int(values.get("_context_tokens") or 0)
        recorded = values.get("_model_spec")
        if not recorded and self.threads is not None and (info := self.threads.get(self.thread_id)):
            recorded = info.model  # threads from before the resume state: the recorded model
        if self.settings.sources.get("model", "").startswith("flag") and self.settings.model:
            self.model_spec = self.settings.model  # `--model` on the command line wins
            if recorded and recorded != self.model_spec:
                self.notices.append(f"Using {self.model_spec} (--model); this thread was on {recorded}.")
        elif recorded:
            self.model_spec = recorded

    async def history(self) -> list[Any]:
        state = await self.graph.aget_state(self.config)
        return list((state.values or {}).get("messages", []))

    async def compact(self, instructions: str | None = None) -> Compaction | None:
        """Summarise the thread so far (the model sees the summary from the next turn on); returns
        a `Compaction`, or None when there is nothing to compact. See `auger.core.compact`."""
        from auger.core.compact import compact

        if self.writer is None:
            return await compact(self, instructions)
        await self.writer.acquire(self.thread_id, 0, lambda _: None)  # another auger's turn: refused
        try:
            return await compact(self, instructions)
        finally:
            await self._release_thread()

    def sibling(self, thread_id: str) -> Session:
        """A Session on `thread_id` sharing this one's graph, checkpointer connection, thread store,
        MCP manager and hooks — what `auger serve` keeps per active thread. Its own state (model,
        mode, grants, approvals) starts fresh. Drop it when done: its `aclose` would close the
        shared parts, which belong to this session. Keep in step with `create_session`."""
        other = Session(self.settings, self.graph, thread_id=thread_id)
        other.threads, other.mcp, other.default_model = self.threads, self.mcp, self.default_model
        other.writer = type(self.writer)(self.threads) if self.writer is not None else None  # its own owner
        other.on_turn_start, other.on_turn_end = self.on_turn_start, self.on_turn_end
        other.safety.hooks = self.safety.hooks
        return other

    async def aclose(self) -> None:
        if self.busy:
            self.cancel()
            with contextlib.suppress(BaseException):
                await self._task  # type: ignore[misc]
        await self.safety.end_session(self, "exit")
        if self.mcp is not None:
            await self.mcp.aclose()
            self.mcp = None
        if self._conn is not None:
            await self._conn.close()
            self._conn = None
        if self.threads is not None:
            self.threads.close()
            self.threads = None

    # -- a turn ----------------------------------------------------------------------------
    async def send(self, prompt: str) -> AsyncIterator[ev.Event]:
        if self.busy:
            raise UsageError("A turn is already running on this session.")
        queue: asyncio.Queue[Any] = asyncio.Queue()
        self._cancel_requested = False
        self._task = asyncio.create_task(self._run_turn(prompt, queue))
        try:
            while (item := await queue.get()) is not _DONE:
                if self._cancel_requested and isinstance(item, ev.STREAMED_TEXT):
                    continue  # a slow front end's backlog of a cancelled turn: the thread keeps the text
                yield item
        finally:
            if not self._task.done():
                self.cancel()
                with contextlib.suppress(BaseException):
                    await self._task

    async def _run_turn(self, prompt: str, queue: asyncio.Queue[Any]) -> None:
        from langgraph.errors import GraphRecursionError

        put, flush = self.safety.sink(queue.put_nowait)
        prompt, message = self._open_turn(prompt, put)
        translator = StreamTranslator()
        reason: ev.EndReason = "done"
        held = self.writer is None  # the thread's writer lease (auger.core.writer_lease)
        try:
            held = held or await self._claim_thread(put)
            await self._hook(self.on_turn_start, prompt)  # in the try: a cancel here still ends the turn
            messages = await self.safety.start_turn(self, message, put)  # hooks; None: blocked
            payload: Any = {"messages": messages} if messages else None
            reason = "done" if messages else "error"
            while payload is not None:
                translator.interrupts.clear()
                await self._stream(payload, translator, put)
                payload = await self._answer_interrupts(translator, put)
                if payload is None and not translator.hit_turn_limit:
                    payload = await self.safety.after_turn(self, put)  # Stop hooks may continue it
            if translator.hit_turn_limit:
                reason = "turn_limit"
        except asyncio.CancelledError:
            reason = "cancelled"
            await self._keep_partial(translator.partial_text, "[interrupted]")
            put(ev.Notice("Turn cancelled; the work done so far is kept in the thread."))
        except GraphRecursionError:
            reason = "turn_limit"
            put(ev.Error(f"Stopped after too many steps (max_turns={self.max_turns}).", "turn_limit"))
        except AugerError as exc:  # incl. a reply that did not finish, a request_timeout
            reason = "error"
            await self._keep_partial(translator.partial_text, _BROKEN_OFF)
            put(ev.Error(str(exc), "provider" if isinstance(exc, ProviderError) else type(exc).__name__))
        except Exception as exc:  # provider/network failures: one clear line, traceback to the log
            log.exception("turn failed")
            reason = "error"
            await self._keep_partial(translator.partial_text, _BROKEN_OFF)
            put(ev.Error(describe_error(exc, self.model_spec, self.settings), "provider"))
        finally:
            self._pending.clear()
        self._drain_notices(put)
        if held:  # a turn refused for a busy thread wrote nothing to index
            await self._hook(self.on_turn_end, prompt, final=True)
        await self._release_thread()  # before TurnEnded: the next turn may start at once
        flush()
        put(ev.TurnEnded(reason, self.thread_id, translator.final_text))
        put(_DONE)

    def _open_turn(self, prompt: str, put: Callable[[Any], None]) -> tuple[str, Any]:
        """TurnStarted and the first notices; (the prompt as it is kept, the message for it)."""
        from auger.core.turn_input import load_warnings, user_message

        prompt = clean_text(prompt)  # e.g. argv bytes that are not UTF-8: U+FFFD, not a poisoned thread
        put(ev.TurnStarted(self.thread_id, prompt, self.model_spec))
        prompt = self.safety.redact_prompt(prompt, put)  # secret values never reach the thread DB
        self._drain_notices(put)
        warnings = [] if self._load_warned else load_warnings(self.settings)
        self._load_warned = True
        message, problems = user_message(prompt, self.settings)
        for text in [*warnings, *problems]:
            put(ev.Notice(text, "warning"))
        return prompt, message

    async def _claim_thread(self, put: Callable[[Any], None]) -> bool:
        """Hold the thread for this turn, waiting up to `thread_wait` seconds for another auger's
        turn on it to end; ThreadBusyError when it stays busy."""
        notify = lambda text: put(ev.Notice(text, "warning"))  # noqa: E731
        await self.writer.acquire(self.thread_id, self.thread_wait, notify)
        return True

    async def _release_thread(self) -> None:
        if self.writer is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self.writer.release()

    async def _hook(
        self, hook: Callable[[Session, str], Any] | None, prompt: str, *, final: bool = False
    ) -> None:
        """Run a turn hook (the thread index); a failing hook is logged, never fails the turn.
        A cancel during the `final` (turn-end) hook is absorbed: the turn still ends with TurnEnded."""
        if hook is not None:
            try:
                await hook(self, prompt)
            except asyncio.CancelledError:
                if not final:
                    raise
                log.warning("turn-end hook cancelled; the thread index catches up next turn")
            except Exception:
                log.exception("turn hook %s failed", getattr(hook, "__name__", hook))

    async def _keep_partial(self, text: str, mark: str) -> None:
        """Save the answer streamed so far (text only: a half-made tool call never enters the
        thread), followed by `mark`, so the thread shows what the user saw."""
        if not text.strip():
            return
        from langchain_core.messages import AIMessage

        try:
            text = self.safety.redactor.text(text)
            await self.graph.aupdate_state(
                self.config, {"messages": [AIMessage(content=f"{text}\n\n{mark}")]}
            )
        except Exception:  # the turn is already over; the thread stays as it was
            log.exception("could not save the partial answer")

    def _drain_notices(self, put: Callable[[Any], None]) -> None:
        while self.notices:
            put(ev.Notice(self.notices.pop(0), "warning"))
        if self.mcp is not None:
            for text in self.mcp.drain_notices():
                put(ev.Notice(text, "warning"))

    async def _stream(self, payload: Any, translator: StreamTranslator, put: Callable[[Any], None]) -> None:
        stream = self.graph.astream(
            payload,
            self.config,
            context=self.context(),
            stream_mode=["messages", "updates", "custom"],
            subgraphs=True,
            durability="sync",  # each step is on disk before the next starts: kill -9 loses one step at most
        )
        async for ns, mode, data in stream:
            for event in translator.feed(tuple(ns), mode, data):
                if isinstance(event, ev.Usage) and event.parent_id is None:
                    self.context_tokens = event.context_tokens or self.context_tokens
                put(event)

    async def _answer_interrupts(self, translator: StreamTranslator, put: Callable[[Any], None]) -> Any:
        if not translator.interrupts:
            return None
        from langgraph.types import Command

        resume: dict[str, Any] = {}
        for intr in translator.interrupts:
            requests = (intr.value or {}).get("action_requests", []) if isinstance(intr.value, dict) else []
            decisions = []
            for req in requests:
                call = translator.running_call(str(req.get("name")), dict(req.get("args") or {}))
                decision = await self._decide({**req, "id": req.get("id") or call[0], "parent": call[1]}, put)
                if decision["type"] == "reject":
                    translator.rejected.append(call_key(str(req.get("name")), dict(req.get("args") or {})))
                decisions.append(decision)
            resume[intr.id] = {"decisions": decisions}
        return Command(resume=resume)

    async def _decide(self, action: dict[str, Any], put: Callable[[Any], None]) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        request = ev.ApprovalRequested(
            request_id=uuid.uuid4().hex[:12],
            call_id=str(action.get("id") or ""),
            name=str(action.get("name")),
            args=dict(action.get("args") or {}),
            description=str(action.get("description") or ""),
            parent_id=action.get("parent"),
            suggested_rule=self.safety.suggested_rule(self, str(action.get("name")), action.get("args", {})),
            future=loop.create_future(),
        )
        early = await self.safety.decide_first(self, request, put)  # new grants, PermissionRequest hooks
        if early is not None:
            decision = early
        elif self.approval_policy is not None:
            decision = self.approval_policy(request, self.context())
        else:
            self._pending[request.request_id] = request
            put(request)
            assert request.future is not None
            decision = await request.future
            self._pending.pop(request.request_id, None)
        if decision.kind == "approve_always":
            self.safety.grant(self, request, decision, put)
        if decision.kind == "reject":
            out: dict[str, Any] = {"type": "reject"}
            if decision.message:
                out["message"] = decision.message
            return out
        return {"type": "approve"}


def new_thread_id() -> str:
    return uuid.uuid4().hex


async def create_session(
    settings: Settings,
    *,
    thread_id: str | None = None,
    model: Any = None,
    tools: Any = (),
    gated_tools: Any = (),
    approval_policy: ApprovalPolicy | None = None,
    mcp: Any = None,
    trust_project_hooks: bool = False,
) -> Session:
    """Open the checkpointer, build the agent, and return a Session on a new or given thread.

    `mcp` is an `McpManager` (started or starting); the session closes it.
    `trust_project_hooks` runs the project's hooks this time without a remembered trust."""
    from auger.core.agent import create_cli_agent
    from auger.core.checkpoint import open_saver
    from auger.core.hooks import HookRunner
    from auger.core.permissions import PermissionEngine
    from auger.core.thread_backend import thread_database
    from auger.core.thread_ops import install_hooks
    from auger.core.threads import ThreadStore
    from auger.core.writer_lease import WriterLease

    PermissionEngine.from_settings(settings)  # a malformed [permissions] rule fails here, before any I/O
    hooks = HookRunner.from_settings(settings, trust_project=trust_project_hooks)
    db = thread_database(settings)
    store = ThreadStore.connect(db)  # validates + migrates the database first
    try:
        saver, conn = await open_saver(db)
    except BaseException:
        store.close()
        raise
    try:
        graph = create_cli_agent(
            settings, checkpointer=saver, model=model, tools=tools, gated_tools=gated_tools, mcp=mcp
        )
    except BaseException:
        await conn.close()
        store.close()
        raise
    session = Session(settings, graph, conn=conn, approval_policy=approval_policy)
    session.threads = store
    session.writer = WriterLease(store)
    session.default_model = model
    install_hooks(session, store)
    session.mcp = mcp
    session.safety.hooks = hooks
    if thread_id is not None:
        await session.open_thread(thread_id)
    return session
