"""Where the sessions of `auger acp` come from: ports (`AgentPort`) on threads of one project.

Locally every ACP session is a Session over ONE Runtime (graph, checkpointer, MCP, hooks), opened
on the first `session/new` or `session/load` — after the handshake, so `initialize` never waits
for LangChain — with the editor's MCP servers (stdio ones; `mcpServers` of that first request)
joined to the user's; that first request returns once the servers are up (or failed), so their
tools are there for the first prompt, as in headless. With `--connect URL` each session is a
RemoteSession on `auger serve` instead (`auger.cli.agents.remote`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from auger.cli.agents import LocalOptions
    from auger.core.port import AgentPort
    from auger.core.runtime import Runtime
    from auger.settings import Settings


class SharedRuntime:
    """A session factory `(settings, thread_id) -> AgentPort` whose sessions share one Runtime."""

    def __init__(self, options: LocalOptions) -> None:
        self.options = options
        self.client_mcp: list[Any] = []  # the editor's MCP servers, for the Runtime when it opens
        self._runtime: Runtime | None = None
        self._stack = contextlib.AsyncExitStack()
        self._lock = asyncio.Lock()

    async def __call__(self, settings: Settings, thread_id: str | None) -> AgentPort:
        runtime = await self._open(settings)
        session = runtime.session()
        if thread_id is not None:
            await session.open_thread(thread_id)
        return session

    async def _open(self, settings: Settings) -> Runtime:
        async with self._lock:
            if self._runtime is None:
                from auger.cli.agents import preload

                await asyncio.to_thread(preload, settings)
                from auger.core.mcp.manager import mcp_manager
                from auger.core.runtime import open_runtime

                opts = self.options
                mcp = None
                if opts.use_mcp:
                    extra = [*opts.mcp_extra, *self._client_mcp_file()]
                    mcp = mcp_manager(settings, extra=extra, trust_project=opts.trust_project_mcp)
                runtime = await self._stack.enter_async_context(
                    open_runtime(settings, mcp=mcp, trust_project_hooks=opts.trust_project_hooks)
                )
                if mcp is not None:
                    await mcp.start(wait=True)  # their tools are there for the first prompt
                self._runtime = runtime
            return self._runtime

    def _client_mcp_file(self) -> list[str]:
        """The editor's stdio MCP servers as an `.mcp.json` file (ACP sends them per session)."""
        servers = {}
        for server in self.client_mcp:
            command = getattr(server, "command", None)
            if not command:
                continue  # http / sse servers: not advertised in mcpCapabilities
            env = {e.name: e.value for e in getattr(server, "env", None) or []}
            servers[server.name] = {"command": command, "args": list(server.args or []), "env": env}
        if not servers:
            return []
        folder = Path(self._stack.enter_context(tempfile.TemporaryDirectory(prefix="auger-acp-mcp-")))
        path = folder / "mcp.json"
        path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
        return [str(path)]

    async def aclose(self) -> None:
        await self._stack.aclose()
        self._runtime = None
