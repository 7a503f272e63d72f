"""One turn of a Session: the user's prompt in, IR events out, until `TurnEnded`.

`run_turn` is the body of the task `Session.send` starts. It redacts the prompt, turns
`/skill args` into the skill's message, runs the lifecycle hooks, streams the graph (LangGraph
chunks -> events by `StreamTranslator`), answers its interrupts (`auger.core.session.approvals`)
and resumes it (in the mode an accepted plan chose, from the next step on: `ModeChanged`), lets
Stop hooks continue it, and always ends with `TurnEnded` — also when it is cancelled (the
partial answer is kept) or fails (one `Error` line; the traceback goes to the log).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from typing import TYPE_CHECKING, Any

from langgraph.errors import GraphRecursionError
from langgraph.types import Command

from auger.core import events as ev
from auger.core.agent.context import MODES, AugerContext
from auger.core.catalog.project_files import mentioned, with_files
from auger.core.mcp.callers import ANSWERER
from auger.core.mcp.server_requests import SessionRequests
from auger.core.mcp.user_message import mcp_message
from auger.core.models.provider_errors import describe_error
from auger.core.models.replies.loop_share import LoopShare
from auger.core.rewind.recorder import TurnRecorder, turn_recorder
from auger.core.safety.redaction import StreamRedactor
from auger.core.session.approvals import decide
from auger.core.session.stream import StreamTranslator, call_key
from auger.core.session.token_relay import TokenRelay
from auger.core.session.turn_input import allowed_tools, refuse_images, turn_model, user_message, with_images
from auger.core.text import clean_text
from auger.core.threads.backend import failure
from auger.errors import AugerError, ProviderError

if TYPE_CHECKING:
    from auger.core.port import TurnOptions
    from auger.core.session.session import Session

log = logging.getLogger("auger.session")
DONE = object()  # the last item a turn puts on its queue
BROKEN_OFF = "[interrupted: the reply broke off here]"  # after the kept text of a failed model call


def _recorder(session: Session) -> TurnRecorder | None:
    """The turn's rewind recorder; None for a chat the thread index does not see (nothing to rewind)."""
    runtime = session.runtime
    if runtime.index is None or not session.record:
        return None
    return turn_recorder(runtime.settings, runtime.threads, session.thread_id)


