"""MCP servers for the agent: one long-lived session per server, held open by its own task.

A stdio `ClientSession` answers a tool call in milliseconds; spawning a server per call (what
`MultiServerMCPClient.get_tools()` tools do) costs about a second. Each server runs in one asyncio
task that enters and exits its transport, session and pump (anyio cancel scopes must be left by
the task that entered them); tool calls from any task go through that session.

Failures never escape into the agent loop: a tool whose server failed, crashed or hung returns an
error result the model can read, and the user gets a notice. `mcp` / `langchain_mcp_adapters` are
imported lazily so importing this module stays cheap.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast

from auger.core.mcp.callers import ANSWERER, Busy, Callers
from auger.core.mcp.client import REQUEST_TIMEOUT, client_session_class, progress_sink, roots_callback
from auger.core.mcp.config import McpServerConfig, TrustStore, project_servers, untrusted_hint
from auger.core.mcp.form_clock import TIMED_OUT, FormClock, held
from auger.core.mcp.names import safe, tool_name
from auger.core.mcp.prompts import McpPrompt, McpPromptError
from auger.core.mcp.server_requests import elicitation_callback, sampling_callback
from auger.core.safety.redaction import credentials_in_env, default_redactor, secrets_in_env

if TYPE_CHECKING:
    from langchain_core.tools import BaseTool
    from mcp import ClientSession
    from mcp.shared.session import ProgressFnT
    from mcp.types import CallToolResult

_CONNECTION_CLOSED = -32000  # mcp.types.CONNECTION_CLOSED


@dataclass
class _Server:
    config: McpServerConfig
    status: str = "starting"  # starting | connected | failed | disabled | untrusted
    error: str | None = None
    session: ClientSession | None = None
    tools: list[BaseTool] = field(default_factory=list)
    prompts: list[McpPrompt] = field(default_factory=list)
    resources: list[Any] = field(default_factory=list)  # mcp.types.Resource
    templates: list[Any] = field(default_factory=list)  # mcp.types.ResourceTemplate
    task: asyncio.Task[None] | None = None
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    down: asyncio.Event = field(default_factory=asyncio.Event)  # set when a running server fails
    log_path: Path | None = None
    starts: int = 0
    forms: FormClock = field(default_factory=FormClock)
    callers: Callers = field(default_factory=Callers)  # whose calls it serves now (its requests' answerer)


class _SessionProxy:
    """What `load_mcp_tools` sees as the session: calls go to whatever session the server has *now*,
    so tools keep working across `restart()`, and every failure becomes an `isError` result."""

    def __init__(self, manager: McpManager, server: str) -> None:
        self._manager, self._server = manager, server

    async def list_tools(self, cursor: str | None = None) -> Any:
        session = self._manager._servers[self._server].session
        assert session is not None
        return await session.list_tools(cursor=cursor)

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, **kw: Any) -> Any:
        return await self._manager._call(self._server, name, arguments, kw.get("progress_callback"))


def _error_result(text: str) -> CallToolResult:
    from mcp.types import CallToolResult, TextContent

    return CallToolResult(content=[TextContent(type="text", text=text)], isError=True)


class McpManager:
    """Starts, calls, restarts and stops the configured MCP servers."""

    def __init__(
        self,
        servers: Iterable[McpServerConfig],
        log_dir: Path,
        call_timeout: float = 60.0,
        *,
        startup_timeout: float = 30.0,
        on_notice: Callable[[str], None] | None = None,
        problems: Iterable[str] = (),
        roots: Iterable[Path] = (),
        oauth_home: Path | None = None,
    ) -> None:
        """`problems`: what was wrong with the configuration (broken files, bad entries; each was
        skipped) — shown as notices on the first turn, like servers that cannot start. `roots`:
        the folders servers are told they may work in (`roots/list`): the project. `oauth_home`:
        where HTTP servers' OAuth tokens are kept (`auger.core.mcp.oauth`); None: no OAuth."""
        self.log_dir = Path(log_dir)
        self.roots = [Path(r) for r in roots]
        self.oauth_home = oauth_home
        self.call_timeout = call_timeout
        self.startup_timeout = startup_timeout
        self._on_notice = on_notice
        self._notices: deque[str] = deque(
            (f"{p} Skipped; auger runs without it." for p in problems), maxlen=100
        )
        self._servers: dict[str, _Server] = {}
        for cfg in servers:
            srv = _Server(cfg)
            if cfg.disabled:
                srv.status = "disabled"
            elif cfg.error:
                srv.status, srv.error = "failed", cfg.error
                self._notices.append(f"MCP server '{cfg.name}' not started: {cfg.error}.")
            elif not cfg.trusted:
                srv.status, srv.error = "untrusted", untrusted_hint(cfg.project_root)
            self._servers[cfg.name] = srv
        untrusted = [s for s in self._servers.values() if s.status == "untrusted"]
        if untrusted:  # shown once, on the first turn
            names = ", ".join(s.config.name for s in untrusted)
            self._notices.append(f"Not started: {names}. {untrusted[0].error}")

    # -- lifecycle -----------------------------------------------------------------------------
    async def start(self, *, wait: bool = True) -> None:
        """Start every enabled, trusted server concurrently, each in its own background task.
        `wait=False` returns at once (watch `status()`, or `await wait_ready()` later)."""
        for srv in self._servers.values():
            if srv.status == "starting" and srv.task is None:
                self._launch(srv)
        if wait:
            await self.wait_ready()

    async def wait_ready(self) -> None:
        """Until no server is still starting (each gives up after `startup_timeout`)."""
        await asyncio.gather(*(s.ready.wait() for s in self._servers.values() if s.task is not None))

    async def restart(self, name: str) -> None:
        """Stop (if running) and start one server again; waits until it is connected or failed."""
        srv = self._servers[name]
        if srv.status in ("disabled", "untrusted") or srv.config.error:
            return
        await self._stop(srv)
        self._launch(srv)
        await srv.ready.wait()

    async def trust_project(self, store: TrustStore) -> None:
        """The user approved the project's `.mcp.json`: remember it, read it in full (until now only
        its server names were read) and start its servers."""
        import os

        pending = [s for s in self._servers.values() if s.status == "untrusted"]
        fresh: dict[str, McpServerConfig] = {}
        problems: list[str] = []
        for root in {s.config.project_root for s in pending if s.config.project_root}:
            store.trust(root)
            fresh |= project_servers(root, env=os.environ, problems=problems)
        for text in problems:
            self._notify(f"{text} Skipped; auger runs without it.")
        started = []
        for srv in pending:
            srv.config = fresh.get(srv.config.name) or replace(srv.config, trusted=True)
            if srv.config.command is None and srv.config.url is None:  # its entry did not parse
                srv.status, srv.error = "failed", "its entry in .mcp.json is not a valid server"
                continue
            self._launch(srv)
            started.append(srv)
        await asyncio.gather(*(s.ready.wait() for s in started))

    async def aclose(self) -> None:
        """Shut every server down (stdio: stdin closed, then SIGTERM/SIGKILL) and wait for it."""
        await asyncio.gather(*(self._stop(s) for s in self._servers.values()))

    def _launch(self, srv: _Server) -> None:
        own = {**srv.config.env, **srv.config.headers}  # its secrets never come back in its results
        default_redactor().add([*secrets_in_env(own).items(), *credentials_in_env(own)])
        srv.status, srv.error, srv.tools = "starting", None, []
        srv.prompts, srv.resources, srv.templates = [], [], []
        srv.stop, srv.ready, srv.down = asyncio.Event(), asyncio.Event(), asyncio.Event()
        srv.task = asyncio.create_task(self._hold(srv), name=f"mcp:{srv.config.name}")

    async def _stop(self, srv: _Server) -> None:
        task = srv.task
        if task is None:
            return
        srv.stop.set()
        try:  # a server still starting has no session to close politely: no grace period for it
            await asyncio.wait_for(asyncio.shield(task), 10 if srv.ready.is_set() else 0)
        except TimeoutError:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        srv.task, srv.session = None, None
        if srv.status in ("connected", "starting"):
            srv.status = "failed"
            srv.error = "stopped"

    # -- the per-server task -------------------------------------------------------------------
    async def _hold(self, srv: _Server) -> None:
        import anyio
        from langchain_mcp_adapters.tools import load_mcp_tools

        srv.starts += 1
        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await self._open_transport(srv, stack)
                pump_send, pump_recv = anyio.create_memory_object_stream[Any](0)
                group = await stack.enter_async_context(anyio.create_task_group())
                stack.callback(group.cancel_scope.cancel)
                group.start_soon(self._pump, srv, read, pump_send)
                name, requests = srv.config.name, lambda: srv.callers.answerer
                client = client_session_class()(
                    pump_recv,
                    write,
                    list_roots_callback=roots_callback(self.roots),
                    sampling_callback=sampling_callback(name, requests),
                    elicitation_callback=held(srv.forms, elicitation_callback(name, requests)),
                )
                session = await stack.enter_async_context(client)
                with anyio.fail_after(self.startup_timeout):
                    await session.initialize()
                    srv.session = session
                    proxy: Any = _SessionProxy(self, name)
                    srv.tools = await load_mcp_tools(proxy, server_name=name)
                    await self._list_features(srv, session)
                srv.status = "connected"
                srv.ready.set()
                await srv.stop.wait()
        except Exception as exc:
            if not srv.stop.is_set() and srv.status != "failed":
                verb = "stopped working" if srv.status == "connected" else "failed to start"
                self._fail(srv, f"{verb}: {self._describe(exc)}{self._stderr_tail(srv)}")
        finally:
            srv.session = None
            srv.ready.set()

    async def _list_features(self, srv: _Server, session: ClientSession) -> None:
        """The server's prompts and resources, when it has them (a failure here costs only those)."""
        caps = session.get_server_capabilities()
        name = srv.config.name
        try:
            if caps is not None and caps.prompts is not None:
                listed = await session.list_prompts()
                srv.prompts = [McpPrompt.from_mcp(name, p) for p in listed.prompts]
            if caps is not None and caps.resources is not None:
                srv.resources = list((await session.list_resources()).resources)
                srv.templates = list((await session.list_resource_templates()).resourceTemplates)
        except Exception as exc:
            self._notify(f"MCP server '{name}': could not list its prompts/resources: {self._describe(exc)}")

    def _open_log(self, srv: _Server) -> TextIO:
        """The stdio server's stderr log (`$AUGER_HOME/logs/mcp-NAME.log`), a header line written."""
        cfg = srv.config
        self.log_dir.mkdir(parents=True, exist_ok=True)
        srv.log_path = self.log_dir / f"mcp-{safe(cfg.name)}.log"
        log = srv.log_path.open("a" if srv.starts > 1 else "w", encoding="utf-8")
        log.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} {cfg.command} {' '.join(cfg.args)}\n")
        log.flush()
        return log

    async def _open_transport(self, srv: _Server, stack: contextlib.AsyncExitStack) -> tuple[Any, Any]:
        cfg = srv.config
        if cfg.transport == "stdio":
            from mcp.client.stdio import StdioServerParameters, stdio_client

            log = stack.enter_context(await asyncio.to_thread(self._open_log, srv))  # file I/O: off the loop
            assert cfg.command is not None
            params = StdioServerParameters(
                command=cfg.command, args=list(cfg.args), env=cfg.env or None, cwd=cfg.cwd
            )
            return await stack.enter_async_context(stdio_client(params, errlog=log))
        assert cfg.url is not None
        if cfg.transport == "sse":
            from mcp.client.sse import sse_client

            sse = sse_client(cfg.url, headers=cfg.headers or None, auth=self._oauth(srv))
            return await stack.enter_async_context(sse)
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        client = await stack.enter_async_context(
            create_mcp_http_client(headers=cfg.headers or None, auth=self._oauth(srv))
        )
        read, write, _ = await stack.enter_async_context(streamable_http_client(cfg.url, http_client=client))
        return read, write

    def _oauth(self, srv: _Server) -> Any:
        """OAuth for an HTTP server that brings no Authorization header of its own."""
        cfg = srv.config
        if (
            self.oauth_home is None
            or cfg.url is None
            or any(k.lower() == "authorization" for k in cfg.headers)
        ):
            return None
        from auger.core.mcp.oauth import oauth_provider

        return oauth_provider(self.oauth_home, cfg.name, cfg.url, self._notify)

    async def _pump(self, srv: _Server, read: Any, send: Any) -> None:
        """Forward server messages to the session; the end of the stream means the server went away."""
        import anyio

        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            async with send:
                async for message in read:
                    await send.send(message)
        if not srv.stop.is_set() and srv.status == "connected":
            # Not torn down here: the session must first fail the calls in flight ("Connection
            # closed"); restart() or aclose() clean up the dead transport.
            self._fail(srv, f"exited unexpectedly{self._stderr_tail(srv)}")

    # -- tool calls ----------------------------------------------------------------------------
    async def _call(self, server: str, tool: str, args: dict[str, Any] | None, progress: Any) -> Any:
        srv = self._servers[server]
        try:
            async with srv.callers.calling(self.call_timeout):  # its requests go to this call's turn
                return await self._call_now(srv, tool, args, progress)
        except Busy:
            return _error_result(self._busy(server, f"'{tool}'"))

    def _busy(self, server: str, what: str) -> str:
        return (
            f"MCP server '{server}' was busy with another thread's calls for {self.call_timeout:g}s, "
            f"so {what} was not sent; try again."
        )

    async def _call_now(self, srv: _Server, tool: str, args: dict[str, Any] | None, progress: Any) -> Any:
        from mcp.shared.exceptions import McpError

        server = srv.config.name
        session = srv.session
        if session is None or srv.status != "connected":
            why = f" ({srv.error})" if srv.error else ""
            return _error_result(
                f"MCP server '{server}' is not available: {srv.status}{why}. "
                "The user can restart it with /mcp; do not retry this tool until then."
            )
        coro = session.call_tool(  # no SDK read timeout: auger's own, which waits while a form is open
            tool, args, progress_callback=cast("ProgressFnT | None", progress or progress_sink())
        )
        call = asyncio.ensure_future(coro)
        call.add_done_callback(lambda t: t.cancelled() or t.exception())  # never "never retrieved"
        down = asyncio.ensure_future(srv.down.wait())  # the server died: do not wait for the timeout
        answered: bool | None = None  # stays None when this task is cancelled (Esc)
        try:
            answered = await srv.forms.wait_call(call, down, self.call_timeout)
        finally:
            down.cancel()
            if not call.done():  # the timeout (its reason to the server), Esc, or the server died
                call.cancel(TIMED_OUT if answered is False else None)
        if not answered:
            return self._timed_out(server, tool)
        if not call.done() or call.cancelled():
            return self._lost(srv, tool)
        try:
            result = call.result()
        except McpError as exc:
            return self._mcp_error(srv, tool, exc.error.code, exc.error.message)
        except Exception as exc:
            return _error_result(f"MCP tool '{tool}' failed: {self._describe(exc)}")
        from auger.core.mcp.results import renderable

        return renderable(result)

    def _mcp_error(self, srv: _Server, tool: str, code: int, message: str) -> CallToolResult:
        server = srv.config.name
        if code == REQUEST_TIMEOUT:
            return self._timed_out(server, tool)
        if code == _CONNECTION_CLOSED:
            if srv.status == "connected":
                self._fail(srv, f"exited during a call to '{tool}'{self._stderr_tail(srv)}")
            return self._lost(srv, tool)
        return _error_result(f"MCP tool '{tool}' failed: {message}")

    def _lost(self, srv: _Server, tool: str) -> CallToolResult:
        return _error_result(f"MCP server '{srv.config.name}' failed while running '{tool}': {srv.error}")

    def _timed_out(self, server: str, tool: str) -> CallToolResult:
        said = f"MCP tool '{tool}' on server '{server}' timed out after {self.call_timeout:g}s."
        turn = ANSWERER.get()
        if turn is not None:
            turn.notify(said)  # the calling turn's stream, not whichever turn drains the manager's
        else:
            self._notify(said)
        return _error_result(f"MCP tool '{tool}' (server '{server}') timed out after {self.call_timeout:g}s.")

    # -- what the agent and the UI see ---------------------------------------------------------
    def tools(self) -> list[BaseTool]:
        """Tools of every connected server, each named `mcp__SERVER__TOOL` (`auger.core.mcp.names`):
        a name never depends on which other servers are configured or running. Metadata gains
        `mcp_server`, `mcp_tool` and `read_only`."""
        out: list[BaseTool] = []
        for srv in self._servers.values():
            if srv.status != "connected":
                continue
            for tool in srv.tools:
                meta = dict(tool.metadata or {})
                read_only = srv.config.read_only or meta.get("readOnlyHint") is True
                meta.update(mcp_server=srv.config.name, mcp_tool=tool.name, read_only=read_only)
                name = tool_name(srv.config.name, tool.name)
                out.append(tool.model_copy(update={"name": name, "metadata": meta}))
        return out

    def prompts(self) -> list[McpPrompt]:
        """Prompts of every connected server; each runs as `/{prompt.command} args`."""
        return [p for s in self._servers.values() if s.status == "connected" for p in s.prompts]

    def resources(self) -> list[tuple[str, Any]]:
        """(server, mcp.types.Resource) of every connected server."""
        return [(n, r) for n, s in self._servers.items() if s.status == "connected" for r in s.resources]

    def resource_templates(self) -> list[tuple[str, Any]]:
        return [(n, t) for n, s in self._servers.items() if s.status == "connected" for t in s.templates]

    def connected(self) -> list[str]:
        return [n for n, s in self._servers.items() if s.status == "connected"]

    async def get_prompt(self, prompt: McpPrompt, arguments: dict[str, str]) -> Any:
        """`prompts/get` (McpPromptError naming the server when it fails)."""
        return await self._request(
            prompt.server, f"prompt '{prompt.name}'", lambda s: s.get_prompt(prompt.name, arguments)
        )

    async def read_resource(self, server: str, uri: str) -> Any:
        """`resources/read` (McpPromptError naming the server and URI when it fails)."""
        from pydantic import AnyUrl

        return await self._request(server, f"resource {uri}", lambda s: s.read_resource(AnyUrl(uri)))

    async def _request(self, server: str, what: str, send: Callable[[Any], Any]) -> Any:
        from mcp.shared.exceptions import McpError

        srv = self._servers.get(server)
        if srv is None or srv.session is None or srv.status != "connected":
            state = "not configured" if srv is None else srv.status
            raise McpPromptError(
                f"MCP server '{server}' is not available ({state}), so {what} cannot be read."
            )
        try:
            async with srv.callers.calling(self.call_timeout):
                return await asyncio.wait_for(send(srv.session), self.call_timeout)
        except Busy as exc:
            raise McpPromptError(self._busy(server, what)) from exc
        except McpError as exc:
            raise McpPromptError(f"MCP server '{server}' refused {what}: {exc.error.message}") from exc
        except TimeoutError as exc:
            raise McpPromptError(
                f"MCP server '{server}' did not answer for {what} within {self.call_timeout:g}s."
            ) from exc
        except Exception as exc:
            raise McpPromptError(f"MCP server '{server}' failed on {what}: {self._describe(exc)}") from exc

    def status(self) -> list[dict[str, Any]]:
        return [
            {
                "name": name,
                "status": srv.status,
                "tools": [tool_name(name, t.name) for t in srv.tools] if srv.status == "connected" else [],
                "error": srv.error,
                "source": srv.config.source,
                "transport": srv.config.transport,
                "log": str(srv.log_path) if srv.log_path else None,
            }
            for name, srv in self._servers.items()
        ]

    def drain_notices(self) -> list[str]:
        """Notices queued while no `on_notice` callback was given."""
        out = list(self._notices)
        self._notices.clear()
        return out

    # -- helpers -------------------------------------------------------------------------------
    def _notify(self, text: str) -> None:
        if self._on_notice is not None:
            self._on_notice(text)
        else:
            self._notices.append(text)

    def _fail(self, srv: _Server, error: str) -> None:
        srv.status, srv.error = "failed", error
        srv.down.set()
        self._notify(f"MCP server '{srv.config.name}' {error}")

    def _describe(self, exc: BaseException) -> str:
        while isinstance(exc, BaseExceptionGroup) and exc.exceptions:  # anyio's task groups wrap it
            exc = exc.exceptions[0]
        if isinstance(exc, FileNotFoundError):
            return f"command not found: {exc.filename or exc}"
        if isinstance(exc, TimeoutError):
            return f"no answer within {self.startup_timeout:g}s"
        code = getattr(getattr(exc, "error", None), "code", None)
        if code == _CONNECTION_CLOSED:
            return "the server closed the connection"
        return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__

    def _stderr_tail(self, srv: _Server, lines: int = 3) -> str:
        if srv.log_path is None:
            return ""
        try:
            with srv.log_path.open("rb") as log:
                log.seek(max(0, log.seek(0, 2) - 4096))
                text = log.read().decode("utf-8", "replace").splitlines()
        except OSError:
            return ""
        tail = [ln for ln in text if ln.strip() and not ln.startswith("--- ")][-lines:]
        where = f" (log: {srv.log_path})"
        return f"; stderr: {' | '.join(tail)}{where}" if tail else where


def mcp_manager(
    settings: Any, *, extra: Iterable[str] = (), trust_project: bool = False
) -> McpManager | None:
    """The manager for the servers `settings` (and `--mcp-config` files) configure, not started;
    None when there are none."""
    from auger.core.mcp.config import servers_from_settings
    from auger.paths import logs_dir

    problems: list[str] = []
    servers = servers_from_settings(
        settings, extra=list(extra), trust_project=trust_project, problems=problems
    )
    if not servers and not problems:
        return None
    timeout = float(settings.get("mcp.call_timeout", 60.0))
    return McpManager(
        servers,
        logs_dir(settings.home),
        timeout,
        problems=problems,
        roots=[settings.project_root],
        oauth_home=settings.home,
    )


async def start_mcp(
    settings: Any, *, extra: Iterable[str] = (), trust_project: bool = False
) -> McpManager | None:
    """`mcp_manager(...)`, started (its servers connected or failed)."""
    manager = mcp_manager(settings, extra=extra, trust_project=trust_project)
    if manager is not None:
        await manager.start()
    return manager
