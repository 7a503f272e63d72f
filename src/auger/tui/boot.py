"""Building the Session for the TUI, off the paint path.

The heavy imports (langchain, deepagents, the provider's client) run in a thread so the event loop
keeps painting and echoing keys; the Session is then built on the loop. MCP servers start in the
background and their tools join the agent as they connect.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from auger.core.session.session import Session
    from auger.settings import Settings

SessionFactory = Callable[["Settings", "str | None"], Awaitable["Session"]]
HEAVY = (
    "langchain_core.messages",
    "langgraph.checkpoint.sqlite.aio",
    "deepagents",
    "auger.core.agent.graph",
    "auger.core.session.session",
    "auger.core.session.stream",
)


class BootOptions(NamedTuple):  # (a NamedTuple: a dataclass costs ~0.5 ms before the first paint)
    use_mcp: bool = True
    mcp_extra: Sequence[str] = ()
    trust_project_mcp: bool = False
    trust_project_hooks: bool = False


def preload(settings: Settings) -> None:
    """Import what building the agent needs (run in a worker thread)."""
    for name in HEAVY:
        importlib.import_module(name)
    if not settings.model:
        return
    from auger.core.models.specs import BUILTIN, parse_spec

    try:
        spec = parse_spec(settings.model, settings.providers)
    except Exception:  # reported properly when the session is built
        return
    module = "auger.core.models.openai_compat" if spec.base_url else BUILTIN[spec.provider].module
    with contextlib.suppress(ImportError):
        importlib.import_module(module)


def session_factory(options: BootOptions | None = None) -> SessionFactory:
    """The real factory: `create_session` with MCP, after preloading in a thread."""
    opts = options or BootOptions()

    async def create(settings: Settings, thread_id: str | None) -> Session:
        await asyncio.to_thread(preload, settings)
        from auger.core.session.session import create_session

        mcp: Any = None
        if opts.use_mcp:
            from auger.core.mcp.manager import mcp_manager

            mcp = mcp_manager(settings, extra=opts.mcp_extra, trust_project=opts.trust_project_mcp)
        try:
            session = await create_session(
                settings, thread_id=thread_id, mcp=mcp, trust_project_hooks=opts.trust_project_hooks
            )
        except BaseException:
            if mcp is not None:
                await mcp.aclose()
            raise
        if mcp is not None:  # the servers connect in the background; their tools join when ready
            await mcp.start(wait=False)
        return session

    return create