class Turn:
    def __init__(self, session: Session, options: TurnOptions, queue: asyncio.Queue[Any]) -> None:
        self.session = session
        self.options = options
        self.translator = StreamTranslator()
        self.relay = TokenRelay()  # the model's tokens into the stream, and what it was sent
        self.max_turns = options.max_turns or session.runtime.settings.max_turns
        self.verdicts: dict[str, Any] = {}  # per tool call, so HITL's `when` answers the same on resume
        self.originals: dict[str, Any] = {}  # per tool call: (stored, as written) args (AugerContext)
        self.rewind = _recorder(session)  # snapshots on the first file change (auger.core.rewind)
        self.pre_tool: dict[str, Any] = {}  # per tool call: what its PreToolUse hooks said (AugerContext)
        self.turn_tools: tuple[str, ...] | None = None  # a skill's / command's allowed-tools
        self.turn_model: str | None = None  # the model a command names for its turn
        self.typed = options.typed  # what the user typed, when the prompt is its expansion
        self._redactor = StreamRedactor(session.runtime.redactor)
        self._queue = queue

    def put(self, event: ev.Event) -> None:
        """Every event goes through the redactor before a front end sees it."""
        for out in self._redactor.feed(event):
            self._queue.put_nowait(out)

    def _finish(self, event: ev.TurnEnded) -> None:
        for out in self._redactor.flush():
            self._queue.put_nowait(out)
        self._queue.put_nowait(event)
        self._queue.put_nowait(DONE)

    async def run(self, prompt: str) -> None:
        session, put = self.session, self.put
        prompt = clean_text(prompt)  # e.g. argv bytes that are not UTF-8: U+FFFD, not a poisoned thread
        prompt, cancelled = await self._start(prompt)
        prompt = self._redact_prompt(prompt)  # secret values never reach the thread DB
        if self.typed is not None:  # nor through what was typed, kept with the turn
            self.typed = session.runtime.redactor.text(self.typed)
        self._drain_notices()
        reason: ev.EndReason = "done"
        for text in session.first_turn_warnings():
            put(ev.Notice(text, "warning"))
        held = False  # the thread's writer lease (auger.core.threads.writer_lease)
        try:
            if cancelled:
                raise asyncio.CancelledError
            refuse_images(self.options.images, session.runtime.settings, session.model_spec)
            await session.claim_thread(put)
            held = True
            # in the try: a cancel here still ends the turn; the title is made of what was typed
            await session.turn_started(self.typed or prompt)
            reason = await self._loop(prompt)
        except asyncio.CancelledError:
            reason = "cancelled"
            await self._cut_short("[interrupted]")
            put(ev.Notice("Turn cancelled; the work done so far is kept in the thread."))
        except GraphRecursionError:
            reason = "turn_limit"
            put(ev.Error(f"Stopped after too many steps (max_turns={self.max_turns}).", "turn_limit"))
        except Exception as exc:
            reason = "error"
            # False: the database failed, nothing is indexed (the next turn reads the whole history)
            held = await self._failed(exc) and held
        session.pending.clear()
        session.inputs.cancel_all()  # a form still open when the turn ends: the server hears `cancel`
        for event in await self.rewind.finish() if self.rewind else []:  # the "after" snapshot: FilesChanged
            put(event)
        if reason != "cancelled":
            await session.lifecycle.notify(
                session.thread_id, self.options.mode, "auger is waiting for your input", "idle_prompt", put
            )
        self._drain_notices()
        if held:  # a turn refused for a busy thread wrote nothing to index
            # what the turn added, from the stream; None (read the history) when that is not certain
            added = None if self.translator.rewrote or reason == "cancelled" else self.translator.entered
            await session.turn_ended(added, settled=reason == "done")
        await session.release_thread()  # before TurnEnded: the next turn may start at once
        self._finish(ev.TurnEnded(reason, session.thread_id, self.translator.final_text))

    async def _failed(self, exc: Exception) -> bool:
        """One Error line: ours (a reply that did not finish, a request_timeout) say it already;
        the thread database's names it (the turn's text and index are not written to it then);
        anything else is the provider's or the network's (`describe_error`; the traceback to the
        log). False: it was the thread database's."""
        session, stored = self.session, None
        if not isinstance(exc, AugerError):
            log.error("turn failed", exc_info=exc)
            stored = failure(session.runtime.threads.database, exc, session.thread_id)
        if stored is None:
            await self._cut_short(BROKEN_OFF)
        exc = stored or exc
        if isinstance(exc, AugerError):
            self.put(ev.Error(str(exc), "provider" if isinstance(exc, ProviderError) else type(exc).__name__))
        else:
            self.put(ev.Error(describe_error(exc, session.model_spec, session.runtime.settings), "provider"))
        return stored is None

    async def _cut_short(self, mark: str) -> None:
        """A turn cut short: keep the answer streamed so far in the thread (and count it as added
        by the turn), and report the context it is estimated to hold now (no provider reported it),
        so every front end's meter — remote ones too — counts it."""
        kept, tokens = await self.session.keep_cut_short(
            self.translator.partial_text, mark, self.relay.prompt
        )
        if kept is not None:
            self.translator.entered.append(kept)
        if tokens:
            self.put(ev.Usage(context_tokens=tokens, model=self.session.model_spec))

    async def _loop(self, prompt: str) -> ev.EndReason:
        session, translator = self.session, self.translator
        message, warnings = user_message(prompt, session.runtime.settings)
        self.turn_tools = allowed_tools(message)  # the turn may use only these (TurnToolsMiddleware)
        self.turn_model, warning = turn_model(message, session.runtime.settings)
        for text in [*warnings, *([warning] if warning else [])]:
            self.put(ev.Notice(text, "warning"))
        message = self._redact_message(message)
        mcp = session.runtime.mcp
        if mcp is not None:
            # who answers the servers' sampling / elicitation requests of this turn's calls: set in
            # the turn's own task, seen by the graph's tasks (auger.core.mcp.callers)
            ANSWERER.set(
                SessionRequests(
                    session.runtime.settings,
                    self.options.mode,
                    session.model_spec,
                    dict(session.model_params),
                    lambda text: self.put(ev.Notice(text, "warning")),
                    approve=self._approve if self.options.approval is None else None,  # a human to ask
                    ask_input=self._ask_input
                    if self.options.approval is None and self.options.forms
                    else None,
                )
            )
            message = await mcp_message(prompt, message, mcp)  # `/mcp__s__p args`, `@server:uri`
        message = with_images(message, self.options.images)
        if self.typed is not None and self.typed != prompt:
            from auger.core.threads.history import TYPED_KEY

            message.additional_kwargs[TYPED_KEY] = self.typed
        messages = await session.lifecycle.start_turn(session.thread_id, self.options.mode, message, self.put)
        if not messages:
            return "error"  # a UserPromptSubmit hook blocked it
        payload: Any = {"messages": messages}
        while payload is not None:
            translator.interrupts.clear()
            await self._stream(payload)
            payload = await self._answer_interrupts()
            if payload is None and not translator.hit_turn_limit:
                payload = await session.lifecycle.after_turn(session.thread_id, self.options.mode, self.put)
        return "turn_limit" if translator.hit_turn_limit else "done"

    async def _stream(self, payload: Any) -> None:
        session = self.session
        config = {**session.config(self.max_turns), "callbacks": [self.relay]}  # the model's tokens
        stream = session.runtime.graph.astream(
            payload,
            config,  # type: ignore[arg-type]
            context=self._context(),
            stream_mode=["updates", "custom"],
            subgraphs=True,
            durability="sync",  # each step is on disk before the next starts: kill -9 loses one step at most
        )
        self.translator.note_input(payload)
        share = LoopShare()
        # closed on the way out: a cancelled `async for` leaves the generator suspended, and its
        # tasks (the model call) ran on, streaming the rest of the reply, until it was collected
        async with contextlib.aclosing(stream):
            async for ns, mode, data in stream:
                for event in self.translator.feed(tuple(ns), mode, data):
                    if isinstance(event, ev.Usage) and event.parent_id is None:
                        session.context_tokens = event.context_tokens or session.context_tokens
                    self.put(event)
                # The stream hands over what the model call queued without suspending: a turn of
                # the loop every few ms (a front end in this loop, the TUI's keys, runs), not per
                # chunk, so this keeps up with the call and LangGraph's queue holds no backlog.
                await share.turn()

    def _context(self) -> AugerContext:
        session, runtime = self.session, self.session.runtime
        return AugerContext(
            model_spec=self.turn_model or session.model_spec,
            model_params=dict(session.model_params),
            mode=self.options.mode,
            unattended=self.options.approval is not None,
            always_allow=frozenset(session.grants),
            thread_id=session.thread_id,
            max_turns=self.max_turns,
            permissions=runtime.permissions,
            hooks=runtime.hooks,
            verdicts=self.verdicts,
            pre_tool=self.pre_tool,
            turn_tools=self.turn_tools,
            originals=self.originals,
            approve=self._approve,
            files=self.options.files,
            terminal=self.options.terminal,
            rewind=self.rewind,
            jobs=session.background,
            meter=session.meter,
        )

    async def _approve(self, action: dict[str, Any]) -> dict[str, Any]:
        """An approval that is not one of the graph's interrupts (an ACP subagent asking)."""
        decision = await decide(self.session, action, self.options, self.put)
        decision.pop("mode", None)  # a subagent's permission does not switch the session's mode
        return decision

    async def _ask_input(self, server: str, message: str, schema: dict[str, Any]) -> ev.InputAnswer:
        """An MCP server's form: shown to the front end (InputRequested); the tool call waits."""
        return await self.session.inputs.ask(server, message, schema, self.put)

    def _switch_mode(self, mode: str) -> None:
        """Go on in `mode` (a plan was accepted): the graph resumes with it in the run context,
        and the front end hears it (`ModeChanged`) so its next turns use it too."""
        if mode not in MODES or mode == self.options.mode:
            return
        self.options = dataclasses.replace(self.options, mode=mode)
        self.put(ev.ModeChanged(mode))

    async def _answer_interrupts(self) -> Any:
        translator = self.translator
        if not translator.interrupts:
            return None
        resume: dict[str, Any] = {}
        for intr in translator.interrupts:
            requests = (intr.value or {}).get("action_requests", []) if isinstance(intr.value, dict) else []
            decisions = []
            for req in requests:
                name, args = str(req.get("name")), dict(req.get("args") or {})
                call_id, parent = translator.running_call(name, args)
                action = {**req, "id": req.get("id") or call_id, "parent": parent}
                # what asks (the mode, a rule, a protected path)
                action["decided_by"] = getattr(self.verdicts.get(str(action["id"])), "by", "mode")
                decision = await decide(self.session, action, self.options, self.put)
                self._switch_mode(decision.pop("mode", None) or self.options.mode)
                if decision["type"] == "reject":
                    translator.rejected.append(call_key(name, args))
                decisions.append(decision)
            resume[intr.id] = {"decisions": decisions}
        return Command(resume=resume)

    # -- the prompt -------------------------------------------------------------------------
    async def _start(self, prompt: str) -> tuple[str, bool]:
        """TurnStarted, once the `@path`s are inlined (`mentions`): (the prompt, whether the turn
        was cancelled meanwhile; it then ends as any cancelled turn does)."""
        files: list[str] = []
        cancelled = False
        if self.options.mentions:
            try:
                typed, (prompt, files) = prompt, await self._inline(prompt)
                self.typed = self.typed or (typed if files else None)
            except asyncio.CancelledError:
                cancelled = True
        self.put(ev.TurnStarted(self.session.thread_id, prompt, self.session.model_spec, files))
        return prompt, cancelled

    async def _inline(self, prompt: str) -> tuple[str, list[str]]:
        """The prompt with the files named as `@path` (in what was typed) appended, each read as
        the agent would read it: through its backend (inside the project; the sandbox hides what
        it hides) and not when a deny rule refuses `read_file` on it. One that cannot be read is
        left as text."""
        runtime, found = self.session.runtime, []
        for rel in mentioned(prompt if self.typed is None else self.typed):
            path = "/" + rel.lstrip("/")
            if runtime.permissions.denial("read_file", {"file_path": path}) is not None:
                continue
            try:
                [got] = await runtime.backend.adownload_files([path])
            except Exception:  # a name the backend refuses outright (too long, a NUL, ...)
                log.debug("cannot inline @%s", rel, exc_info=True)
                continue
            if got.error is None and got.content is not None:
                found.append((rel, got.content))
        return with_files(prompt, found)

    # -- redaction --------------------------------------------------------------------------
    def _redact_prompt(self, prompt: str) -> str:
        """The prompt with secret values replaced (and a Notice saying so)."""
        redactor = self.session.runtime.redactor
        names, kinds = redactor.find(prompt), redactor.kinds(prompt)
        found = ([f"the value of {', '.join(f'${n}' for n in names)}"] if names else []) + kinds
        if found:
            said = f"Your message contained {' and '.join(found)}; it was replaced by a placeholder"
            self.put(ev.Notice(f"{said} before it was sent or saved.", "warning"))
        return redactor.text(prompt)

    def _redact_message(self, message: Any) -> Any:
        """The message with secret values replaced (an expanded skill or attached files may carry them)."""
        redactor = self.session.runtime.redactor
        text = message.content if isinstance(message.content, str) else str(message.content)
        if not redactor.find(text) and not redactor.kinds(text):
            return message
        self.put(ev.Notice("Secret values in the attached content were replaced by placeholders.", "warning"))
        return redactor.message(message)

    def _drain_notices(self) -> None:
        while self.session.notices:
            self.put(ev.Notice(self.session.notices.pop(0), "warning"))
        manager = self.session.runtime.mcp
        if manager is not None:
            for text in manager.drain_notices():
                self.put(ev.Notice(text, "warning"))
