"""Where the agent runs, for the `auger` command: in this process or on an `auger serve` server.

`local(options)` and `remote(url, token)` return a session factory, `await factory(settings,
thread_id)` -> an `AgentPort` on that thread (None: a new one). Both are cheap to call before
the TUI's first paint: the heavy imports happen when the factory runs (in the TUI's boot worker,
the agent stack is imported in a thread so the screen keeps painting).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from auger.core.port import AgentPort, SessionFactory
    from auger.settings import Settings

TOKEN_ENV = "AUGER_SERVE_TOKEN"
HEAVY = (
    "langchain_core.messages",
    "langgraph.checkpoint.sqlite.aio",
    "deepagents",
    "auger.core.agent.graph",
    "auger.core.session.session",
    "auger.core.session.turn",
)


class LocalOptions(NamedTuple):  # (a NamedTuple: a dataclass costs ~0.5 ms before the first paint)
    use_mcp: bool = True
    mcp_extra: Sequence[str] = ()
    trust_project_mcp: bool = False
    trust_project_hooks: bool = False
    wait_for_mcp: bool = False  # headless: the servers' tools are there for the first call


def options_from_args(args: Any, *, headless: bool = False) -> LocalOptions:
    return LocalOptions(
        not args.no_mcp,
        tuple(args.mcp_config or ()),
        args.trust_project,
        args.trust_project,
        headless,
    )


def preload(settings: Settings) -> None:
    """Import what building the agent needs (run in a worker thread)."""
    for name in HEAVY:
        importlib.import_module(name)
    if not settings.model:
        return
    from auger.core.models.providers import provider_of
    from auger.core.models.specs import parse_spec

    try:
        spec = parse_spec(settings.model, settings.providers)
    except Exception:  # reported properly when the session is built
        return
    module = "auger.core.models.openai_compat" if spec.base_url else provider_of(spec).module
    with contextlib.suppress(ImportError):
        importlib.import_module(module)


def local(options: LocalOptions | None = None) -> SessionFactory:
    """A Session in this process, over a Runtime of its own; MCP servers connect in the background
    (their tools join as they come) unless `wait_for_mcp`."""
    opts = options or LocalOptions()

    async def create(settings: Settings, thread_id: str | None) -> AgentPort:
        await asyncio.to_thread(preload, settings)
        from auger.core.mcp.manager import mcp_manager
        from auger.core.runtime import open_session

        mcp = None
        if opts.use_mcp:
            mcp = mcp_manager(settings, extra=opts.mcp_extra, trust_project=opts.trust_project_mcp)
        if mcp is not None and opts.wait_for_mcp:
            try:
                await mcp.start(wait=True)
            except BaseException:  # (a --timeout while the servers start)
                await mcp.aclose()
                raise
        session = await open_session(
            settings, thread_id, mcp=mcp, trust_project_hooks=opts.trust_project_hooks
        )  # closes `mcp` when it fails
        if mcp is not None and not opts.wait_for_mcp:
            await mcp.start(wait=False)
        return session

    return create


def remote(url: str, token: str | None = None) -> SessionFactory:
    """A RemoteSession on `auger serve` at `url`, or a LangGraphSession when `url` is a LangGraph
    Server hosting auger's graph (`auger.remote.langgraph`). `--mode`/`--model` (or AUGER_MODE/AUGER_MODEL)
    given here win over the server's defaults; a mode or model merely configured on this machine
    does not (the server's config decides)."""
    token = token or os.environ.get(TOKEN_ENV)

    async def create(settings: Settings, thread_id: str | None) -> AgentPort:
        from auger.remote.client import RemoteSession
        from auger.remote.langgraph import LangGraphSession, is_langgraph_server

        session: RemoteSession | LangGraphSession
        if await is_langgraph_server(url):  # auger hosted by `langgraph dev` / LangGraph Platform
            session = await LangGraphSession.connect(url, token, thread_id=thread_id)
        else:
            session = await RemoteSession.connect(url, token, thread_id=thread_id)
        try:
            if not settings.sources.get("mode", "default").startswith(("flag", "env")):
                settings.mode = session.default_mode
            if settings.model and settings.sources.get("model", "").startswith(("flag", "env")):
                await session.set_model(settings.model)
        except BaseException:
            await session.aclose()
            raise
        return session

    return create
