"""The local implementation of every operation in `auger.core.operations`: `Session.call(op,
request)` runs the function registered here for `op` (and so does `auger serve`, through the
Session of the request's thread). Each is a thin step into the core area that does the work."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from auger.core import events as ev
from auger.core import operations as ops
from auger.core.threads.lease import ThreadBusyError
from auger.core.threads.store import LiveThread
from auger.errors import NotFoundError

if TYPE_CHECKING:
    from auger.core.session.session import Session

Req = TypeVar("Req")
Res = TypeVar("Res")
Impl = Callable[["Session", Req], Awaitable[Res]]
IMPLEMENTATIONS: dict[str, Impl[Any, Any]] = {}
PROTOCOL = 1  # the wire protocol of `auger serve` (GET /version)


def implements(op: ops.Operation[Req, Res]) -> Callable[[Impl[Req, Res]], Impl[Req, Res]]:
    def register(fn: Impl[Req, Res]) -> Impl[Req, Res]:
        IMPLEMENTATIONS[op.name] = fn
        return fn

    return register


def live(session: Session, thread_id: str) -> LiveThread:
    """`thread_id` as saved, with this session's live state when it is the session's thread."""
    info = session.runtime.threads.get(thread_id)
    thread = (
        LiveThread.of(info) if info is not None else LiveThread.blank(thread_id, session.runtime.settings)
    )
    if thread_id != session.thread_id:
        return thread
    from auger.core.models.specs import window_of

    spec = session.model_spec
    window = window_of(session.runtime.settings, spec)
    return dataclasses.replace(
        thread, busy=session.busy, context_tokens=session.context_tokens, model=spec, context_window=window
    )


# -- the agent ----------------------------------------------------------------------------------
@implements(ops.AGENT_INFO)
async def agent_info(session: Session, request: ops.NoArgs) -> ops.AgentInfo:
    from auger import __version__
    from auger.trust import status_line

    settings = session.runtime.settings
    sandbox, trust = bool(settings.get("sandbox.enabled")), status_line(settings)
    return ops.AgentInfo(
        __version__, PROTOCOL, settings.mode, settings.model, session.project, sandbox, trust
    )


@implements(ops.CATALOGUE)
async def catalogue(session: Session, request: ops.NoArgs) -> ops.Catalogue:
    from auger.core.session.catalogue import catalogue as build

    return await asyncio.to_thread(build, session.runtime)


@implements(ops.PROJECT_FILES)
async def project_files(session: Session, request: ops.NoArgs) -> ops.FileList:
    from auger.core.catalog.project_files import project_files as scan

    return ops.FileList(await asyncio.to_thread(scan, session.runtime.settings.project_root))


@implements(ops.MODELS)
async def models(session: Session, request: ops.NoArgs) -> ops.ModelList:
    from auger.core.models.choices import model_choices

    return ops.ModelList(model_choices(session.runtime.settings))


@implements(ops.CAPABILITIES)
async def capabilities(session: Session, request: ops.NoArgs) -> ops.Capabilities:
    from auger.core.models.capabilities import capabilities as build

    return await asyncio.to_thread(build, session.runtime, session.model_spec)


@implements(ops.RUN_SHELL)
async def run_shell(session: Session, request: ops.Shell) -> ops.ShellResult:
    from auger.core.backends.user_shell import run_user_command

    return await run_user_command(request.command, session.runtime)


@implements(ops.MCP_TRUST)
async def mcp_trust(session: Session, request: ops.NoArgs) -> ops.Text:
    manager = session.runtime.mcp
    if manager is None:
        return ops.Text("MCP is not running (no servers configured, or --no-mcp).")
    from auger.core.mcp.config import TrustStore

    await manager.trust_project(TrustStore(session.runtime.settings.home))
    return ops.Text(
        "Trusted this project (remembered for its folder): its MCP servers start now; "
        "its hooks and settings apply from the next start."
    )


@implements(ops.MCP_RESTART)
async def mcp_restart(session: Session, request: ops.McpServer) -> ops.Text:
    manager = session.runtime.mcp
    if manager is None:
        return ops.Text("MCP is not running (no servers configured, or --no-mcp).")
    names = [s["name"] for s in manager.status()]
    if request.name not in names:
        return ops.Text(f"No MCP server named {request.name!r}. Servers: {', '.join(names) or 'none'}.")
    await manager.restart(request.name)
    return ops.Text(f"Restarted MCP server {request.name!r}.")


# -- threads ------------------------------------------------------------------------------------
@implements(ops.LIST_THREADS)
async def list_threads(session: Session, request: ops.ListThreads) -> ops.ThreadList:
    root = None if request.all else str(session.runtime.settings.project_root)
    store = session.runtime.threads
    infos = await asyncio.to_thread(store.list, root=root, search=request.search, limit=request.limit)
    own = session.thread_id
    return ops.ThreadList([live(session, own) if i.id == own else LiveThread.of(i) for i in infos])


@implements(ops.NEW_THREAD)
async def new_thread(session: Session, request: ops.NewThread) -> LiveThread:
    """The session is on its new thread already (`auger serve` made it); set its model."""
    if request.model:
        session.select_model(request.model)
    return live(session, session.thread_id)


@implements(ops.GET_THREAD)
async def get_thread(session: Session, request: ops.ThreadRef) -> LiveThread:
    return live(session, session.thread_id)


@implements(ops.RENAME_THREAD)
async def rename_thread(session: Session, request: ops.RenameThread) -> LiveThread:
    await asyncio.to_thread(session.runtime.threads.rename, request.thread_id, request.title)
    return live(session, request.thread_id)


@implements(ops.DELETE_THREAD)
async def delete_thread(session: Session, request: ops.ThreadRef) -> ops.Deleted:
    store = session.runtime.threads
    holder = await asyncio.to_thread(store.lease_holder, request.thread_id)
    if holder is not None:  # a turn runs on it, here or in another auger
        raise ThreadBusyError(
            f"Thread {request.thread_id!r} is busy ({holder.describe()}).",
            hint="Delete it when its turn is over.",
        )
    await asyncio.to_thread(store.delete, request.thread_id)
    return ops.Deleted()


@implements(ops.FORK_THREAD)
async def fork_thread(session: Session, request: ops.ForkThread) -> LiveThread:
    from auger.core.threads.index import fork_thread as fork

    return live(session, await fork(session.runtime.threads, request.thread_id, request.at))


@implements(ops.REWIND)
async def rewind(session: Session, request: ops.Rewind) -> ops.Rewound:
    from auger.core.rewind.thread_rewind import rewind_thread

    store = session.runtime.threads
    thread_id = store.resolve(request.thread_id)
    done = await rewind_thread(
        store,
        thread_id,
        request.to,
        files=request.files,
        conversation=request.conversation,
        force=request.force,
        dry_run=request.dry_run,
        held=True,  # Session.call holds the thread's writer lease for an idle operation
    )
    if done.removed_turns is not None and not done.dry_run:
        session.context_tokens = int((await session.state()).get("_context_tokens") or 0)  # the cut thread's
    return done


@implements(ops.DIFF)
async def diff(session: Session, request: ops.ThreadDiff) -> ops.Text:
    from auger.core.rewind.ops import thread_diff

    store = session.runtime.threads
    return ops.Text(
        await asyncio.to_thread(thread_diff, store, store.resolve(request.thread_id), request.turn)
    )


@implements(ops.TURNS)
async def turns(session: Session, request: ops.ThreadRef) -> ops.Turns:
    from auger.core.rewind.thread_rewind import thread_turns
    from auger.core.threads.history import to_events
    from auger.errors import ThreadError

    store = session.runtime.threads
    try:
        thread_id = store.resolve(request.thread_id)
    except ThreadError:
        if request.thread_id != session.thread_id:
            raise
        return ops.Turns([])  # this session's thread, not saved yet: no turns
    events = to_events(await session.messages(thread_id), thread_id)
    prompts = [e.prompt for e in events if isinstance(e, ev.TurnStarted)]
    return ops.Turns(await asyncio.to_thread(thread_turns, store, thread_id, prompts))


@implements(ops.HISTORY)
async def history(session: Session, request: ops.ThreadRef) -> ops.History:
    from auger.core.threads.history import to_events

    return ops.History(to_events(await session.messages(request.thread_id), request.thread_id))


@implements(ops.MESSAGES)
async def messages(session: Session, request: ops.ThreadRef) -> ops.Messages:
    from langchain_core.messages import messages_to_dict

    return ops.Messages(messages_to_dict(await session.messages(request.thread_id)))


@implements(ops.TRANSCRIPT)
async def transcript(session: Session, request: ops.Transcript) -> ops.Text:
    from auger.core.threads.history import to_events
    from auger.core.threads.transcript import render_markdown, render_text

    events = to_events(await session.messages(request.thread_id), request.thread_id)
    info = session.runtime.threads.get(request.thread_id)
    render = render_text if request.format == "text" else render_markdown
    return ops.Text(render(events, info, request.thread_id))


# -- this thread --------------------------------------------------------------------------------
@implements(ops.SET_MODEL)
async def set_model(session: Session, request: ops.SetModel) -> LiveThread:
    session.select_model(request.model, request.params)
    return live(session, session.thread_id)


@implements(ops.COMPACT)
async def compact(session: Session, request: ops.Compact) -> ops.Compacted:
    from auger.core.session.compact import compact as run

    return await run(session, request.instructions)


@implements(ops.RESOLVE_APPROVAL)
async def resolve_approval(session: Session, request: ops.Approval) -> ops.Done:
    decision = ev.ApprovalDecision(
        request.decision, request.message, rule=request.rule, persist=request.persist, mode=request.mode
    )
    await session.resolve_approval(request.request_id, decision)
    return ops.Done()


@implements(ops.RESOLVE_INPUT)
async def resolve_input(session: Session, request: ops.InputReply) -> ops.Done:
    answer = ev.InputAnswer(request.action, request.content)
    session.inputs.answer(request.request_id, answer, session.thread_id)  # UsageError: does not fit
    return ops.Done()


@implements(ops.JOBS)
async def jobs(session: Session, request: ops.ThreadRef) -> ops.JobList:
    return ops.JobList(
        [ops.JobInfo(j.id, j.command, j.status(), j.exit_code is None) for j in session.background.listing()]
    )


@implements(ops.STOP_JOB)
async def stop_job(session: Session, request: ops.JobRef) -> ops.Text:
    try:
        return ops.Text(await asyncio.to_thread(session.background.stop, request.job))
    except KeyError as exc:
        raise NotFoundError(str(exc.args[0])) from None


@implements(ops.PERMISSIONS)
async def permissions(session: Session, request: ops.ThreadRef) -> ops.RuleList:
    from auger.core.safety.rule_sources import rules_in_force

    runtime = session.runtime
    found = await asyncio.to_thread(rules_in_force, runtime.settings, runtime.permissions, session.grants)
    return ops.RuleList([ops.RuleInForce(r.kind, r.rule, r.source) for r in found])


@implements(ops.CHANGE_RULE)
async def change_rule(session: Session, request: ops.ChangeRule) -> ops.Text:
    from auger.core.safety.rule_sources import add_in_force, remove_rule

    runtime, kind, rule = session.runtime, request.kind, request.rule.strip()
    if request.action == "add":
        text = await asyncio.to_thread(
            add_in_force, runtime.settings, runtime.permissions, kind, rule, request.scope
        )
    elif kind == "allow" and rule in session.grants:
        session.grants.discard(rule)
        text = f"Removed the always-allow rule {rule} of this thread."
    else:
        text = await asyncio.to_thread(remove_rule, runtime.settings, runtime.permissions, kind, rule)
    return ops.Text(text)


@implements(ops.COST)
async def cost(session: Session, request: ops.ThreadRef) -> ops.Costs:
    from auger.core.models.cost import costs

    found = await asyncio.to_thread(costs, await session.messages(request.thread_id), session.model_spec)
    return ops.Costs([ops.ModelCost(**vars(c)) for c in found])


@implements(ops.DOCTOR)
async def doctor(session: Session, request: ops.NoArgs) -> ops.Diagnoses:
    from auger.core.doctor import diagnose

    return ops.Diagnoses(await asyncio.to_thread(diagnose, session.runtime.settings))


@implements(ops.CONTEXT)
async def context(session: Session, request: ops.ThreadRef) -> ops.ContextUse:
    from auger.core.middleware.model.context_meter import Meter
    from auger.core.models.specs import window_of

    meter = session.meter
    if not meter.seen:  # no call in this session yet: the saved conversation only
        meter = Meter(messages=tuple(await session.messages(request.thread_id)))
    parts = await asyncio.to_thread(meter.parts)
    total = sum(parts.values()) or 1
    per_char = session.context_tokens / total if session.meter.seen and session.context_tokens else 0.25
    window = window_of(session.runtime.settings, session.model_spec)
    found = [ops.ContextPart(name, chars, round(chars * per_char)) for name, chars in parts.items()]
    return ops.ContextUse(found, window, session.meter.seen)
