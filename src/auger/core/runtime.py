"""Runtime: what one auger process shares between its conversations, opened and closed once.

    async with open_runtime(settings, mcp=manager) as rt:
        session = rt.session()            # a conversation on a new thread (cheap, no I/O)
        await session.open_thread(ref)    # or resume one: restores its model and token count

The Runtime holds the compiled agent graph, the checkpointer and its SQLite connection, the
thread store and index, the MCP manager, the hook runner, the permission engine, the redactor and
the project backend. It never changes after it is opened (a persisted "always allow" rule is
added to the permission engine, which every session shares). The TUI and headless use one Session
on it; `auger serve` one per active thread (`auger.server.pool`). `open_session` is the shortcut
for a front end with one conversation: a Session that closes its Runtime with it.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from auger.core.hooks.runner import HookRunner
    from auger.core.mcp.manager import McpManager
    from auger.core.safety.permissions import PermissionEngine
    from auger.core.safety.redaction import Redactor
    from auger.core.session.session import Session
    from auger.core.threads.index import ThreadIndex
    from auger.core.threads.store import ThreadStore
    from auger.settings import Settings


@dataclass(frozen=True)
class Runtime:
    settings: Settings
    graph: Any  # the compiled deepagents graph (langgraph CompiledStateGraph)
    checkpointer: Any  # AsyncSqliteSaver on `threads.db`
    threads: ThreadStore
    index: ThreadIndex | None  # keeps `threads` current as turns start and end (None: record nothing)
    hooks: HookRunner
    permissions: PermissionEngine
    redactor: Redactor
    backend: Any  # the project backend (local shell, sandbox or files only), without the mounts
    mcp: McpManager | None = None
    default_model: BaseChatModel | None = None  # the chat model the graph was built with, if given

    def session(self, thread_id: str | None = None, *, record: bool = True) -> Session:
        """A conversation on `thread_id` (None: a new thread). Cheap: no I/O until a turn or
        `open_thread`. `record=False`: the thread index does not see it (throwaway chats)."""
        from auger.core.session.session import Session

        return Session(self, thread_id, record=record)


@contextlib.asynccontextmanager
async def open_runtime(
    settings: Settings,
    *,
    model: BaseChatModel | None = None,
    mcp: McpManager | None = None,
    trust_project_hooks: bool = False,
) -> AsyncIterator[Runtime]:
    """Open the thread store and checkpointer, build the agent, and close it all (MCP too) on exit.

    `model` overrides the configured chat model (tests pass a scripted one); `mcp` an `McpManager`
    (started or starting). A malformed `[permissions]` rule or hook file fails before any I/O."""
    from auger.core.agent.graph import create_cli_agent
    from auger.core.backends.factory import make_backend
    from auger.core.hooks.runner import HookRunner
    from auger.core.safety.permissions import PermissionEngine
    from auger.core.safety.redaction import configure
    from auger.core.threads.backend import thread_database
    from auger.core.threads.checkpoints.checkpointer import open_saver
    from auger.core.threads.index import ThreadIndex
    from auger.core.threads.store import ThreadStore

    async with contextlib.AsyncExitStack() as stack:
        if mcp is not None:
            stack.push_async_callback(mcp.aclose)
        permissions = PermissionEngine.from_settings(settings)
        hooks = HookRunner.from_settings(settings, trust_project=trust_project_hooks)
        db = thread_database(settings)
        store = stack.enter_context(ThreadStore.connect(db))  # validates + migrates the database
        saver, conn = await open_saver(db)
        stack.push_async_callback(conn.close)
        backend = make_backend(settings)
        if callable(close := getattr(backend, "close", None)):
            stack.callback(close)  # a sandbox's private /tmp (os._exit at the end skips finalizers)
        graph = create_cli_agent(
            settings,
            checkpointer=saver,
            model=model,
            backend=backend,
            mcp=mcp,
        )
        yield Runtime(
            settings,
            graph,
            saver,
            store,
            ThreadIndex(store, settings, graph),
            hooks,
            permissions,
            configure(settings),
            backend,
            mcp,
            model,
        )


async def open_session(settings: Settings, thread_id: str | None = None, **options: Any) -> Session:
    """A Session on `thread_id` (None: new) over a Runtime of its own, closed with the session:
    what a front end with one conversation uses. `options` are `open_runtime`'s."""
    stack = contextlib.AsyncExitStack()
    try:
        runtime = await stack.enter_async_context(open_runtime(settings, **options))
        from auger.core.session.session import Session

        session = Session(runtime, closing=stack)
        if thread_id is not None:
            await session.open_thread(thread_id)
    except BaseException:
        await stack.aclose()
        raise
    return session
