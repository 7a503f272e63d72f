"""LangGraphSession: the port (`auger.core.port.AgentPort`) over a LangGraph Server hosting auger's
graph (`langgraph.json`, graph id `auger`; `auger --connect URL` when URL is such a server).

* `send(prompt, options)` streams a run (`runs.stream`, messages + updates + custom, subgraphs)
  and rebuilds the IR with the in-process `StreamTranslator`; the run's `context` carries the
  approval mode, the model (`/model`) and the thread's "always allow" rules.
* An approval is the graph's interrupt: each `action_request` becomes an `ApprovalRequested`
  (answered by the turn's policy when it has one, else by the front end through its future);
  the answers resume the run with `Command(resume={interrupt_id: {"decisions": [...]}})`.
* Threads are the server's (`threads.create/get/search/update/delete`, the title in their
  metadata); history is the thread state's messages as IR events.
* What only auger's own store or process can do (rewind, diff, fork, compact, `!command`, the
  catalogue, MCP and its forms: `resolve_input`) raises `NotSupportedError` with one line saying so.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from auger.core import events as ev
from auger.core import operations as ops
from auger.errors import AugerError, BusyError, ThreadError, UsageError
from auger.remote.client import RemoteError
from auger.remote.controls import RemoteControls
from auger.remote.langgraph_wire import first_prompt, reply_model, stream_part, to_messages, to_thread

if TYPE_CHECKING:
    from langgraph_sdk.client import LangGraphClient

    from auger.core.port import TurnOptions
    from auger.core.session.stream import StreamTranslator
    from auger.core.threads.store import LiveThread

log = logging.getLogger("auger.remote")
GRAPH = "auger"
STREAM_MODES = ["messages-tuple", "updates", "custom"]
Req = TypeVar("Req")
Res = TypeVar("Res")


class NotSupportedError(UsageError):
    """An operation a LangGraph Server cannot do for auger (it keeps no auger thread store)."""


async def is_langgraph_server(url: str) -> bool:
    """Whether `url` is a LangGraph Server: its `GET /info` names langgraph's version (auger
    serve has no such route). Unreachable: False (the auger client then says so)."""
    import httpx

    try:
        async with httpx.AsyncClient(timeout=10.0) as client:
            resp = await client.get(f"{url.rstrip('/')}/info")
        return resp.status_code == 200 and "langgraph_py_version" in resp.json()
    except (httpx.HTTPError, ValueError, TypeError):
        return False


class LangGraphSession(RemoteControls["LangGraphClient"]):
    server_name = "the LangGraph Server"

    def __init__(self, client: LangGraphClient, *, url: str) -> None:
        super().__init__(client, url=url)
        self.grants: set[str] = set()  # "always allow" rules for this thread (the run context)
        self._run_id: str | None = None
        self._handlers: dict[str, Callable[[Any], Awaitable[Any]]] = {
            ops.AGENT_INFO.name: self._agent_info,
            ops.NEW_THREAD.name: self._new_thread,
            ops.GET_THREAD.name: self._get_thread,
            ops.LIST_THREADS.name: self._list_threads,
            ops.RENAME_THREAD.name: self._rename_thread,
            ops.DELETE_THREAD.name: self._delete_thread,
            ops.HISTORY.name: self._history,
            ops.TRANSCRIPT.name: self._transcript,
            ops.SET_MODEL.name: self._set_model,
        }

    @classmethod
    async def connect(cls, url: str, token: str | None, *, thread_id: str | None = None) -> LangGraphSession:
        """Check that the server hosts graph `auger`, then open `thread_id` (None: a new thread)."""
        from langgraph_sdk import get_client

        url = url.rstrip("/")
        # without a token the SDK reads LANGGRAPH_API_KEY (or LANGSMITH_API_KEY) itself
        client = get_client(url=url, api_key=token) if token else get_client(url=url)
        session = cls(client, url=url)
        try:
            graphs = await session._sdk(session.client.assistants.search(graph_id=GRAPH, limit=1))
            if not graphs:
                raise RemoteError(
                    f"The LangGraph Server at {url} hosts no graph {GRAPH!r}.",
                    hint="Serve auger's langgraph.json there (`langgraph dev` in a project).",
                )
            await session.open_thread(thread_id)
        except BaseException:
            await session.aclose()
            raise
        return session

    # -- controls (the rest: RemoteControls) ----------------------------------------------
    def _stop(self) -> None:
        if self._run_id:
            self._spawn(self.client.runs.cancel(self.thread_id, self._run_id))

    async def open_thread(self, thread_id: str | None) -> None:
        await super().open_thread(thread_id)
        self.grants.clear()

    # -- operations ------------------------------------------------------------------------
    async def call(self, op: ops.Operation[Req, Res], request: Req) -> Res:
        handler = self._handlers.get(op.name)
        if handler is None:
            raise NotSupportedError(
                f"{op.summary} ({op.name}) is not supported by a LangGraph Server "
                f"({self.url} keeps no auger thread store or catalogue)."
            )
        result: Res = await handler(request)
        return result

    async def _sdk(self, request: Awaitable[Any], thread_id: str | None = None) -> Any:
        """One SDK request, its failures as auger errors (404: no such thread)."""
        import httpx
        from langgraph_sdk import errors as sdk

        try:
            return await request
        except (sdk.NotFoundError, sdk.UnprocessableEntityError) as exc:  # 422: not a UUID
            if thread_id is None:
                raise RemoteError(f"The LangGraph Server at {self.url} answered: {exc}") from None
            raise ThreadError(f"No thread {thread_id!r} on the LangGraph Server at {self.url}.") from None
        except sdk.AuthenticationError:
            raise RemoteError(
                f"The LangGraph Server at {self.url} refused the API key.",
                hint="Pass it with --token (or set LANGGRAPH_API_KEY).",
            ) from None
        except sdk.ConflictError as exc:
            raise BusyError(f"The thread is busy on the LangGraph Server at {self.url}: {exc}") from None
        except sdk.APIStatusError as exc:
            raise RemoteError(f"The LangGraph Server at {self.url} answered: {exc}") from None
        except httpx.HTTPError as exc:
            raise RemoteError(
                f"Cannot reach the LangGraph Server at {self.url}: {exc or type(exc).__name__}.",
                hint="Is `langgraph dev` running there? Check the URL and port.",
            ) from None

    async def _agent_info(self, _: Any) -> ops.AgentInfo:
        info = await self._sdk(self.client.http.get("/info"))
        return ops.AgentInfo(str(info.get("version", "")), 1, self.default_mode, self.model_spec)

    async def _new_thread(self, _: Any) -> LiveThread:
        metadata = {"model": self.model_spec} if self.model_spec else None
        return to_thread(await self._sdk(self.client.threads.create(metadata=metadata)))

    async def _get_thread(self, request: ops.ThreadRef) -> LiveThread:
        return to_thread(await self._sdk(self.client.threads.get(request.thread_id), request.thread_id))

    async def _list_threads(self, request: ops.ListThreads) -> ops.ThreadList:
        found = await self._sdk(
            self.client.threads.search(limit=request.limit, sort_by="updated_at", sort_order="desc")
        )
        threads = [to_thread(t) for t in found]
        if request.search:
            words = request.search.lower()
            threads = [t for t in threads if words in t.title.lower()]
        return ops.ThreadList(threads)

    async def _update(self, thread_id: str, **metadata: Any) -> LiveThread:
        """Merge `metadata` into the thread's; the thread as it is then."""
        return to_thread(await self._sdk(self.client.threads.update(thread_id, metadata=metadata), thread_id))

    async def _rename_thread(self, request: ops.RenameThread) -> LiveThread:
        return await self._update(request.thread_id, title=request.title)

    async def _delete_thread(self, request: ops.ThreadRef) -> ops.Deleted:
        await self._sdk(self.client.threads.delete(request.thread_id), request.thread_id)
        return ops.Deleted()

    async def _history(self, request: ops.ThreadRef) -> ops.History:
        from auger.core.threads.history import to_events

        state = await self._sdk(self.client.threads.get_state(request.thread_id), request.thread_id)
        messages = to_messages((state.get("values") or {}).get("messages"))
        return ops.History(to_events(messages, request.thread_id))

    async def _transcript(self, request: ops.Transcript) -> ops.Text:
        from auger.core.threads.transcript import render_markdown, render_text

        ref = ops.ThreadRef(request.thread_id)
        events = (await self._history(ref)).events
        info = await self._get_thread(ref)
        render = render_text if request.format == "text" else render_markdown
        return ops.Text(render(events, info, request.thread_id))

    async def _set_model(self, request: ops.SetModel) -> LiveThread:
        """The model goes with each run's context (the server checks it when the run starts)."""
        return await self._update(request.thread_id, model=request.model)

    # -- a turn ----------------------------------------------------------------------------
    async def send(self, prompt: str, options: TurnOptions) -> AsyncIterator[ev.Event]:
        from auger.core.session.stream import StreamTranslator

        if self._running:
            raise BusyError("A turn is already running on this session.")
        if options.images:
            raise NotSupportedError("A LangGraph Server is not sent images: send the prompt without them.")
        self._running, self._cancelled, self._run_id = True, False, None
        translator = StreamTranslator()
        run: dict[str, Any] | None = {"input": {"messages": [{"role": "user", "content": prompt}]}}
        yield ev.TurnStarted(self.thread_id, prompt, self.model_spec)
        try:
            await self._title(prompt)
            while run is not None and not self._cancelled:
                async for event in self._run(run, translator, options):
                    yield event
                run = None
                async for event in self._approvals(translator, options):
                    if isinstance(event, dict):
                        run = event
                    else:
                        yield event
        except AugerError as exc:
            yield ev.Error(str(exc), "remote")
            yield ev.TurnEnded("error", self.thread_id)
            return
        except Exception as exc:  # the connection broke: end the turn like the core would
            log.warning("LangGraph run stream failed", exc_info=True)
            yield ev.Error(f"Lost the LangGraph Server at {self.url}: {exc or type(exc).__name__}.", "remote")
            yield ev.TurnEnded("error", self.thread_id)
            return
        finally:
            self._ended()
        reason: ev.EndReason = (
            "cancelled" if self._cancelled else "turn_limit" if translator.hit_turn_limit else "done"
        )
        yield ev.TurnEnded(reason, self.thread_id, translator.final_text)

    async def _title(self, prompt: str) -> None:
        """The thread's title (its first prompt), in its metadata: `threads list` shows it."""
        thread = await self._get_thread(ops.ThreadRef(self.thread_id))
        if not thread.title:
            await self._update(self.thread_id, title=first_prompt([{"type": "human", "content": prompt}]))

    def _context(self, options: TurnOptions) -> dict[str, Any]:
        context: dict[str, Any] = {"mode": options.mode, "always_allow": sorted(self.grants)}
        if self.model_spec:
            context["model_spec"] = self.model_spec
        if options.max_turns is not None:
            context["max_turns"] = options.max_turns
        return context

    async def _run(
        self, run: dict[str, Any], translator: StreamTranslator, options: TurnOptions
    ) -> AsyncIterator[ev.Event]:
        def created(meta: Any) -> None:
            self._run_id = str(meta["run_id"])

        stream = self.client.runs.stream(
            self.thread_id,
            GRAPH,
            **run,
            context=self._context(options),
            stream_mode=STREAM_MODES,  # type: ignore[arg-type]
            stream_subgraphs=True,
            on_run_created=created,
        )
        async for part in stream:
            if part.event == "error":
                data = part.data if isinstance(part.data, dict) else {}
                raise RemoteError(f"The LangGraph Server's run failed: {data.get('message') or part.data}")
            triple = stream_part(part.event, part.data)
            if triple is None:
                continue
            self.model_spec = reply_model(*triple) or self.model_spec  # the server's model, as used
            for event in translator.feed(*triple):
                if isinstance(event, ev.Usage) and event.parent_id is None:
                    self.context_tokens = event.context_tokens or self.context_tokens
                if not (self._cancelled and isinstance(event, ev.STREAMED_TEXT)):
                    yield event

    async def _approvals(self, translator: StreamTranslator, options: TurnOptions) -> AsyncIterator[Any]:
        """The run's interrupts as approval events; last, the run that resumes with the answers."""
        from auger.core.session.stream import call_key

        resume: dict[str, Any] = {}
        for interrupt in translator.interrupts:
            value = interrupt.get("value") if isinstance(interrupt, dict) else None
            decisions = []
            for action in (value or {}).get("action_requests", []) if isinstance(value, dict) else []:
                name, args = str(action.get("name")), dict(action.get("args") or {})
                request = self._request(translator, name, args, str(action.get("description") or ""))
                if options.approval is not None:
                    decision = options.approval(request, options.mode)
                else:
                    yield request
                    decision = await request.future  # type: ignore[misc]
                if decision.kind == "reject":
                    translator.rejected.append(call_key(name, args))
                decisions.append(self._decision(request, decision))
            resume[str(interrupt.get("id"))] = {"decisions": decisions}
        translator.interrupts.clear()
        if resume and not self._cancelled:
            yield {"command": {"resume": resume}}

    def _request(
        self, translator: StreamTranslator, name: str, args: dict[str, Any], description: str
    ) -> ev.ApprovalRequested:
        from auger.core.safety.permissions import rule_for_call

        call_id, parent = translator.running_call(name, args)
        rule = rule_for_call(name, args)
        return self._awaited(
            ev.ApprovalRequested(uuid.uuid4().hex, call_id, name, args, description, parent, rule)
        )

    def _decision(self, request: ev.ApprovalRequested, decision: ev.ApprovalDecision) -> dict[str, Any]:
        if decision.kind == "reject":
            return {"type": "reject", "message": decision.message or "The user rejected this call."}
        if decision.kind == "approve_always":
            self.grants.add(decision.rule or request.suggested_rule)
        return {"type": "approve"}
